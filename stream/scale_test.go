package stream_test

import (
	"flag"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// One task of -scale messages, artifacts, statuses or appends, cut in the
// middle, against each resubscribe style: every step is delivered once.
func TestScaleOfOneTask(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	n := *scaleSize
	kinds := []struct {
		name string
		step func(i int) a2atest.Step
	}{
		{"messages", func(i int) a2atest.Step { return a2atest.Say(fmt.Sprintf("message %d", i)) }},
		{"artifacts", func(i int) a2atest.Step {
			return a2atest.Chunk(fmt.Sprintf("a%d", i), fmt.Sprintf("part %d", i), false, true)
		}},
		{"statuses", func(i int) a2atest.Step { return a2atest.Working(fmt.Sprintf("step %d", i)) }},
		{"appends", func(i int) a2atest.Step { return a2atest.Chunk("a1", fmt.Sprintf("part %d ", i), i > 0, false) }},
	}
	for _, k := range kinds {
		for _, style := range styles {
			t.Run(k.name+"/"+style.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					v := a2a.V10
					script := make([]a2atest.Step, 0, n+3)
					for i := range n {
						script = append(script, k.step(i))
					}
					script = append(script, a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, ""))
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(style),
						a2atest.WithScript(script...), a2atest.WithFaults(a2atest.CutAfterEvents(n/2)))
					// A snapshot of 100,000 messages is over the default 16 MiB.
					s := newClient(t, agent, v, stream.WithMaxEventSize(256<<20)).Send(bounded(t), hello())
					defer s.Close()
					var msgs, parts, statuses int
					seen := make(map[string]bool, n)
					for s.Next() {
						switch e := s.Event().(type) {
						case *a2a.Message:
							require.False(t, seen[e.ID], "message %s twice", e.ID)
							seen[e.ID] = true
							msgs++
						case *a2a.StatusUpdate:
							statuses++
							if m := e.Status.Message; m != nil {
								require.False(t, seen[m.ID], "status message %s twice", m.ID)
								seen[m.ID] = true
							}
						case *a2a.ArtifactUpdate:
							parts += len(e.Artifact.Parts)
						}
					}
					require.NoError(t, s.Err())
					server := agent.Task(s.Task().ID)
					require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
					require.Equal(t, len(server.Artifacts), len(s.Task().Artifacts))
					for i := range server.Artifacts {
						require.Equal(t, server.Artifacts[i].ID, s.Task().Artifacts[i].ID)
						require.Equal(t, server.Artifacts[i].Parts, s.Task().Artifacts[i].Parts)
					}
					_ = statuses
					switch k.name {
					case "messages", "statuses":
						require.Len(t, seen, n, "each message once, as a Message or a status message (%d messages)", msgs)
					case "artifacts", "appends":
						if style != a2atest.LiveOnly {
							require.Equal(t, n, parts, "each part once")
						}
					}
				})
			})
		}
	}
}

// scaleSize is how many steps TestScaleOfOneTask gives one task; CI passes
// the full size (.ci/run).
var scaleSize = flag.Int("scale", 5_000, "how many messages, artifacts, statuses or appends TestScaleOfOneTask uses (CI: 20,000; 100,000 was run once by hand)")
