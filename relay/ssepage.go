package relay

import "sync"

// A page of entries goes to a browser in one Write (or one per 32 KiB, see
// put): its events are gathered in a buffer, then written and flushed
// together. Written event
// by event, each of its five or so parts went through the
// ResponseWriter's own locks and buffers, and a page of 64 events cost a
// dozen write calls to the kernel; at ten thousand readers of one stream,
// that was most of the CPU a delivery took. The buffers are the Handler's,
// shared: a reader holds one only while it writes a page, so an idle
// reader holds none.

// pageBufKept is the largest buffer kept for the next page: a page of
// bigger entries gets a buffer of its own, which the GC takes back.
const pageBufKept = 64 << 10

// pageBufs are a Handler's page buffers.
type pageBufs struct{ pool sync.Pool }

func (b *pageBufs) get() *[]byte {
	if p, ok := b.pool.Get().(*[]byte); ok {
		return p
	}
	return new([]byte)
}

func (b *pageBufs) put(p *[]byte) {
	if cap(*p) > pageBufKept {
		return
	}
	*p = (*p)[:0]
	b.pool.Put(p)
}

// hold gathers what s writes until send, when s has buffers.
func (s *sseWriter) hold() {
	if s.bufs != nil && s.page == nil {
		s.page = s.bufs.get()
	}
}

// send writes what s gathered since hold, in one Write unless it is bigger
// than a piece (see put), and gives its buffer back.
func (s *sseWriter) send() {
	p := s.page
	if p == nil {
		return
	}
	s.page = nil
	s.put(*p)
	s.bufs.put(p)
}

// writePiece is the most a Handler writes to a browser under one write
// deadline: a bigger page, or a bigger event, goes in pieces, and each
// piece after the first is given WithWriteTimeout afresh. A browser that
// reads slowly but steadily, a piece per timeout at least (1 KiB/s with
// the defaults), is then never taken for one that stopped reading.
const writePiece = 32 << 10

// put writes b to the browser, in pieces of at most writePiece, renewing
// the write deadline before each piece after the first.
func (s *sseWriter) put(b []byte) {
	for first := true; s.err == nil && len(b) > 0; first = false {
		if !first && s.due != nil {
			s.due()
		}
		n := min(len(b), writePiece)
		_, s.err = s.w.Write(b[:n])
		b = b[n:]
	}
}
