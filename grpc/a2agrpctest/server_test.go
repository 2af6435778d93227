package a2agrpctest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/grpc/a2agrpctest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// client returns a stream client of srv fixed to v; the transport and the
// server close when the test ends.
func client(t *testing.T, srv *a2agrpctest.Server, v a2a.Version, opts ...stream.Option) *stream.Client {
	t.Helper()
	return serverClient(t, srv, v, append([]stream.Option{
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond})}, opts...)...)
}

func TestCutIsHealed(t *testing.T) {
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.CutAfterEvents(2)))
				s := client(t, a2agrpctest.NewServer(agent), v).Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hi"))
				defer s.Close()
				for s.Next() {
				}
				require.NoError(t, s.Err())
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, agent.Task(s.Task().ID).Artifacts, s.Task().Artifacts)
				var methods []string
				for _, r := range agent.Requests() {
					methods = append(methods, r.Method)
				}
				want := []string{"SendStreamingMessage", "SubscribeToTask"}
				if v == a2a.V03 {
					want = []string{"message/stream", "tasks/resubscribe"}
				}
				require.Equal(t, want, methods[:2], "sent once, then resubscribed")
			})
		})
	}
}

// TestHandlerServer: a hand-written JSON-RPC handler served over gRPC. Its
// first stream sends the task and is cut (a panic with
// http.ErrAbortHandler); the client resubscribes, and the handler sends the
// task completed. Every request reached the handler under its JSON-RPC
// method, the call's version's.
func TestHandlerServer(t *testing.T) {
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var methods []string
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					var req struct {
						ID     json.RawMessage `json:"id"`
						Method string          `json:"method"`
					}
					if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
						http.Error(w, err.Error(), http.StatusBadRequest)
						return
					}
					methods = append(methods, req.Method)
					state := a2a.StateWorking
					if len(methods) > 1 {
						state = a2a.StateCompleted
					}
					raw, err := a2a.Codec{Version: v}.EncodeEvent(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state}})
					if err != nil {
						http.Error(w, err.Error(), http.StatusInternalServerError)
						return
					}
					w.Header().Set("Content-Type", "text/event-stream")
					_, _ = fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID, raw)
					w.(http.Flusher).Flush()
					if state == a2a.StateWorking {
						panic(http.ErrAbortHandler)
					}
				})
				srv := a2agrpctest.NewHandlerServer(h)
				require.Nil(t, srv.Agent())
				s := client(t, srv, v).Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hi"))
				defer s.Close()
				for s.Next() {
				}
				require.NoError(t, s.Err())
				require.Equal(t, "t-1", s.Task().ID)
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				want := []string{"SendStreamingMessage", "SubscribeToTask"}
				if v == a2a.V03 {
					want = []string{"message/stream", "tasks/resubscribe"}
				}
				require.Equal(t, want, methods, "sent once, then resubscribed")
			})
		})
	}
}
