package stream_test

// Retryable errors and the reconnect budget: an error that opens every
// resubscribe's stream spends it (a stream that opened is no progress); a
// thousand retryable errors with progress between them never do; a busy
// reply is made again only with WithIdempotentSends, and the human is
// asked once; sends made again until the budget is spent end in the
// budget's *reconnect.Error, not in a drop before any task.

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// A resubscribe whose stream opens (a Resumed notice) and then carries a
// retryable error as its first event is a failed attempt each time: the
// budget runs out after exactly MaxAttempts resubscribes, each wait the
// hint's.
func TestRetryableErrorOpeningEveryResubscribeSpendsTheBudget(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking, "one"))
					},
					kindSubscribe: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.streamError(a2a.CodeInternalError, "model overloaded", retryData(w.v, 2))
					},
				})
				var notices []stream.Notice
				start := time.Now()
				got, err := drain(t, a.client(t, stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) })).Send(background(), hello()))
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, 3, re.Attempts)
				require.Equal(t, "t-1", re.TaskID)
				require.Equal(t, "one", got.text("a1"))
				var rpcErr *a2a.RPCError
				require.ErrorAs(t, err, &rpcErr)
				require.True(t, rpcErr.Retryable())
				require.Equal(t, 3, a.count(kindSubscribe))
				require.Equal(t, 1, a.count(kindStream))
				require.Equal(t, backoff+2*2*time.Second, time.Since(start), "the drop's backoff, then two hinted waits")
				var kinds []string
				for _, n := range notices {
					kinds = append(kinds, fmt.Sprintf("%s %d/%d %s", n.Kind, n.Attempt, n.MaxAttempts, n.Wait))
				}
				require.Equal(t, []string{
					"reconnecting 1/3 500ms", "resumed 1/3 0s",
					"reconnecting 2/3 2s", "resumed 2/3 0s",
					"reconnecting 3/3 2s", "resumed 3/3 0s",
				}, kinds)
			})
		})
	}
}

// A thousand retryable errors, each after a new part: every part is news,
// so the budget is never spent, the task completes, and each part arrives
// once, in order.
func TestThousandRetryableErrorsWithProgressBetweenLoseNothing(t *testing.T) {
	t.Parallel()
	const n = 1000
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				chunk := func(i int) *a2a.ArtifactUpdate {
					return &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: i > 0,
						Artifact: a2a.Artifact{ID: "a1", Parts: textParts(fmt.Sprintf("p%d ", i))}}
				}
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking))
						ww.event(chunk(0))
						ww.streamError(a2a.CodeInternalError, "model overloaded", retryData(w.v, 1))
					},
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						ww.sse()
						ww.event(chunk(c.n + 1))
						if c.n+1 == n {
							ww.event(&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Final: true, Status: a2a.TaskStatus{State: a2a.StateCompleted}})
							return
						}
						ww.streamError(a2a.CodeInternalError, "model overloaded", retryData(w.v, 1))
					},
				})
				start := time.Now()
				got, err := drain(t, a.client(t).Send(background(), hello()))
				require.NoError(t, err)
				want := ""
				for i := 0; i <= n; i++ {
					want += fmt.Sprintf("p%d ", i)
				}
				require.Equal(t, want, got.text("a1"))
				require.Len(t, got.artifacts[0].Parts, n+1)
				require.Equal(t, n, a.count(kindSubscribe))
				require.Equal(t, 1, a.count(kindStream))
				require.Equal(t, n*time.Second, time.Since(start), "each error waits its hint, 1 s")
			})
		})
	}
}

// asksWhichCity is the input-required task the reply tests start from.
func asksWhichCity() *a2a.Task {
	asking := snap(a2a.StateInputRequired)
	asking.Status.Message = agentMsg("q-1", "which city?")
	return asking
}

// A reply whose stream opens with a retryable error as its first event:
// without WithIdempotentSends the stream asks (one get-task) and ends in
// the error, the reply sent once; with it, the same reply (same message
// ID) is sent again after the hint's wait. The human is asked once.
func TestRetryableErrorOpeningAReplysStreamIsSentAgainOnlyIfIdempotent(t *testing.T) {
	for _, w := range wires() {
		for _, idempotent := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/idempotent=%v", w, idempotent), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
						kindStream: func(ww *wireWriter, c wireCall) {
							ww.sse()
							switch c.n {
							case 0:
								ww.event(asksWhichCity())
							case 1:
								ww.streamError(a2a.CodeInternalError, "model overloaded", retryData(w.v, 2))
							default:
								ww.event(snap(a2a.StateCompleted, "Paris it is"))
							}
						},
						kindGet: func(ww *wireWriter, _ wireCall) { ww.task(asksWhichCity()) },
					})
					asked := 0
					hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
						asked++
						return hitl.Text("Paris"), nil
					})
					var ws waits
					opts := []stream.Option{stream.WithHumanInput(hook), ws.option()}
					if idempotent {
						opts = append(opts, stream.WithIdempotentSends())
					}
					got, err := drain(t, a.client(t, opts...).Send(background(), hello()))
					require.Equal(t, 1, asked)
					ids := a.sentIDs()
					if !idempotent {
						var rpcErr *a2a.RPCError
						require.ErrorAs(t, err, &rpcErr)
						require.True(t, rpcErr.Retryable())
						require.Len(t, ids, 2, "the message, then the reply once")
						require.Equal(t, 1, a.count(kindGet), "asks")
						require.Empty(t, ws.all())
						return
					}
					require.NoError(t, err)
					require.Equal(t, "Paris it is", got.text("a1"))
					require.Len(t, ids, 3)
					require.Equal(t, ids[1], ids[2], "the same reply, by its message ID")
					require.Equal(t, []time.Duration{2 * time.Second}, ws.all())
					require.Equal(t, 0, a.count(kindGet))
				})
			})
		}
	}
}

// A reply answered 429 twice, with WithIdempotentSends: sent three times
// under one message ID, each wait the Retry-After, the human asked once.
func TestBusyReplyIsSentAgainWithIdempotentSendsAndTheHumanAskedOnce(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						switch c.n {
						case 0:
							ww.sse()
							ww.event(asksWhichCity())
						case 1, 2:
							ww.w.Header().Set("Retry-After", "3")
							http.Error(ww.w, "slow down", http.StatusTooManyRequests)
						default:
							ww.sse()
							ww.event(snap(a2a.StateCompleted, "Paris it is"))
						}
					},
				})
				asked := 0
				hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
					asked++
					return hitl.Text("Paris"), nil
				})
				var ws waits
				got, err := drain(t, a.client(t, ws.option(), stream.WithIdempotentSends(), stream.WithHumanInput(hook)).Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "Paris it is", got.text("a1"))
				require.Equal(t, 1, asked)
				ids := a.sentIDs()
				require.Len(t, ids, 4)
				require.Equal(t, []string{ids[1], ids[1]}, ids[2:], "the reply three times, by one message ID")
				require.NotEqual(t, ids[0], ids[1])
				require.Equal(t, []time.Duration{3 * time.Second, 3 * time.Second}, ws.all())
			})
		})
	}
}

// A send made again until the budget is spent (answered busy with
// WithIdempotentSends, refused at dial, or timed out at connect) ends in
// the budget's *reconnect.Error, after MaxAttempts attempts. It is not
// reconnect.ErrNoTask, whose documentation says it marks a stream whose
// connection dropped before any task ID was known and that "ended at once,
// whatever the policy": nothing dropped, and the policy was followed.
func TestSendsMadeAgainUntilTheBudgetIsSpentAreNotADropBeforeAnyTask(t *testing.T) {
	endings := []struct {
		name    string
		client  func(t *testing.T, w wire) (*stream.Client, func() int)
		elapsed time.Duration
	}{
		{"busy with idempotent sends", func(t *testing.T, w wire) (*stream.Client, func() int) {
			a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
				kindStream: func(ww *wireWriter, _ wireCall) {
					ww.w.Header().Set("Retry-After", "2")
					http.Error(ww.w, "busy", http.StatusServiceUnavailable)
				},
			})
			return a.client(t, stream.WithIdempotentSends()), func() int { return a.count(kindStream) }
		}, 3 * 2 * time.Second},
		{"refused at dial", func(t *testing.T, w wire) (*stream.Client, func() int) {
			var sends atomic.Int32
			rt := refuseOnce{next: a2atest.NewTransport(completes(w)), refuse: func(*http.Request) bool {
				sends.Add(1)
				return true
			}}
			c := bindingClient(t, w.b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: rt}), stream.WithVersion(w.v))
			return c, func() int { return int(sends.Load()) }
		}, 3 * backoff},
		{"connect timeout", func(t *testing.T, w wire) (*stream.Client, func() int) {
			d := &blackHole{}
			tr := &http.Transport{DialContext: d.dial}
			t.Cleanup(tr.CloseIdleConnections)
			c := bindingClient(t, w.b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
				stream.WithConnectTimeout(time.Second))
			return c, func() int { return int(d.n.Load()) }
		}, 4*time.Second + 3*backoff},
	}
	for _, w := range wires() {
		for _, e := range endings {
			t.Run(w.String()+"/"+e.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					c, sends := e.client(t, w)
					start := time.Now()
					_, err := drain(t, c.Send(background(), hello()))
					var re *reconnect.Error
					require.ErrorAs(t, err, &re)
					require.Equal(t, 3, re.Attempts)
					require.Equal(t, 4, sends(), "the send and three more")
					require.Equal(t, e.elapsed, time.Since(start))
					require.NotErrorIs(t, err, reconnect.ErrNoTask, "the budget was spent, nothing dropped: %v", err)
				})
			})
		}
	}
}

// An agent that cannot stream, whose polls fail: busy forever, the budget
// is spent after exactly MaxAttempts failed polls, each wait the hint's;
// busy on every other poll, with progress on the others, the task is
// followed to its end, however many failures there are.
func TestRetryableErrorsOnPollsSpendTheBudgetOnlyWithoutProgress(t *testing.T) {
	for _, w := range wires() {
		for _, progress := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/progress=%v", w, progress), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					const last = 41 // the poll that completes the task
					a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
						kindStream: func(ww *wireWriter, _ wireCall) {
							ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
						},
						kindSend: func(ww *wireWriter, _ wireCall) { ww.result(snap(a2a.StateWorking)) },
						kindGet: func(ww *wireWriter, c wireCall) {
							switch {
							case !progress || c.n%2 == 0:
								ww.rpcErrorData(a2a.CodeInternalError, "database busy", retryData(w.v, 4))
							case c.n == last:
								ww.task(snap(a2a.StateCompleted, fmt.Sprint(c.n)))
							default:
								ww.task(snap(a2a.StateWorking, fmt.Sprint(c.n)))
							}
						},
					})
					var ws waits
					start := time.Now()
					got, err := drain(t, a.client(t, ws.option()).Send(background(), hello()))
					if !progress {
						var re *reconnect.Error
						require.ErrorAs(t, err, &re)
						require.Equal(t, 3, re.Attempts)
						require.Equal(t, 4, a.count(kindGet), "the first poll and three more")
						require.Equal(t, []time.Duration{4 * time.Second, 4 * time.Second, 4 * time.Second}, ws.all())
						require.Equal(t, stream.DefaultPollInterval+3*4*time.Second, time.Since(start))
						return
					}
					require.NoError(t, err)
					require.Equal(t, fmt.Sprint(last), got.text("a1"))
					require.Equal(t, last+1, a.count(kindGet))
					failures := (last + 1) / 2
					require.Len(t, ws.all(), failures)
					require.Equal(t, time.Duration(failures)*(4*time.Second+stream.DefaultPollInterval), time.Since(start))
					require.Equal(t, 1, a.count(kindSend), "the message sent once, unary")
				})
			})
		}
	}
}
