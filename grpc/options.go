package a2agrpc

import (
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/a2astream/a2astream/transport"
)

// ErrInvalidOption is wrapped by the *OptionError with which New refuses an
// option, or a set of options, that cannot make a Transport.
var ErrInvalidOption = errors.New("a2agrpc: invalid option")

// OptionError reports an option New refused, or one that made a call fail
// as it opened: which one, and why. It matches ErrInvalidOption and
// transport.ErrMisconfigured with errors.Is.
type OptionError struct {
	// Option names the option ("WithConnectTimeout"), or "New" for the
	// target or for options that do not go together.
	Option string
	// Reason says what is wrong, never quoting a credential.
	Reason string
}

// Error reads like "a2agrpc: invalid option: WithConnectTimeout: it is
// negative".
func (e *OptionError) Error() string {
	return fmt.Sprintf("%v: %s: %s", ErrInvalidOption, e.Option, e.Reason)
}

// Unwrap returns ErrInvalidOption.
func (e *OptionError) Unwrap() error { return ErrInvalidOption }

// Is reports whether target is transport.ErrMisconfigured, which an
// OptionError matches too: a call that fails with one (a nil inside a dial
// option, found as the call opens) ends a stream at once with it, never
// made again.
func (e *OptionError) Is(target error) bool { return target == transport.ErrMisconfigured }

// defaultConnectTimeout is the connect timeout unless WithConnectTimeout
// says otherwise: that of stream's HTTP bindings.
const defaultConnectTimeout = 10 * time.Second

// defaultMaxMessageSize is the largest message a Transport accepts unless
// WithMaxMessageSize says otherwise: stream's default largest event.
const defaultMaxMessageSize = 16 << 20

// config is what the options set.
type config struct {
	creds          credentials.TransportCredentials
	insecure       bool
	dialOpts       []grpc.DialOption
	connectTimeout time.Duration
	breaker        transport.Breaker
	tenant         string
	tenantSet      bool // WithTenant was given, for Opener
	maxMessageSize int
	errs           []error
}

// Option configures a Transport (see New).
type Option func(*config)

// refuse notes that an option is refused; New returns the first refusal.
func (c *config) refuse(option, reason string) {
	c.errs = append(c.errs, &OptionError{Option: option, Reason: reason})
}

// WithTransportCredentials makes the Transport's connections with creds,
// TLS for one (credentials.NewTLS). It must not be nil. New needs it or
// WithInsecure, never both: a plaintext connection is never made unless
// the caller asks for one.
func WithTransportCredentials(creds credentials.TransportCredentials) Option {
	return func(c *config) {
		if creds == nil {
			c.refuse("WithTransportCredentials", "nil credentials")
			return
		}
		c.creds = creds
	}
}

// WithInsecure makes the Transport's connections in plaintext, without TLS:
// for an agent on the same host or network, or in tests. Headers, and the
// credentials among them, then travel in clear.
func WithInsecure() Option {
	return func(c *config) { c.insecure = true }
}

// WithDialOptions adds options to grpc.NewClient's (a context dialer,
// per-RPC credentials, keepalive parameters, stream interceptors: every
// call, the unary ones of A2A too, is made as a stream, so a unary
// interceptor never runs), before the
// Transport's own, which win where they meet: transport credentials go
// with WithTransportCredentials or WithInsecure only, and a
// grpc.WithTransportCredentials here does not replace them (TLS asked for
// is never made plaintext by it), and gRPC's retries stay off whatever a
// service config here says (a retry policy would send a message the agent
// may have taken again). The Transport's number for each call
// (a2astream-call, see Transport) goes as per-RPC credentials of the
// connection, beside the caller's: an interceptor that sets the call's
// metadata anew, or credentials of the caller's (of the connection or of
// the call), do not displace it; a number an interceptor adds that names
// no call of the Transport is not read. The timers and the number ride
// on the call's context: an interceptor must call on with a context
// derived from the one it got (not detached from its cancellation, which
// turns every timer off, nor made anew, which loses the number), keep the
// call's method as it is (a renamed one loses the number too), and must
// not replay a call (a retry interceptor would send a message the agent
// may have read again; the stream resubscribes on its own). A nil option
// is refused, and so is a nil inside one, as the call opens when gRPC reads
// it only then; a call option that holds a nil (grpc.Header(nil)) and a
// dialer that returns no connection and no error panic inside gRPC, as
// they do without a Transport.
//
// A side call an interceptor makes on the Transport's connection, of
// another method than the call's, is not the call, whatever context it
// uses: its traffic does not keep the call alive. A side call of the call's
// own method made with its context is taken for the call.
//
// Credentials given here (grpc.WithPerRPCCredentials) are outside the
// origin rule: gRPC sends them on every call to whatever target the
// Transport dials, and the Transport cannot read them to hold them back.
// Given to an Opener, they go to the target the agent card names, another
// host's included. Give credentials with stream.WithHeader or a credentials
// hook instead, which reach the agent named only.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(c *config) {
		for _, o := range opts {
			if o == nil {
				c.refuse("WithDialOptions", "a nil grpc.DialOption")
				return
			}
		}
		c.dialOpts = append(c.dialOpts, opts...)
	}
}

// WithConnectTimeout bounds the wait for a connection to the agent at the
// start of each call: the time grpc-go's NewStream takes to have a ready
// connection and open the call's stream on it. A call cut there was never
// sent: it fails with an error wrapping transport.ErrConnectTimeout, marked
// transport.CouldNotConnect. The default is ten seconds, as stream's HTTP
// bindings have it; zero leaves the wait to grpc-go (twenty seconds while
// it connects, and the caller's context). It must not be negative.
func WithConnectTimeout(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.refuse("WithConnectTimeout", "it is negative")
			return
		}
		c.connectTimeout = d
	}
}

// WithBreaker makes the Transport ask b before each call it makes to the
// agent and report the call's result to it, as transport.Breaker says for
// stream's HTTP bindings, with a gRPC call's response headers in the place
// of the HTTP status line. It reports, once per call:
//
//   - nil when the response headers (or the answer) arrive, or when the call
//     ends before them with a status that is the agent's answer;
//   - the *StatusError of a call that ends before them with the codes of a
//     server down, overloaded or failing (UNAVAILABLE, a refused dial among
//     them, RESOURCE_EXHAUSTED, INTERNAL, UNKNOWN, DEADLINE_EXCEEDED,
//     ABORTED, DATA_LOSS), as HTTP's 408, 429 and 5xx;
//   - transport.ErrConnectTimeout, transport.ErrIdleTimeout, or the caller's
//     context error, for a call those ended before any answer.
//
// A call b refuses fails at once with an error wrapping
// transport.ErrCircuitOpen, marked transport.NotSent. Nil, the default,
// means no breaker.
func WithBreaker(b transport.Breaker) Option {
	return func(c *config) { c.breaker = b }
}

// WithTenant sets the tenant of A2A 1.0's requests (their tenant field),
// for an agent that serves several behind one endpoint. 0.3 has no tenant.
// The default is none.
func WithTenant(tenant string) Option {
	return func(c *config) { c.tenant, c.tenantSet = tenant, true }
}

// WithMaxMessageSize sets the largest message, in bytes, the Transport
// accepts from the agent: an event, a task, a send's answer. A bigger one
// ends the call with a *transport.ProtocolError, as an event over
// stream.WithMaxEventSize does on stream's HTTP bindings. It must be
// positive. The default is 16 MiB, as theirs is (grpc-go's own is 4 MiB).
func WithMaxMessageSize(n int) Option {
	return func(c *config) {
		if n <= 0 {
			c.refuse("WithMaxMessageSize", "it is not positive")
			return
		}
		c.maxMessageSize = n
	}
}
