package ledger

import (
	"slices"
	"sort"

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
//
// A tail is small: what a stream of tokens appends is text parts of one
// media type and no metadata, and a tail holds of each only its text (16
// bytes), the media type once for the run of parts that share it. Memory a
// process has not used before costs far more to touch than memory it
// reuses (a page fault, and on a virtual machine the host's too), and a
// long stream's tail is all new memory: at a million parts, the 48 bytes a
// part the tail held before were about a tenth of the driver's CPU.

// tail is the parts appended to an artifact after its Parts, in order: the
// text of each (its blockList), and the runs of parts that share the rest.
// Its blocks never move (see blockList).
type tail struct {
	blockList[string] // part i's text; "" for a part held whole
	runs              blockList[tailRun]
}

// tailRun is the parts of a tail from its start to the next run's start: a
// text part held whole, or text parts (text with a media type, but no file
// name: what a stream of tokens appends), each its text in the tail, with
// this media type and metadata. Text parts share a run only when they have
// no metadata: a part's metadata is its own map, never shared with another
// part's.
type tailRun struct {
	start     int // the run's first part
	mediaType string
	metadata  map[string]any
	whole     *a2a.Part // the run's one part, held whole; nil for text parts
}

// add appends p.
func (t *tail) add(p *a2a.Part) {
	if !p.IsText() || p.Filename != "" {
		whole := new(a2a.Part)
		*whole = *p
		*t.runs.push() = tailRun{start: t.n, whole: whole}
		*t.push() = ""
		return
	}
	if t.runs.n == 0 || !t.runs.at(t.runs.n-1).joins(p) {
		*t.runs.push() = tailRun{start: t.n, mediaType: p.MediaType, metadata: p.Metadata}
	}
	*t.push() = p.Text
}

// joins reports whether the text part p, appended after the run's parts,
// belongs in the run.
func (r *tailRun) joins(p *a2a.Part) bool {
	return r.whole == nil && r.metadata == nil && p.Metadata == nil && r.mediaType == p.MediaType
}

// runOf returns the run that holds part i of the tail.
func (t *tail) runOf(i int) *tailRun {
	k := t.runs.n - 1
	if k > 0 && t.runs.at(k).start > i {
		k = sort.Search(t.runs.n, func(k int) bool { return t.runs.at(k).start > i }) - 1
	}
	return t.runs.at(k)
}

// at returns part i of the tail, which holds it: the part itself for a
// part held whole, else the part built in buf.
func (t *tail) at(i int, buf *a2a.Part) *a2a.Part {
	r := t.runOf(i)
	if r.whole != nil {
		return r.whole
	}
	*buf = a2a.Part{Text: *t.blockList.at(i), MediaType: r.mediaType, Metadata: r.metadata}
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
	run, r, next := 0, (*tailRun)(nil), 0 // next: the first part after run r
	i := 0
	for _, b := range t.blocks {
		for j := range b {
			if i == next {
				r, run = t.runs.at(run), run+1
				next = t.n
				if run < t.runs.n {
					next = t.runs.at(run).start
				}
			}
			p := &dst[k]
			k, i = k+1, i+1
			if r.whole != nil {
				*p = *r.whole
				continue
			}
			p.Text, p.MediaType, p.Metadata = b[j], r.mediaType, r.metadata
			p.Data, p.URL, p.Raw, p.Filename = nil, "", nil, ""
		}
	}
	*t = tail{}
	return dst
}
