package stream_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// resumeRuns is how many seeded restarts TestResumeAtRandomPointsHandsOverEverythingOnce
// runs; CI passes 1,000 (.ci/run), RELIABILITY.md records 10,000.
var resumeRuns = flag.Int("resume.runs", 200, "how many seeded restarts TestResumeAtRandomPointsHandsOverEverythingOnce runs (CI: 1,000)")

// randomScript is a task of a seeded shape: up to three artifacts growing
// chunk by chunk, agent messages, status messages and pauses, then the
// end. The agent never replaces an artifact, so any part handed over twice
// is the client's doing.
func randomScript(r *rand.Rand) []a2atest.Step {
	var steps []a2atest.Step
	opened := map[string]bool{}
	for i := range 4 + r.IntN(20) {
		switch r.IntN(6) {
		case 0:
			steps = append(steps, a2atest.Working(fmt.Sprintf("step %d", i)))
		case 1:
			steps = append(steps, a2atest.Say(fmt.Sprintf("note %d", i)))
		case 2:
			steps = append(steps, a2atest.Pause(time.Duration(1+r.IntN(3))*500*time.Millisecond))
		default:
			id := fmt.Sprintf("a%d", r.IntN(3))
			steps = append(steps, a2atest.Chunk(id, fmt.Sprintf("chunk %d ", i), opened[id], false))
			opened[id] = true
		}
	}
	return append(steps, a2atest.Finish(a2a.StateCompleted, "done"))
}

// A process restarted at a seeded random point, with a seeded number of
// events lost after its last checkpoint, resumes on a seeded wire, server
// style or polling, and the application ends with the agent's task, no
// part or message twice.
func TestResumeAtRandomPointsHandsOverEverythingOnce(t *testing.T) {
	t.Parallel()
	ws, modes := wires(), resumeModes()
	failures := 0
	for seed := range *resumeRuns {
		r := rand.New(rand.NewPCG(uint64(seed), 20))
		w, mode := ws[r.IntN(len(ws))], modes[r.IntN(len(modes))]
		script := randomScript(r)
		stop, lag := 1+r.IntN(len(script)+2), r.IntN(4)
		name := fmt.Sprintf("seed %d: %s, %s, stop after %d, lag %d", seed, w, mode.name, stop, lag)
		ok := t.Run(fmt.Sprint(seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(append([]a2atest.Option{a2atest.WithScript(script...),
					a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, mode.opts...)...)
				opts := []stream.Option{stream.WithPollInterval(250 * time.Millisecond)}
				s := clientOn(t, agent, w.v, w.b, opts...).Send(bounded(t), hello())
				var before []a2a.Event
				for len(before) < stop && s.Next() {
					before = append(before, s.Event())
				}
				require.NoError(t, s.Err(), name)
				saved, err := s.Checkpoint().MarshalBinary()
				require.NoError(t, err, name)
				for i := 0; i < lag && s.Next(); i++ {
				}
				s.Close()
				cp, err := stream.ParseCheckpoint(saved)
				require.NoError(t, err, name)
				after, err := drainResumed(t, clientOn(t, agent, w.v, w.b, opts...).Resume(bounded(t), cp), before)
				require.NoError(t, err, name)
				requireHandedOverOnce(t, agent.Task(cp.TaskID()), append(before, after...))
			})
		})
		if !ok {
			t.Logf("failed: %s", name)
			if failures++; failures > 3 {
				t.Fatalf("stopping after %d failing seeds", failures)
			}
		}
	}
}
