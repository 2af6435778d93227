package stream_test

// Trace.Header: the headers a tool adds to each call it is told of go with
// that call, on every wire and every kind of call, and under WithHeader's
// rule: never to another origin.

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// callHeaders is a Trace whose Header adds Traceparent naming the call.
func callHeaders(names *[]string) stream.Option {
	return stream.WithTrace(&stream.Trace{Header: func(a stream.AttemptInfo, h http.Header) {
		v := fmt.Sprintf("call-%d-%s", a.Call, a.Kind)
		h.Set("Traceparent", v)
		*names = append(*names, v)
	}})
}

// requireCallHeaders asserts that the agent's calls carried, in order, the
// Traceparent values Header added.
func requireCallHeaders(t *testing.T, agent *wireAgent, want []string) {
	t.Helper()
	var got []string
	for _, c := range agent.received() {
		require.Len(t, c.header.Values("Traceparent"), 1, "%s: one value, the trace's replacing the caller's", c.method)
		got = append(got, c.header.Get("Traceparent"))
	}
	require.Equal(t, want, got)
}

func TestTraceHeaderGoesWithEveryCall(t *testing.T) {
	caller := stream.WithHeader("Traceparent", "the caller's")
	t.Run("cut twice", func(t *testing.T) {
		onEveryWire(t, func(t *testing.T, w wire) {
			agent := newWireAgent(w, answers{kindStream: sendsWorking, kindSubscribe: func(ww *wireWriter, c wireCall) {
				if c.n == 0 {
					legOf(snap(a2a.StateWorking, "one"))(ww, c)
					return
				}
				legOf(snap(a2a.StateCompleted, "one"))(ww, c)
			}})
			var names []string
			_, _, err := runSend(t, agent, &noticeLog{}, caller, callHeaders(&names))
			require.NoError(t, err)
			require.Equal(t, []string{"call-1-send", "call-2-subscribe", "call-3-subscribe"}, names)
			requireCallHeaders(t, agent, names)
		})
	})
	t.Run("a prompt answered", func(t *testing.T) {
		onEveryWire(t, func(t *testing.T, w wire) {
			agent := newWireAgent(w, answers{kindStream: askedThen(legOf(snap(a2a.StateCompleted, "done")))})
			var names []string
			_, _, err := runSend(t, agent, &noticeLog{}, answerParis, caller, callHeaders(&names))
			require.NoError(t, err)
			require.Equal(t, []string{"call-1-send", "call-2-reply"}, names)
			requireCallHeaders(t, agent, names)
		})
	})
	t.Run("polled", func(t *testing.T) {
		onEveryWire(t, func(t *testing.T, w wire) {
			agent := newWireAgent(w, answers{kindStream: refusedWith(a2a.CodeUnsupportedOperation),
				kindSend: answersResult(snap(a2a.StateWorking)), kindGet: answersTask(snap(a2a.StateCompleted, "done"))})
			var names []string
			_, _, err := runSend(t, agent, &noticeLog{}, caller, callHeaders(&names))
			require.NoError(t, err)
			require.Equal(t, []string{"call-1-send", "call-2-send", "call-3-poll"}, names)
			requireCallHeaders(t, agent, names)
		})
	})
	t.Run("no header added", func(t *testing.T) {
		onEveryWire(t, func(t *testing.T, w wire) {
			agent := newWireAgent(w, answers{kindStream: legOf(snap(a2a.StateCompleted, "done"))})
			calls := 0
			_, _, err := runSend(t, agent, &noticeLog{}, caller, stream.WithTrace(&stream.Trace{
				Header: func(stream.AttemptInfo, http.Header) { calls++ }}))
			require.NoError(t, err)
			require.Equal(t, 1, calls)
			requireCallHeaders(t, agent, []string{"the caller's"})
		})
	})
}

// TestTraceHeadersCompose: two Traces' Header both add to the same call's
// headers, the one given first first.
func TestTraceHeadersCompose(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		agent := newWireAgent(w, answers{kindStream: legOf(snap(a2a.StateCompleted, "done"))})
		first := stream.WithTrace(&stream.Trace{Header: func(_ stream.AttemptInfo, h http.Header) {
			h.Set("Traceparent", "first")
			h.Set("Baggage", "k=v")
		}})
		second := stream.WithTrace(&stream.Trace{Header: func(_ stream.AttemptInfo, h http.Header) {
			require.Equal(t, "first", h.Get("Traceparent"), "the first Trace's header is seen by the second")
			h.Set("Traceparent", "second")
		}})
		_, _, err := runSend(t, agent, &noticeLog{}, first, second)
		require.NoError(t, err)
		requireCallHeaders(t, agent, []string{"second"})
		require.Equal(t, "k=v", agent.received()[0].header.Get("Baggage"))
	})
}

// TestTraceHeaderInAnyCaseReplaces: a header a Trace sets under a key
// that is not in canonical form ("authorization") replaces the stream's
// header of that name, as one set canonically does: the agent gets one
// value (a stranger round on tracing's F1).
func TestTraceHeaderInAnyCaseReplaces(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		agent := newWireAgent(w, answers{kindStream: legOf(snap(a2a.StateCompleted, "done"))})
		lower := stream.WithTrace(&stream.Trace{Header: func(_ stream.AttemptInfo, h http.Header) {
			h["authorization"] = []string{"Bearer trace"}
		}})
		_, _, err := runSend(t, agent, &noticeLog{}, stream.WithHeader("Authorization", "Bearer app"), lower)
		require.NoError(t, err)
		require.Equal(t, []string{"Bearer trace"}, agent.received()[0].header.Values("Authorization"))
	})
}

// TestTraceHeaderThatCannotBeSentIsDropped: a header a Trace adds that no
// call could carry (a value with CR LF in it, a name that is no HTTP
// token) is dropped with a warning naming it, and the call goes on with the
// rest; the stream's own header of that name stays. Before, the call failed
// as a lost connection.
func TestTraceHeaderThatCannotBeSentIsDropped(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		agent := newWireAgent(w, answers{kindStream: legOf(snap(a2a.StateCompleted, "done"))})
		bad := stream.WithTrace(&stream.Trace{Header: func(_ stream.AttemptInfo, h http.Header) {
			h.Set("Traceparent", "00-abc\r\nX-Injected: 1")
			h["Bad Name"] = []string{"v"}
			h.Set("Baggage", "k=v")
		}})
		var logged bytes.Buffer
		var mu sync.Mutex
		logger := slog.New(slog.NewTextHandler(&syncWriter{w: &logged, mu: &mu}, nil))
		_, _, err := runSend(t, agent, &noticeLog{}, stream.WithHeader("Traceparent", "the caller's"), stream.WithLogger(logger), bad)
		require.NoError(t, err)
		got := agent.received()[0].header
		require.Equal(t, []string{"the caller's"}, got.Values("Traceparent"))
		require.Equal(t, "k=v", got.Get("Baggage"))
		require.Empty(t, got.Values("X-Injected"))
		mu.Lock()
		defer mu.Unlock()
		require.Contains(t, logged.String(), "header=Traceparent")
		require.Contains(t, logged.String(), `header="Bad Name"`)
		require.NotContains(t, logged.String(), "X-Injected", "no value is logged")
	})
}

// TestTraceHeaderNotToAnotherOrigin: a redirect of the named origin's
// endpoint to another origin carries no header a Trace added (as it
// carries none of WithHeader's), over real sockets, on every wire; the
// named origin got them.
func TestTraceHeaderNotToAnotherOrigin(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := w.agent(helloScript())
			recB := &headerRecorder{}
			b := httptest.NewServer(recB.wrap(agent))
			defer b.Close()
			recA := &headerRecorder{}
			var aHost string
			a := httptest.NewServer(recA.wrap(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				if isCardPath(r.URL.Path) {
					r2 := r.Clone(r.Context())
					r2.Host = aHost
					agent.ServeHTTP(rw, r2)
					return
				}
				http.Redirect(rw, r, b.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
			})))
			defer a.Close()
			au, _ := url.Parse(a.URL)
			aHost = au.Host
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			c, err := stream.Resolve(ctx, a.URL, stream.WithHTTPClient(&http.Client{}), stream.WithVersion(w.v), stream.WithBinding(w.b))
			require.NoError(t, err)
			tr := &stream.Trace{Header: func(_ stream.AttemptInfo, h http.Header) {
				h.Set("Traceparent", "00-trace-secret-01")
				h.Set("Baggage", "user=baggage-secret")
			}}
			_, err = c.Send(ctx, hiMessage(), stream.WithTrace(tr)).Wait()
			require.NoError(t, err)
			require.NotEmpty(t, recB.headers(), "the redirect was followed (or the test proves nothing)")
			for _, h := range recB.headers() {
				require.Empty(t, h.Get("Traceparent"))
				require.Empty(t, h.Get("Baggage"))
			}
			var saw bool
			for _, h := range recA.headers() {
				saw = saw || h.Get("Traceparent") == "00-trace-secret-01"
			}
			require.True(t, saw, "the named origin got the trace's headers")
		})
	}
}

// TestTraceHeaderNotToAForeignEndpoint: a card that names an endpoint on
// another origin gets no header a Trace added, on every wire.
func TestTraceHeaderNotToAForeignEndpoint(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mo := newOriginRouter()
				mo.serve("https://agent.test", withCard(cardJSON(w.v, w.b, "https://other.test/", true), nil))
				mo.serve("https://other.test/", scriptedAgent(w))
				c, err := stream.Resolve(context.Background(), "https://agent.test", stream.WithHTTPClient(mo.client()))
				require.NoError(t, err)
				added := 0
				tr := &stream.Trace{Header: func(_ stream.AttemptInfo, h http.Header) {
					h.Set("Traceparent", "00-trace-secret-01")
					added++
				}}
				_, _ = c.Send(context.Background(), hiMessage(), stream.WithTrace(tr), stream.WithHumanInput(answerLisbon)).Wait()
				require.Positive(t, added)
				_, outside := requireNoCredentialsOutside(t, mo, "https://agent.test")
				require.Positive(t, outside)
			})
		})
	}
}
