package a2agrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/a2astream/a2astream/transport"
)

// The cancel causes of a call's context: its connect timer, and its idle
// timer.
var (
	errConnect = errors.New("connect timeout")
	errIdle    = errors.New("idle")
)

// rpc is one gRPC call: NewStream, SendMsg of its one request, CloseSend,
// then RecvMsg of its answer or events, with its timers and its breaker.
// Its context is the caller's, with the call's metadata, cancelled by the
// connect timer, the idle timer or Close.
type rpc struct {
	t      *Transport
	o      op
	method string
	parent context.Context
	ctx    context.Context
	cancel context.CancelCauseFunc
	cs     grpc.ClientStream
	idle   *time.Timer
	d      time.Duration
	// id names the call to its Transport (callKey), whose connections
	// note the frames of its stream in act.
	id  uint64
	act *callActivity
	// waiting: a read of the call waits for the network (the response
	// headers, or a message), which the idle timer bounds.
	waiting atomic.Bool
	// done is the breaker's report for this call, nil once made (or when
	// there is no breaker).
	done func(error)
	// responded: the response headers arrived (or an answer did): the
	// request reached the agent, which may have acted on it.
	responded bool
}

// start makes the call up to its request sent: the metadata of call, the
// breaker's leave, NewStream under the connect timer, SendMsg and
// CloseSend. An error there means the request never left (see fail),
// except the caller's own.
func (t *Transport) start(ctx context.Context, call transport.Call, o op, method string, desc *grpc.StreamDesc, req proto.Message, opts ...grpc.CallOption) (*rpc, error) {
	md, err := outgoing(call)
	if err != nil {
		return nil, err
	}
	if t.closed.Load() {
		return nil, transport.NotSent(t.closedError(nil))
	}
	r := &rpc{t: t, o: o, method: method, parent: ctx, d: call.IdleTimeout}
	if r.d > 0 {
		r.id, r.act = t.calls.add()
	}
	if b := t.cfg.breaker; b != nil {
		done, err := b.Allow()
		if err != nil {
			return nil, transport.NotSent(fmt.Errorf("%w: %w", transport.ErrCircuitOpen, err))
		}
		r.done = done
	}
	if t.cc.GetState() == connectivity.TransientFailure {
		// grpc-go fails every call at once while it waits out its own
		// backoff before it dials again (1 s, growing to 2 min), which
		// would outlast the stream's reconnect attempts. Those attempts are
		// spaced by the stream's policy: each one made now has grpc-go dial
		// at once, so that the next finds an agent that came back. This
		// call still fails as the last dial did.
		t.cc.ResetConnectBackoff()
	}
	cctx := metadata.NewOutgoingContext(ctx, md)
	if r.act != nil {
		cctx = withNumber(cctx, r.id, method)
	}
	r.ctx, r.cancel = context.WithCancelCause(cctx)
	var connect *time.Timer
	if d := t.cfg.connectTimeout; d > 0 {
		connect = time.AfterFunc(d, func() { r.cancel(errConnect) })
	}
	cs, err := t.newStream(r.ctx, desc, method, opts)
	if connect != nil && !connect.Stop() && err == nil {
		// The timer fired as the stream opened: the call is cut, and
		// nothing of it was sent.
		err = context.Cause(r.ctx)
	}
	if oe := (*OptionError)(nil); errors.As(err, &oe) {
		// An option of the caller's failed before anything was sent: the
		// call ends with it as it is, not as a status of the agent's.
		r.forget()
		r.cancel(context.Canceled)
		r.report(err)
		return nil, err
	}
	if err != nil {
		return nil, r.unsent(err)
	}
	r.cs = cs
	if r.d > 0 {
		r.waiting.Store(true) // for the response headers
		r.idle = time.AfterFunc(r.d, r.idleFired)
	}
	if err := cs.SendMsg(req); err != nil && err != io.EOF {
		// io.EOF: the server ended the call; RecvMsg reads its status.
		return nil, r.fail(err)
	}
	_ = cs.CloseSend() // always nil; the status comes from RecvMsg
	return r, nil
}

// unsent maps an error of NewStream: the request was never written. A
// connect timeout and UNAVAILABLE (a refused dial, a name that does not
// resolve, a connection that would not come up) are CouldNotConnect; the
// caller's context ending is its error; the Transport closed wraps
// transport.ErrClosed; anything else is NotSent.
// newStream opens the call's stream. A nil inside one of WithDialOptions'
// options (an interceptor, a call option) makes gRPC panic when it runs;
// the call ends with an *OptionError instead, nothing sent.
func (t *Transport) newStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts []grpc.CallOption) (cs grpc.ClientStream, err error) {
	defer func() {
		if p := recover(); p != nil {
			cs, err = nil, &OptionError{Option: "WithDialOptions", Reason: fmt.Sprintf("an option made gRPC fail as the call opened (a nil inside it?): %v", p)}
		}
	}()
	return t.cc.NewStream(ctx, desc, method, opts...)
}

func (r *rpc) unsent(err error) error {
	r.forget()
	defer r.cancel(context.Canceled)
	if perr := r.parent.Err(); perr != nil {
		r.report(perr)
		return perr
	}
	if context.Cause(r.ctx) == errConnect {
		r.report(transport.ErrConnectTimeout)
		return transport.CouldNotConnect(r.t.target, fmt.Errorf("%w (%s): %w", transport.ErrConnectTimeout, r.t.cfg.connectTimeout, err))
	}
	r.report(err)
	st, _ := status.FromError(err)
	mapped := r.t.statusError(st, r.o, r.method)
	if r.t.closed.Load() {
		return transport.NotSent(r.t.closedError(mapped))
	}
	if st.Code() == codes.Unavailable {
		return transport.CouldNotConnect(r.t.target, mapped)
	}
	return transport.NotSent(mapped)
}

// fail maps an error of the call after NewStream: the caller's context
// error when it ended; an error wrapping transport.ErrIdleTimeout when the
// idle timer cut the call; else the *StatusError of its status. An error
// that is no answer of the agent's (a connection lost, a timer's cut), or a
// status with no A2A meaning, is marked transport.Responded once the
// response headers had arrived or the server sent its status alone. It
// ends the call.
func (r *rpc) fail(err error) error {
	r.stopIdle()
	r.forget()
	defer r.cancel(context.Canceled)
	headers := r.responded
	if !headers && r.cs != nil {
		// The call has ended: Header no longer waits. It returns the
		// headers if they had come.
		if md, _ := r.cs.Header(); md != nil {
			headers = true
		}
	}
	// A status the server sent alone (trailers-only) is its answer too,
	// and a request it answered may have reached the agent: its trailers
	// hold at least its content-type, where a status grpc-go makes of a
	// failed connection (or of a proxy's answer that is no gRPC) has none.
	r.responded = headers || r.cs != nil && len(r.cs.Trailer()) > 0
	if perr := r.parent.Err(); perr != nil {
		r.report(perr)
		return perr
	}
	var out error
	if context.Cause(r.ctx) == errIdle {
		r.report(transport.ErrIdleTimeout)
		out = fmt.Errorf("%w (%s, %s)", transport.ErrIdleTimeout, r.t.target, r.method)
	} else {
		st, _ := status.FromError(err)
		if tooLarge(st) {
			// Not busy: a message over a limit is refused again however
			// often it is sent.
			r.report(nil)
			se := &StatusError{Code: st.Code(), Message: st.Message(), Target: r.t.target, Method: r.method, status: st}
			if headers { // after the response headers: our receive limit
				return &transport.ProtocolError{Reason: "event too large", Err: se}
			}
			return fmt.Errorf("%w: the agent refused the request as too large: %w", transport.ErrInvalidMessage, se)
		}
		se := r.t.statusError(st, r.o, r.method).(*StatusError)
		if headers && st.Code() == codes.Unimplemented && grpcNoSuchMethod(st.Message()) {
			// gRPC answers a method a server lacks with its status alone;
			// one sent after the response headers came from a handler that
			// ran, which may have taken the request: no version refusal,
			// or a send would be made again in 0.3.
			se.Err = nil
		}
		if breakerStatus(st.Code()) {
			r.report(se)
		} else {
			r.report(nil)
		}
		if se.Err != nil {
			return se // the agent's answer
		}
		out = se
		if r.t.closed.Load() {
			out = r.t.closedError(se)
		}
	}
	if r.responded {
		return transport.Responded(out)
	}
	return out
}

// heard notes that the agent answered: the response headers, or a message.
// The breaker is told the call went through.
func (r *rpc) heard() {
	r.responded = true
	r.report(nil)
}

// report tells the breaker the call's result, once.
func (r *rpc) report(err error) {
	if r.done != nil {
		r.done(err)
		r.done = nil
	}
}

// recv reads one message of the call into m (a generated message, or a
// streaming call's *eventSink) under the idle timer, which runs only while
// the read waits for the network.
func (r *rpc) recv(m any) error {
	if r.idle != nil {
		r.waiting.Store(true)
		r.idle.Reset(r.d)
	}
	err := r.cs.RecvMsg(m)
	r.stopIdle()
	return err
}

// idleFired is the idle timer's: while the call waits, it cuts the call
// once its connection read nothing for the idle timeout (see activity), and
// else waits on for the rest of it.
func (r *rpc) idleFired() {
	if !r.waiting.Load() {
		return
	}
	if quiet := r.quiet(); quiet < r.d {
		r.idle.Reset(r.d - quiet)
		return
	}
	r.cancel(errIdle)
}

// quiet returns how long the call's stream has read nothing, or, when no
// stream was bound to the call, how long the Transport's connections have
// read nothing of any call (see callKey).
func (r *rpc) quiet() time.Duration {
	if r.act != nil && r.act.bound.Load() {
		return r.act.quiet()
	}
	return r.t.act.quiet()
}

// forget takes the call out of its Transport's calls under way.
func (r *rpc) forget() {
	if r.act != nil {
		r.t.calls.remove(r.id)
	}
}

// stopIdle stops the idle timer.
func (r *rpc) stopIdle() {
	if r.idle != nil {
		r.waiting.Store(false)
		r.idle.Stop()
	}
}

// close ends the call and releases what it holds. It is idempotent.
func (r *rpc) close() {
	r.stopIdle()
	r.forget()
	r.report(nil)
	r.cancel(context.Canceled)
}

// unary reads the one answer of a unary call into m, and ends the call.
// An answer that does not decode is a *transport.ProtocolError.
func (r *rpc) unary(m proto.Message) error {
	defer r.close()
	box := &answerBox{m: m}
	if err := r.recv(box); err != nil {
		if box.bad != nil {
			return malformed(box.bad)
		}
		return r.fail(err)
	}
	r.heard()
	return nil
}

// tooLarge reports the status of a message over gRPC's size limit: one
// the Transport received (over WithMaxMessageSize), or the agent's refusal
// of the request for its size. grpc-go words both so.
func tooLarge(st *status.Status) bool {
	m := st.Message()
	return st.Code() == codes.ResourceExhausted && strings.HasPrefix(m, "grpc: ") && strings.Contains(m, "larger than max")
}
