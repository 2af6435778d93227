package stream

import (
	"context"
	"fmt"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/transport"
)

// NewClientFor returns a Client that makes its calls through b, a binding
// of another module (see [transport.Transport]). Endpoint and Binding of the Client
// return "": b knows where it calls. A Trace's AttemptInfo names the
// binding b names with a method Binding() a2a.Binding, if it has one
// (a2agrpc's does). The headers of WithHeader reach b in
// [transport.Call.Header]. The options of this package's HTTP bindings
// (WithHTTPClient, WithBreaker, WithTrustedOrigins, WithConnectTimeout,
// WithMaxEventSize) and of Resolve (WithBinding, WithCardCache, WithExtendedCard,
// WithTransportFor) do not
// apply to b, and are refused with ErrInvalidOption (see Option), by
// NewClientFor and by each call of its Client.
func NewClientFor(b transport.Transport, opts ...Option) (*Client, error) {
	if b == nil {
		return nil, fmt.Errorf("%w: NewClientFor: a nil Transport", ErrInvalidOption)
	}
	cfg := defaultConfig()
	cfg.applyOptions(opts, atNewClientFor, "NewClientFor")
	if err := cfg.check(); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, version: cfg.version, madeBy: "NewClientFor", transportBinding: bindingOf(b)}
	c.calls = seam{b: b}
	return c, nil
}

// bindingOf is the binding a Transport says it speaks, with a method
// Binding() a2a.Binding (a2agrpc's Transport has one); "" when it says
// none.
func bindingOf(b transport.Transport) a2a.Binding {
	if n, ok := b.(interface{ Binding() a2a.Binding }); ok {
		return n.Binding()
	}
	return ""
}

// agentCalls are a Client's calls to its agent as the driver makes them,
// each with its configuration k: its binding's, with each transport.EventReader
// coming as a leg, which counts its events. getTask and cancel answer with
// the task undecoded (see taskAnswer).
type agentCalls interface {
	sendStream(ctx context.Context, k callConfig, m *a2a.Message) (*leg, error)
	sendUnary(ctx context.Context, k callConfig, m *a2a.Message) (a2a.Event, error)
	subscribe(ctx context.Context, k callConfig, taskID string) (*leg, error)
	getTask(ctx context.Context, k callConfig, taskID string) (taskAnswer, error)
	cancel(ctx context.Context, k callConfig, taskID string) (taskAnswer, error)
	listTasks(ctx context.Context, k callConfig, f a2a.TaskFilter) (*a2a.TaskPage, error)
	setPushConfig(ctx context.Context, k callConfig, taskID string, cfg a2a.PushConfig) (a2a.PushConfig, error)
	getPushConfig(ctx context.Context, k callConfig, taskID, configID string) (a2a.PushConfig, error)
	listPushConfigs(ctx context.Context, k callConfig, taskID string) ([]a2a.PushConfig, error)
	deletePushConfig(ctx context.Context, k callConfig, taskID, configID string) error
}

// taskAnswer is what a get-task or a cancel answered: the task's JSON as
// the server sent it (the JSON-RPC result, or the HTTP+JSON body) with the
// codec of its wire, which task decodes, or, from a Transport of another
// module, the task itself; and the wait the 2xx answer asked for with a
// Retry-After header (see askedWait), 0 when it asked for none or the
// binding cannot tell. The JSON is kept undecoded so that a poll can tell
// a body byte for byte the last one's before it decodes it (see lastPoll).
type taskAnswer struct {
	raw   []byte // the task's JSON; nil when given
	codec a2a.Codec
	given bool      // a Transport of another module gave the task, decoded
	t     *a2a.Task // the task given
	asked time.Duration
}

// task returns the task answered: the one given, or raw decoded, which a
// *transport.ProtocolError reports malformed.
func (a taskAnswer) task() (*a2a.Task, error) {
	if a.given {
		return a.t, nil
	}
	t, err := a.codec.DecodeTask(a.raw)
	if err != nil {
		return nil, &transport.ProtocolError{Reason: "malformed task", Err: err}
	}
	return t, nil
}

// seam adapts a Transport of another module to the driver: each call gets a
// Call of its version and its headers, its own copy; no headers when
// withhold is set (a Transport Resolve opened for an interface that is not
// on the origin the caller named).
type seam struct {
	b        transport.Transport
	withhold bool
	// iface names the interface Resolve opened b for (its binding and url,
	// as the card writes them), which keys its extended card in the card
	// cache; "" for NewClientFor's.
	iface string
}

// call returns the Call of a call made with k.
func (s seam) call(k callConfig) transport.Call {
	c := k.public()
	if s.withhold {
		c.Header = nil
	}
	return c
}

func (s seam) sendStream(ctx context.Context, k callConfig, m *a2a.Message) (*leg, error) {
	return legOf(s.b.SendStream(ctx, s.call(k), m))
}

func (s seam) subscribe(ctx context.Context, k callConfig, taskID string) (*leg, error) {
	return legOf(s.b.Subscribe(ctx, s.call(k), taskID))
}

func (s seam) sendUnary(ctx context.Context, k callConfig, m *a2a.Message) (a2a.Event, error) {
	return s.b.SendUnary(ctx, s.call(k), m)
}

func (s seam) getTask(ctx context.Context, k callConfig, taskID string) (taskAnswer, error) {
	t, err := s.b.GetTask(ctx, s.call(k), taskID)
	return taskAnswer{given: true, t: t}, err
}

func (s seam) cancel(ctx context.Context, k callConfig, taskID string) (taskAnswer, error) {
	t, err := s.b.Cancel(ctx, s.call(k), taskID)
	return taskAnswer{given: true, t: t}, err
}

// legOf makes a leg of what a streaming call returned. A reader that comes
// with an error is closed: the call failed.
func legOf(r transport.EventReader, err error) (*leg, error) {
	if err != nil {
		if r != nil {
			r.Close()
		}
		return nil, err
	}
	if r == nil {
		return nil, &transport.ProtocolError{Reason: "the binding returned no event reader"}
	}
	return &leg{r: r}, nil
}
