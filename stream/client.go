package stream

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/internal/httpx"
	"github.com/a2astream/a2astream/transport"
)

// Client talks to one A2A agent endpoint, over JSON-RPC or HTTP+JSON. It is
// safe for concurrent use by many goroutines; each Stream it returns has one
// consumer.
type Client struct {
	endpoint string
	// origin is the origin the caller named: the endpoint's for NewClient
	// and NewRESTClient, the base URL's for Resolve. Headers, the Client's
	// and each call's, go to it only.
	origin string
	// endpointOrigin is the endpoint's origin, where the calls go: not
	// origin when a card named another host, port or scheme. "" for a
	// Client of NewClientFor.
	endpointOrigin string
	// headerOrigins are the origins headers go to: origin, then those of
	// WithTrustedOrigins.
	headerOrigins httpx.Origins
	cfg           config
	// httpc is WithHTTPClient's client with the breaker's transport; each
	// call copies it with its own redirect policy (originOnlyHeaders).
	httpc   *http.Client
	calls   agentCalls  // the calls of its binding
	binding a2a.Binding // which binding it speaks
	// transportBinding is the binding a Transport of another module
	// speaks, as its Binding method names it, for
	// the calls' AttemptInfo (Binding stays ""); "" when unknown.
	transportBinding a2a.Binding

	// madeBy names the constructor of a Client of a Transport of another
	// module (NewClientFor, or Resolve with WithTransportFor), for the
	// refusals of its calls' options.
	madeBy string
	// closer is the Transport Resolve opened (WithTransportFor), which
	// Close closes; nil when the Client opened nothing.
	closer    io.Closer
	closeOnce sync.Once
	closeErr  error

	mu      sync.Mutex
	version a2a.Version // negotiated version; "" until known
}

// Close releases what the Client opened itself: the Transport Resolve
// opened with the open function of WithTransportFor, when it is an
// io.Closer, whose Close error it returns. A Client of NewClient,
// NewRESTClient or NewClientFor, or of Resolve over JSON-RPC or HTTP+JSON,
// opened nothing: Close does nothing and returns nil (a Transport given to
// NewClientFor stays the caller's to close). After Close, the calls of the
// Client and of its streams fail as the Transport's calls do after its
// Close: a2agrpc's at once, with an error wrapping transport.ErrClosed,
// which ends a stream without a reconnect. End the streams first. Close
// may be called more than once: later calls return what the first
// returned.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		if c.closer != nil {
			c.closeErr = c.closer.Close()
		}
	})
	return c.closeErr
}

// NewClient returns a client for the JSON-RPC endpoint URL of an agent.
// Without WithVersion it negotiates the protocol version on first use. An
// endpoint that is not an absolute http or https URL is refused with an
// error matching ErrInvalidOption that quotes it (redacted) and, for one
// typed without its scheme ("127.0.0.1:9999"), gives the URL to write.
func NewClient(endpoint string, opts ...Option) (*Client, error) {
	return newClient(endpoint, a2a.BindingJSONRPC, opts, nil, "NewClient")
}

// NewRESTClient returns a client for the HTTP+JSON (REST) binding of an
// agent, under baseURL: requests go to "message:stream" and so on under
// baseURL's path in A2A 1.0, and under its "v1/" in 0.3, whose JSON is the
// proto-JSON that @a2a-js/sdk 0.3 serves; baseURL's query (an API key) goes
// with every call. Without WithVersion it negotiates the
// protocol version on first use, as NewClient does, and a baseURL that is
// not an absolute http or https URL is refused as NewClient refuses one.
func NewRESTClient(baseURL string, opts ...Option) (*Client, error) {
	return newClient(baseURL, a2a.BindingHTTPJSON, opts, nil, "NewRESTClient")
}

// newClient makes a Client of endpoint with opts, for the constructor
// named by. learned is what Resolve read in the agent card, nil for
// NewClient and NewRESTClient; without it, headers go to the endpoint's
// origin.
func newClient(endpoint string, binding a2a.Binding, opts []Option, learned *fromCard, by string) (*Client, error) {
	u, err := httpx.ParseHTTP(endpoint, "endpoint")
	if err != nil {
		return nil, refusal(err.Error())
	}
	at := atNewClient
	if learned != nil {
		at = atResolve
	}
	cfg := defaultConfig()
	cfg.applyOptions(opts, at, by)
	if err := cfg.check(); err != nil {
		return nil, err
	}
	named := httpx.Origin(u)
	if learned != nil {
		named = learned.origin
		cfg.version, cfg.tenant, cfg.streaming, cfg.card = learned.version, learned.tenant, learned.streaming, learned.card
	}
	to, err := headerOrigins(named, cfg.trusted)
	if err != nil {
		return nil, err
	}
	c := &Client{endpoint: u.String(), origin: named, endpointOrigin: httpx.Origin(u), headerOrigins: to, cfg: cfg, version: cfg.version}
	c.httpc = recordResponses(withBreaker(cfg.httpClient, cfg.breaker))
	c.binding = binding
	switch binding {
	case a2a.BindingHTTPJSON:
		c.calls = restBinding{c}
	default:
		c.calls = jsonrpcBinding{c}
	}
	return c, nil
}

// headerOrigins returns the origins headers go to: named, then trusted
// (WithTrustedOrigins, checked by config.check). It refuses an http origin
// trusted where named is https: headers never go from https down to http.
func headerOrigins(named string, trusted []string) (httpx.Origins, error) {
	to := httpx.Origins{named}
	for _, raw := range trusted {
		o, err := parseOrigin(raw)
		if err != nil {
			return nil, invalidOption("WithTrustedOrigins: %s", err)
		}
		if strings.HasPrefix(named, "https://") && strings.HasPrefix(o, "http://") {
			return nil, invalidOption("WithTrustedOrigins: %s is http where the origin named, %s, is https: headers never go from https down to http", o, named)
		}
		to = append(to, o)
	}
	return to, nil
}

// Endpoint returns the JSON-RPC endpoint URL, or the HTTP+JSON base URL.
func (c *Client) Endpoint() string { return c.endpoint }

// Binding returns the protocol binding the Client speaks: JSON-RPC or
// HTTP+JSON.
func (c *Client) Binding() a2a.Binding { return c.binding }

// callBinding is the binding a Trace is told a call is made in: the
// Client's, else its Transport's.
func (c *Client) callBinding() a2a.Binding {
	if c.binding != "" {
		return c.binding
	}
	return c.transportBinding
}

// Version returns the protocol version in use: the one fixed with
// WithVersion or chosen by Resolve, or the one negotiated so far ("" before
// the first call of a negotiating Client).
func (c *Client) Version() a2a.Version {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// currentVersion returns the version to try, and whether it may still be
// negotiated down.
func (c *Client) currentVersion() (a2a.Version, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != "" {
		return c.version, false
	}
	return a2a.V10, true
}

func (c *Client) remember(v a2a.Version) {
	if c.cfg.version != "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version == "" {
		c.version = v
	}
}

// Send sends msg with a streaming call and returns the stream of its task.
// No I/O happens until the first call of Next. The message is not modified:
// a message without an ID is sent with a fresh one, and a message without a
// role is sent as the user's.
//
// The stream is bound to ctx: cancelling ctx ends it with ctx's error. opts
// override the Client's options for this stream only (see Option).
func (c *Client) Send(ctx context.Context, msg *a2a.Message, opts ...Option) *Stream {
	s := newStream(ctx, c, opts, "Send")
	if s.phase == phaseDone {
		return s
	}
	if msg == nil || len(msg.Parts) == 0 {
		s.enter(s.end(fmt.Errorf("%w: a message needs at least one part", transport.ErrInvalidMessage)))
		return s
	}
	m := msg.Clone()
	if m.ID == "" {
		m.ID = uuid.NewString()
	}
	if m.Role == "" {
		m.Role = a2a.RoleUser
	}
	s.msg = m
	return s
}

// Subscribe attaches to an existing task by ID and returns its stream, with
// the same reconnect, exactly-once and human-input handling as Send. opts
// override the Client's options for this stream only. An empty taskID
// ends the stream, at its first Next and with nothing sent, in an error
// matching ErrInvalidOption.
func (c *Client) Subscribe(ctx context.Context, taskID string, opts ...Option) *Stream {
	s := newStream(ctx, c, opts, "Subscribe")
	if s.phase == phaseDone {
		return s
	}
	if err := needTaskID("Subscribe", taskID); err != nil {
		s.enter(s.end(err))
		return s
	}
	s.taskID = taskID
	return s
}

// GetTask fetches a task (tasks/get in 0.3, GetTask in 1.0). opts override
// the Client's options for this call only; those that only a stream reads
// (WithReconnect, the hooks, WithNotify, ...) are refused with
// ErrInvalidOption, as every option that does not apply here (see Option).
// An empty taskID is refused too, with an error matching ErrInvalidOption:
// nothing is sent.
func (c *Client) GetTask(ctx context.Context, taskID string, opts ...Option) (*a2a.Task, error) {
	if err := needTaskID("GetTask", taskID); err != nil {
		return nil, err
	}
	cfg, err := c.configWith(opts, "GetTask", false)
	if err != nil {
		return nil, err
	}
	return c.unaryTask(ctx, c.calls.getTask, cfg, cfg.header, taskID)
}

// Cancel asks the agent to cancel a task (tasks/cancel in 0.3, CancelTask in
// 1.0) and returns the task as the agent reports it. opts, and an empty
// taskID, are refused as GetTask refuses them, with nothing sent.
func (c *Client) Cancel(ctx context.Context, taskID string, opts ...Option) (*a2a.Task, error) {
	if err := needTaskID("Cancel", taskID); err != nil {
		return nil, err
	}
	cfg, err := c.configWith(opts, "Cancel", false)
	if err != nil {
		return nil, err
	}
	return c.unaryTask(ctx, c.calls.cancel, cfg, cfg.header, taskID)
}

// taskCall is a binding's get-task or cancel.
type taskCall func(ctx context.Context, k callConfig, taskID string) (taskAnswer, error)

// unaryTask makes call, a get-task or a cancel, with cfg and header, in
// the Client's version, negotiated if it is not known yet.
func (c *Client) unaryTask(ctx context.Context, call taskCall, cfg *config, header http.Header, taskID string) (*a2a.Task, error) {
	v, negotiable := c.currentVersion()
	t, err := checkedTask(ctx, call, cfg.call(v, header), taskID)
	if negotiable && isVersionRefusal(err) {
		v = a2a.V03
		t, err = checkedTask(ctx, call, cfg.call(v, header), taskID)
	}
	if err != nil {
		err, _ = callmark.UnwrapResponded(err)
		return nil, err
	}
	c.remember(v)
	return t, nil
}

// checkedTask makes a get-task or cancel call with k and returns its task,
// checked (see taskOfAnswer).
func checkedTask(ctx context.Context, call taskCall, k callConfig, taskID string) (*a2a.Task, error) {
	a, err := call(ctx, k, taskID)
	if err != nil {
		return nil, err
	}
	return taskOfAnswer(a, taskID)
}

// taskOfAnswer decodes the task a get-task or cancel for taskID answered
// with, and checks that it is the task asked for.
func taskOfAnswer(a taskAnswer, taskID string) (*a2a.Task, error) {
	t, err := a.task()
	if err != nil {
		return nil, err
	}
	if t == nil { // a Transport of another module answered with neither
		return nil, &transport.ProtocolError{Reason: fmt.Sprintf("asked for task %q, got no task and no error", quote([]byte(taskID)))}
	}
	if t.ID != taskID {
		return nil, &transport.ProtocolError{Reason: fmt.Sprintf("asked for task %q, got task %q", taskID, quote([]byte(t.ID))), Task: t}
	}
	return t, nil
}
