package stream_test

// A task fetched whole (a poll of an agent that cannot stream, the get-task
// after a stream ended early, the task Resume fetches) hands its changes over
// in the order a stream would have: the README's screen loop prints the same
// lines whichever way the task was followed.

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chatview"
	"github.com/a2astream/a2astream/stream"
)

// readmeScreen is the README's first program's screen loop: each pane's
// text on a line of its own.
type readmeScreen struct {
	screen chatview.Screen
	pane   chatview.Pane
	out    strings.Builder
}

func (r *readmeScreen) show(ev a2a.Event) {
	t := r.screen.Add(ev)
	if t.Content == "" && !t.Replace {
		return
	}
	if t.Pane != r.pane || t.Replace {
		if r.pane != (chatview.Pane{}) {
			fmt.Fprintln(&r.out)
		}
		r.pane = t.Pane
	}
	fmt.Fprint(&r.out, t.Content)
}

// run shows every event of s and returns what the loop printed and how s ended.
func (r *readmeScreen) run(s *stream.Stream) (string, error) {
	defer s.Close()
	for s.Next() {
		r.show(s.Event())
	}
	return r.out.String(), s.Err()
}

// workingThenChunks says it works (between two polls, after the task's
// first event), then writes an artifact in two chunks some polls apart,
// then completes.
func workingThenChunks() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Pause(tick / 2), a2atest.Working("working"),
		a2atest.Chunk("a1", "chunk-1", false, false),
		a2atest.Pause(20 * tick), a2atest.Chunk("a1", " chunk-2", true, true),
		a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, ""),
	}
}

const streamedScreen = "working\nchunk-1 chunk-2"

// The README's screen loop prints the same lines against an agent that
// cannot stream (the first poll, or the unary send's result, holds the
// working status and the first chunk) as against one that streams, on
// every wire.
func TestPolledTaskPrintsWhatTheStreamPrints(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				opts := []a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(workingThenChunks()...)}
				streaming := a2atest.NewAgent(opts...)
				streamed, err := new(readmeScreen).run(clientOn(t, streaming, w.v, w.b).Send(bounded(t), hello()))
				require.NoError(t, err)
				require.Equal(t, streamedScreen, streamed)

				polling := a2atest.NewAgent(append(opts, a2atest.WithoutStreaming())...)
				polled, err := new(readmeScreen).run(clientOn(t, polling, w.v, w.b, stream.WithPollInterval(tick)).Send(bounded(t), hello()))
				require.NoError(t, err)
				require.Equal(t, streamed, polled, "polled")
				require.NotZero(t, unarySends(polling), "the task was followed by polling")
			})
		})
	}
}

// A stream that ended early (the server closed it after the task's first
// event) hands over the working status before the chunk it held, whatever
// brings the task back: the snapshot a subscription starts with, a replay
// from the start, or the get-task after a refused subscription; on every
// wire. (A subscription that resends nothing is left out: the chunk it
// brings before the get-task closes the gap is shown, then healed by a
// replacement, as the package documents.)
func TestTaskAfterAnEarlyEndPrintsWhatTheStreamPrints(t *testing.T) {
	ways := []struct {
		name string
		opt  a2atest.Option
	}{
		{"snapshot", a2atest.WithStyle(a2atest.SnapshotFirst)},
		{"replay", a2atest.WithStyle(a2atest.FullReplay)},
		{"no subscribe", a2atest.WithoutResubscribe()},
	}
	for _, w := range wires() {
		for _, way := range ways {
			t.Run(w.String()+"/"+way.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b),
						a2atest.WithScript(workingThenChunks()...), way.opt,
						a2atest.WithFaults(a2atest.CloseAfterEvents(1)))
					got, err := new(readmeScreen).run(clientOn(t, agent, w.v, w.b, stream.WithPollInterval(tick)).Send(bounded(t), hello()))
					require.NoError(t, err)
					require.Equal(t, streamedScreen, got)
				})
			})
		}
	}
}

// A stream resumed from a checkpoint taken at the task's first delta (its
// submitted status) hands
// over the working status before the chunk the fetched task holds, whether
// it then streams or polls, on every wire.
func TestResumedTaskPrintsWhatTheStreamPrints(t *testing.T) {
	for _, w := range wires() {
		for _, polls := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/polls=%v", w, polls), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					opts := []a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(workingThenChunks()...)}
					if polls {
						opts = append(opts, a2atest.WithoutStreaming())
					}
					agent := a2atest.NewAgent(opts...)
					c := clientOn(t, agent, w.v, w.b, stream.WithPollInterval(tick))
					s := c.Send(bounded(t), hello())
					require.True(t, s.Next(), "the first event: %v", s.Err())
					cp := s.Checkpoint()
					s.Close()
					time.Sleep(tick) // the agent moves on: the task holds the status and the first chunk

					got, err := new(readmeScreen).run(c.Resume(bounded(t), cp))
					require.NoError(t, err)
					require.Equal(t, streamedScreen, got)
				})
			})
		}
	}
}
