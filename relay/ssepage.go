package relay

import "sync"

// A page of entries goes to a browser in one Write: its events are
// gathered in a buffer, then written and flushed together. Written event
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

// send writes what s gathered since hold in one Write, and gives its
// buffer back.
func (s *sseWriter) send() {
	p := s.page
	if p == nil {
		return
	}
	s.page = nil
	if s.err == nil && len(*p) > 0 {
		_, s.err = s.w.Write(*p)
	}
	s.bufs.put(p)
}
