package stream_test

// The "a2a: request" log line of every attempt, including those that
// never reached the agent (refused at dial) and those it refused (503):
// README, "Following a task in the server's logs": "every attempt is
// logged once … with the HTTP method, the URL (redacted), the JSON-RPC
// method and request id, and the response's status or the transport's
// error"; and WithLogger: "nothing secret is ever logged".

import (
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

func TestEveryAttemptIsLoggedOnceRefusedOrNotAndNothingSecret(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking, "one"))
					},
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						if c.n == 0 {
							ww.w.Header().Set("Retry-After", "1")
							http.Error(ww.w, "overloaded, body-secret", http.StatusServiceUnavailable)
							return
						}
						ww.sse()
						ww.event(snap(a2a.StateCompleted, "one", " two"))
					},
				})
				// Attempts 1 (the send) and 3 (the first resubscribe) are
				// refused at dial: the agent is restarting.
				var n atomic.Int32
				var refused []bool
				rt := refuseOnce{next: a2atest.NewTransport(a), refuse: func(*http.Request) bool {
					k := n.Add(1)
					refused = append(refused, k == 1 || k == 3)
					return k == 1 || k == 3
				}}
				records := &records{msg: "a2a: request"}
				var text logCapture // text and JSON
				opts := &slog.HandlerOptions{Level: slog.LevelDebug}
				log := slog.New(teeHandler{records, slog.NewTextHandler(&text, opts), slog.NewJSONHandler(&text, opts)})
				copts := []stream.Option{stream.WithHTTPClient(&http.Client{Transport: rt}), stream.WithVersion(w.v), stream.WithLogger(log),
					stream.WithHeader("Authorization", "Bearer header-secret")}
				var (
					c   *stream.Client
					err error
				)
				if w.b == a2a.BindingHTTPJSON {
					c, err = stream.NewRESTClient("http://agent.test?api_key=key-secret", copts...)
				} else {
					c, err = stream.NewClient("http://agent.test/?api_key=key-secret", copts...)
				}
				require.NoError(t, err)
				got, err := drain(t, c.Send(background(), a2a.NewTextMessage(a2a.RoleUser, "message-secret")))
				require.NoError(t, err)
				require.Equal(t, "one two", got.text("a1"))

				logged := records.all()
				require.Len(t, logged, 5, "the send twice, the resubscribe three times")
				require.Equal(t, []bool{true, false, true, false, false}, refused)
				calls := a.received()
				require.Len(t, calls, 3, "three attempts reached the agent")
				reached := 0
				for i, r := range logged {
					require.Equal(t, "DEBUG", r["level"])
					require.Equal(t, "POST", r["method"])
					require.Contains(t, r["url"], "api_key=xxxxx")
					if refused[i] {
						require.NotEmpty(t, r["err"], "record %d: the transport's error", i)
						require.Empty(t, r["status"], "record %d", i)
					} else {
						require.Empty(t, r["err"], "record %d", i)
						c := calls[reached]
						reached++
						if w.b == a2a.BindingJSONRPC {
							require.Equal(t, c.method, r["rpc"], "record %d", i)
							require.Equal(t, c.rpcID, r["id"], "record %d: the ID the agent's log shows", i)
						}
					}
					if w.b == a2a.BindingJSONRPC {
						require.NotEmpty(t, r["id"], "record %d", i)
					}
				}
				require.Equal(t, "503", logged[3]["status"])
				require.Equal(t, "200", logged[4]["status"])
				require.NotContains(t, text.String(), "secret")
				require.True(t, strings.Contains(text.String(), "connection refused"), "the refusals are logged")
			})
		})
	}
}
