package stream

import (
	"errors"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/httpx"
)

// ErrInvalidOption is matched, with errors.Is, by every error that refuses
// what the caller passed, before anything is sent: an option with a bad
// value, or given where it does not apply (see Option); an endpoint or
// base URL that is not an absolute http or https URL (NewClient,
// NewRESTClient, Resolve); an empty task ID (Subscribe, GetTask, Cancel,
// the push-config calls) or config ID; and a Stream.Cancel while the
// stream knows no task. It comes from the constructors, Resolve and the
// Client's calls, or, for a stream, as the stream's Err; and, for a
// ListTasks option or a filter value the call refuses (see
// a2a.TaskFilter.Check), as the listing's Err. The text of a refused
// option starts "stream: invalid option"; the others name the call, the
// value refused and what to pass instead.
var ErrInvalidOption = errors.New("stream: invalid option")

func invalidOption(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidOption, fmt.Sprintf(format, args...))
}

// refusal refuses an argument of the caller other than an option (see
// ErrInvalidOption, which it matches): its text is its own, and reads
// "stream: " followed by what was refused and what to pass instead.
type refusal string

func (r refusal) Error() string { return "stream: " + string(r) }

// Is matches ErrInvalidOption.
func (r refusal) Is(target error) bool { return target == ErrInvalidOption }

// refuseArg refuses an argument of the caller, as refusal says.
func refuseArg(format string, args ...any) error {
	return refusal(fmt.Sprintf(format, args...))
}

// needTaskID refuses the empty task ID of the call named call; it returns
// nil for any other ID.
func needTaskID(call, taskID string) error {
	if taskID != "" {
		return nil
	}
	return refuseArg("%s: the task ID is empty; pass the ID of a task the agent made (a stream's Task().ID)", call)
}

// refuse notes an option refused as it was applied, for check to report.
func (cfg *config) refuse(reason string) {
	cfg.refusals = append(cfg.refusals, reason)
}

// applyOptions applies opts to cfg, given at place at, named name in
// refusals ("NewClient", "Send of a Client of NewClientFor", ...). A nil
// Option is refused, and so is one that does not apply there, which is not
// applied.
func (cfg *config) applyOptions(opts []Option, at where, name string) {
	for _, o := range opts {
		if o == nil {
			cfg.refuse("a nil Option")
			continue
		}
		o := o.option()
		if o.at&at == 0 {
			cfg.refuse(fmt.Sprintf("%s does not apply to %s: it applies to %s", o.name, name, o.at))
			continue
		}
		o.set(cfg)
	}
}

// check validates the options applied to cfg (a reconnect policy's zero
// fields are read as its defaults by newBudget).
func (cfg *config) check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, invalidOption(format, args...)) }
	for _, r := range cfg.refusals {
		bad("%s", r)
	}
	switch {
	case cfg.httpClient == nil:
		bad("WithHTTPClient: the client is nil")
	case cfg.httpClient.Timeout != 0:
		bad("WithHTTPClient: the client has a Timeout (%s), which cuts long streams; use contexts and WithIdleTimeout", cfg.httpClient.Timeout)
	}
	if cfg.version != "" && cfg.version != a2a.V03 && cfg.version != a2a.V10 {
		bad("WithVersion: unsupported protocol version %q", string(cfg.version))
	}
	switch {
	case cfg.binding == "", cfg.binding == a2a.BindingJSONRPC, cfg.binding == a2a.BindingHTTPJSON:
	case cfg.binding == a2a.BindingGRPC && cfg.openFor == a2a.BindingGRPC && cfg.open != nil:
	case cfg.binding == a2a.BindingGRPC:
		bad("WithBinding: %s needs WithTransportFor(a2a.BindingGRPC, ...), which opens its Transport", string(cfg.binding))
	default:
		bad("WithBinding: unsupported binding %q", string(cfg.binding))
	}
	if err := httpx.CheckHeader(cfg.header); err != nil {
		bad("WithHeader: %s", err)
	}
	for _, raw := range cfg.trusted {
		if _, err := parseOrigin(raw); err != nil {
			bad("WithTrustedOrigins: %s", err)
		}
	}
	if cfg.maxEventSize <= 0 {
		bad("WithMaxEventSize: the size must be positive, not %d", cfg.maxEventSize)
	}
	if cfg.idleTimeout < 0 {
		bad("WithIdleTimeout: negative duration %s", cfg.idleTimeout)
	}
	if cfg.connectTimeout < 0 {
		bad("WithConnectTimeout: negative duration %s", cfg.connectTimeout)
	}
	if cfg.inputTimeout < 0 {
		bad("WithInputTimeout: negative duration %s", cfg.inputTimeout)
	}
	if cfg.stallTimeout < 0 {
		bad("WithStallTimeout: negative duration %s", cfg.stallTimeout)
	}
	if cfg.pollInterval < minPollInterval {
		bad("WithPollInterval: the interval must be at least %s, not %s", minPollInterval, cfg.pollInterval)
	}
	if cfg.pushPollInterval < minPollInterval {
		bad("WithPushPollInterval: the interval must be at least %s, not %s", minPollInterval, cfg.pushPollInterval)
	}
	if cfg.logger == nil {
		bad("WithLogger: the logger is nil")
	}
	if cfg.policy.Backoff < 0 {
		bad("WithReconnect: negative Backoff %s", cfg.policy.Backoff)
	}
	if cfg.push != nil {
		if err := cfg.push.Check(); err != nil {
			bad("WithPush: %s", err)
		}
	}
	if cfg.sleep == nil {
		bad("the sleep function is nil")
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return nil
}
