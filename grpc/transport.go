package a2agrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/a2astream/a2astream/a2a"
	pbv03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/grpc/internal/convert"
	"github.com/a2astream/a2astream/transport"
)

// Transport makes the calls of A2A's gRPC binding to one agent: a
// transport.Transport for stream.NewClientFor. It speaks A2A 1.0
// (lf.a2a.v1.A2AService, with the metadata a2a-version: 1.0) or 0.3
// (a2a.v1.A2AService), as each call's transport.Call.Version asks; the
// stream.Client negotiates it, 1.0 first: a 0.3-only server answers a 1.0
// call UNIMPLEMENTED, which reads as method not found, and the Client makes
// the same call in 0.3.
//
// Each call is grpc-go's NewStream, SendMsg of its request, CloseSend, then
// RecvMsg; a streaming call returns its reader once the response headers
// arrived (or the call ended without any). How far a failed call got:
//
//   - an error of NewStream (the request was not written): a refused or
//     timed-out dial, UNAVAILABLE there, is marked transport.CouldNotConnect
//     with the target; another is marked transport.NotSent; a call the
//     breaker refuses is NotSent too;
//   - after the response headers arrived, an error that is no answer of the
//     agent's (a connection lost, the idle timer) is marked
//     transport.Responded;
//   - a status the agent sent is a *StatusError, with the A2A error it
//     means in Err (see StatusError); a transport's UNAVAILABLE from RecvMsg
//     (a connection lost after the request left) is a *StatusError without
//     one: a drop, never "busy";
//   - a result that does not decode, or one over WithMaxMessageSize, is a
//     *transport.ProtocolError; a message or a header the proto or gRPC
//     metadata cannot carry, and a request the agent refuses for its size,
//     is an error wrapping transport.ErrInvalidMessage (see HeaderError).
//
// Timers: each call's reads are timed by transport.Call.IdleTimeout, with
// the Transport's own timer (gRPC keepalive does not see a silent but live
// stream), and its connection by WithConnectTimeout. The idle timeout is
// the silence of the call's HTTP/2 stream, as over the HTTP bindings it is
// the silence of the response: a big event on a slow link arrives however
// long it takes while its bytes keep coming, and a silent stream beside a
// busy call on the same connection (two tasks of one Client) is cut one
// timeout after its last bytes. To know which stream carries a call, the
// Transport names each call it times in the metadata a2astream-call (a
// number, unique in the Transport, from a random start: it tells the agent
// that the client is this library and times the call, nothing of the
// call) and reads it back from the HEADERS frame gRPC writes. The connections' own frames
// (keepalive PINGs, from either side or a proxy, and their acks, SETTINGS,
// WINDOW_UPDATE) and the frames of streams no call of the Transport opened
// do not count, so keepalive never keeps a silent stream open.
// Headers: the call's
// headers go as metadata (see HeaderError for what is dropped and what is
// refused) to the target only: the Transport calls no other host.
//
// A Transport is safe for concurrent use; the Clients of one agent may share
// it. Close releases its connections.
type Transport struct {
	target string
	cfg    config
	cc     *grpc.ClientConn
	act    *activity  // when its connections last read bytes
	calls  *callTable // its calls under way, whose streams its connections bind
	secure bool       // its connections are encrypted (Secure)
	closed atomic.Bool
	// stream is the call option of every call: its codec, which decodes
	// each event straight from the received bytes and notes a message
	// that does not decode.
	stream grpc.CallOption
}

// New returns a Transport for the agent at target, a gRPC target
// ("127.0.0.1:50051", "dns:///agent.example:443"), as grpc.NewClient reads
// it: no connection is made until the first call. It needs
// WithTransportCredentials or WithInsecure. An invalid option is refused
// with an *OptionError.
func New(target string, opts ...Option) (*Transport, error) {
	cfg := config{connectTimeout: defaultConnectTimeout, maxMessageSize: defaultMaxMessageSize}
	for _, o := range opts {
		if o == nil {
			cfg.refuse("New", "a nil Option")
			continue
		}
		o(&cfg)
	}
	switch {
	case target == "":
		cfg.refuse("New", "an empty target")
	case cfg.creds != nil && cfg.insecure:
		cfg.refuse("New", "both WithTransportCredentials and WithInsecure")
	case cfg.creds == nil && !cfg.insecure:
		cfg.refuse("New", "no transport credentials: pass WithTransportCredentials, or WithInsecure for plaintext")
	}
	if len(cfg.errs) > 0 {
		return nil, cfg.errs[0]
	}
	creds := cfg.creds
	if cfg.insecure {
		creds = insecure.NewCredentials()
	}
	act, calls := newActivity(), &callTable{}
	secure := encrypting(creds.Info().SecurityProtocol)
	// The Transport's options go last, so that none of WithDialOptions
	// replaces its credentials (a TLS connection made plaintext) or its
	// size limit, or turns on gRPC's retries: a retry policy (of a service
	// config given, or the name resolver's) would send a message the agent
	// may have taken again. gRPC still makes the transparent retries of a
	// stream the server refused before reading it, which never reached
	// the agent.
	dial := append(slices.Clip(cfg.dialOpts),
		grpc.WithTransportCredentials(noting{TransportCredentials: creds, act: act, calls: calls, secure: secure}),
		grpc.WithPerRPCCredentials(numbering{}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(cfg.maxMessageSize)),
		grpc.WithDisableRetry())
	cc, err := newClient(target, dial)
	if err != nil {
		return nil, err
	}
	return &Transport{target: target, cfg: cfg, cc: cc, act: act, calls: calls, secure: secure, stream: newStreamCodec()}, nil
}

// newClient is grpc.NewClient, whose refusal, or panic on a nil inside
// one of WithDialOptions' options, it returns as an *OptionError.
func newClient(target string, dial []grpc.DialOption) (cc *grpc.ClientConn, err error) {
	defer func() {
		if p := recover(); p != nil {
			cc, err = nil, &OptionError{Option: "WithDialOptions", Reason: fmt.Sprintf("an option made gRPC fail (a nil inside it?): %v", p)}
		}
	}()
	cc, err = grpc.NewClient(target, dial...)
	if err != nil {
		return nil, &OptionError{Option: "New", Reason: err.Error()}
	}
	return cc, nil
}

// Target returns the target the Transport calls, as given to New.
func (t *Transport) Target() string { return t.target }

// Secure reports whether the Transport's connections are encrypted: made
// with WithTransportCredentials of credentials whose security protocol is
// TLS or ALTS, not with WithInsecure, gRPC's insecure or local credentials
// (plaintext over a loopback or a Unix socket), or credentials of another
// protocol, which it cannot vouch for. A Transport that says Secure
// refuses a connection whose handshake did not encrypt it (credentials
// that name TLS but fall back to plaintext, as xDS's may): its calls fail
// as calls that could not connect. stream.Resolve asks Secure before it
// lets headers go to a Transport from an https base URL.
func (t *Transport) Secure() bool { return t.secure }

// Binding returns a2a.BindingGRPC. A stream.Client of the Transport
// (stream.NewClientFor, or stream.Resolve with WithTransportFor) tells it
// to a stream.Trace, in each call's AttemptInfo, so that a tracer knows
// its calls are gRPC calls (Client.Binding itself stays "").
func (t *Transport) Binding() a2a.Binding { return a2a.BindingGRPC }

// encrypting reports the security protocols (credentials.ProtocolInfo) that
// encrypt a connection.
func encrypting(protocol string) bool { return protocol == "tls" || protocol == "alts" }

// Close closes the Transport's connections; calls in flight fail. Its calls
// fail after it, at once, with an error wrapping transport.ErrClosed, which
// ends a stream over it without a reconnect. Calls of Close after the first
// do nothing and return nil.
func (t *Transport) Close() error {
	if t.closed.Swap(true) {
		return nil
	}
	return t.cc.Close()
}

// closedError is the error of a call that found t closed: err (nil for a
// call not begun) is what grpc-go said of it.
func (t *Transport) closedError(err error) error {
	if err == nil {
		return fmt.Errorf("%w (%s)", transport.ErrClosed, t.target)
	}
	return fmt.Errorf("%w (%s): %w", transport.ErrClosed, t.target, err)
}

// v03 reports whether call speaks 0.3; any other version is spoken as 1.0.
func v03(call transport.Call) bool { return call.Version == a2a.V03 }

// SendStream sends m with SendStreamingMessage and returns the reader of
// its events.
func (t *Transport) SendStream(ctx context.Context, call transport.Call, m *a2a.Message) (transport.EventReader, error) {
	if v03(call) {
		req, err := convert.SendRequest03(m, false)
		if err != nil {
			return nil, err
		}
		return openStream(t, ctx, call, opSendStream, pbv03.A2AService_SendStreamingMessage_FullMethodName, req, true)
	}
	req, err := convert.SendRequest10(m, t.cfg.tenant, false)
	if err != nil {
		return nil, err
	}
	return openStream(t, ctx, call, opSendStream, pbv1.A2AService_SendStreamingMessage_FullMethodName, req, false)
}

// Subscribe opens a stream of the task: SubscribeToTask in 1.0,
// TaskSubscription in 0.3.
func (t *Transport) Subscribe(ctx context.Context, call transport.Call, taskID string) (transport.EventReader, error) {
	if v03(call) {
		req, err := convert.SubscribeRequest03(taskID)
		if err != nil {
			return nil, badTaskID(err)
		}
		return openStream(t, ctx, call, opSubscribe, pbv03.A2AService_TaskSubscription_FullMethodName, req, true)
	}
	req, err := convert.SubscribeRequest10(taskID, t.cfg.tenant)
	if err != nil {
		return nil, badTaskID(err)
	}
	return openStream(t, ctx, call, opSubscribe, pbv1.A2AService_SubscribeToTask_FullMethodName, req, false)
}

// SendUnary sends m with SendMessage, asking the agent to return at once,
// and returns its answer: a *a2a.Task or a *a2a.Message.
func (t *Transport) SendUnary(ctx context.Context, call transport.Call, m *a2a.Message) (a2a.Event, error) {
	if v03(call) {
		req, err := convert.SendRequest03(m, true)
		if err != nil {
			return nil, err
		}
		var resp pbv03.SendMessageResponse
		if err := t.unary(ctx, call, opSendUnary, pbv03.A2AService_SendMessage_FullMethodName, req, &resp); err != nil {
			return nil, err
		}
		return convert.SendResultOf03(&resp)
	}
	req, err := convert.SendRequest10(m, t.cfg.tenant, true)
	if err != nil {
		return nil, err
	}
	var resp pbv1.SendMessageResponse
	if err := t.unary(ctx, call, opSendUnary, pbv1.A2AService_SendMessage_FullMethodName, req, &resp); err != nil {
		return nil, err
	}
	return convert.SendResultOf10(&resp)
}

// GetTask fetches the task with its whole history.
func (t *Transport) GetTask(ctx context.Context, call transport.Call, taskID string) (*a2a.Task, error) {
	if v03(call) {
		req, err := convert.GetTaskRequest03(taskID)
		if err != nil {
			return nil, badTaskID(err)
		}
		var resp pbv03.Task
		if err := t.unary(ctx, call, opGetTask, pbv03.A2AService_GetTask_FullMethodName, req, &resp); err != nil {
			return nil, err
		}
		return convert.TaskOf03(&resp)
	}
	req, err := convert.GetTaskRequest10(taskID, t.cfg.tenant)
	if err != nil {
		return nil, badTaskID(err)
	}
	var resp pbv1.Task
	if err := t.unary(ctx, call, opGetTask, pbv1.A2AService_GetTask_FullMethodName, req, &resp); err != nil {
		return nil, err
	}
	return convert.TaskOf10(&resp)
}

// Cancel asks the agent to cancel the task and returns the task.
func (t *Transport) Cancel(ctx context.Context, call transport.Call, taskID string) (*a2a.Task, error) {
	if v03(call) {
		req, err := convert.CancelTaskRequest03(taskID)
		if err != nil {
			return nil, badTaskID(err)
		}
		var resp pbv03.Task
		if err := t.unary(ctx, call, opCancel, pbv03.A2AService_CancelTask_FullMethodName, req, &resp); err != nil {
			return nil, err
		}
		return convert.TaskOf03(&resp)
	}
	req, err := convert.CancelTaskRequest10(taskID, t.cfg.tenant)
	if err != nil {
		return nil, badTaskID(err)
	}
	var resp pbv1.Task
	if err := t.unary(ctx, call, opCancel, pbv1.A2AService_CancelTask_FullMethodName, req, &resp); err != nil {
		return nil, err
	}
	return convert.TaskOf10(&resp)
}

// badTaskID is the error for a task ID no request can name (empty, or with
// a "/" in 0.3, whose resource name "tasks/{id}" would name another
// resource): the ID came from the agent, which broke the protocol, so it
// is a *transport.ProtocolError, never made again.
func badTaskID(err error) error {
	return &transport.ProtocolError{Reason: "a task ID no gRPC request can name", Err: err}
}

// unary makes a unary call and reads its answer into resp.
func (t *Transport) unary(ctx context.Context, call transport.Call, o op, method string, req, resp proto.Message) error {
	r, err := t.start(ctx, call, o, method, &grpc.StreamDesc{}, req, t.stream) // unary, as grpc-go's Invoke
	if err != nil {
		return err
	}
	return r.unary(resp)
}

// openStream makes a streaming call and returns its reader once the
// response headers arrived. A call that ended without any (a
// trailers-only response: an error status, or an OK one with no event) is
// read at once: its error is returned, or a reader of its end. Its events
// are read with the Transport's stream codec, by a StreamDecoder of 0.3
// (v03) or 1.0.
func openStream(t *Transport, ctx context.Context, call transport.Call, o op, method string, req proto.Message, v03 bool) (transport.EventReader, error) {
	r, err := t.start(ctx, call, o, method, &grpc.StreamDesc{ServerStreams: true}, req, t.stream)
	if err != nil {
		return nil, err
	}
	sink := &eventSink{d: convert.NewStreamDecoder(v03)}
	e := &eventReader{r: r, recv: func(r *rpc) (a2a.Event, error) { return recvEvent(r, sink) }}
	md, _ := r.cs.Header() // waits for the headers, under the idle timer
	if md != nil {
		r.stopIdle()
		r.heard()
		return e, nil
	}
	ev, err := e.recv(r)
	switch {
	case errors.Is(err, io.EOF):
		r.heard()
		e.ended, e.err = true, io.EOF
		return e, nil
	case err != nil:
		return nil, err
	}
	r.heard()
	e.first = ev
	return e, nil
}
