package stream_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// records keeps the attributes of the log records with one message.
type records struct {
	msg string
	mu  sync.Mutex
	got []map[string]string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message != r.msg {
		return nil
	}
	m := map[string]string{"level": rec.Level.String()}
	rec.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	r.mu.Lock()
	r.got = append(r.got, m)
	r.mu.Unlock()
	return nil
}

func (r *records) all() []map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]string(nil), r.got...)
}

// Every attempt of a stream is logged at debug level with what a server's
// log shows of it: the JSON-RPC method and request ID, or the HTTP method
// and path.
func TestEveryAttemptLogsItsRequestID(t *testing.T) {
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
							ww.rpcErrorData(a2a.CodeInternalError, "busy", retryData(w.v, 1))
							return
						}
						ww.sse()
						ww.event(snap(a2a.StateCompleted, "one"))
					},
				})
				log := &records{msg: "a2a: request"}
				_, err := drain(t, a.client(t, stream.WithLogger(slog.New(log))).Send(background(), hello()))
				require.NoError(t, err)
				calls := a.received()
				got := log.all()
				require.Len(t, got, len(calls), "one record an attempt")
				require.Len(t, calls, 3, "the send and two subscribes")
				for i, c := range calls {
					r := got[i]
					require.Equal(t, "DEBUG", r["level"])
					if w.b == a2a.BindingJSONRPC {
						require.Equal(t, c.method, r["rpc"])
						require.Equal(t, c.rpcID, r["id"])
						require.NotEmpty(t, r["id"])
					} else {
						u, err := url.Parse(r["url"])
						require.NoError(t, err)
						require.Equal(t, c.method, r["method"]+" "+u.Path)
					}
				}
				status := "500" // HTTP+JSON's status of an internal error
				if w.b == a2a.BindingJSONRPC {
					status = "200" // JSON-RPC sends its errors with 200
				}
				require.Equal(t, status, got[1]["status"], "the refused subscribe's status")
			})
		})
	}
}

// The "a2a: request" log line of every attempt, including those that
// never reached the agent (refused at dial) and those it refused (503):
// README, "Following a task in the server's logs": "every attempt is
// logged once … with the HTTP method, the URL (redacted), the JSON-RPC
// method and request id, and the response's status or the transport's
// error"; and WithLogger: "nothing secret is ever logged".

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
