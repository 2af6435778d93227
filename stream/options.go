package stream

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// Option configures a Client, or one call of a Client. Each option applies
// in some of these places, and its doc says which:
//
//   - a Client's constructors: NewClient, NewRESTClient and Resolve, for
//     the bindings of this package, and NewClientFor, for a Transport of
//     another module;
//   - one call of a Client: a stream (Send, Subscribe, Resume) or GetTask,
//     Cancel, ListTasks and the push-config calls (SetPushConfig, ...), of
//     a Client of this package's bindings or of NewClientFor.
//
// An option given where it does not apply is refused, whatever its value,
// with an error that wraps ErrInvalidOption and names the option and the
// place: a Client-wide option given to one call (WithHTTPClient to Send),
// an option of this package's HTTP bindings given for a Transport of another
// module (WithMaxEventSize to NewClientFor), a stream's option given to
// GetTask (WithReconnect). Nothing is ever silently ignored, and nothing is sent
// before the refusal.
//
// An option given to a constructor that applies to calls is the Client's
// default for them; given to one call it overrides the Client's for that
// call only (a per-call WithHeader replaces the Client's values of its
// header name). When an option is given twice, the last one wins, except
// that WithHeader adds a value, WithTrustedOrigins adds origins and
// WithTrace adds a Trace (both are called, the Client's too). Bad
// values, a nil Option and a nil hook or notify function among them, are
// refused with an error that wraps ErrInvalidOption too. Either refusal is
// the constructor's error, the call's, or, per stream, the stream's Err.
type Option interface{ option() option }

// option is every Option: what it sets, and where it applies.
type option struct {
	name string // the option's function, for refusals
	at   where  // the places where it applies
	set  func(*config)
}

func (o option) option() option { return o }

// where is a set of the places that take Options (see Option).
type where uint16

// The places that take Options.
const (
	atNewClient    where = 1 << iota // NewClient and NewRESTClient
	atResolve                        // Resolve
	atNewClientFor                   // NewClientFor
	atStream                         // Send, Subscribe and Resume of a Client of this package's bindings
	atUnary                          // GetTask, Cancel and ListTasks of a Client of this package's bindings
	atStreamFor                      // Send, Subscribe and Resume of a Client of NewClientFor
	atUnaryFor                       // GetTask, Cancel and ListTasks of a Client of NewClientFor
)

// The scopes of the options: each option applies at one of these sets.
const (
	// overHTTP: the constructors of a Client of this package's bindings,
	// which make its HTTP client (WithTrustedOrigins, WithBreaker).
	overHTTP = atNewClient | atResolve
	// constructors: every constructor of a Client (WithVersion).
	constructors = overHTTP | atNewClientFor
	// httpCalls: the calls of this package's HTTP bindings, and the
	// constructors whose Clients make them (WithMaxEventSize,
	// WithConnectTimeout).
	httpCalls = overHTTP | atStream | atUnary
	// streams: what the driver reads, at every constructor and every
	// stream (WithReconnect, the hooks, ...).
	streams = constructors | atStream | atStreamFor
	// streamsAndHTTPCalls: those and GetTask, Cancel and ListTasks of this package's
	// bindings (WithIdleTimeout, WithLogger).
	streamsAndHTTPCalls = streams | atUnary
	// everywhere: WithHeader.
	everywhere = constructors | atStream | atUnary | atStreamFor | atUnaryFor
)

// String says where the options of scope w apply, for a refusal.
func (w where) String() string {
	switch w {
	case atResolve:
		return "Resolve only"
	case atStream:
		return "the streams (Send, Subscribe, Resume) of a Client of NewClient, NewRESTClient or Resolve only"
	case overHTTP:
		return "NewClient, NewRESTClient and Resolve only"
	case constructors:
		return "a Client's constructors only (NewClient, NewRESTClient, Resolve, NewClientFor)"
	case httpCalls:
		return "NewClient, NewRESTClient and Resolve, and every call of their Clients"
	case streams:
		return "a Client's constructors (NewClient, NewRESTClient, Resolve, NewClientFor) and its streams (Send, Subscribe, Resume)"
	case streamsAndHTTPCalls:
		return "a Client's constructors (NewClient, NewRESTClient, Resolve, NewClientFor), its streams (Send, Subscribe, Resume), " +
			"and GetTask, Cancel and ListTasks of a Client of NewClient, NewRESTClient or Resolve"
	case everywhere:
		return "everywhere"
	}
	return fmt.Sprintf("places %#x", uint16(w))
}

// configWith returns the Client's configuration with opts applied, checked:
// a call's (or a stream's), call naming it ("Send", "GetTask", ...) and
// stream telling which of the two kinds of calls it is. Options that do not
// apply to the call are refused. A header set per call replaces the
// Client's values of that header name; the Client's other headers stay.
func (c *Client) configWith(opts []Option, call string, stream bool) (*config, error) {
	cfg := c.cfg
	if len(opts) == 0 {
		return &cfg, nil
	}
	_, foreign := c.calls.(seam)
	var at where
	switch {
	case stream && foreign:
		at = atStreamFor
	case stream:
		at = atStream
	case foreign:
		at = atUnaryFor
	default:
		at = atUnary
	}
	if foreign {
		call += " of a Client of " + c.madeBy
		if c.madeBy == "Resolve" {
			call += " over a Transport of WithTransportFor"
		}
	}
	cfg.header = http.Header{}
	cfg.applyOptions(opts, at, call)
	cfg.header = withHeaders(c.cfg.header, cfg.header)
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

type config struct {
	httpClient   *http.Client
	version      a2a.Version
	header       http.Header
	maxEventSize int
	idleTimeout  time.Duration
	logger       *slog.Logger
	policy       reconnect.Policy
	hook         hitl.Hook
	credentials  credentials.Hook
	inputTimeout time.Duration
	beforeReply  func(context.Context, *Checkpoint) error // WithCheckpointBeforeReply
	sleep        func(context.Context, time.Duration) error
	notify       func(Notice)
	trace        *Trace // WithTrace, composed (trace.go)
	pollInterval time.Duration
	stallTimeout time.Duration
	// pushReceiver and pushPollInterval are WithPush's and
	// WithPushPollInterval's (push.go).
	pushReceiver     *push.Receiver
	pushPollInterval time.Duration
	binding          a2a.Binding
	cardCache        *agentcard.Cache
	extendedCard     bool // WithExtendedCard
	// openFor and open are WithTransportFor's: Resolve may pick the
	// card's interfaces of binding openFor, and opens them with open.
	openFor     a2a.Binding
	open        func(a2a.AgentInterface) (transport.Transport, error)
	trusted     []string          // WithTrustedOrigins, as given
	breaker     transport.Breaker // WithBreaker
	readFailure terminal.Reader   // WithFailureReader
	// idempotentSends: a send answered "busy" (429, 503, a retryable
	// error) may be made again; see WithIdempotentSends.
	idempotentSends bool
	connectTimeout  time.Duration
	// refusals are the options refused as they were applied (a nil Option,
	// a nil hook); check reports them.
	refusals []string
	// push is the push-notification config a stream's send carries in its
	// configuration (withPushConfig); nil for none.
	push *a2a.PushConfig

	// Set by Resolve from the agent card (fromCard), never by an Option:
	tenant    string         // the chosen 1.0 interface's tenant
	streaming streaming      // what the card says of streaming
	card      *a2a.AgentCard // the card in use: the public one Resolve read, or the extended one
	// cardExtended: card is the agent's authenticated extended card
	// (WithExtendedCard).
	cardExtended bool
}

// streaming is what the agent card says of the agent's ability to stream.
type streaming int

const (
	streamingUnknown streaming = iota // no card read, or it does not say
	streamingYes                      // capabilities.streaming true
	streamingNo                       // capabilities.streaming false: poll
)

// defaultMaxEventSize is the largest SSE event, or unary JSON response, a
// Client accepts unless WithMaxEventSize says otherwise.
const defaultMaxEventSize = sse.DefaultMaxEventSize // 16 MiB

func defaultConfig() config {
	return config{
		httpClient:       http.DefaultClient,
		header:           http.Header{},
		maxEventSize:     defaultMaxEventSize,
		logger:           slog.New(slog.DiscardHandler),
		policy:           reconnect.Default(),
		sleep:            sleep,
		pollInterval:     defaultPollInterval,
		stallTimeout:     defaultStallTimeout,
		pushPollInterval: defaultPushPollInterval,
		connectTimeout:   defaultConnectTimeout,
	}
}

// The defaults of WithPollInterval and WithStallTimeout.
const (
	defaultPollInterval = time.Second
	defaultStallTimeout = 5 * time.Minute
)

// minPollInterval is the shortest poll interval; shorter ones are refused.
const minPollInterval = time.Millisecond

// WithIdempotentSends lets a stream send its message again, with the same
// message ID, when the agent answered the send with 429 Too Many Requests,
// 503 Service Unavailable, or an error it marked retryable (see
// [a2a.RPCError.Retryable]), within the reconnect budget and after the
// wait the agent asked for. It applies to the first message and to a reply
// to a prompt. It also sends a reply again, with the same message ID, when
// the reply's send got no response (the connection died after the request
// may have left) and the task still shows the prompt, which a store that
// lags behind the agent shows too: without it such a reply is never sent
// again, and the stream follows the task until the agent moves on or the
// reconnect budget or the stall limit ends it.
//
// It is off by default because such an answer does not prove that the agent
// did not take the message: an agent may have started the task and then
// failed. Turn it on only for an agent that treats a message ID it has
// already seen as the same message, and does not act on it twice (A2A asks
// clients to give each message a unique ID, but does not require agents to
// deduplicate by it). A send that provably never reached the agent (the
// connection was refused, or timed out, before any byte was sent) is sent
// again whether or not this is on.
//
// It applies to a Client's constructors and to its streams (Send,
// Subscribe, Resume).
func WithIdempotentSends() Option {
	return option{"WithIdempotentSends", streams, func(c *config) { c.idempotentSends = true }}
}

// WithPollInterval sets how often a stream polls get-task when it follows a
// task by polling: for an agent that cannot stream (its card says
// capabilities.streaming false, or it refuses a streaming send) or a server
// that cannot subscribe. A Retry-After from the server, on a poll's answer
// or on a failed poll, lengthens one wait (to at most 30 s).
// It must be at least 1 ms: a shorter one is refused. The default is one
// second. It applies to a Client's constructors and to its
// streams.
func WithPollInterval(d time.Duration) Option {
	return option{"WithPollInterval", streams, func(cfg *config) { cfg.pollInterval = d }}
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
// disables the limit; it must not be negative. The default is five
// minutes. It applies to a Client's constructors and to its
// streams.
func WithStallTimeout(d time.Duration) Option {
	return option{"WithStallTimeout", streams, func(cfg *config) { cfg.stallTimeout = d }}
}

// WithHTTPClient sets the HTTP client; it must not be nil, and must not have
// a Timeout, which would cut long streams and turn them into reconnect
// churn: use contexts and WithIdleTimeout instead. The default is
// http.DefaultClient. It applies to NewClient, NewRESTClient and Resolve
// only: it is Client-wide, and a Transport of another module
// (NewClientFor) makes its own requests.
func WithHTTPClient(c *http.Client) Option {
	return option{"WithHTTPClient", overHTTP, func(cfg *config) { cfg.httpClient = c }}
}

// WithVersion fixes the protocol version. Without it the Client negotiates:
// it tries 1.0 first and falls back to 0.3 once, when the server answers
// method-not-found or version-not-supported. It must be a2a.V03 or a2a.V10;
// any other value, the empty one too, is refused (leave the option out to
// negotiate). It applies to a Client's constructors only (NewClient,
// NewRESTClient, Resolve, NewClientFor): it is Client-wide.
func WithVersion(v a2a.Version) Option {
	return option{"WithVersion", constructors, func(cfg *config) {
		if v == "" {
			cfg.refuse("WithVersion: an empty protocol version; pass a2a.V03 or a2a.V10, or leave the option out to negotiate")
			return
		}
		cfg.version = v
	}}
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
// request of Resolve sends them to baseURL's origin only. Given twice, both
// lists hold. It applies to NewClient, NewRESTClient and Resolve only: it
// is Client-wide, and a
// Transport of another module (NewClientFor) gets the headers for its agent
// alone.
func WithTrustedOrigins(trusted ...string) Option {
	return option{"WithTrustedOrigins", overHTTP, func(cfg *config) { cfg.trusted = append(cfg.trusted, trusted...) }}
}

// WithHeader adds a header to every request sent to the origin the caller
// named (the scheme, host and port of NewClient's endpoint or
// NewRESTClient's base URL, or of Resolve's baseURL), for example an
// Authorization header. Headers are never sent to another origin: not to an
// endpoint on another host that an agent card names (each stream says so
// with a HeadersWithheld notice and a debug log line), not from https down
// to http, and not across a redirect; WithTrustedOrigins names the other
// origins the caller trusts with them. A per-call header follows the same
// rule. The key must be a valid header name and the value must hold no
// ASCII control character (below U+0020, or DEL) but a tab; HTTP allows
// other bytes. Given twice with one name at the same level, it sends both
// values; given per call, it replaces the Client's values of that name for
// the call (a user's token in place of a service's). It applies everywhere
// an Option is taken; a Transport of another module gets it in
// Call.Header.
func WithHeader(key, value string) Option {
	return option{"WithHeader", everywhere, func(cfg *config) {
		h := cfg.header.Clone()
		h.Add(key, value)
		cfg.header = h
	}}
}

// WithMaxEventSize sets the largest SSE event (and unary JSON response) the
// Client accepts, in bytes. What counts of an SSE event is its data read
// so far plus the line being read, field name included, without the line
// end: n bytes of data sent as "data: " lines need a limit of n+6. A
// bigger one ends the stream with a *transport.ProtocolError. It must be
// positive. The default is 16 MiB.
// It applies to NewClient, NewRESTClient and Resolve, and to
// every call of their Clients; not to NewClientFor, whose Transport reads
// its responses itself.
func WithMaxEventSize(n int) Option {
	return option{"WithMaxEventSize", httpCalls, func(cfg *config) { cfg.maxEventSize = n }}
}

// WithIdleTimeout treats a connection on which no byte (comments included)
// arrived for d as dropped. Zero, the default, disables the check; none of the
// A2A servers measured sends keep-alives, so set it above the agent's
// longest silence. The timer runs from the request's start, so set it above
// the time the longest request (a message with big files) takes to upload
// too. It must not be negative.
//
// It applies to a Client's constructors, to its streams, and to GetTask,
// Cancel and ListTasks of a Client of NewClient, NewRESTClient or Resolve. A Transport
// of another module (NewClientFor) gets it in Call.IdleTimeout and times
// its own readers with it (see Transport); there it also turns on the stall
// limit of a streamed task (WithStallTimeout), and GetTask, Cancel and ListTasks of
// such a Client refuse it.
func WithIdleTimeout(d time.Duration) Option {
	return option{"WithIdleTimeout", streamsAndHTTPCalls, func(cfg *config) { cfg.idleTimeout = d }}
}

// WithConnectTimeout bounds the making of each call's connection: the
// dial (name resolution included), a proxy's CONNECT and the TLS handshake,
// apart from the idle timeout (WithIdleTimeout), which measures silence once
// connected, and from the caller's context, which bounds the whole stream.
// A call whose connection is not made in time fails with
// transport.ErrConnectTimeout;
// nothing was sent, so a send is made again within the reconnect budget.
// The default is ten seconds; zero leaves the dial to the
// transport's own limits. It must not be negative.
//
// It applies to net/http's Transport (the default), and to any
// RoundTripper that reports net/http/httptrace's GetConn and GotConn; each
// redirect's connection is timed anew. It counts from GetConn, so with a
// Transport that caps its connections to a host (MaxConnsPerHost) it also
// bounds the wait for a free one; a call cut there was not sent either.
//
// It applies to NewClient, NewRESTClient and Resolve, and to every call of
// their Clients; not to NewClientFor, whose Transport makes its own
// connections.
func WithConnectTimeout(d time.Duration) Option {
	return option{"WithConnectTimeout", httpCalls, func(cfg *config) { cfg.connectTimeout = d }}
}

// WithLogger sets the logger. The default discards everything. Neither logs
// nor error texts ever contain header values, request bodies, URL user
// names and passwords or the values of URL query parameters (an API key in
// the endpoint's query reads "?api_key=xxxxx", in a *url.Error from the transport too); text a
// server sends (a JSON-RPC error message) is quoted as the server wrote it,
// up to its first 256 bytes. It must not be nil. It applies to a Client's
// constructors, to its streams, and to GetTask, Cancel and ListTasks of a Client of
// NewClient, NewRESTClient or Resolve, which log their requests.
func WithLogger(l *slog.Logger) Option {
	return option{"WithLogger", streamsAndHTTPCalls, func(cfg *config) { cfg.logger = l }}
}

// WithReconnect sets the reconnect policy. Its zero fields mean the
// defaults of reconnect.Default(), and reconnect.Never() turns reconnecting
// off; Backoff must not be negative. The default is reconnect.Default().
// It applies to a Client's constructors and to its streams.
func WithReconnect(p reconnect.Policy) Option {
	return option{"WithReconnect", streams, func(cfg *config) { cfg.policy = p }}
}

// WithHumanInput sets the hook that answers input-required prompts. It
// applies to a Client's constructors and to its streams.
func WithHumanInput(h hitl.Hook) Option {
	return option{"WithHumanInput", streams, func(cfg *config) {
		if f, isFunc := h.(hitl.Func); h == nil || isFunc && f == nil {
			cfg.refuse("WithHumanInput: the hook is nil")
		}
		cfg.hook = h
	}}
}

// WithCheckpointBeforeReply sets a function that saves the stream's
// checkpoint before each send of a reply to a prompt (the first, and any
// send of the same reply again): the checkpoint records the reply as
// possibly sent, so that a process that dies while it is in flight resumes
// knowing it, and never asks the human again nor sends another reply. The
// same reply (same message ID) is sent again on Resume only with
// WithIdempotentSends, and only when the task proves the agent never took
// it: it lists the user's messages, and not the reply; otherwise (and
// against an agent that keeps none, a2a-go) the stream waits. f
// gets the caller's context; when it returns an error, the reply is not
// sent and the stream ends in that error (wrapped). Without it, a process
// that dies between the human's answer and the next checkpoint it takes
// itself asks again on Resume if the task still shows the prompt. It
// applies to a Client's constructors and to its streams.
func WithCheckpointBeforeReply(f func(ctx context.Context, cp *Checkpoint) error) Option {
	return option{"WithCheckpointBeforeReply", streams, func(cfg *config) {
		if f == nil {
			cfg.refuse("WithCheckpointBeforeReply: the function is nil")
		}
		cfg.beforeReply = f
	}}
}

// WithInputTimeout bounds each call of the human-input hook, and of the
// credentials hook (WithCredentials). Zero, the default, means no bound
// beyond the stream's context; it must not be negative. It applies to a
// Client's constructors and to its streams.
func WithInputTimeout(d time.Duration) Option {
	return option{"WithInputTimeout", streams, func(cfg *config) { cfg.inputTimeout = d }}
}

// WithNotify sets a function told about reconnects and resumes, for example
// to show "reconnecting (1/3)…" in a user interface. It is called on the
// goroutine that calls Stream.Next (Resolve's, for PublicCardKept) and must
// not block. It applies to a
// Client's constructors and to its streams.
func WithNotify(f func(Notice)) Option {
	return option{"WithNotify", streams, func(cfg *config) {
		if f == nil {
			cfg.refuse("WithNotify: the function is nil")
		}
		cfg.notify = f
	}}
}

// WithBinding makes Resolve prefer interfaces of binding b
// (a2a.BindingJSONRPC or a2a.BindingHTTPJSON, or a2a.BindingGRPC given
// WithTransportFor of it) when the card offers several; without it Resolve
// prefers JSON-RPC. It applies to Resolve only: NewClient and
// NewRESTClient name their binding, and NewClientFor is given one.
func WithBinding(b a2a.Binding) Option {
	return option{"WithBinding", atResolve, func(cfg *config) { cfg.binding = b }}
}

// WithTransportFor lets Resolve pick the card's interfaces of binding b, a
// binding of another module, and open the Transport of the one it picks
// with open, which is given the interface as the card states it (its URL,
// for gRPC the target, its tenant and protocol version; for a 0.3 card's
// url, an AgentInterface of that url, the card's preferredTransport and its
// protocolVersion). The Client then makes its calls through that Transport
// as a Client of NewClientFor does, in the interface's version, and
// Client.Close closes it. An error of open is Resolve's error, wrapped.
//
// b must be a2a.BindingGRPC (for example with a2agrpc.Opener, in the
// module github.com/a2astream/a2astream/grpc): the bindings this package
// speaks itself, JSON-RPC and HTTP+JSON, and unknown ones are refused, and
// so is a nil open. Given twice, the last one wins. It applies to Resolve
// only.
//
// When Resolve picks such an interface, the options of this package's HTTP
// bindings given to it (WithBreaker, WithTrustedOrigins,
// WithConnectTimeout, WithMaxEventSize) are refused with ErrInvalidOption,
// as NewClientFor refuses them: they do not reach the Transport, which has
// options of its own. WithHTTPClient is not refused: Resolve read the card
// with it; the Transport's calls do not use it.
//
// Headers (WithHeader, a credentials hook's) reach the Transport in
// Call.Header only when its interface is on baseURL's host and port and,
// when baseURL is https, the Transport says its connections are encrypted
// (a method Secure() bool that returns true: a2agrpc's Transport has one);
// else they are withheld, with a HeadersWithheld notice (see Resolve).
func WithTransportFor(b a2a.Binding, open func(a2a.AgentInterface) (transport.Transport, error)) Option {
	return option{"WithTransportFor", atResolve, func(cfg *config) {
		pb, known := a2a.ParseBinding(string(b))
		switch {
		case open == nil:
			cfg.refuse("WithTransportFor: the open function is nil")
		case known && (pb == a2a.BindingJSONRPC || pb == a2a.BindingHTTPJSON):
			cfg.refuse(fmt.Sprintf("WithTransportFor: %s is a binding this package speaks itself", pb))
		case pb != a2a.BindingGRPC:
			cfg.refuse(fmt.Sprintf("WithTransportFor: unsupported binding %q (only GRPC)", string(b)))
		}
		cfg.openFor, cfg.open = pb, open
	}}
}

// NoticeKind says what a Notice reports.
type NoticeKind int

const (
	// Reconnecting: the connection dropped and the stream will resubscribe
	// after Wait. Attempt counts from 1.
	Reconnecting NoticeKind = iota + 1
	// Resumed: after a failed attempt, a resubscribe's stream opened, a
	// get-task answered, or a send made again got through; told once for
	// the attempt, at the first of these (a resubscribe whose stream opens
	// with an error that a get-task then answers is one Resumed). A stream
	// that opened may still carry an error as its first event, which a
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
	// PublicCardKept: Resolve, given WithExtendedCard, keeps the public
	// agent card, and Cause says why (see WithExtendedCard): the card
	// offers no extended card (ErrExtendedCardNotOffered), the agent
	// answered with its public card (ErrExtendedCardPublic), no
	// credentials may go to its endpoint (ErrExtendedCardWithheld), or the
	// call failed (the agent's refusal, a network error, a
	// *transport.ProtocolError for what is not a card). It is told once,
	// on Resolve's goroutine, before Resolve returns.
	PublicCardKept
	// Pushing: the stream registered a push config with the agent
	// (WithPush) and follows its task by push notifications: it polls
	// get-task when one comes, and every Wait (WithPushPollInterval) when
	// none does. Cause is what made it stop streaming (the drop), or nil
	// when it polled already.
	Pushing
	// PushUnavailable: the stream was given WithPush, but the agent
	// cannot take a push config, and Cause says why (the card says it has no
	// push notifications, or the agent's answer to the push-config call);
	// the stream follows its task as without WithPush.
	PushUnavailable
)

// String returns "reconnecting", "resumed", "polling",
// "headers-withheld", "public-card-kept", "pushing" or "push-unavailable".
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
	case PublicCardKept:
		return "public-card-kept"
	case Pushing:
		return "pushing"
	case PushUnavailable:
		return "push-unavailable"
	}
	return "unknown"
}

// Notice reports a reconnect, a resume, the switch to polling or to push
// notifications, push notifications unavailable, headers withheld or the
// public card kept to the function set with WithNotify.
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
	// which is not it (HeadersWithheld); for a gRPC interface Resolve
	// picked, its target's host:port.
	NamedOrigin, EndpointOrigin string
}
