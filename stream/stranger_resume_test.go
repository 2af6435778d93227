package stream_test

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// One checkpoint resumed twice at the same time, by two Clients (two
// replicas that both took the stream over): a Checkpoint "may be used from
// any goroutine", and each resumed stream hands over the rest exactly once,
// on every wire.
func TestACheckpointResumedTwiceAtOnceHandsEachTheRestOnce(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, mode := range resumeModes() {
			t.Run(w.String()+"/"+mode.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					opts := append([]a2atest.Option{a2atest.WithScript(resumeScript()...),
						a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, mode.opts...)
					agent := a2atest.NewAgent(opts...)
					sopts := []stream.Option{stream.WithPollInterval(250 * time.Millisecond)}
					s := clientOn(t, agent, w.v, w.b, sopts...).Send(bounded(t), hello())
					var before []a2a.Event
					for len(before) < 4 && s.Next() {
						before = append(before, s.Event())
					}
					require.Len(t, before, 4, "the first stream ended early: %v", s.Err())
					cp := s.Checkpoint()
					s.Close()

					afters := make([][]a2a.Event, 2)
					errs := make([]error, 2)
					var wg sync.WaitGroup
					for i := range 2 {
						resumed := clientOn(t, agent, w.v, w.b, sopts...).Resume(bounded(t), cp)
						wg.Go(func() {
							defer resumed.Close()
							for resumed.Next() {
								afters[i] = append(afters[i], resumed.Event())
							}
							errs[i] = resumed.Err()
						})
					}
					wg.Wait()
					for i := range 2 {
						require.NoError(t, errs[i], "resumed stream %d", i)
						requireHandedOverOnce(t, agent.Task(cp.TaskID()), append(append([]a2a.Event(nil), before...), afters[i]...))
					}
				})
			})
		}
	}
}

// A checkpoint taken in the middle of what a resumed stream hands over
// from its get-task (one task fetched, many events yielded from it), then
// resumed in turn, hands over the rest of that batch and what follows
// exactly once: the three streams together make the agent's task.
func TestACheckpointTakenMidWayThroughAResumesHandoverResumesOnce(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, mode := range resumeModes() {
			t.Run(w.String()+"/"+mode.name, func(t *testing.T) {
				for first := 1; first <= 3; first++ {
					for mid := 1; mid <= 3; mid++ {
						t.Run(fmt.Sprintf("first %d, mid %d", first, mid), func(t *testing.T) {
							synctest.Test(t, func(t *testing.T) {
								opts := append([]a2atest.Option{a2atest.WithScript(resumeScript()...),
									a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, mode.opts...)
								agent := a2atest.NewAgent(opts...)
								sopts := []stream.Option{stream.WithPollInterval(250 * time.Millisecond)}
								s := clientOn(t, agent, w.v, w.b, sopts...).Send(bounded(t), hello())
								var seen []a2a.Event
								for len(seen) < first && s.Next() {
									seen = append(seen, s.Event())
								}
								require.Len(t, seen, first)
								cp := s.Checkpoint()
								s.Close()
								time.Sleep(2500 * time.Millisecond) // the agent moves on: the get-task holds a batch

								r1 := clientOn(t, agent, w.v, w.b, sopts...).Resume(bounded(t), cp)
								n := 0
								for n < mid && r1.Next() {
									seen = append(seen, r1.Event())
									n++
								}
								require.Equal(t, mid, n, "the resumed stream ended early: %v", r1.Err())
								saved, err := r1.Checkpoint().MarshalBinary()
								require.NoError(t, err)
								r1.Close()
								cp2, err := stream.ParseCheckpoint(saved)
								require.NoError(t, err)
								r2 := clientOn(t, agent, w.v, w.b, sopts...).Resume(bounded(t), cp2)
								after, err := drainResumed(t, r2, seen)
								require.NoError(t, err)
								requireHandedOverOnce(t, agent.Task(cp.TaskID()), append(seen, after...))
							})
						})
					}
				}
			})
		}
	}
}
