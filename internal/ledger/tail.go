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
// never grown or moved; building the []Part (artifacts.build) moves the
// tail into it in one copy, when the assembled task is read.

const (
	// firstBlock is the capacity of a tail's first block: a short tail
	// (the usual append of a few parts between two reads) costs little.
	firstBlock = 8
	// maxBlock is the largest block: a block is allocated for every
	// maxBlock parts of a long artifact, 48 KiB each.
	maxBlock = 1024
)

// tail is the parts appended to an artifact after its Parts, in order.
type tail struct {
	blocks [][]tailPart // each full but the last; a block's capacity is never exceeded
	n      int          // parts over all blocks
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
	last := len(t.blocks) - 1
	if last < 0 || len(t.blocks[last]) == cap(t.blocks[last]) {
		size := firstBlock
		if last >= 0 {
			size = min(2*cap(t.blocks[last]), maxBlock)
		}
		t.blocks = append(t.blocks, make([]tailPart, 0, size))
		last++
	}
	tp := tailPart{text: p.Text, mediaType: p.MediaType, metadata: p.Metadata}
	if !p.IsText() || p.Filename != "" {
		whole := new(a2a.Part)
		*whole = *p
		tp = tailPart{other: whole}
	}
	t.blocks[last] = append(t.blocks[last], tp)
	t.n++
}

// moveTo appends the tail's parts to dst, in one growth of dst at most,
// and returns the extended slice; the tail is then empty and holds no
// block.
func (t *tail) moveTo(dst []a2a.Part) []a2a.Part {
	dst = slices.Grow(dst, t.n)
	for _, b := range t.blocks {
		for i := range b {
			if b[i].other != nil {
				dst = append(dst, *b[i].other)
			} else {
				dst = append(dst, a2a.Part{Text: b[i].text, MediaType: b[i].mediaType, Metadata: b[i].metadata})
			}
		}
	}
	*t = tail{}
	return dst
}
