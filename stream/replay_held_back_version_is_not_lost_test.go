package stream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// Stranger BJ's finding (high: words lost with no error). A server that
// replays from the start, its statuses without timestamps, sends after a
// drop a version of the artifact the client never held (the agent replaced
// the draft during the gap), a part appended to it, then the task's end.
// The stream holds the unknown version back, since a replay may bring an
// old version missed in an earlier gap; it is old only if the version the
// client holds follows it. When the get-task that would close the gap
// failed (an RPC error, a 404, 503s until the budget was spent), the stream
// ended in completed with "draft", and neither the new version nor the
// part appended to it reached the application or Task(). The task's end,
// which a replay reaches only after every version the server holds, now
// tells that the held version was new. The timestamped row held before.
func TestAReplayedVersionHeldBackIsNotLostWhenTheGetTaskFails(t *testing.T) {
	const (
		working   = `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"working"}}`
		workingTS = `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"working","timestamp":"2026-01-01T00:00:00Z"}}`
		done      = `{"kind":"status-update","taskId":"t1","contextId":"c1","status":{"state":"completed"},"final":true}`
		doneTS    = `{"kind":"status-update","taskId":"t1","contextId":"c1","status":{"state":"completed","timestamp":"2026-01-01T00:00:09Z"},"final":true}`
	)
	chunk := func(text string, appended bool) string {
		return fmt.Sprintf(`{"kind":"artifact-update","taskId":"t1","contextId":"c1","append":%v,"artifact":{"artifactId":"a1","parts":[{"kind":"text","text":%q}]}}`, appended, text)
	}
	for _, row := range []struct {
		getAnswer  string
		timestamps bool
	}{{"rpc error", false}, {"404", false}, {"503", false}, {"rpc error", true}} {
		t.Run(fmt.Sprintf("%s/timestamps=%v", row.getAnswer, row.timestamps), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				first, last := working, done
				if row.timestamps {
					first, last = workingTS, doneTS
				}
				n := 0
				agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					var req struct {
						ID     json.RawMessage `json:"id"`
						Method string          `json:"method"`
					}
					body, _ := io.ReadAll(r.Body)
					_ = json.Unmarshal(body, &req)
					n++
					switch {
					case n == 1:
						startSSE(w)
						lagEvent(w, req.ID, first)
						lagEvent(w, req.ID, chunk("draft", false))
						panic(http.ErrAbortHandler) // the drop
					case req.Method == "tasks/resubscribe":
						startSSE(w)
						lagEvent(w, req.ID, first)
						lagEvent(w, req.ID, chunk("final answer", false)) // the agent replaced the draft in the gap
						lagEvent(w, req.ID, chunk(" and more", true))
						lagEvent(w, req.ID, last)
					case row.getAnswer == "503":
						w.WriteHeader(http.StatusServiceUnavailable)
					case row.getAnswer == "404":
						w.WriteHeader(http.StatusNotFound)
					default:
						w.Header().Set("Content-Type", "application/json")
						fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"store unavailable"}}`, req.ID)
					}
				})
				c, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(a2atest.NewClient(agent)), stream.WithVersion(a2a.V03))
				require.NoError(t, err)
				s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hi"))
				var folded a2a.Task
				for s.Next() {
					folded.Apply(s.Event())
				}
				require.NoError(t, s.Err())
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, "final answer and more", s.Task().Artifact("a1").Text(), "Task()")
				require.Equal(t, "final answer and more", folded.Artifact("a1").Text(), "what the application folded")
				require.NoError(t, s.Close())
			})
		})
	}
}
