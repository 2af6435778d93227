package stream_test

// One Client shared by many concurrent streams while the agent restarts,
// twice (its port refuses connections): every send that was refused is
// made again, every resubscribe refused is a failed attempt, and each
// user's message reaches the agent exactly once. And the connect timeout
// given to one call overrides the Client's.

import (
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

func TestSharedClientAcrossAgentRestartsSendsEachMessageOnce(t *testing.T) {
	const streams = 50
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// Each message starts a task of its own, t-<message ID>,
				// whose send stream ends early; the resubscribe completes it.
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						tk := snap(a2a.StateWorking, "one")
						tk.ID = "t-" + c.msg.ID
						ww.sse()
						ww.event(tk)
					},
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						tk := snap(a2a.StateCompleted, "one", " two")
						tk.ID = c.taskID
						ww.sse()
						ww.event(tk)
					},
				})
				// The agent is down for the first 1.2 s (the sends), and
				// again from 2 s to 2.6 s (the resubscribes).
				start := time.Now()
				var refused atomic.Int32
				down := func(*http.Request) bool {
					d := time.Since(start)
					if d < 1200*time.Millisecond || d >= 2*time.Second && d < 2600*time.Millisecond {
						refused.Add(1)
						return true
					}
					return false
				}
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: refuseOnce{next: a2atest.NewTransport(a), refuse: down}}),
					stream.WithVersion(w.v))
				var (
					wg    sync.WaitGroup
					mu    sync.Mutex
					sent  []string // the message IDs the streams sent
					texts = map[string]string{}
					errs  []error
				)
				for i := range streams {
					wg.Go(func() {
						time.Sleep(time.Duration(i) * 10 * time.Millisecond)
						msg := hello()
						task, err := c.Send(background(), msg).Wait()
						mu.Lock()
						defer mu.Unlock()
						sent = append(sent, msg.ID)
						errs = append(errs, err)
						if task != nil {
							texts[msg.ID] = task.Artifact("a1").Text()
						}
					})
				}
				wg.Wait()
				require.NoError(t, errors.Join(errs...))
				require.Len(t, sent, streams)
				for _, id := range sent {
					require.Equal(t, "one two", texts[id], "message %s", id)
				}
				received := map[string]int{}
				for _, id := range a.sentIDs() {
					received[id]++
				}
				require.Len(t, received, streams, "every message reached the agent")
				for id, n := range received {
					require.Equal(t, 1, n, "message %s reached the agent %d times", id, n)
				}
				require.GreaterOrEqual(t, a.count(kindSubscribe), streams)
				require.Greater(t, int(refused.Load()), 2*streams, "every send was refused at least twice, and resubscribes too")
			})
		})
	}
}

func TestConnectTimeoutGivenToOneCallOverridesTheClients(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var d blackHole
				tr := &http.Transport{DialContext: d.dial}
				defer tr.CloseIdleConnections()
				c := bindingClient(t, w.b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
					stream.WithConnectTimeout(time.Minute))

				start := time.Now()
				_, err := drain(t, c.Send(background(), hello(), stream.WithConnectTimeout(time.Second),
					stream.WithReconnect(reconnect.Policy{MaxAttempts: 2})))
				require.ErrorIs(t, err, stream.ErrConnectTimeout)
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, 2, re.Attempts)
				require.Equal(t, int32(3), d.n.Load())
				require.Equal(t, 3*time.Second+2*backoff, time.Since(start), "three dials of 1 s, two backoffs")

				start = time.Now()
				_, err = c.GetTask(background(), "t-1", stream.WithConnectTimeout(2*time.Second))
				require.ErrorIs(t, err, stream.ErrConnectTimeout)
				require.Equal(t, 2*time.Second, time.Since(start))

				start = time.Now()
				_, err = c.GetTask(background(), "t-1")
				require.ErrorIs(t, err, stream.ErrConnectTimeout)
				require.Equal(t, time.Minute, time.Since(start), "the Client's own, for a call without one")
			})
		})
	}
}
