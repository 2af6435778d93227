package wirematrix

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/internal/foldcheck"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// authToken is the credential the hook gives.
const authToken = "Bearer fresh-secret"

// authHook gives authToken and records each request.
type authHook struct {
	mu       sync.Mutex
	requests []*credentials.Request
}

func (h *authHook) Credentials(_ context.Context, req *credentials.Request) (http.Header, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests = append(h.requests, req)
	return http.Header{"Authorization": {authToken}}, nil
}

// authScript works, asks for credentials (and gets them out of band: the
// script goes on after a second, long enough for a poll to see it), then
// finishes.
func authScript() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working(""),
		a2atest.Pause(Tick), a2atest.Chunk("a1", "one ", false, false),
		a2atest.Pause(Tick), a2atest.AskAuth("Sign in to the calendar"),
		a2atest.Pause(time.Second), a2atest.Chunk("a1", "two", true, true),
		a2atest.Pause(Tick), a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

// Credentials: a task that enters auth-required, streamed or polled. The
// stream yields the status, then calls the credentials hook once (Attempt
// 1, with the agent's message and the task in auth-required), and follows
// the same task with the hook's header: the send went before any
// credentials, every later call carries them exactly once, and a header
// the caller gave (WithHeader) goes with every call. The user's message is
// sent once, and nothing is lost.
func Credentials(t *testing.T, w Wire) {
	for _, mode := range []struct {
		name string
		opts []a2atest.Option
	}{
		{"streamed", nil},
		{"polled", []a2atest.Option{a2atest.WithoutStreaming()}},
	} {
		t.Run(w.String()+"/"+mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := w.Agent(append([]a2atest.Option{a2atest.WithScript(authScript()...)}, mode.opts...)...)
				hook := &authHook{}
				s := w.Client(t, agent, stream.WithHeader("X-Caller", "matrix"), stream.WithPollInterval(250*time.Millisecond)).
					Send(bounded(t), hello(), stream.WithCredentials(hook))
				var states []a2a.TaskState
				got, err := DrainEach(t, s, foldcheck.Strict, func(ev a2a.Event) {
					if u, ok := ev.(*a2a.StatusUpdate); ok {
						states = append(states, u.Status.State)
					}
				})
				require.NoError(t, err)
				RequireSameAsServer(t, agent, s, got)
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, "one two", got.Text("a1"))
				require.Contains(t, states, a2a.StateAuthRequired, "the application sees auth-required")

				require.Len(t, hook.requests, 1)
				req := hook.requests[0]
				require.Equal(t, a2a.StateAuthRequired, req.Task.Status.State)
				require.Equal(t, "Sign in to the calendar", req.Text())
				require.Equal(t, 1, req.Attempt)
				require.NoError(t, req.Cause)

				reqs := agent.Requests()
				unary := 0
				if mode.opts != nil {
					unary = 1 // polled: one unary send, after the refused streamed one
				}
				require.Equal(t, 1, Sends(agent), "one streamed send")
				require.Equal(t, unary, CountMethod(agent, "message/send", "SendMessage"), "the user's message is sent once")
				// The calls before the hook (the send; polled, the refused
				// stream, the unary send and the polls up to auth-required)
				// carry no credentials; every call after it carries them once.
				first := len(reqs)
				for i, r := range reqs {
					require.Equal(t, []string{"matrix"}, r.Header.Values("X-Caller"), "%s carries the caller's header", r.Method)
					if first == len(reqs) && len(r.Header.Values("Authorization")) > 0 {
						first = i
					}
					if i < first {
						require.Empty(t, r.Header.Values("Authorization"), "%s went before any credentials", r.Method)
						continue
					}
					require.Equal(t, []string{authToken}, r.Header.Values("Authorization"), "%s carries the credentials once", r.Method)
					require.Nil(t, r.Message, "no message is sent after the credentials: %s", r.Method)
				}
				require.Less(t, first, len(reqs), "the task was followed after the credentials")
				if mode.opts == nil {
					require.Equal(t, 1, first, "streamed, only the send went before the credentials")
				}
			})
		})
	}
}

// CredentialsRenewedOnRefusal: credentials that expire mid-task. The send
// is cut; the resubscribe is refused as unauthenticated (HTTP 401; over
// gRPC, UNAUTHENTICATED). The hook is called once, with the refusal as
// Cause (transport.ErrNotAuthenticated), and the resubscribe is made again
// with its header, which every later call carries; the user's message is
// sent once, and nothing is lost.
func CredentialsRenewedOnRefusal(t *testing.T, w Wire) {
	t.Run(w.String(), func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := w.Agent(a2atest.WithScript(Paced()...),
				a2atest.WithFaults(a2atest.CutAfterEvents(2), a2atest.HTTPStatus(http.StatusUnauthorized, "sign in again")))
			hook := &authHook{}
			s := w.Client(t, agent).Send(bounded(t), hello(), stream.WithCredentials(hook))
			got, err := Drain(t, s)
			require.NoError(t, err)
			RequireSameAsServer(t, agent, s, got)
			require.Equal(t, 1, Sends(agent), "the user's message is sent once")
			require.Len(t, hook.requests, 1)
			require.True(t, errors.Is(hook.requests[0].Cause, transport.ErrNotAuthenticated), "the cause: %v", hook.requests[0].Cause)
			require.Equal(t, 1, hook.requests[0].Attempt)
			reqs := agent.Requests()
			require.GreaterOrEqual(t, len(reqs), 3)
			require.Empty(t, reqs[0].Header.Values("Authorization"), "the send went before any credentials")
			require.Empty(t, reqs[1].Header.Values("Authorization"), "the refused resubscribe went before any credentials")
			require.Equal(t, reqs[1].Method, reqs[2].Method, "the refused call is made again")
			require.Equal(t, reqs[1].TaskID, reqs[2].TaskID)
			for _, r := range reqs[2:] {
				require.Equal(t, []string{authToken}, r.Header.Values("Authorization"), "%s carries the credentials once", r.Method)
			}
		})
	})
}
