package stream_test

// Credentials given for an auth-required task that the agent then refuses
// with 401 on the resubscribe: the hook is asked again, with the refusal
// as Cause, and a fresh token lets the task go on; a hook that keeps
// giving the same stale token stops at MaxCredentialsCalls, and the task,
// still in auth-required, ends the stream as the README's Errors table
// says: "task needs authentication (… or it was asked more than 5 times)
// | *terminal.AuthRequiredError, joined with … stream.ErrCredentialsLimit".

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

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
				var httpErr *stream.HTTPError
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
				state, ok := terminalState(err)
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
					hook := stream.CredentialsFunc(func(context.Context, *stream.AuthRequest) (http.Header, error) {
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
