package ledger

import (
	"slices"
	"sort"
	"strings"

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
// A tail is small, since memory a process has not used before costs far
// more to touch than memory it reuses (a page fault, and on a virtual
// machine the host's too), and a long stream's tail is all new memory.
// What a stream of tokens appends is text parts of one media type and no
// metadata: a tail holds the media type once for the run of parts that
// share it, and the texts back to back in text blocks, each part only
// where its text ends (4 bytes). A part's Text is then a substring of its
// block, which it keeps alive: a text block holds at most maxTextBlock
// bytes, and a text longer than bigText is held as it came.

const (
	// maxTextBlock is the most bytes a text block holds.
	maxTextBlock = 8 << 10
	// firstTextBlock is the size of a tail's first text block; each
	// next one doubles, up to maxTextBlock.
	firstTextBlock = 256
	// bigText is the longest text copied into a text block.
	bigText = maxTextBlock / 8
)

// tail is the parts appended to an artifact after its Parts, in order:
// where each part's text ends in its text block (its blockList), the text
// blocks, and the runs of parts that share the rest. Its blocks never move
// (see blockList).
type tail struct {
	blockList[uint32] // part i's text ends here in its text block
	texts             blockList[textBlock]
	runs              blockList[tailRun]
	// textHint and runHint are the text block and the run of the part
	// read last (see seek).
	textHint, runHint int
}

// textBlock is the texts of the parts of a tail from first on, back to
// back: copied into b, or one text held as it came (whole).
type textBlock struct {
	first int
	whole string
	b     strings.Builder // never grown: it holds what its capacity does
}

// str returns the block's texts.
func (tb *textBlock) str() string {
	if tb.whole != "" {
		return tb.whole
	}
	return tb.b.String()
}

// tailRun is the parts of a tail from its start to the next run's start: a
// part held whole (any part but text with no file name), or text parts,
// each its text in the tail's text blocks, with this media type and
// metadata. Text parts share a run only when they have no metadata: a
// part's metadata is its own map, never shared with another part's.
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
		t.addText("")
		return
	}
	if t.runs.n == 0 || !t.runs.at(t.runs.n-1).joins(p) {
		*t.runs.push() = tailRun{start: t.n, mediaType: p.MediaType, metadata: p.Metadata}
	}
	t.addText(p.Text)
}

// addText appends the text of the next part ("" for a part held whole).
func (t *tail) addText(s string) {
	end := uint32(0)
	if t.n > 0 {
		end = *t.blockList.at(t.n - 1)
	}
	switch {
	case len(s) > bigText:
		*t.texts.push() = textBlock{first: t.n, whole: s}
		end = uint32(len(s))
	case s != "":
		var tb *textBlock
		if t.texts.n > 0 {
			tb = t.texts.at(t.texts.n - 1)
		}
		if tb == nil || tb.b.Len()+len(s) > tb.b.Cap() {
			size := firstTextBlock
			if tb != nil {
				size = min(max(2*tb.b.Cap(), size), maxTextBlock)
			}
			tb = t.texts.push()
			tb.first = t.n
			tb.b.Grow(max(size, len(s)))
		}
		tb.b.WriteString(s)
		end = uint32(tb.b.Len())
	}
	*t.push() = end
}

// joins reports whether the text part p, appended after the run's parts,
// belongs in the run.
func (r *tailRun) joins(p *a2a.Part) bool {
	return r.whole == nil && r.metadata == nil && p.Metadata == nil && r.mediaType == p.MediaType
}

// runOf returns the run that holds part i of the tail.
func (t *tail) runOf(i int) *tailRun {
	return t.runs.at(seek(&t.runs, func(r *tailRun) int { return r.start }, i, &t.runHint))
}

// textOf returns the text of part i of the tail.
func (t *tail) textOf(i int) string {
	k := seek(&t.texts, func(tb *textBlock) int { return tb.first }, i, &t.textHint)
	if k < 0 {
		return "" // no text before part i's
	}
	tb := t.texts.at(k)
	start, end := uint32(0), *t.blockList.at(i)
	if tb.first < i {
		start = *t.blockList.at(i - 1)
	}
	if start == end {
		return ""
	}
	return tb.str()[start:end]
}

// seek returns the index of the last element of l whose first part (key)
// is at most i, or -1; the keys ascend. A replay reads a tail's parts in
// order, so the element found last (*hint) and the one after it are tried
// before a binary search; *hint is left at the element found.
func seek[T any](l *blockList[T], key func(*T) int, i int, hint *int) int {
	for k := *hint; k < l.n && k <= *hint+1; k++ {
		if key(l.at(k)) <= i && (k+1 == l.n || key(l.at(k+1)) > i) {
			*hint = k
			return k
		}
	}
	k := sort.Search(l.n, func(k int) bool { return key(l.at(k)) > i }) - 1
	*hint = max(k, 0)
	return k
}

// at returns part i of the tail, which holds it: the part itself for a
// part held whole, else the part built in buf.
func (t *tail) at(i int, buf *a2a.Part) *a2a.Part {
	r := t.runOf(i)
	if r.whole != nil {
		return r.whole
	}
	*buf = a2a.Part{Text: t.textOf(i), MediaType: r.mediaType, Metadata: r.metadata}
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
	var (
		r              *tailRun
		run, nextRun   int // the next run, and its first part
		text, nextText int // the next text block, and its first part
		s              string
		start          uint32
	)
	nextText = t.n
	if t.texts.n > 0 {
		nextText = t.texts.at(0).first
	}
	i := 0
	for _, b := range t.blocks {
		for _, end := range b {
			if i == nextRun {
				r, run = t.runs.at(run), run+1
				nextRun = t.n
				if run < t.runs.n {
					nextRun = t.runs.at(run).start
				}
			}
			if i == nextText {
				s, start, text = t.texts.at(text).str(), 0, text+1
				nextText = t.n
				if text < t.texts.n {
					nextText = t.texts.at(text).first
				}
			}
			p := &dst[k]
			k, i = k+1, i+1
			if r.whole != nil {
				*p = *r.whole
				continue
			}
			p.Text = ""
			if end != start {
				p.Text = s[start:end]
			}
			start = end
			p.MediaType, p.Metadata = r.mediaType, r.metadata
			p.Data, p.URL, p.Raw, p.Filename = nil, "", nil, ""
		}
	}
	*t = tail{}
	return dst
}
