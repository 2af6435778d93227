package stream_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// authToken is the credential the auth agents accept; it holds "secret"
// so that requireNoCredentialsOutside recognises it.
const authToken = "Bearer fresh-secret"

// authSignIn is the agent's auth-required status message.
var authSignIn = authMessage("m-auth", "Sign in to the calendar")

func authMessage(id, text string) *a2a.Message {
	return &a2a.Message{ID: id, TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}
}

func authStatus(state a2a.TaskState, m *a2a.Message) *a2a.StatusUpdate {
	return &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state, Message: m},
		Final: state == a2a.StateAuthRequired || state.Terminal()}
}

func authTask(state a2a.TaskState, m *a2a.Message, arts ...a2a.Artifact) *a2a.Task {
	return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state, Message: m}, Artifacts: arts}
}

var authReport = a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: "report"}}}

// authorized reports whether a call carries exactly the credential token.
func authorized(c wireCall, token string) bool {
	vs := c.header.Values("Authorization")
	return len(vs) == 1 && vs[0] == token
}

// authAskingSend answers the streamed send with a task that enters
// auth-required, asking with authSignIn.
func authAskingSend(w *wireWriter, _ wireCall) {
	w.sse()
	w.event(authTask(a2a.StateSubmitted, nil))
	w.event(authStatus(a2a.StateAuthRequired, authSignIn))
}

// authContinue answers a subscribe with the task as it is (still in
// auth-required) and, when the call carries authToken, lets the task go on
// to completed; without it the subscription ends there.
func authContinue(w *wireWriter, c wireCall) {
	w.sse()
	w.event(authTask(a2a.StateAuthRequired, authSignIn))
	if !authorized(c, authToken) {
		return
	}
	w.event(authStatus(a2a.StateWorking, nil))
	w.event(&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: authReport, LastChunk: true})
	w.event(authStatus(a2a.StateCompleted, nil))
}

// authGet answers a get-task with the completed task when the call carries
// authToken, and with the task in auth-required otherwise.
func authGet(w *wireWriter, c wireCall) {
	if authorized(c, authToken) {
		w.task(authTask(a2a.StateCompleted, nil, authReport))
		return
	}
	w.task(authTask(a2a.StateAuthRequired, authSignIn))
}

// authAgent is an agent whose task needs credentials: the streamed send
// stops at auth-required; subscribe and get-task go on only with authToken.
func authAgent(w wire) *wireAgent {
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: authAskingSend, kindSubscribe: authContinue, kindGet: authGet,
	})
}

// authPolledAgent is authAgent for an agent that cannot stream: the unary
// send answers the task in auth-required, and get-task goes on only with
// authToken.
func authPolledAgent(w wire) *wireAgent {
	refuse := func(ww *wireWriter, _ wireCall) {
		ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
	}
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: refuse, kindSubscribe: refuse,
		kindSend: func(ww *wireWriter, _ wireCall) { ww.result(authTask(a2a.StateAuthRequired, authSignIn)) },
		kindGet:  authGet,
	})
}

// authHook is a credentials hook that gives tokens[i] on its i-th call (the
// last one after that), or fails with err, and records each request.
type authHook struct {
	tokens   []string
	err      error
	requests []*credentials.Request
	events   *int  // the events the application saw, if counted
	seen     []int // *events at each call
}

func (h *authHook) Credentials(_ context.Context, req *credentials.Request) (http.Header, error) {
	h.requests = append(h.requests, req)
	if h.events != nil {
		h.seen = append(h.seen, *h.events)
	}
	if h.err != nil {
		return nil, h.err
	}
	return http.Header{"Authorization": {h.tokens[min(len(h.requests), len(h.tokens))-1]}}, nil
}

// requireMessageSentOnce checks that the user's message went out once: one
// streamed send and no unary one, or, polled, one unary send after the
// refused streamed one.
func requireMessageSentOnce(t *testing.T, agent *wireAgent, polled bool) {
	t.Helper()
	require.Equal(t, 1, agent.count(kindStream), "one streamed send")
	if polled {
		require.Equal(t, 1, agent.count(kindSend), "one unary send, after the refused streamed one")
		return
	}
	require.Equal(t, 0, agent.count(kindSend), "no unary send")
}

// TestAuthRequiredContinuesWithCredentials: on auth-required the stream
// calls the credentials hook (after yielding the status) and continues the
// same task by subscribing with the hook's headers, which every later call
// carries; the user's message is never sent again.
func TestAuthRequiredContinuesWithCredentials(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := authAgent(w)
				events := 0
				hook := &authHook{tokens: []string{authToken}, events: &events}
				s := agent.client(t).Send(bounded(t), hello(), stream.WithCredentials(hook))
				got := &collected{}
				for s.Next() {
					events++
					got.events = append(got.events, s.Event())
					if u, ok := s.Event().(*a2a.StatusUpdate); ok {
						got.states = append(got.states, u.Status.State)
					}
				}
				require.NoError(t, s.Err())
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, "report", s.Task().Artifact("a1").Text())
				require.Equal(t, []a2a.TaskState{a2a.StateSubmitted, a2a.StateAuthRequired, a2a.StateWorking, a2a.StateCompleted}, got.states)

				require.Len(t, hook.requests, 1)
				req := hook.requests[0]
				require.Equal(t, "t-1", req.Task.ID)
				require.Equal(t, a2a.StateAuthRequired, req.Task.Status.State)
				require.Equal(t, "m-auth", req.Message.ID)
				require.Equal(t, "Sign in to the calendar", req.Text())
				require.Equal(t, 1, req.Attempt)
				require.Equal(t, []int{2}, hook.seen, "the hook runs after the auth-required status was yielded")

				requireMessageSentOnce(t, agent, false)
				require.Positive(t, agent.count(kindSubscribe))
				for _, c := range agent.received() {
					if c.kind == kindStream {
						require.Empty(t, c.header.Values("Authorization"), "the send went before any credentials")
						continue
					}
					require.True(t, authorized(c, authToken), "%s %s carries the credentials once: %v", c.kind, c.method, c.header.Values("Authorization"))
				}
			})
		})
	}
}

// TestAuthRequiredSubscribeContinues: a stream made by Subscribe, which
// sends no message, continues through auth-required the same way.
func TestAuthRequiredSubscribeContinues(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := authAgent(w)
				hook := &authHook{tokens: []string{authToken}}
				task, err := agent.client(t, stream.WithCredentials(hook)).Subscribe(bounded(t), "t-1").Wait()
				require.NoError(t, err)
				require.Equal(t, a2a.StateCompleted, task.Status.State)
				require.Equal(t, "report", task.Artifact("a1").Text())
				require.Len(t, hook.requests, 1)
				require.Equal(t, 2, agent.count(kindSubscribe))
				require.Zero(t, agent.count(kindStream)+agent.count(kindSend), "no message is sent")
				calls := agent.received()
				require.Empty(t, calls[0].header.Values("Authorization"))
				require.True(t, authorized(calls[1], authToken))
			})
		})
	}
}

// TestAuthCredentialsGoWithReply: the reply to an input-required prompt
// that comes after auth-required carries the credentials too.
func TestAuthCredentialsGoWithReply(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				prompt := authMessage("m-prompt", "Which city?")
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						if c.n == 0 {
							authAskingSend(ww, c)
							return
						}
						ww.sse()
						if authorized(c, authToken) && c.msg != nil && c.msg.Text() == "Lisbon" {
							ww.event(authTask(a2a.StateWorking, nil))
							ww.event(&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: authReport, LastChunk: true})
							ww.event(authStatus(a2a.StateCompleted, nil))
						}
					},
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						ww.sse()
						ww.event(authTask(a2a.StateAuthRequired, authSignIn))
						if authorized(c, authToken) {
							ww.event(authStatus(a2a.StateWorking, nil))
							ww.event(authStatus(a2a.StateInputRequired, prompt))
						}
					},
				})
				hook := &authHook{tokens: []string{authToken}}
				task, err := agent.client(t, stream.WithCredentials(hook), stream.WithHumanInput(answerLisbon)).Send(bounded(t), hello()).Wait()
				require.NoError(t, err)
				require.Equal(t, a2a.StateCompleted, task.Status.State)
				require.Equal(t, 2, agent.count(kindStream), "the message, then the reply")
				calls := agent.received()
				last := calls[len(calls)-1]
				require.Equal(t, kindStream, last.kind)
				require.Equal(t, "Lisbon", last.msg.Text())
				require.True(t, authorized(last, authToken), "the reply carries the credentials: %v", last.header.Values("Authorization"))
			})
		})
	}
}

// TestAuthHookCallerCancelEnds: when the caller's context ends while the
// hook runs, the stream ends with the context's error, as it does during
// the human-input hook, and sends nothing more.
func TestAuthHookCallerCancelEnds(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := authAgent(w)
				ctx, cancel := context.WithCancel(bounded(t))
				defer cancel()
				hook := credentials.Func(func(hctx context.Context, _ *credentials.Request) (http.Header, error) {
					cancel()
					<-hctx.Done()
					return nil, errors.New("the user closed the sign-in page")
				})
				_, err := agent.client(t, stream.WithCredentials(hook)).Send(ctx, hello()).Wait()
				require.ErrorIs(t, err, context.Canceled)
				var auth *terminal.AuthRequiredError
				require.False(t, errors.As(err, &auth), "the caller's cancel is not the agent's ending: %v", err)
				require.Zero(t, agent.count(kindSubscribe)+agent.count(kindGet))
			})
		})
	}
}

// TestAuthCredentialsGoWithStreamCancel: Stream.Cancel, a later call of
// the stream, carries the hook's headers too.
func TestAuthCredentialsGoWithStreamCancel(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: authAskingSend,
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						ww.sse()
						ww.event(authTask(a2a.StateAuthRequired, authSignIn))
						ww.event(authStatus(a2a.StateWorking, nil))
						<-c.ctx.Done() // works until the client goes
					},
					kindCancel: func(ww *wireWriter, c wireCall) { ww.task(authTask(a2a.StateCanceled, nil)) },
				})
				hook := &authHook{tokens: []string{authToken}}
				s := agent.client(t).Send(bounded(t), hello(), stream.WithCredentials(hook))
				defer s.Close()
				for s.Next() {
					if u, ok := s.Event().(*a2a.StatusUpdate); ok && u.Status.State == a2a.StateWorking {
						break
					}
				}
				require.NoError(t, s.Cancel(context.Background()))
				_, err := s.Wait()
				var canceled *terminal.CanceledError
				require.ErrorAs(t, err, &canceled)
				require.Equal(t, 1, agent.count(kindCancel))
				for _, c := range agent.received() {
					if c.kind == kindCancel {
						require.True(t, authorized(c, authToken), "the cancel carries the credentials: %v", c.header.Values("Authorization"))
					}
				}
			})
		})
	}
}

// TestAuthRequiredOutOfBandContinues: a hook that returns no header (the
// user signed in on the agent's own page) still continues the task: the
// stream subscribes again, with no new header.
func TestAuthRequiredOutOfBandContinues(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				signedIn := false
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: authAskingSend,
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						// Signed in out of band: the agent goes on as if the
						// call carried the token.
						c.header = http.Header{"Authorization": {authToken}}
						authContinue(ww, c)
					},
				})
				hook := credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
					signedIn = true
					return nil, nil
				})
				task, err := agent.client(t, stream.WithCredentials(hook)).Send(bounded(t), hello()).Wait()
				require.NoError(t, err)
				require.True(t, signedIn)
				require.Equal(t, a2a.StateCompleted, task.Status.State)
				require.Equal(t, 1, agent.count(kindSubscribe))
				for _, c := range agent.received() {
					require.Empty(t, c.header.Values("Authorization"), "%s: no header was given", c.method)
				}
				requireMessageSentOnce(t, agent, false)
			})
		})
	}
}

// TestAuthRequiredPolledContinuesWithCredentials: an agent that cannot
// stream is polled with the hook's headers after auth-required.
func TestAuthRequiredPolledContinuesWithCredentials(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := authPolledAgent(w)
				hook := &authHook{tokens: []string{authToken}}
				c := agent.client(t, stream.WithCredentials(hook))
				task, err := c.Send(bounded(t), hello()).Wait()
				require.NoError(t, err)
				require.Equal(t, a2a.StateCompleted, task.Status.State)
				require.Equal(t, "report", task.Artifact("a1").Text())
				require.Len(t, hook.requests, 1)
				requireMessageSentOnce(t, agent, true)
				require.Zero(t, agent.count(kindSubscribe), "a polled stream does not subscribe")
				require.Positive(t, agent.count(kindGet))
				for _, c := range agent.received() {
					if c.kind == kindGet {
						require.True(t, authorized(c, authToken), "%s carries the credentials: %v", c.method, c.header.Values("Authorization"))
					}
				}
			})
		})
	}
}

// TestAuthRequiredStaleViewAsksOnce: a subscription's snapshot and a
// get-task that still show the auth-required status already answered are
// not a new request: the hook is called once, and the stream subscribes
// again until the agent moves on.
func TestAuthRequiredStaleViewAsksOnce(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: authAskingSend,
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						if c.n == 0 {
							// The agent has not taken the credentials yet.
							ww.sse()
							ww.event(authTask(a2a.StateAuthRequired, authSignIn))
							return
						}
						authContinue(ww, c)
					},
					kindGet: func(ww *wireWriter, _ wireCall) { ww.task(authTask(a2a.StateAuthRequired, authSignIn)) },
				})
				hook := &authHook{tokens: []string{authToken}}
				task, err := agent.client(t, stream.WithCredentials(hook)).Send(bounded(t), hello()).Wait()
				require.NoError(t, err)
				require.Equal(t, a2a.StateCompleted, task.Status.State)
				require.Len(t, hook.requests, 1, "the stale auth-required status is not asked again")
				require.Equal(t, 2, agent.count(kindSubscribe))
				require.Equal(t, 1, agent.count(kindGet), "the silent subscription was followed by a get-task")
				requireMessageSentOnce(t, agent, false)
			})
		})
	}
}

// TestAuthRequiredAgainAsksAgain: once the task has moved on, a new
// auth-required (a new status message, or the same text at a new time)
// calls the hook again; its new headers replace the old ones.
func TestAuthRequiredAgainAsksAgain(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(u *a2a.StatusUpdate, ts time.Time) *a2a.StatusUpdate { u.Status.Timestamp = ts; return u }
	for _, tc := range []struct {
		name          string
		first, second *a2a.StatusUpdate
	}{
		{"new-message", authStatus(a2a.StateAuthRequired, authSignIn),
			authStatus(a2a.StateAuthRequired, authMessage("m-auth-2", "Sign in to the mailbox"))},
		{"same-text-new-time", at(authStatus(a2a.StateAuthRequired, authMessage("", "Sign in")), t0),
			at(authStatus(a2a.StateAuthRequired, authMessage("", "Sign in")), t0.Add(time.Minute))},
	} {
		for _, w := range wires() {
			t.Run(tc.name+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					const second = "Bearer second-secret"
					snapshot := func(u *a2a.StatusUpdate) *a2a.Task { return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: u.Status} }
					agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
						kindStream: func(ww *wireWriter, _ wireCall) {
							ww.sse()
							ww.event(authTask(a2a.StateSubmitted, nil))
							ww.event(tc.first)
						},
						kindSubscribe: func(ww *wireWriter, c wireCall) {
							ww.sse()
							switch {
							case c.n == 0 && authorized(c, authToken):
								ww.event(snapshot(tc.first))
								ww.event(at(authStatus(a2a.StateWorking, nil), tc.first.Status.Timestamp))
								ww.event(tc.second)
							case c.n == 1 && authorized(c, second):
								ww.event(snapshot(tc.second))
								ww.event(at(authStatus(a2a.StateWorking, nil), tc.second.Status.Timestamp))
								ww.event(&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: authReport, LastChunk: true})
								ww.event(at(authStatus(a2a.StateCompleted, nil), tc.second.Status.Timestamp))
							}
						},
					})
					hook := &authHook{tokens: []string{authToken, second}}
					task, err := agent.client(t, stream.WithCredentials(hook)).Send(bounded(t), hello()).Wait()
					require.NoError(t, err)
					require.Equal(t, a2a.StateCompleted, task.Status.State)
					require.Equal(t, "report", task.Artifact("a1").Text())
					require.Len(t, hook.requests, 2)
					require.Equal(t, 2, hook.requests[1].Attempt)
					require.Equal(t, tc.second.Status.Message.Text(), hook.requests[1].Text())
					require.Equal(t, 2, agent.count(kindSubscribe))
					requireMessageSentOnce(t, agent, false)
				})
			})
		}
	}
}

// TestAuthRequiredAgainPolledAsksAgain: a polled task that asks for
// credentials again after working, with a status that looks the same (no
// message ID, no timestamp), is a new request: the hook is called again.
func TestAuthRequiredAgainPolledAsksAgain(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const second = "Bearer second-secret"
				signIn := authMessage("", "Sign in")
				refuse := func(ww *wireWriter, _ wireCall) {
					ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
				}
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: refuse, kindSubscribe: refuse,
					kindSend: func(ww *wireWriter, _ wireCall) { ww.result(authTask(a2a.StateAuthRequired, signIn)) },
					kindGet: func(ww *wireWriter, c wireCall) {
						switch {
						case c.n == 0 && authorized(c, authToken):
							ww.task(authTask(a2a.StateWorking, nil))
						case c.n == 1 && authorized(c, authToken):
							ww.task(authTask(a2a.StateAuthRequired, signIn))
						case c.n == 2 && authorized(c, second):
							ww.task(authTask(a2a.StateCompleted, nil, authReport))
						default:
							ww.rpcError(a2a.CodeInvalidParams, "unexpected call")
						}
					},
				})
				hook := &authHook{tokens: []string{authToken, second}}
				task, err := agent.client(t, stream.WithCredentials(hook)).Send(bounded(t), hello()).Wait()
				require.NoError(t, err)
				require.Equal(t, a2a.StateCompleted, task.Status.State)
				require.Len(t, hook.requests, 2)
				require.Equal(t, 3, agent.count(kindGet))
				requireMessageSentOnce(t, agent, true)
			})
		})
	}
}

// TestAuthRequiredAskedAtMostMaxTimes: an agent that asks for credentials
// again after each (a new status message each time) gets the hook called
// MaxCredentialsCalls times; then the stream ends in auth-required with
// ErrCredentialsLimit.
func TestAuthRequiredAskedAtMostMaxTimes(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: authAskingSend,
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						ww.sse()
						ww.event(authTask(a2a.StateAuthRequired, authMessage(fmt.Sprintf("m-auth-%d", c.n+1), "Sign in again")))
					},
				})
				hook := &authHook{tokens: []string{authToken}}
				_, err := agent.client(t, stream.WithCredentials(hook)).Send(bounded(t), hello()).Wait()
				var auth *terminal.AuthRequiredError
				require.ErrorAs(t, err, &auth)
				require.ErrorIs(t, err, stream.ErrCredentialsLimit)
				require.Equal(t, fmt.Sprintf("m-auth-%d", stream.MaxCredentialsCalls), auth.Task.Status.Message.ID)
				require.Len(t, hook.requests, stream.MaxCredentialsCalls)
				require.Equal(t, stream.MaxCredentialsCalls, agent.count(kindSubscribe))
				requireMessageSentOnce(t, agent, false)
			})
		})
	}
}

// TestAuthRequiredWithoutCredentialsEnds: without a credentials hook the
// stream ends at auth-required with *terminal.AuthRequiredError; when the
// hook fails, times out (WithInputTimeout) or gives a header that cannot be
// sent, the stream ends so too, the cause joined, and nothing more is
// sent.
func TestAuthRequiredWithoutCredentialsEnds(t *testing.T) {
	hookErr := errors.New("the token endpoint said no")
	for _, tc := range []struct {
		name    string
		hook    credentials.Hook
		is      error
		elapsed time.Duration
	}{
		{name: "no-hook"},
		{name: "hook-error", hook: &authHook{err: hookErr}, is: hookErr},
		{name: "hook-timeout", hook: credentials.Func(func(ctx context.Context, _ *credentials.Request) (http.Header, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}), is: context.DeadlineExceeded, elapsed: 30 * time.Second},
		{name: "hook-slow-success", hook: credentials.Func(func(ctx context.Context, _ *credentials.Request) (http.Header, error) {
			<-ctx.Done()
			return http.Header{"Authorization": {authToken}}, nil
		}), is: context.DeadlineExceeded, elapsed: 30 * time.Second},
		{name: "bad-header-value", hook: credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
			return http.Header{"Authorization": {"Bearer x-secret\r\nX-Injected: 1"}}, nil
		})},
		{name: "bad-header-name", hook: credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
			return http.Header{"Bad Name": {"x-secret"}}, nil
		})},
	} {
		for _, w := range wires() {
			t.Run(tc.name+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := authAgent(w)
					opts := []stream.Option{stream.WithInputTimeout(30 * time.Second)}
					if tc.hook != nil {
						opts = append(opts, stream.WithCredentials(tc.hook))
					}
					start := time.Now()
					_, err := agent.client(t, opts...).Send(bounded(t), hello()).Wait()
					require.Equal(t, tc.elapsed, time.Since(start))
					var auth *terminal.AuthRequiredError
					require.ErrorAs(t, err, &auth)
					require.Equal(t, "m-auth", auth.Task.Status.Message.ID)
					require.Equal(t, a2a.StateAuthRequired, stream.EndingOf(err).Task.Status.State)
					if tc.is != nil {
						require.ErrorIs(t, err, tc.is)
					}
					require.NotContains(t, err.Error(), "secret", "no header value in the error text")
					require.Equal(t, 0, agent.count(kindSubscribe))
					require.Equal(t, 0, agent.count(kindGet))
					requireMessageSentOnce(t, agent, false)
				})
			})
		}
	}
}

// TestAuthCredentialsStayOnNamedOrigin: the hook's headers go only to the
// origin the caller named, as WithHeader's do: not across a redirect of a
// subscribe (streaming) or of a get-task (polling) to another origin.
func TestAuthCredentialsStayOnNamedOrigin(t *testing.T) {
	for _, w := range wires() {
		for _, polled := range []bool{false, true} {
			for _, target := range redirectTargets {
				name := fmt.Sprintf("%s/polled=%v/%s", w, polled, target)
				t.Run(name, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent, kind := authAgent(w), kindSubscribe
						if polled {
							agent, kind = authPolledAgent(w), kindGet
						}
						var redirected atomic.Bool
						mo := newOriginRouter()
						mo.serve("https://agent.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
							if kindOf(w.v, w.b, r) == kind && !redirected.Swap(true) {
								http.Redirect(rw, r, target+r.URL.RequestURI(), http.StatusTemporaryRedirect)
								return
							}
							agent.ServeHTTP(rw, r)
						}))
						mo.serve(target, agent)
						hook := &authHook{tokens: []string{authToken}}
						c := bindingClient(t, w.b, "https://agent.test", stream.WithHTTPClient(mo.client()), stream.WithVersion(w.v))
						task, err := c.Send(bounded(t), hello(), stream.WithCredentials(hook)).Wait()
						require.NoError(t, err, "the named origin, with the credentials, completes the task")
						require.Equal(t, a2a.StateCompleted, task.Status.State)
						require.Len(t, hook.requests, 1)
						_, outside := requireNoCredentialsOutside(t, mo, "https://agent.test")
						require.Positive(t, outside, "the redirect was followed (or the test proves nothing)")
						withToken := 0
						for _, h := range mo.recorded() {
							if originOf(h.url) == "https://agent.test:443" && h.header.Get("Authorization") == authToken {
								withToken++
							}
						}
						require.Positive(t, withToken, "the named origin got the credentials")
						requireMessageSentOnce(t, agent, polled)
					})
				})
			}
		}
	}
}

// TestAuthCredentialsNotSentToCardsForeignEndpoint: when the agent card
// names an endpoint on another origin, the hook's headers go nowhere; the
// agent, never authorized, keeps asking with the same status, which is not
// asked again, and the stream ends when the reconnect budget is spent.
func TestAuthCredentialsNotSentToCardsForeignEndpoint(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := authAgent(w)
				mo := newOriginRouter()
				mo.serve("https://agent.test", withCard(cardJSON(w.v, w.b, "https://other.test/", true), nil))
				mo.serve("https://other.test", agent)
				hook := &authHook{tokens: []string{authToken}}
				c, err := stream.Resolve(context.Background(), "https://agent.test", stream.WithHTTPClient(mo.client()),
					stream.WithCredentials(hook))
				require.NoError(t, err)
				_, err = c.Send(bounded(t), hello()).Wait()
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, a2a.StateAuthRequired, stream.EndingOf(err).Task.Status.State)
				require.Len(t, hook.requests, 1)
				_, outside := requireNoCredentialsOutside(t, mo, "https://agent.test")
				require.Positive(t, agent.count(kindSubscribe))
				require.Greater(t, outside, agent.count(kindSubscribe))
				requireMessageSentOnce(t, agent, false)
			})
		})
	}
}

// Credentials that expire in the middle of a task: with WithCredentials, a
// resubscribe, get-task or poll answered 401 asks the hook for fresh
// credentials and makes the call again with them; the message is never
// sent again.

// expiringAgent streams a working task and drops the connection; every
// later call needs authToken, and is answered 401 without it.
func expiringAgent(w wire, polled bool) *wireAgent {
	unauthorized := func(ww *wireWriter) {
		ww.w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		http.Error(ww.w, "token expired", http.StatusUnauthorized)
	}
	on := map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, _ wireCall) {
			ww.sse()
			ww.event(authTask(a2a.StateWorking, nil))
		},
		kindSubscribe: func(ww *wireWriter, c wireCall) {
			if !authorized(c, authToken) {
				unauthorized(ww)
				return
			}
			ww.sse()
			ww.event(authTask(a2a.StateCompleted, nil, authReport))
		},
		kindGet: func(ww *wireWriter, c wireCall) {
			if !authorized(c, authToken) {
				unauthorized(ww)
				return
			}
			ww.task(authTask(a2a.StateCompleted, nil, authReport))
		},
	}
	if polled {
		on[kindStream] = func(ww *wireWriter, _ wireCall) {
			ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
		}
		on[kindSend] = func(ww *wireWriter, _ wireCall) { ww.result(authTask(a2a.StateWorking, nil)) }
	}
	return newWireAgent(w, on)
}

func TestExpiredCredentialsAreRenewedByTheHook(t *testing.T) {
	for _, w := range wires() {
		for _, polled := range []bool{false, true} {
			name := w.String() + "/streamed"
			if polled {
				name = w.String() + "/polled"
			}
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := expiringAgent(w, polled)
					hook := &authHook{tokens: []string{authToken}}
					got, err := drain(t, a.client(t, stream.WithCredentials(hook)).Send(background(), hello()))
					require.NoError(t, err)
					require.Equal(t, "report", got.text("a1"))
					require.Len(t, hook.requests, 1)
					req := hook.requests[0]
					require.Nil(t, req.Message, "no status asked for credentials")
					var httpErr *transport.HTTPError
					require.ErrorAs(t, req.Cause, &httpErr)
					require.Equal(t, http.StatusUnauthorized, httpErr.StatusCode)
					require.Equal(t, "t-1", req.Task.ID)
					requireMessageSentOnce(t, a, polled)
					for _, c := range a.received() {
						if c.kind == kindStream || c.kind == kindSend {
							require.Empty(t, c.header.Values("Authorization"), "the send carried no credentials")
						}
					}
				})
			})
		}
	}
}

func TestExpiredCredentialsWithoutAHookEndTheStream(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := expiringAgent(w, false)
				_, err := drain(t, a.client(t).Send(background(), hello()))
				var httpErr *transport.HTTPError
				require.ErrorAs(t, err, &httpErr)
				require.Equal(t, http.StatusUnauthorized, httpErr.StatusCode)
				require.Equal(t, 1, a.count(kindSubscribe))
			})
		})
	}
}

func TestCredentialsRefusedAgainAndAgainStopAtTheLimit(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := expiringAgent(w, false)
				hook := &authHook{tokens: []string{"Bearer stale"}}
				_, err := drain(t, a.client(t, stream.WithCredentials(hook)).Send(background(), hello()))
				require.ErrorIs(t, err, stream.ErrCredentialsLimit)
				var httpErr *transport.HTTPError
				require.ErrorAs(t, err, &httpErr)
				require.Equal(t, http.StatusUnauthorized, httpErr.StatusCode)
				require.Len(t, hook.requests, stream.MaxCredentialsCalls)
				require.Equal(t, stream.MaxCredentialsCalls+1, a.count(kindSubscribe))
				require.Equal(t, 1, a.count(kindStream))
			})
		})
	}
}

func TestCredentialsHookFailingOnExpiryEndsWithBoth(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := expiringAgent(w, false)
				hookErr := errors.New("the refresh token was revoked")
				hook := &authHook{err: hookErr}
				_, err := drain(t, a.client(t, stream.WithCredentials(hook)).Send(background(), hello()))
				require.ErrorIs(t, err, hookErr)
				var httpErr *transport.HTTPError
				require.ErrorAs(t, err, &httpErr)
				require.Equal(t, 1, a.count(kindSubscribe))
			})
		})
	}
}

// Credentials given for an auth-required task that the agent then refuses
// with 401 on the resubscribe: the hook is asked again, with the refusal
// as Cause, and a fresh token lets the task go on; a hook that keeps
// giving the same stale token stops at MaxCredentialsCalls, and the task,
// still in auth-required, ends the stream as the README's Errors table
// says: "task needs authentication (… or it was asked more than 5 times)
// | *terminal.AuthRequiredError, joined with … stream.ErrCredentialsLimit".

// authThen401Agent is authAgent whose subscribe and get-task refuse any
// call without authToken with 401, as an agent does whose token expired.
func authThen401Agent(w wire) *wireAgent {
	refuse := func(ww *wireWriter) {
		ww.w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		http.Error(ww.w, "token expired", http.StatusUnauthorized)
	}
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: authAskingSend,
		kindSubscribe: func(ww *wireWriter, c wireCall) {
			if !authorized(c, authToken) {
				refuse(ww)
				return
			}
			authContinue(ww, c)
		},
		kindGet: func(ww *wireWriter, c wireCall) {
			if !authorized(c, authToken) {
				refuse(ww)
				return
			}
			authGet(ww, c)
		},
	})
}

func TestCredentialsRefusedWith401AfterAuthRequiredAskTheHookAgain(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := authThen401Agent(w)
				hook := &authHook{tokens: []string{"Bearer stale-secret", authToken}}
				got, err := drain(t, a.client(t, stream.WithCredentials(hook)).Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "report", got.text("a1"))
				require.Len(t, hook.requests, 2)
				require.Equal(t, 1, hook.requests[0].Attempt)
				require.NoError(t, hook.requests[0].Cause, "the first call answers auth-required")
				require.Equal(t, authSignIn.ID, hook.requests[0].Message.ID)
				require.Equal(t, 2, hook.requests[1].Attempt)
				var httpErr *transport.HTTPError
				require.ErrorAs(t, hook.requests[1].Cause, &httpErr, "the second answers the 401")
				require.Equal(t, http.StatusUnauthorized, httpErr.StatusCode)
				require.Equal(t, 2, a.count(kindSubscribe))
				requireMessageSentOnce(t, a, false)
			})
		})
	}
}

func TestStaleTokenAfterAuthRequiredEndsAsAuthRequiredAtTheLimit(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := authThen401Agent(w)
				hook := &authHook{tokens: []string{"Bearer stale-secret"}}
				_, err := drain(t, a.client(t, stream.WithCredentials(hook)).Send(background(), hello()))
				require.ErrorIs(t, err, stream.ErrCredentialsLimit)
				require.Len(t, hook.requests, stream.MaxCredentialsCalls)
				require.Equal(t, stream.MaxCredentialsCalls, a.count(kindSubscribe), "one subscribe after each call of the hook")
				requireMessageSentOnce(t, a, false)
				require.Equal(t, a2a.StateAuthRequired, stream.EndingOf(err).Task.Status.State, "the task never left auth-required")
				var authErr *terminal.AuthRequiredError
				require.ErrorAs(t, err, &authErr, "the task needs authentication: %v", err)
				state, ok := wirematrix.TerminalState(err)
				require.True(t, ok)
				require.Equal(t, a2a.StateAuthRequired, state)
			})
		})
	}
}

// The hook's headers replace the Client's and the call's values of the
// same name, however the hook spells the name in its http.Header (a map
// literal need not be canonical): the resubscribe carries the fresh token
// alone.
func TestCredentialsReplaceHeadersOfTheSameNameHoweverSpelled(t *testing.T) {
	for _, w := range wires() {
		for _, name := range []string{"Authorization", "authorization", "AUTHORIZATION"} {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := authAgent(w)
					hook := credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
						return http.Header{name: {authToken}}, nil
					})
					c := a.client(t, stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithCredentials(hook))
					got, err := drain(t, c.Send(background(), hello(), stream.WithHeader("authorization", "Bearer user-secret")))
					require.NoError(t, err)
					require.Equal(t, "report", got.text("a1"))
					var sent [][]string
					for _, call := range a.received() {
						sent = append(sent, call.header.Values("Authorization"))
					}
					require.Equal(t, [][]string{{"Bearer user-secret"}, {authToken}}, sent,
						"the send with the call's token, the resubscribe with the hook's alone")
				})
			})
		}
	}
}

// Header values net/http cannot send (a control character other than a
// tab: RFC 9110 field values hold none) are refused where the caller gives
// them: WithHeader's by the constructor with ErrInvalidOption, a
// credentials hook's by ending the stream at once. Neither is taken for a
// lost connection, spending the reconnect budget on calls that can never
// leave.

// unsendableValues are header values net/http's Transport refuses to send
// ("net/http: invalid header field value"), though they hold no line break
// or NUL.
var unsendableValues = []struct{ name, value string }{
	{"SOH", "Bearer x-secret\x01"},
	{"DEL", "Bearer x-secret\x7f"},
	{"ESC", "Bearer \x1bx-secret"},
}

// README: "Bad values (... an invalid header) are refused by the
// constructor, or per call as the stream's Err(), with an error that wraps
// stream.ErrInvalidOption; nothing is sent."
func TestHeaderValueWithAControlCharacterIsAnInvalidOption(t *testing.T) {
	for _, bad := range unsendableValues {
		for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
			t.Run(bad.name+"/"+string(b), func(t *testing.T) {
				var err error
				if b == a2a.BindingHTTPJSON {
					_, err = stream.NewRESTClient("http://agent.test", stream.WithHeader("Authorization", bad.value))
				} else {
					_, err = stream.NewClient("http://agent.test/", stream.WithHeader("Authorization", bad.value))
				}
				require.ErrorIs(t, err, stream.ErrInvalidOption)
				require.NotContains(t, err.Error(), "secret", "no header value in the error text")
			})
		}
	}
}

// WithCredentials: "A hook that ... returns a header that cannot be sent
// (an invalid name, a line break or NUL in a value) ends the stream with a
// *terminal.AuthRequiredError joined with the cause".
func TestAuthHookHeaderWithAControlCharacterEndsTheStream(t *testing.T) {
	for _, bad := range unsendableValues {
		for _, w := range wires() {
			t.Run(bad.name+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := authAgent(w)
					// A real Transport, which refuses such a value before it
					// dials (a2atest's transport would carry it).
					p := &pipeServer{h: agent}
					tr := &http.Transport{DialContext: p.dial}
					defer p.close()
					defer tr.CloseIdleConnections()
					hook := credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
						return http.Header{"Authorization": {bad.value}}, nil
					})
					start := time.Now()
					_, err := agent.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
						stream.WithCredentials(hook)).Send(bounded(t), hello()).Wait()
					var auth *terminal.AuthRequiredError
					require.ErrorAs(t, err, &auth, "the header cannot be sent: the auth-required ending, not a lost connection")
					require.Equal(t, time.Duration(0), time.Since(start), "no reconnect backoff spent")
					require.NotContains(t, err.Error(), "secret", "no header value in the error text")
					requireMessageSentOnce(t, agent, false)
				})
			})
		}
	}
}
