package a2atest

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

type faultKind int

const (
	faultNone faultKind = iota
	faultCutEvents
	faultCloseEvents
	faultCutBytes
	faultHTTP
	faultRPC
	faultHang
	faultDrip
	faultDrop
	faultRefuse
)

// Fault is a misbehaviour an [Agent] applies to one request (see
// [WithFaults] and [WithGetFaults]). The zero Fault is no fault. Faults are
// comparable with ==.
//
// Some faults replace the answer, and the request is then not processed (no
// task is created, no follow-up consumed): [HTTPStatus],
// [HTTPStatusWithHeader], [RPCError], [Hang] and [Drop]. The others let the
// request be processed normally and damage only the response:
// [CutAfterEvents], [CloseAfterEvents], [CutAfterBytes] and [Drip]. A task
// keeps running on its schedule after its stream dies.
//
// Only an event stream (a text/event-stream response) has events. A plain
// answer (a unary send's result, a get-task's Task, or an error sent as
// plain JSON, such as the refusal of a streaming request in a version the
// agent does not speak) has none: [CutAfterEvents] and [CloseAfterEvents]
// with n >= 1 leave it whole.
type Fault struct {
	kind   faultKind
	n      int
	text   string
	header *http.Header
	shape  ErrorShape
	every  time.Duration
	retry  retryHint
}

// ErrorShape is how an [RPCError] fault sends its error. Over HTTP+JSON the
// error is the binding's error body ([a2a.MarshalHTTPError]) instead of a
// JSON-RPC response.
type ErrorShape int

const (
	// ErrorAsJSON sends the error as a plain JSON-RPC response, HTTP 200;
	// over HTTP+JSON, as the error body with the HTTP status of its code.
	ErrorAsJSON ErrorShape = iota + 1
	// ErrorAsEvent sends a 200 text/event-stream response whose only event is
	// a data: line carrying the error response (a2a-go's way).
	ErrorAsEvent
	// ErrorAsErrorEvent is ErrorAsEvent with an "event: error" field before
	// the data (@a2a-js/sdk's way, and its framing of an error in the
	// middle of an HTTP+JSON stream).
	ErrorAsErrorEvent
)

// String returns the shape's name.
func (s ErrorShape) String() string {
	switch s {
	case ErrorAsJSON:
		return "ErrorAsJSON"
	case ErrorAsEvent:
		return "ErrorAsEvent"
	case ErrorAsErrorEvent:
		return "ErrorAsErrorEvent"
	}
	return "ErrorShape(" + strconv.Itoa(int(s)) + ")"
}

// CutAfterEvents aborts the connection right after n events of an event
// stream have been written (n = 0: right after the response header). The
// client reads those events and then gets [io.ErrUnexpectedEOF]. A stream
// with fewer events ends normally, and so does a plain JSON answer (a
// unary result or a refusal, which has no events) unless n = 0. The
// request takes the fault all the same: the next streaming request gets
// the next fault of its list.
func CutAfterEvents(n int) Fault { return Fault{kind: faultCutEvents, n: max(n, 0)} }

// CloseAfterEvents ends the response cleanly right after n events of an
// event stream (n = 0: right after the header): the client sees a normal
// EOF although the task is still running. A plain JSON answer has no
// events: with n >= 1 it goes out whole.
func CloseAfterEvents(n int) Fault { return Fault{kind: faultCloseEvents, n: max(n, 0)} }

// CutAfterBytes aborts the connection after exactly n bytes of the response
// body, even in the middle of an event. The client gets
// [io.ErrUnexpectedEOF] after reading them.
func CutAfterBytes(n int) Fault { return Fault{kind: faultCutBytes, n: max(n, 0)} }

// HTTPStatus answers with the HTTP status code and body instead of
// processing the request. The Content-Type is text/html if body starts with
// '<', else text/plain.
func HTTPStatus(code int, body string) Fault {
	return Fault{kind: faultHTTP, n: code, text: body}
}

// HTTPStatusWithHeader is [HTTPStatus] with extra response header fields,
// for example Retry-After. h is copied.
func HTTPStatusWithHeader(code int, body string, h http.Header) Fault {
	hc := h.Clone()
	return Fault{kind: faultHTTP, n: code, text: body, header: &hc}
}

// RPCError answers with an A2A error of the given code and message, in the
// given shape, instead of processing the request: a JSON-RPC error, or over
// HTTP+JSON the binding's error body.
func RPCError(code int, message string, shape ErrorShape) Fault {
	return Fault{kind: faultRPC, n: code, text: message, shape: shape}
}

// RetryableError is [RPCError] with the hint that the call may be made
// again after the given delay, in the shape of the version it answers in,
// as A2A's error-handling guide writes it: in 0.3 the error's data is
// {"retryable":true,"retryAfter":seconds}; in 1.0 its data (over HTTP+JSON,
// the google.rpc.Status's details) holds the code's ErrorInfo and a
// google.rpc.RetryInfo, {"retryDelay":"1.5s"}. A negative delay is taken
// as zero.
func RetryableError(code int, message string, after time.Duration, shape ErrorShape) Fault {
	return Fault{kind: faultRPC, n: code, text: message, shape: shape, retry: retryHint{on: true, after: max(after, 0)}}
}

// Refuse refuses the request's connection: through this package's
// transport ([NewTransport], [NewClient], [Agent.Client]) the client's
// RoundTrip fails as a dial to a closed port does, with a *net.OpError
// (Op "dial") wrapping syscall.ECONNREFUSED, before any byte of the request
// was sent. It is recorded in [Agent.Requests] with its Fault, like every
// faulted request, but the agent does not process it. Served by net/http's
// server, whose connection is already accepted, it acts as [Drop].
func Refuse() Fault { return Fault{kind: faultRefuse} }

// Hang answers a streaming request with 200 and a text/event-stream
// header, flushed, and then sends nothing until the client goes away. A
// unary request (a unary send, a get-task) gets nothing at all, not even a
// header, as from a server that is stuck. The request is not processed.
func Hang() Fault { return Fault{kind: faultHang} }

// Drop cuts the connection before anything of the response is sent, as a
// proxy or a load balancer that drops a request does: the client's
// RoundTrip fails with an error wrapping [io.ErrUnexpectedEOF] (over a real
// network, an EOF). The request is not processed.
func Drop() Fault { return Fault{kind: faultDrop} }

// Drip processes the request normally but writes the response body one byte
// at a time, every apart.
func Drip(every time.Duration) Fault { return Fault{kind: faultDrip, every: every} }

// RandomFaults returns n faults drawn from seed, for [WithFaults],
// [WithGetFaults] or [WithSendFaults]: each is, with probability p, one of
// choices picked uniformly at random, and the zero Fault otherwise, so
// that the requests of a long run fail at random but reproducibly. The
// same arguments give the same list (with the same Go release); the
// requests after the n-th get no fault. p is clamped to [0, 1]. With no
// choices, or n <= 0, the list has only zero Faults, or is empty.
//
// For example, polls of which about one in three is dropped, refused with
// a 503 or cut in the middle of its body:
//
//	a2atest.WithGetFaults(a2atest.RandomFaults(seed, 100, 0.3,
//		a2atest.Drop(), a2atest.HTTPStatus(503, "busy"), a2atest.CutAfterBytes(20))...)
func RandomFaults(seed uint64, n int, p float64, choices ...Fault) []Fault {
	if n <= 0 {
		return nil
	}
	out := make([]Fault, n)
	if len(choices) == 0 {
		return out
	}
	r := rand.New(rand.NewPCG(seed, randomFaultsStream))
	for i := range out {
		if r.Float64() < p {
			out[i] = choices[r.IntN(len(choices))]
		}
	}
	return out
}

// randomFaultsStream is the second word of RandomFaults' PCG seed.
const randomFaultsStream = 0xa2a7e57

// IsZero reports whether f is the zero Fault (no fault).
func (f Fault) IsZero() bool { return f.kind == faultNone }

// String describes the fault the way it was built, e.g. "CutAfterEvents(2)"
// or "none" for the zero Fault.
func (f Fault) String() string {
	switch f.kind {
	case faultCutEvents:
		return "CutAfterEvents(" + strconv.Itoa(f.n) + ")"
	case faultCloseEvents:
		return "CloseAfterEvents(" + strconv.Itoa(f.n) + ")"
	case faultCutBytes:
		return "CutAfterBytes(" + strconv.Itoa(f.n) + ")"
	case faultHTTP:
		s := strconv.Itoa(f.n) + ", " + strconv.Quote(f.text)
		if f.header != nil {
			return "HTTPStatusWithHeader(" + s + ", " + headerString(*f.header) + ")"
		}
		return "HTTPStatus(" + s + ")"
	case faultRPC:
		if f.retry.on {
			return "RetryableError(" + strconv.Itoa(f.n) + ", " + strconv.Quote(f.text) + ", " + f.retry.after.String() + ", " + f.shape.String() + ")"
		}
		return "RPCError(" + strconv.Itoa(f.n) + ", " + strconv.Quote(f.text) + ", " + f.shape.String() + ")"
	case faultHang:
		return "Hang()"
	case faultDrip:
		return "Drip(" + f.every.String() + ")"
	case faultDrop:
		return "Drop()"
	case faultRefuse:
		return "Refuse()"
	}
	return "none"
}

func headerString(h http.Header) string {
	var b strings.Builder
	b.WriteString("{")
	first := true
	for _, k := range sortedKeys(h) {
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(k + ": " + strings.Join(h[k], ","))
	}
	b.WriteString("}")
	return b.String()
}

// preResponse reports whether f replaces the answer, so that the request is
// not processed.
func (f Fault) preResponse() bool {
	return f.kind == faultHTTP || f.kind == faultRPC || f.kind == faultHang || f.kind == faultDrop || f.kind == faultRefuse
}

// sink writes one response through a fault. Writes are whole SSE events,
// or whole unary bodies; only the first count as events.
type sink struct {
	w      http.ResponseWriter
	ctx    context.Context
	fault  Fault
	events int
	bytes  int
	begun  bool
	stream bool // the response is an event stream
	dead   bool // the client is gone or the fault closed the response
}

// begin writes the response header. Content-Type ct is set unless empty.
// For event streams the header is flushed at once; a unary header goes out
// with the body, so that it can be sniffed.
func (s *sink) begin(code int, ct string, stream bool) {
	if s.begun {
		return
	}
	s.begun, s.stream = true, stream
	h := s.w.Header()
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	if stream {
		h.Set("Cache-Control", "no-cache")
		h.Set("Connection", "keep-alive")
		h.Set("X-Accel-Buffering", "no")
	}
	s.w.WriteHeader(code)
	if stream {
		s.flush()
	}
	switch s.fault.kind {
	case faultCutEvents, faultCutBytes:
		if s.fault.n == 0 {
			s.abort()
		}
	case faultCloseEvents:
		if s.fault.n == 0 {
			s.dead = true
		}
	}
}

// event writes one event (or unary body) b and reports whether the response
// may go on. A unary body is not counted as an event, so that the event
// faults leave a plain answer whole.
func (s *sink) event(b []byte) bool {
	if s.dead {
		return false
	}
	switch s.fault.kind {
	case faultCutBytes:
		if left := s.fault.n - s.bytes; len(b) >= left {
			s.write(b[:left])
			s.abort()
		}
		s.write(b)
	case faultDrip:
		for i := range b {
			if s.bytes > 0 && !s.wait(s.fault.every) {
				s.dead = true
				return false
			}
			if !s.write(b[i : i+1]) {
				return false
			}
		}
	default:
		s.write(b)
	}
	if !s.stream {
		return !s.dead
	}
	s.events++
	switch s.fault.kind {
	case faultCutEvents:
		if s.events >= s.fault.n {
			s.abort()
		}
	case faultCloseEvents:
		if s.events >= s.fault.n {
			s.dead = true
		}
	}
	return !s.dead
}

func (s *sink) write(b []byte) bool {
	if len(b) == 0 || s.dead {
		return !s.dead
	}
	n, err := s.w.Write(b)
	s.bytes += n
	s.flush()
	if err != nil {
		s.dead = true
	}
	return !s.dead
}

func (s *sink) flush() {
	_ = http.NewResponseController(s.w).Flush()
}

// abort cuts the connection after sending what was written: net/http's
// server, and this package's transport, turn a panic with
// http.ErrAbortHandler into a broken connection. This and drop are the only
// panics in the package's non-test code, and they never escape the handler.
func (s *sink) abort() {
	s.flush()
	s.drop()
}

// drop cuts the connection without sending anything more; before the
// header is written, the client gets no response at all.
func (s *sink) drop() {
	s.dead = true
	panic(http.ErrAbortHandler)
}

// wait sleeps for d or until the client goes away, and reports whether the
// full time passed.
func (s *sink) wait(d time.Duration) bool {
	return sleepCtx(s.ctx, d)
}

// sleepCtx waits for d (on the caller's clock, so a fake one inside a
// synctest bubble) or until ctx is done; it reports whether d passed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
