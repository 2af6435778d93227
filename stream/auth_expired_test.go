package stream_test

// Credentials that expire in the middle of a task: with WithCredentials, a
// resubscribe, get-task or poll answered 401 asks the hook for fresh
// credentials and makes the call again with them; the message is never
// sent again.

import (
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

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
					var httpErr *stream.HTTPError
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
				var httpErr *stream.HTTPError
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
				var httpErr *stream.HTTPError
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
				var httpErr *stream.HTTPError
				require.ErrorAs(t, err, &httpErr)
				require.Equal(t, 1, a.count(kindSubscribe))
			})
		})
	}
}
