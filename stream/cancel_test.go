package stream_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/terminal"
)

// Client.Cancel over REST while another goroutine's stream polls: the
// stream ends in *terminal.CanceledError at the next poll, with the task.
func TestCancelWhileAnotherGoroutinePollsOverREST(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(a2atest.Working(""), a2atest.Chunk("a1", "partial", false, false),
						a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")))
				c := r3Resolve(t, agent)
				var canceled *a2a.Task
				var cancelErr error
				time.AfterFunc(1500*time.Millisecond, func() {
					canceled, cancelErr = c.Cancel(background(), agent.TaskIDs()[0])
				})
				start := time.Now()
				_, err := drain(t, c.Send(background(), hello()))
				var ce *terminal.CanceledError
				require.ErrorAs(t, err, &ce)
				require.Equal(t, "partial", ce.Task.Artifact("a1").Text())
				require.Equal(t, 2*time.Second, time.Since(start))
				synctest.Wait()
				require.NoError(t, cancelErr)
				require.Equal(t, a2a.StateCanceled, canceled.Status.State)
			})
		})
	}
}
