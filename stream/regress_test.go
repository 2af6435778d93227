package stream_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

func TestSlowConsumerIsNotAnIdleServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The application spends 5 s on each event, far beyond the 1 s idle
		// timeout, while the server has sent everything: nothing is dropped.
		agent := a2atest.NewAgent(a2atest.WithScript(paced()...))
		s := newClient(t, agent, a2a.V10, stream.WithIdleTimeout(time.Second)).Send(background(), hello())
		defer s.Close()
		for s.Next() {
			work := time.NewTimer(5 * time.Second) // the application at work, on the fake clock
			<-work.C
		}
		require.NoError(t, s.Err())
		require.Equal(t, 0, resubscribes(agent))
	})
}

func TestEmptyJSONAnswerToAResubscribeIsADrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A 200 application/json with an empty body ends like an empty event
		// stream: a failed attempt, then a resume.
		agent := a2atest.NewAgent(a2atest.WithScript(paced()...), a2atest.WithStyle(a2atest.SnapshotFirst),
			a2atest.WithFaults(a2atest.CutAfterEvents(3)))
		n := 0
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n++
			if n == 2 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(200)
				return
			}
			agent.ServeHTTP(w, r)
		})
		var causes []error
		s := hostileClient(t, h, a2a.V10, stream.WithNotify(func(no stream.Notice) {
			if no.Kind == stream.Reconnecting {
				causes = append(causes, no.Cause)
			}
		})).Send(background(), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		requireSameAsServer(t, agent, s, got)
		require.Len(t, causes, 2)
		require.ErrorIs(t, causes[1], stream.ErrEndedEarly)
	})
}

func TestRetryAfterOnGetTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithScript(paced()...),
			a2atest.WithFaults(a2atest.CutAfterEvents(pacedEvents-1)),
			a2atest.WithGetFaults(a2atest.HTTPStatusWithHeader(503, "", http.Header{"Retry-After": {"9"}})))
		var waits []time.Duration
		s := newClient(t, agent, a2a.V10, stream.WithNotify(func(n stream.Notice) {
			if n.Kind == stream.Reconnecting {
				waits = append(waits, n.Wait)
			}
		})).Send(background(), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		requireSameAsServer(t, agent, s, got)
		require.Equal(t, []time.Duration{500 * time.Millisecond, 9 * time.Second}, waits)
	})
}

func TestErrorTextQuotesServerDataBriefly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		huge := strings.Repeat("i", 1<<20)
		h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
			sseHeaders(w)
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%q,\"result\":{\"kind\":\"message\"}}\n\n", huge)
		})
		_, err := drain(t, hostileClient(t, h, a2a.V10, stream.WithReconnect(reconnect.Never())).Send(background(), hello()))
		var pe *stream.ProtocolError
		require.ErrorAs(t, err, &pe)
		require.Less(t, len(err.Error()), 400, "a megabyte of server data is not copied into the error text")
	})
}

func TestEndlessRedirectsFailLikeNetHTTP(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// With WithHeader the client installs its own redirect policy; it
		// must stop after 10 redirects with an error, as net/http's default
		// does, not hand back the 11th redirect as if it were the answer.
		hops := 0
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hops++
			http.Redirect(w, r, "/again", http.StatusTemporaryRedirect)
		})
		_, err := drain(t, hostileClient(t, h, a2a.V10, stream.WithHeader("X-Api-Key", "k")).Send(background(), hello()))
		require.Error(t, err)
		var httpErr *stream.HTTPError
		require.False(t, errors.As(err, &httpErr), "a redirect is not the agent's answer: %v", err)
		var re *reconnect.Error
		require.ErrorAs(t, err, &re, "no response: the message may not have arrived, and no task is known")
		require.Equal(t, 10, hops, "the original request and 9 redirects, as net/http counts")
	})
}
