package stream

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/terminal"
)

// Option configures a Client (NewClient, NewRESTClient, Resolve) or one
// call (Send, Subscribe, GetTask, Cancel). A per-call option overrides the
// Client's for that call only (a per-call WithHeader replaces the Client's
// values of its header name); WithHTTPClient, WithVersion, WithBinding,
// WithCardCache and WithTrustedOrigins are Client-wide and are refused per call, whatever their
// value. When an option is given twice, the last one wins, except that
// WithHeader adds a value. Bad values, a nil Option and a nil hook or
// notify function among them, are refused with an error that wraps
// ErrInvalidOption: by the constructor, or, per call, as the stream's Err.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// clientOption is an option that configures a Client only: a call refuses
// it, whatever its value.
type clientOption struct {
	name string // the option's function, for the refusal
	f    func(*config)
}

func (o clientOption) apply(c *config) { o.f(c) }

type config struct {
	httpClient   *http.Client
	version      a2a.Version
	header       http.Header
	maxEventSize int
	idleTimeout  time.Duration
	logger       *slog.Logger
	policy       reconnect.Policy
	hook         hitl.Hook
	credentials  CredentialsHook
	inputTimeout time.Duration
	beforeReply  func(context.Context, *Checkpoint) error // WithCheckpointBeforeReply
	sleep        func(context.Context, time.Duration) error
	notify       func(Notice)
	pollInterval time.Duration
	stallTimeout time.Duration
	binding      a2a.Binding
	cardCache    *CardCache
	trusted      []string        // WithTrustedOrigins, as given
	breaker      Breaker         // WithBreaker
	readFailure  terminal.Reader // WithFailureReader
	// idempotentSends: a send answered "busy" (429, 503, a retryable
	// error) may be made again; see WithIdempotentSends.
	idempotentSends bool
	connectTimeout  time.Duration
	// refusals are the options refused as they were applied (a nil Option,
	// a nil hook); check reports them.
	refusals []string

	// Set by Resolve from the agent card (fromCard), never by an Option:
	tenant    string         // the chosen 1.0 interface's tenant
	streaming streaming      // what the card says of streaming
	card      *a2a.AgentCard // the card Resolve read
}

// streaming is what the agent card says of the agent's ability to stream.
type streaming int

const (
	streamingUnknown streaming = iota // no card read, or it does not say
	streamingYes                      // capabilities.streaming true
	streamingNo                       // capabilities.streaming false: poll
)

// DefaultMaxEventSize is the largest SSE event, or unary JSON response, a
// Client accepts unless WithMaxEventSize says otherwise.
const DefaultMaxEventSize = sse.DefaultMaxEventSize // 16 MiB

func defaultConfig() config {
	return config{
		httpClient:     http.DefaultClient,
		header:         http.Header{},
		maxEventSize:   DefaultMaxEventSize,
		logger:         slog.New(slog.DiscardHandler),
		policy:         reconnect.Default(),
		sleep:          sleep,
		pollInterval:   DefaultPollInterval,
		stallTimeout:   DefaultStallTimeout,
		connectTimeout: DefaultConnectTimeout,
	}
}

// The defaults of WithPollInterval and WithStallTimeout.
const (
	DefaultPollInterval = time.Second
	DefaultStallTimeout = 5 * time.Minute
)

// minPollInterval is the shortest poll interval; shorter ones are refused.
const minPollInterval = time.Millisecond

// configWith returns the Client's configuration with opts applied, checked:
// a call's (or a stream's). Client-wide options are refused. A header set
// per call replaces the Client's values of that header name; the Client's
// other headers stay.
func (c *Client) configWith(opts []Option) (*config, error) {
	cfg := c.cfg
	if len(opts) == 0 {
		return &cfg, nil
	}
	var errs []error
	cfg.header = http.Header{}
	for _, o := range opts {
		switch o := o.(type) {
		case nil:
			cfg.refuse("a nil Option")
		case clientOption:
			errs = append(errs, invalidOption("%s is Client-wide: it cannot be given to one call", o.name))
		default:
			o.apply(&cfg)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	cfg.header = withHeaders(c.cfg.header, cfg.header)
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// WithIdempotentSends lets a stream send its message again, with the same
// message ID, when the agent answered the send with 429 Too Many Requests,
// 503 Service Unavailable, or an error it marked retryable (see
// [a2a.RPCError.Retryable]), within the reconnect budget and after the
// wait the agent asked for. It applies to the first message and to a reply
// to a prompt.
//
// It is off by default because such an answer does not prove that the agent
// did not take the message: an agent may have started the task and then
// failed. Turn it on only for an agent that treats a message ID it has
// already seen as the same message, and does not act on it twice (A2A asks
// clients to give each message a unique ID, but does not require agents to
// deduplicate by it). A send that provably never reached the agent (the
// connection was refused, or timed out, before any byte was sent) is sent
// again whether or not this is on.
func WithIdempotentSends() Option {
	return optionFunc(func(c *config) { c.idempotentSends = true })
}

// WithPollInterval sets how often a stream polls get-task when it follows a
// task by polling: for an agent that cannot stream (its card says
// capabilities.streaming false, or it refuses a streaming send) or a server
// that cannot subscribe. A Retry-After from the server, on a poll's answer
// or on a failed poll, lengthens one wait (to at most 30 s).
// It must be at least 1 ms: a shorter one is refused. The default is
// DefaultPollInterval.
func WithPollInterval(d time.Duration) Option {
	return optionFunc(func(cfg *config) { cfg.pollInterval = d })
}

// WithStallTimeout bounds how long a task may show nothing new (no status
// change, part or message) before the stream ends with a *StalledError
// carrying the task: a server may abandon a task, for example when a
// client's connection drops, and leave it working forever. It applies to a
// polled task, and, when an idle timeout is set (WithIdleTimeout), to a
// streamed one: its stream brings no event with anything new for d,
// whether silent (a silence past the idle timeout while get-task shows the
// task working or submitted costs no reconnect attempt, so this limit is
// what ends it) or sending only keep-alives: SSE comments, or events with
// empty data ("data:" alone, which the stream skips), which keep the idle
// timer from firing but are no progress. A
// streamed task's clock counts the time the stream waits for its next
// event, not the caller's own time between two events. Without an idle
// timeout a stream's silence, keep-alives or not, is not bounded. Zero
// disables the limit; it must not be negative. The default is
// DefaultStallTimeout.
func WithStallTimeout(d time.Duration) Option {
	return optionFunc(func(cfg *config) { cfg.stallTimeout = d })
}

// WithHTTPClient sets the HTTP client; it must not be nil, and must not have
// a Timeout, which would cut long streams and turn them into reconnect
// churn: use contexts and WithIdleTimeout instead. The default is
// http.DefaultClient. It is Client-wide.
func WithHTTPClient(c *http.Client) Option {
	return clientOption{"WithHTTPClient", func(cfg *config) { cfg.httpClient = c }}
}

// WithVersion fixes the protocol version. Without it the Client negotiates:
// it tries 1.0 first and falls back to 0.3 once, when the server answers
// method-not-found or version-not-supported. It must be a2a.V03 or a2a.V10,
// and is Client-wide.
func WithVersion(v a2a.Version) Option {
	return clientOption{"WithVersion", func(cfg *config) { cfg.version = v }}
}

// WithTrustedOrigins names origins besides the one the caller named to
// which headers go too (those of WithHeader, of each call, and of a
// credentials hook): an agent whose card names "http://127.0.0.1:9999"
// where the caller gave "http://localhost:9999", say, or another host the
// caller knows serves the agent. Each is an origin: an absolute http or
// https URL with a host and nothing after it but "/" ("https://agent.example",
// "http://127.0.0.1:9999"); anything else is refused, and so is an http
// origin where the origin named is https: headers never go from https down
// to http. A redirect to a trusted origin keeps the headers; the card
// request of Resolve sends them to baseURL's origin only. It is
// Client-wide; given twice, both lists hold.
func WithTrustedOrigins(trusted ...string) Option {
	return clientOption{"WithTrustedOrigins", func(cfg *config) { cfg.trusted = append(cfg.trusted, trusted...) }}
}

// WithHeader adds a header to every request sent to the origin the caller
// named (the scheme, host and port of NewClient's endpoint or
// NewRESTClient's base URL, or of Resolve's baseURL), for example an
// Authorization header. Headers are never sent to another origin: not to an
// endpoint on another host that an agent card names (each stream says so
// with a HeadersWithheld notice and a debug log line), not from https down
// to http, and not across a redirect; WithTrustedOrigins names the other
// origins the caller trusts with them. A per-call header follows the same
// rule. The key must be a valid
// header name and the value must hold no control character but a tab. Given twice with one
// name at the same level, it sends both values; given per call, it replaces
// the Client's values of that name for the call (a user's token in place of
// a service's).
func WithHeader(key, value string) Option {
	return optionFunc(func(cfg *config) {
		h := cfg.header.Clone()
		h.Add(key, value)
		cfg.header = h
	})
}

// WithMaxEventSize sets the largest SSE event (and unary JSON response) the
// Client accepts, in bytes. A bigger one ends the stream with a
// *ProtocolError. It must be positive. The default is DefaultMaxEventSize
// (16 MiB).
func WithMaxEventSize(n int) Option {
	return optionFunc(func(cfg *config) { cfg.maxEventSize = n })
}

// WithIdleTimeout treats a connection on which no byte (comments included)
// arrived for d as dropped. Zero, the default, disables the check; none of the
// A2A servers measured sends keep-alives, so set it above the agent's
// longest silence. It must not be negative.
func WithIdleTimeout(d time.Duration) Option {
	return optionFunc(func(cfg *config) { cfg.idleTimeout = d })
}

// WithConnectTimeout bounds the making of each call's connection: the
// dial (name resolution included), a proxy's CONNECT and the TLS handshake,
// apart from the idle timeout (WithIdleTimeout), which measures silence once
// connected, and from the caller's context, which bounds the whole stream.
// A call whose connection is not made in time fails with ErrConnectTimeout;
// nothing was sent, so a send is made again within the reconnect budget.
// The default is DefaultConnectTimeout; zero leaves the dial to the
// transport's own limits. It must not be negative.
//
// It applies to net/http's Transport (the default), and to any
// RoundTripper that reports net/http/httptrace's GetConn and GotConn; each
// redirect's connection is timed anew. It counts from GetConn, so with a
// Transport that caps its connections to a host (MaxConnsPerHost) it also
// bounds the wait for a free one; a call cut there was not sent either.
func WithConnectTimeout(d time.Duration) Option {
	return optionFunc(func(cfg *config) { cfg.connectTimeout = d })
}

// WithLogger sets the logger. The default discards everything. Neither logs
// nor error texts ever contain header values, request bodies, URL user
// names and passwords or the values of URL query parameters (an API key in
// the endpoint's query reads "?api_key=xxxxx", in a *url.Error from the transport too); text a
// server sends (a JSON-RPC error message) is quoted as the server wrote it,
// up to its first 256 bytes. It must not be nil.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(cfg *config) { cfg.logger = l })
}

// WithReconnect sets the reconnect policy. Its zero fields mean the
// defaults of reconnect.Default(), and reconnect.Never() turns reconnecting
// off; Backoff must not be negative. The default is reconnect.Default().
func WithReconnect(p reconnect.Policy) Option {
	return optionFunc(func(cfg *config) { cfg.policy = p })
}

// WithHumanInput sets the hook that answers input-required prompts.
func WithHumanInput(h hitl.Hook) Option {
	return optionFunc(func(cfg *config) {
		if f, isFunc := h.(hitl.Func); h == nil || isFunc && f == nil {
			cfg.refuse("WithHumanInput: the hook is nil")
		}
		cfg.hook = h
	})
}

// WithCheckpointBeforeReply sets a function that saves the stream's
// checkpoint before each send of a reply to a prompt (the first, and any
// send of the same reply again): the checkpoint records the reply as
// possibly sent, so that a process that dies while it is in flight resumes
// knowing it, and never asks the human again nor sends another reply. The
// same reply (same message ID) is sent again on Resume only when the task
// proves the agent never took it: it lists the user's messages, and not
// the reply; against an agent that keeps none (a2a-go) the stream waits. f
// gets the caller's context; when it returns an error, the reply is not
// sent and the stream ends in that error (wrapped). Without it, a process
// that dies between the human's answer and the next checkpoint it takes
// itself asks again on Resume if the task still shows the prompt.
func WithCheckpointBeforeReply(f func(ctx context.Context, cp *Checkpoint) error) Option {
	return optionFunc(func(cfg *config) {
		if f == nil {
			cfg.refuse("WithCheckpointBeforeReply: the function is nil")
		}
		cfg.beforeReply = f
	})
}

// WithInputTimeout bounds each call of the human-input hook, and of the
// credentials hook (WithCredentials). Zero, the default, means no bound
// beyond the stream's context; it must not be negative.
func WithInputTimeout(d time.Duration) Option {
	return optionFunc(func(cfg *config) { cfg.inputTimeout = d })
}

// WithNotify sets a function told about reconnects and resumes, for example
// to show "reconnecting (1/3)…" in a user interface. It is called on the
// goroutine that calls Stream.Next and must not block.
func WithNotify(f func(Notice)) Option {
	return optionFunc(func(cfg *config) {
		if f == nil {
			cfg.refuse("WithNotify: the function is nil")
		}
		cfg.notify = f
	})
}

// WithBinding makes Resolve prefer interfaces of binding b
// (a2a.BindingJSONRPC or a2a.BindingHTTPJSON) when the card offers several;
// without it Resolve prefers JSON-RPC. NewClient and NewRESTClient ignore it.
// It is Client-wide.
func WithBinding(b a2a.Binding) Option {
	return clientOption{"WithBinding", func(cfg *config) { cfg.binding = b }}
}

// NoticeKind says what a Notice reports.
type NoticeKind int

const (
	// Reconnecting: the connection dropped and the stream will resubscribe
	// after Wait. Attempt counts from 1.
	Reconnecting NoticeKind = iota + 1
	// Resumed: after a failed attempt, a resubscribe's stream opened, a
	// get-task answered, or a send made again got through. A stream that
	// opened may still carry an error as its first event, which a
	// Reconnecting notice then follows.
	Resumed
	// Polling: the server cannot stream this task (or cannot subscribe to
	// it), so the stream follows it by polling get-task every Wait. Cause
	// is the refusal that showed it, or nil when the agent card said so. It
	// costs no reconnect attempt.
	Polling
	// HeadersWithheld: the endpoint the stream calls is not on the origin
	// the caller named (an agent card named another host, port or scheme,
	// "127.0.0.1" where the caller gave "localhost", say), so its headers,
	// the Client's, the call's and a credentials hook's, are not sent
	// there (see WithHeader). Headers names them, never their values;
	// NamedOrigin and EndpointOrigin are the two origins. Each stream tells
	// it once, before its first call, or when a credentials hook first
	// gives headers.
	HeadersWithheld
)

// String returns "reconnecting", "resumed", "polling" or
// "headers-withheld".
func (k NoticeKind) String() string {
	switch k {
	case Reconnecting:
		return "reconnecting"
	case Resumed:
		return "resumed"
	case Polling:
		return "polling"
	case HeadersWithheld:
		return "headers-withheld"
	}
	return "unknown"
}

// Notice reports a reconnect, a resume, the switch to polling or headers
// withheld to the function set with WithNotify.
type Notice struct {
	Kind        NoticeKind
	TaskID      string
	Attempt     int
	MaxAttempts int
	Wait        time.Duration
	Cause       error
	// Headers are the names of the headers withheld, sorted, never their
	// values (HeadersWithheld).
	Headers []string
	// NamedOrigin is the origin the caller named, to which alone headers
	// go, and EndpointOrigin the origin of the endpoint the stream calls,
	// which is not it (HeadersWithheld).
	NamedOrigin, EndpointOrigin string
}
