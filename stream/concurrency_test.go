package stream_test

import (
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

// TestManyStreamsOnOneClient runs 100 streams at once on one Client, each
// with its own drops, under the race detector in CI.
func TestManyStreamsOnOneClient(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const n = 100
				var faults []a2atest.Fault
				for i := range 3 * n {
					faults = append(faults, a2atest.CutAfterEvents(1+i%(pacedEvents-1)))
				}
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.SnapshotFirst),
					a2atest.WithScript(paced()...), a2atest.WithFaults(faults...))
				client := newClient(t, agent, v)
				var wg sync.WaitGroup
				results := make([]error, n)
				texts := make([]string, n)
				for i := range n {
					wg.Go(func() {
						s := client.Send(background(), a2a.NewTextMessage(a2a.RoleUser, "hi"))
						task, err := s.Wait()
						results[i] = err
						if task != nil && task.Artifact("a1") != nil {
							texts[i] = task.Artifact("a1").Text()
						}
					})
				}
				wg.Wait()
				for i := range n {
					require.NoError(t, results[i], "stream %d", i)
					require.Equal(t, "one two three", texts[i], "stream %d", i)
				}
				require.Len(t, agent.TaskIDs(), n)
				require.Greater(t, resubscribes(agent), n/2, "the streams really dropped")
			})
		})
	}
}
