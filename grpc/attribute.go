package a2agrpc

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/credentials"
)

// A call's idle timer follows the bytes of its own HTTP/2 stream, not the
// connection's: a silent stream beside a busy one on the same connection
// (two tasks of one Client) must still time out and heal. gRPC says
// nothing of which HTTP/2 stream carries a call, so each call names itself
// in its metadata (callKey: a number unique in its Transport), and the
// connection wrapper reads the HEADERS frames gRPC writes, decoding their
// header blocks with HPACK as the server will, to bind the stream ID each
// one opens to the call it names. The frames the connection reads are then
// noted in the activity of the call whose stream they belong to; frames of
// a stream no call of the Transport opened are noted in none, and those of
// a stream whose call has ended in no call under way. A call whose stream was never bound (the writes could
// not be followed) falls back to the silence of all the Transport's calls,
// as before.

// callKey is the metadata by which a call names itself to its Transport.
const callKey = "a2astream-call"

// numbering gives each call the number its context carries (withNumber)
// under callKey. It is per-RPC credentials of the Transport's connection,
// which gRPC asks for every call after the interceptors of WithDialOptions
// have run, beside any credentials the caller gives (of the connection or
// of the call): an interceptor that sets the call's metadata anew, or a
// caller's credentials, do not displace the number, as they would the
// call's outgoing metadata or a credentials option of the call. The
// number goes only on a stream of the call's own method: a side call an
// interceptor makes with the call's context (an audit, a token fetch) is
// not named the call, and its frames do not keep the call alive.
type numbering struct{}

// callNumberKey is the context key of a call's number.
type callNumberKey struct{}

// callNumber is what withNumber puts in a call's context.
type callNumber struct {
	n      string // the number, in decimal
	method string // the call's full method name
}

// withNumber returns ctx carrying the number n of a call of method.
func withNumber(ctx context.Context, n uint64, method string) context.Context {
	return context.WithValue(ctx, callNumberKey{}, callNumber{n: strconv.FormatUint(n, 10), method: method})
}

// GetRequestMetadata returns the number ctx carries under callKey, for a
// stream of the call's own method, or nothing (a call the Transport does
// not time, or another method's stream opened with its context).
func (numbering) GetRequestMetadata(ctx context.Context, _ ...string) (map[string]string, error) {
	c, ok := ctx.Value(callNumberKey{}).(callNumber)
	if !ok {
		return nil, nil
	}
	if ri, ok := credentials.RequestInfoFromContext(ctx); !ok || ri.Method != c.method {
		return nil, nil
	}
	return map[string]string{callKey: c.n}, nil
}

// RequireTransportSecurity is false: the number is no secret.
func (numbering) RequireTransportSecurity() bool { return false }

// callActivity is one call's activity: when the frames of the HTTP/2
// streams that carried it were last read. A call has more than one stream
// when gRPC sends it again on a new one (a stream the server refused
// before reading it).
type callActivity struct {
	activity
	bound atomic.Bool // a stream was bound to the call
	mu    sync.Mutex
	on    []streamRef // the streams bound to it, to forget when it ends
}

// streamRef is one HTTP/2 stream of one connection.
type streamRef struct {
	tab *streamTable
	id  uint32
}

// callTable is a Transport's calls under way, by the number each names
// itself with.
type callTable struct {
	mu   sync.Mutex
	next uint64
	m    map[uint64]*callActivity
}

// add registers a new call and returns its number and its activity. The
// numbers count from a random start, so that an agent cannot tell from
// them how many calls the Transport made.
func (t *callTable) add() (uint64, *callActivity) {
	a := &callActivity{activity: *newActivity()}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[uint64]*callActivity)
		t.next = rand.Uint64() >> 1
	}
	t.next++
	t.m[t.next] = a
	return t.next, a
}

// remove forgets call id and the streams bound to it.
func (t *callTable) remove(id uint64) {
	t.mu.Lock()
	a := t.m[id]
	delete(t.m, id)
	t.mu.Unlock()
	if a == nil {
		return
	}
	a.mu.Lock()
	on := a.on
	a.on = nil
	a.mu.Unlock()
	for _, s := range on {
		s.tab.forget(s.id, a)
	}
}

// bind binds stream id of tab to the call its header block named: of the
// values, the one that names a call of the table's under way. A block that
// names none, or more than one, binds nothing: its stream could be any of
// them. (An interceptor of WithDialOptions may add a number of its own,
// forwarding another process's; the table's numbers start at random, so
// such a number names none of its calls.)
func (t *callTable) bind(values []string, tab *streamTable, id uint32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var a *callActivity
	for _, v := range values {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			continue
		}
		if b := t.m[n]; b != nil {
			if a != nil && b != a {
				return
			}
			a = b
		}
	}
	if a == nil {
		return
	}
	// Under the table's lock, so that remove, which takes the call out
	// first, then forgets its streams, forgets this one too.
	a.mu.Lock()
	a.on = append(a.on, streamRef{tab: tab, id: id})
	a.mu.Unlock()
	tab.set(id, a)
	a.bound.Store(true)
}

// streamTable is a connection's streams bound to calls.
type streamTable struct {
	mu sync.Mutex
	m  map[uint32]*callActivity
}

func (s *streamTable) set(id uint32, a *callActivity) {
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[uint32]*callActivity)
	}
	s.m[id] = a
	s.mu.Unlock()
}

// get returns the activity of the call stream id carries, or nil.
func (s *streamTable) get(id uint32) *callActivity {
	s.mu.Lock()
	a := s.m[id]
	s.mu.Unlock()
	return a
}

// forget unbinds stream id if it is still bound to a.
func (s *streamTable) forget(id uint32, a *callActivity) {
	s.mu.Lock()
	if s.m[id] == a {
		delete(s.m, id)
	}
	s.mu.Unlock()
}

// clientPreface is what a client writes first on an HTTP/2 connection,
// before its first frame (RFC 9113, section 3.4).
const clientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// HTTP/2 frame flags the writes' scan reads.
const (
	flagEndHeaders = 0x4
	flagPadded     = 0x8
	flagPriority   = 0x20
)

// opened follows the frames a connection writes, across writes, and
// reports each header block that opens a stream to found with the values of
// its callKey field. It decodes every header block the connection writes,
// in order, as the server does, to keep HPACK's dynamic table as the
// encoder has it; once a block does not decode, it stops (lost).
type opened struct {
	mu      sync.Mutex // gRPC writes a connection from one goroutine, but says so nowhere
	preface int        // bytes of the client preface written so far
	frameHead
	payload []byte // the current HEADERS or CONTINUATION frame's payload
	gather  bool   // the current frame is HEADERS or CONTINUATION
	block   []byte // the header block gathered so far
	stream  uint32 // the stream of the header block
	dec     *hpack.Decoder
	values  []string // the block's callKey fields, as decoded
	lost    bool
	found   func(stream uint32, values []string)
}

func newOpened(found func(stream uint32, values []string)) *opened {
	o := &opened{found: found}
	o.dec = hpack.NewDecoder(4096, func(f hpack.HeaderField) {
		if f.Name == callKey {
			o.values = append(o.values, f.Value)
		}
	})
	return o
}

// scan reads p, the next bytes the connection writes.
func (o *opened) scan(p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for len(p) > 0 && !o.lost {
		if o.preface < len(clientPreface) {
			n := min(len(p), len(clientPreface)-o.preface)
			if string(p[:n]) != clientPreface[o.preface:o.preface+n] {
				o.lost = true // not HTTP/2 as a client writes it
				return
			}
			o.preface += n
			p = p[n:]
			continue
		}
		payload, rest, done := o.take(p)
		p = rest
		if len(payload) > 0 && o.gather {
			o.payload = append(o.payload, payload...)
			if o.left == 0 {
				o.frameDone()
			}
		}
		if !done {
			continue
		}
		typ := o.typ()
		o.gather = typ == frameHeaders || typ == frameContinuation
		o.payload = o.payload[:0]
		if o.gather && o.left == 0 {
			o.frameDone()
		}
	}
}

// frameDone takes the payload of a whole HEADERS or CONTINUATION frame
// into the header block, and decodes the block once it ends.
func (o *opened) frameDone() {
	flags, stream := o.flags(), o.streamID()
	frag := o.payload
	if o.typ() == frameHeaders {
		if flags&flagPadded != 0 {
			if len(frag) < 1 || int(frag[0]) > len(frag)-1 {
				o.lost = true
				return
			}
			frag = frag[1 : len(frag)-int(frag[0])]
		}
		if flags&flagPriority != 0 {
			if len(frag) < 5 {
				o.lost = true
				return
			}
			frag = frag[5:]
		}
		o.block = append(o.block[:0], frag...)
		o.stream = stream
	} else {
		if stream != o.stream {
			o.lost = true
			return
		}
		o.block = append(o.block, frag...)
	}
	if flags&flagEndHeaders == 0 {
		return
	}
	o.values = o.values[:0]
	if _, err := o.dec.Write(o.block); err != nil {
		o.lost = true
		return
	}
	if err := o.dec.Close(); err != nil {
		o.lost = true
		return
	}
	if len(o.values) > 0 {
		o.found(o.stream, o.values)
	}
}
