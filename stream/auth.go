package stream

import (
	"context"
	"fmt"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/internal/httpx"
	"github.com/a2astream/a2astream/terminal"
)

// maxCredentialsCalls is how many times one stream calls its credentials
// hook at most. An agent that asks for credentials once more after that
// ends the stream with a *terminal.AuthRequiredError that also matches
// ErrCredentialsLimit.
const maxCredentialsCalls = 5

// ErrCredentialsLimit is joined with the *terminal.AuthRequiredError that
// ends a stream whose agent asked for credentials again after the hook had
// given them five times, the most a stream calls it.
var ErrCredentialsLimit = fmt.Errorf("stream: the agent still requires authentication after %d calls of the credentials hook", maxCredentialsCalls)

// WithCredentials sets the hook that gives credentials when a task enters
// auth-required. Without it, auth-required ends the stream with a
// *terminal.AuthRequiredError.
//
// When the task enters auth-required, the stream yields the status, then
// calls the hook from Next with the task and the agent's message, under the
// caller's context bounded by WithInputTimeout. The headers the hook returns
// are added to every later call of the stream (subscribe, get-task, the
// reply to a later input-required prompt, Stream.Cancel), replacing the
// stream's values of the same header names, and, like WithHeader's, go only
// to the origin the caller named: never to an endpoint on another origin
// that an agent card names, nor across a redirect. The stream then
// continues the same task: it subscribes again, or polls get-task when it
// follows the task by polling. The user's message is never sent again. A
// hook may return no header at all when the credentials went to the agent
// another way (the user signed in on the agent's page).
//
// The hook is not called again for the auth-required status it gave
// credentials for while the agent still shows it (a stale snapshot or get-task); an agent that asks again
// with another status message, or after the task moved on, calls the hook
// again, up to five times per stream. If the agent never
// moves on, a stream that subscribes ends when the reconnect budget is
// spent, and one that polls ends with a *StalledError at the stall limit
// (WithStallTimeout).
//
// Credentials that expire in the middle of the task are renewed the same
// way: a resubscribe, get-task or poll that the agent refuses with 401
// Unauthorized calls the hook (credentials.Request.Cause holds the refusal), and
// the call is made again with the new headers. A send refused with 401 is
// not made again. Every call of the hook counts toward the five;
// past them, the 401 ends the stream, joined with ErrCredentialsLimit.
//
// A hook that fails, runs out of time or returns a header that cannot be
// sent (an invalid name, a control character other than a tab in a value) ends the stream
// with a *terminal.AuthRequiredError joined with the cause: errors.As finds
// the former, errors.Is the latter (context.DeadlineExceeded for a
// timeout). When the stream's context ends during the call, the stream ends
// with the context's error. Header values never appear in errors or logs.
// It applies to a Client's constructors and to its streams.
func WithCredentials(h credentials.Hook) Option {
	return option{"WithCredentials", streams, func(cfg *config) {
		if f, isFunc := h.(credentials.Func); h == nil || isFunc && f == nil {
			cfg.refuse("WithCredentials: the hook is nil")
		}
		cfg.credentials = h
	}}
}

// auth is what the stream knows of the credentials it gave.
type auth struct {
	// given is the key (as promptKey makes it) of the auth-required status
	// the hook gave credentials for, while the task still shows it; "" once
	// the task has moved on.
	given string
	// calls counts the hook's calls on this stream.
	calls int
	// refusal is the 401 of a call the hook is to be asked about next
	// (phaseCredentials); nil when the task halted in auth-required.
	refusal error
	// header holds the headers the hook gave, the later ones replacing the
	// values of the same names: they replace the stream's own (Stream.header)
	// in each of its later calls.
	header http.Header
}

// credentials calls the credentials hook: for a call the agent refused
// with 401 Unauthorized (handle noted the refusal), or for a task halted
// in auth-required.
func (s *Stream) credentials() report {
	if refusal := s.auth.refusal; refusal != nil {
		s.auth.refusal = nil
		return found(facts{after: afterCredentials, err: s.renewCredentials(refusal)})
	}
	return found(facts{after: afterCredentials, err: s.authRequired()})
}

// authRequired asks the credentials hook about a task halted in
// auth-required, and returns nil when it gave credentials, or the error
// the stream ends in (a *terminal.AuthRequiredError, with the hook's
// failure).
func (s *Stream) authRequired() error {
	t := s.ledger.Task()
	ended := terminal.FromTaskWith(s.snapshot(), s.cfg.readFailure)
	if s.cfg.credentials == nil {
		return ended
	}
	if err := s.askCredentials(ended, t.Status.Message.Clone(), nil); err != nil {
		return err
	}
	s.auth.given = promptKey(&t.Status)
	return nil
}

// renewCredentials asks the credentials hook for fresh credentials after
// a call the agent refused with 401 Unauthorized (see classify's
// outCredentials), and returns nil when it gave them, or the error the
// stream ends in.
func (s *Stream) renewCredentials(err error) error {
	ending := err
	if t := s.ledger.Task(); t != nil && t.Status.State == a2a.StateAuthRequired {
		// The task still waits in auth-required: its ending, with the
		// refusal.
		ending = fmt.Errorf("%w: %w", terminal.FromTaskWith(s.snapshot(), s.cfg.readFailure), err)
	}
	return s.askCredentials(ending, nil, err)
}

// askCredentials calls the credentials hook for msg (the auth-required
// status message) or cause (a refused call) and, on success, adds the
// headers for the stream's later calls, and returns nil: the task goes on
// (follow). Otherwise it returns the error the stream ends in: ending,
// joined with the hook's failure or ErrCredentialsLimit, or the stream's
// context's error.
func (s *Stream) askCredentials(ending error, msg *a2a.Message, cause error) error {
	if s.auth.calls >= maxCredentialsCalls {
		return fmt.Errorf("%w: %w", ending, ErrCredentialsLimit)
	}
	s.auth.calls++
	// As the human-input hook, the credentials hook gets the caller's
	// context, which carries none of the stream's headers.
	ctx := s.caller
	if d := s.cfg.inputTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	if s.tr != nil {
		s.traceAsk(AskCredentials, false, nil)
	}
	h, err := s.cfg.credentials.Credentials(ctx, &credentials.Request{Task: s.snapshot(), Message: msg, Cause: cause, Attempt: s.auth.calls})
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err == nil {
		err = httpx.CheckHeader(h)
	}
	if s.tr != nil {
		s.traceAsk(AskCredentials, true, err)
	}
	if err != nil {
		if s.ctx.Err() != nil {
			return s.ctx.Err()
		}
		return fmt.Errorf("%w: stream: credentials hook: %w", ending, err)
	}
	s.useCredentials(h)
	s.tellWithheld()
	s.log.Debug("a2a: credentials given, continuing the task", "task", s.taskID, "attempt", s.auth.calls)
	// The time the hook took is neither a stall nor a drop.
	s.tries.reset(s.cfg.policy)
	s.news.restart()
	return nil
}

// useCredentials adds h to the stream's credentials, replacing the values
// of the same names, for its later calls: each is made with the stream's
// headers and these over them (Stream.call), which go, as a per-call
// WithHeader does, to the origin named only, redirects included.
func (s *Stream) useCredentials(h http.Header) {
	if len(h) == 0 {
		return
	}
	creds := http.Header{}
	for k, vs := range h {
		for _, v := range vs {
			creds.Add(k, v)
		}
	}
	s.auth.header = withHeaders(s.auth.header, creds)
}

// authMovedOn forgets the auth-required status credentials were given for once the task has
// left auth-required: a later one is a new request even if it looks the
// same.
func (s *Stream) authMovedOn() {
	if s.auth.given == "" {
		return
	}
	if st := s.ledger.Status(); st != nil && st.State != a2a.StateAuthRequired && st.State != a2a.StateUnknown {
		s.auth.given = ""
	}
}
