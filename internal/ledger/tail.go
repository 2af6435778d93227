package ledger

import (
	"slices"

	"github.com/a2astream/a2astream/a2a"
)

// The parts a live stream appends to an artifact are held outside its
// []Part until something reads them. An append to a []Part that is full
// allocates a larger array and copies every part held into it, and Go
// grows a large slice by a quarter, so each part is copied and cleared
// several times over the life of a long artifact: the cost of an append
// grew with the artifact and with the machine's memory speed. A tail holds
// the parts appended since the []Part was last built, in blocks that are
// never grown or moved (a blockList); building the []Part (artifacts.build)
// moves the tail into it in one copy, when a decision must read every part
// or the assembled task is read.

// tail is the parts appended to an artifact after its Parts, in order.
// Its blocks never move (see blockList).
type tail struct {
	blockList[tailPart]
}

// tailPart is one part of a tail. A text part (text with its media type
// and metadata, but no file name: what a stream of tokens appends) is held
// as those three fields, in 40 % of the memory of an a2a.Part, and with no
// allocation of its own; any other part whole.
type tailPart struct {
	text, mediaType string
	metadata        map[string]any
	other           *a2a.Part // nil for a text part
}

// add appends p.
func (t *tail) add(p *a2a.Part) {
	tp := t.push()
	if !p.IsText() || p.Filename != "" {
		whole := new(a2a.Part)
		*whole = *p
		tp.other = whole
		return
	}
	*tp = tailPart{text: p.Text, mediaType: p.MediaType, metadata: p.Metadata}
}

// at returns part i of the tail, which holds it: the part itself for a
// part held whole, else the part built in buf.
func (t *tail) at(i int, buf *a2a.Part) *a2a.Part {
	tp := t.blockList.at(i)
	if tp.other != nil {
		return tp.other
	}
	*buf = a2a.Part{Text: tp.text, MediaType: tp.mediaType, Metadata: tp.metadata}
	return buf
}

// moveTo appends the tail's parts to dst, in one growth of dst at most,
// and returns the extended slice; the tail is then empty and holds no
// block. A text part's fields are set one by one: a whole a2a.Part
// assigned is copied with a bulk write barrier over its pointers while the
// collector runs, which made the copy of a long artifact's parts cost
// several times the copy itself. Every field is set, since the room after
// dst's length may hold an earlier part.
func (t *tail) moveTo(dst []a2a.Part) []a2a.Part {
	k := len(dst)
	dst = slices.Grow(dst, t.n)[:k+t.n]
	for _, b := range t.blocks {
		for i := range b {
			p := &dst[k]
			k++
			if b[i].other != nil {
				*p = *b[i].other
				continue
			}
			p.Text, p.MediaType, p.Metadata = b[i].text, b[i].mediaType, b[i].metadata
			p.Data, p.URL, p.Raw, p.Filename = nil, "", nil, ""
		}
	}
	*t = tail{}
	return dst
}
