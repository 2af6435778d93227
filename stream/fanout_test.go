package stream_test

// A fan-out over agents (fanout.Quorum), each agent with its Client and its
// circuit breaker (WithBreaker): how the breakers and the cancel of the
// calls not needed meet.

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/fanout"
	"github.com/a2astream/a2astream/stream"
)

// A fan-out over agents, each with its Client and its breaker: the agent
// whose circuit is open is skipped (no request reaches it) and counted as a
// failure of type ErrCircuitOpen; a slow agent is cancelled once the quorum
// is reached, and its breaker is told context.Canceled, not a failure. On
// every wire.
func TestFanOutOverAgentsSkipsOpenCircuits(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				arrived := make(chan struct{}) // closed when the slow agent has its first request
				answering := func(text string) *wireAgent {
					return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
						kindStream: func(ww *wireWriter, _ wireCall) {
							<-arrived // so that the slow agent's request is under way when the quorum is reached
							ww.sse()
							ww.event(taskWith(a2a.StateCompleted, nil, a2a.Artifact{ID: "a", Parts: []a2a.Part{a2a.TextPart(text)}}))
						},
					})
				}
				slow := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(_ *wireWriter, c wireCall) {
						if c.n == 0 {
							close(arrived)
						}
						<-c.ctx.Done() // no headers
					},
				})
				agents := []*wireAgent{answering("sunny"), slow, answering("rainy"), answering("windy")}
				breakers := make([]*tripBreaker, len(agents))
				calls := make([]func(context.Context) (string, error), len(agents))
				for i, a := range agents {
					breakers[i] = &tripBreaker{threshold: 1, cooldown: time.Hour}
					c := a.client(t, stream.WithBreaker(breakers[i]))
					calls[i] = func(ctx context.Context) (string, error) {
						task, err := c.Send(ctx, hello()).Wait()
						if err != nil {
							return "", err
						}
						return task.Artifacts[0].Text(), nil
					}
				}
				breakers[3].failures, breakers[3].openUntil = 1, time.Now().Add(time.Hour) // open

				results, err := fanout.Quorum(background(), 2, calls...)
				require.NoError(t, err)
				require.Equal(t, "sunny", results[0].Value)
				require.Equal(t, fanout.ErrNotNeeded, results[1].Err)
				require.Equal(t, "rainy", results[2].Value)
				// Refused at once, unless the quorum was reached before its
				// goroutine ran.
				require.True(t, errors.Is(results[3].Err, stream.ErrCircuitOpen) || results[3].Err == fanout.ErrNotNeeded, "got %v", results[3].Err)
				require.Empty(t, agents[3].received(), "the open circuit's agent got no request")
				require.Equal(t, []error{context.Canceled}, breakers[1].told(), "the slow agent's breaker was told of the cancel")
				require.Zero(t, breakers[1].failures, "which is no failure")

				// Three answers needed: only the slow agent could give the
				// third, and the caller's deadline ends it.
				ctx, cancel := context.WithTimeout(background(), 10*time.Second)
				defer cancel()
				start := time.Now()
				results, err = fanout.Quorum(ctx, 3, calls...)
				require.Equal(t, 10*time.Second, time.Since(start))
				var qe *fanout.QuorumError
				require.ErrorAs(t, err, &qe)
				require.Equal(t, 2, qe.Succeeded)
				require.ErrorIs(t, err, stream.ErrCircuitOpen)
				require.ErrorIs(t, err, context.DeadlineExceeded)
				require.Equal(t, []string{"sunny", "", "rainy", ""}, []string{results[0].Value, results[1].Value, results[2].Value, results[3].Value})
				require.ErrorIs(t, results[1].Err, context.DeadlineExceeded)
				require.ErrorIs(t, results[3].Err, stream.ErrCircuitOpen)
				require.Empty(t, agents[3].received())
				require.Equal(t, []error{context.Canceled, context.DeadlineExceeded}, breakers[1].told())
				require.Equal(t, 2, slow.count(kindStream))
			})
		})
	}
}
