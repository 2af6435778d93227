package stream_test

import (
	"context"
	"log/slog"
	"net/url"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
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
