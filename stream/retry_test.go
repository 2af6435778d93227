package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chain"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// Errors a server marks as retryable (A2A 0.3's data {"retryable":true,
// "retryAfter":N}, 1.0's google.rpc.RetryInfo): on a resubscribe, a
// get-task, a poll, and inside a stream, a failed attempt that waits the
// larger of the backoff and the delay asked for; on a send, an ending
// unless the caller opted in.

const backoff = 500 * time.Millisecond // reconnect.Default's

func TestRetryableErrorOnSubscribeWaitsTheDelayAndGoesOn(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking, "one"))
					},
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						if c.n == 0 {
							ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", retryData(w.v, 5))
							return
						}
						ww.sse()
						ww.event(snap(a2a.StateCompleted, "one", " two"))
					},
				})
				var ws waits
				start := time.Now()
				s := a.client(t, ws.option()).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, "one two", got.text("a1"))
				require.Equal(t, []time.Duration{backoff, 5 * time.Second}, ws.all())
				require.Equal(t, backoff+5*time.Second, time.Since(start))
				require.Equal(t, 2, a.count(kindSubscribe))
				require.Equal(t, 1, a.count(kindStream))
			})
		})
	}
}

// A retryable error inside a stream is a drop: the stream waits the delay
// it asks for, at most the 30 s cap, and resubscribes, with no get-task.
func TestRetryableErrorInsideAStreamResubscribes(t *testing.T) {
	rows := []struct {
		name    string
		message string
		after   int      // the delay the error asks for, in seconds
		parts   []string // the texts of a1 in the completed task
		wait    time.Duration
	}{
		{"2 s", "tool crashed", 2, []string{"one", " two"}, 2 * time.Second},
		{"over the cap is cut", "come back tomorrow", 86400, []string{"one"}, 30 * time.Second},
	}
	for _, r := range rows {
		for _, w := range wires() {
			t.Run(r.name+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
						kindStream: func(ww *wireWriter, _ wireCall) {
							ww.sse()
							ww.event(snap(a2a.StateWorking, "one"))
							ww.streamError(a2a.CodeInternalError, r.message, retryData(w.v, r.after))
						},
						kindSubscribe: func(ww *wireWriter, _ wireCall) {
							ww.sse()
							ww.event(snap(a2a.StateCompleted, r.parts...))
						},
					})
					var ws waits
					s := a.client(t, ws.option()).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					require.Equal(t, strings.Join(r.parts, ""), got.text("a1"))
					require.Equal(t, []time.Duration{r.wait}, ws.all())
					require.Equal(t, 1, a.count(kindSubscribe))
					require.Equal(t, 0, a.count(kindGet), "a retryable error is a drop, not an ending to check")
				})
			})
		}
	}
}

func TestRetryableErrorOnGetTaskIsAFailedAttempt(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking, "one"))
					},
					kindSubscribe: func(ww *wireWriter, _ wireCall) {
						ww.rpcError(a2a.CodeTaskNotFound, "no live stream")
					},
					kindGet: func(ww *wireWriter, c wireCall) {
						if c.n == 0 {
							ww.rpcErrorData(a2a.CodeInternalError, "database busy", retryData(w.v, 3))
							return
						}
						ww.task(snap(a2a.StateCompleted, "one", " two"))
					},
				})
				var ws waits
				s := a.client(t, ws.option()).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, "one two", got.text("a1"))
				require.Equal(t, []time.Duration{backoff, 3 * time.Second}, ws.all())
				require.Equal(t, 2, a.count(kindGet))
			})
		})
	}
}

func TestRetryableErrorOnAPollIsAFailedAttempt(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
					},
					kindSend: func(ww *wireWriter, _ wireCall) { ww.result(snap(a2a.StateWorking)) },
					kindGet: func(ww *wireWriter, c wireCall) {
						if c.n == 0 {
							ww.rpcErrorData(a2a.CodeInternalError, "database busy", retryData(w.v, 4))
							return
						}
						ww.task(snap(a2a.StateCompleted, "done"))
					},
				})
				var ws waits
				start := time.Now()
				c := a.client(t, ws.option())
				got, err := drain(t, c.Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "done", got.text("a1"))
				require.Equal(t, []time.Duration{4 * time.Second}, ws.all())
				require.Equal(t, stream.DefaultPollInterval+4*time.Second, time.Since(start))
				require.Equal(t, 2, a.count(kindGet))
			})
		})
	}
}

func TestRetryableErrorsSpendTheBudget(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking, "one"))
					},
					kindSubscribe: func(ww *wireWriter, _ wireCall) {
						ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", retryData(w.v, 1))
					},
				})
				var ws waits
				s := a.client(t, ws.option()).Send(background(), hello())
				_, err := drain(t, s)
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, 3, re.Attempts)
				var rpcErr *a2a.RPCError
				require.ErrorAs(t, err, &rpcErr)
				require.True(t, rpcErr.Retryable())
				require.Equal(t, []time.Duration{backoff, time.Second, time.Second}, ws.all())
				require.Equal(t, 3, a.count(kindSubscribe))
			})
		})
	}
}

func TestErrorNotMarkedRetryableKeepsTodaysRules(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking, "one"))
					},
					kindSubscribe: func(ww *wireWriter, _ wireCall) {
						ww.rpcError(a2a.CodeInternalError, "boom")
					},
				})
				_, err := drain(t, a.client(t).Send(background(), hello()))
				var rpcErr *a2a.RPCError
				require.ErrorAs(t, err, &rpcErr)
				require.Equal(t, a2a.CodeInternalError, rpcErr.Code)
				require.False(t, rpcErr.Retryable())
				require.Equal(t, 1, a.count(kindSubscribe))
			})
		})
	}
}

func TestRetryableErrorOnASendIsNotResentByDefault(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", retryData(w.v, 1))
					},
				})
				_, err := drain(t, a.client(t).Send(background(), hello()))
				var rpcErr *a2a.RPCError
				require.ErrorAs(t, err, &rpcErr)
				require.True(t, rpcErr.Retryable())
				require.Equal(t, 1, a.count(kindStream), "the message may have reached the agent")
			})
		})
	}
}

func TestCallersErrorIsNeverRetriedWhateverItsData(t *testing.T) {
	for _, w := range wires() {
		for _, code := range []int{a2a.CodeParseError, a2a.CodeInvalidRequest, a2a.CodeInvalidParams} {
			t.Run(fmt.Sprintf("%s/%d", w, code), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
						kindStream: func(ww *wireWriter, _ wireCall) {
							ww.rpcErrorData(code, "bad request", retryDataFor(w.v, code, 1))
						},
					})
					_, err := drain(t, a.client(t, stream.WithIdempotentSends()).Send(background(), hello()))
					var rpcErr *a2a.RPCError
					require.ErrorAs(t, err, &rpcErr)
					require.Equal(t, code, rpcErr.Code)
					require.Equal(t, 1, a.count(kindStream))
				})
			})
		}
	}
}

// Retryable errors and the reconnect budget: an error that opens every
// resubscribe's stream spends it (a stream that opened is no progress); a
// thousand retryable errors with progress between them never do; a busy
// reply is made again only with WithIdempotentSends, and the human is
// asked once; sends made again until the budget is spent end in the
// budget's *reconnect.Error, not in a drop before any task.

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

// A Retry-After too large for a time.Duration is the longest hint there is,
// never a number that wrapped around: README, "Retryable errors": the
// stream waits the larger of the backoff and the delay asked for, at most
// 30 s; a2a.MaxRetryHint is the longest delay a hint reads as, and
// chain.Link.Bounded promises a link's delay is at most that.

// hugeRetryAfters are header values past what a time.Duration holds: in
// nanoseconds, 9223372037 s is just over the largest int64 (it wrapped to a
// negative wait), 18446744074 s just over 2^64 (it wrapped to 290 ms); the
// rest are past any integer, or a date centuries ahead.
var hugeRetryAfters = map[string]string{
	"just past int64 nanoseconds": "9223372037",
	"just past 2^64 nanoseconds":  "18446744074",
	"past uint64 seconds":         "99999999999999999999999999",
	"date in the year 9999":       "Fri, 31 Dec 9999 23:59:59 GMT",
	"date 300 years ahead":        "Sat, 01 Jan 2300 00:00:00 GMT",
}

func TestHugeRetryAfterReadsAsTheLongestHint(t *testing.T) {
	for name, value := range hugeRetryAfters {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := &transport.HTTPError{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {value}}}
				d, ok := e.RetryAfter()
				require.True(t, ok)
				require.Equal(t, a2a.MaxRetryHint, d)
			})
		})
	}
}

// After a 503 on a resubscribe, a huge Retry-After makes the stream wait
// the 30 s cap, exactly: not the backoff, nor 290 ms.
func TestHugeRetryAfterOnAResubscribeWaitsTheCap(t *testing.T) {
	for _, w := range wires() {
		for name, value := range hugeRetryAfters {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := refusedOnceThenCompletes(w, func(ww *wireWriter) {
						ww.w.Header().Set("Retry-After", value)
						http.Error(ww.w, "busy", http.StatusServiceUnavailable)
					})
					var ws waits
					start := time.Now()
					got, err := drain(t, a.client(t, ws.option(), stream.WithReconnect(reconnect.Policy{Backoff: hintBackoff})).Send(background(), hello()))
					require.NoError(t, err)
					require.Equal(t, "one two", got.text("a1"))
					require.Equal(t, []time.Duration{hintBackoff, 30 * time.Second}, ws.all(), "the drop's backoff, then the cap")
					require.Equal(t, hintBackoff+30*time.Second, time.Since(start))
					require.Equal(t, 2, a.count(kindSubscribe))
				})
			})
		}
	}
}

// The link chain.Error writes of a 503 whose Retry-After is huge says
// "retry after MaxRetryHint", in the link and in the data as either
// version writes it, whether the 503 ended the call or a budget spent on
// resubscribes.
func TestChainErrorOfAHugeRetryAfterSaysTheLongestHint(t *testing.T) {
	for name, value := range hugeRetryAfters {
		busy := &transport.HTTPError{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {value}}}
		for how, err := range map[string]error{
			"the 503":      busy,
			"budget spent": &reconnect.Error{Attempts: 3, TaskID: "t-9", Err: busy},
		} {
			for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
				t.Run(name+"/"+how+"/"+string(v), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						e := chain.Error(err, v, "planner", "flights")
						links := chain.Of(e)
						require.Len(t, links, 2)
						for i, l := range links {
							require.True(t, l.Retryable, "link %d", i)
							require.Equal(t, a2a.MaxRetryHint, l.RetryAfter, "link %d", i)
						}
						require.Equal(t, a2a.MaxRetryHint, e.RetryAfter(), "any client reads the hint at the top")
						raw, jerr := json.Marshal(e)
						require.NoError(t, jerr)
						if v == a2a.V03 {
							require.Contains(t, string(raw), `"retryAfter":86400,`)
						} else {
							require.Contains(t, string(raw), `"retryDelay":"86400s"`)
							require.Contains(t, string(raw), `"retryAfter":"86400s"`)
						}
					})
				})
			}
		}
	}
}

// The retry hint in every shape a server may give it: the delay a
// retryable error asks for (zero, negative, fractional, huge, a string),
// a Retry-After header beside a hint in the body, and a hint in the other
// version's shape. README, "Retryable errors": the stream waits the larger
// of the backoff and the delay asked for (at most 30 s), and the budget
// counts it.

// hintBackoff is the backoff of the hint tests: shorter than every delay
// a hint asks for, so that the wait tells which one won.
const hintBackoff = 100 * time.Millisecond

// hintData is the data of an internal error whose retry hint is the raw
// JSON value hint: A2A 0.3's {"retryable":true,"retryAfter":hint}, or
// 1.0's ErrorInfo and a google.rpc.RetryInfo whose retryDelay is hint.
func hintData(v a2a.Version, hint string) json.RawMessage {
	if v == a2a.V03 {
		return json.RawMessage(`{"retryable":true,"retryAfter":` + hint + `}`)
	}
	return json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org"},` +
		`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":` + hint + `}]`)
}

// refusedOnceThenCompletes is an agent whose send streams a working task
// and ends; its first resubscribe is answered by refuse, the next one
// completes the task.
func refusedOnceThenCompletes(w wire, refuse func(ww *wireWriter)) *wireAgent {
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, _ wireCall) {
			ww.sse()
			ww.event(snap(a2a.StateWorking, "one"))
		},
		kindSubscribe: func(ww *wireWriter, c wireCall) {
			if c.n == 0 {
				refuse(ww)
				return
			}
			ww.sse()
			ww.event(snap(a2a.StateCompleted, "one", " two"))
		},
	})
}

func TestRetryHintOfEveryShapeSetsTheWait(t *testing.T) {
	cases := []struct {
		name     string
		v03, v10 string        // the hint as each version writes it
		wait     time.Duration // the wait after the refused resubscribe
	}{
		{"zero", `0`, `"0s"`, hintBackoff},
		{"negative", `-5`, `"-5s"`, hintBackoff},
		{"fractional", `1.5`, `"1.5s"`, 1500 * time.Millisecond},
		{"under the backoff", `0.05`, `"0.05s"`, hintBackoff},
		{"over the cap", `86400`, `"86400s"`, 30 * time.Second},
		{"past int64 nanoseconds", `1e12`, `"1000000000000s"`, 30 * time.Second},
		{"past float64 precision", `1e300`, `"100000000000000000000s"`, 30 * time.Second},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			t.Run(w.String()+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					hint := tc.v03
					if w.v == a2a.V10 {
						hint = tc.v10
					}
					a := refusedOnceThenCompletes(w, func(ww *wireWriter) {
						ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", hintData(w.v, hint))
					})
					var ws waits
					start := time.Now()
					got, err := drain(t, a.client(t, ws.option(), stream.WithReconnect(reconnect.Policy{Backoff: hintBackoff})).Send(background(), hello()))
					require.NoError(t, err)
					require.Equal(t, "one two", got.text("a1"))
					require.Equal(t, []time.Duration{hintBackoff, tc.wait}, ws.all(), "the drop's backoff, then the hint's wait")
					require.Equal(t, hintBackoff+tc.wait, time.Since(start))
					require.Equal(t, 2, a.count(kindSubscribe))
					require.Equal(t, 0, a.count(kindGet), "a retryable error is a failed attempt, not an ending to check")
				})
			})
		}
	}
}

// A hint that is no delay in the version's own shape still marks the
// error retryable (its "retryable" or its RetryInfo says so): the stream
// waits the backoff.
func TestRetryHintThatIsNoDelayWaitsTheBackoff(t *testing.T) {
	for _, w := range wires() {
		hints := []string{`"5s"`, `null`, `true`, `{}`}
		if w.v == a2a.V10 {
			hints = []string{`"5"`, `5`, `"PT5S"`, `null`}
		}
		for _, hint := range hints {
			t.Run(w.String()+"/"+hint, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := refusedOnceThenCompletes(w, func(ww *wireWriter) {
						ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", hintData(w.v, hint))
					})
					var ws waits
					_, err := drain(t, a.client(t, ws.option(), stream.WithReconnect(reconnect.Policy{Backoff: hintBackoff})).Send(background(), hello()))
					require.NoError(t, err)
					require.Equal(t, []time.Duration{hintBackoff, hintBackoff}, ws.all())
					require.Equal(t, 2, a.count(kindSubscribe))
				})
			})
		}
	}
}

// A Retry-After header and a hint in the error body: the stream waits the
// larger of the two ("the larger of the backoff and the delay asked
// for"), whichever carries it.
func TestRetryAfterHeaderAndBodyHintTheLargerWins(t *testing.T) {
	cases := []struct {
		status       int
		header, body int // seconds
	}{
		{http.StatusServiceUnavailable, 7, 3},
		{http.StatusServiceUnavailable, 2, 9},
		{http.StatusTooManyRequests, 7, 3},
		{http.StatusTooManyRequests, 2, 9},
		{http.StatusInternalServerError, 7, 3},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/%d/header %ds/body %ds", w, tc.status, tc.header, tc.body), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := refusedOnceThenCompletes(w, func(ww *wireWriter) {
						ww.w.Header().Set("Retry-After", fmt.Sprint(tc.header))
						e := &a2a.RPCError{Code: a2a.CodeInternalError, Message: "model overloaded", Data: retryData(w.v, tc.body)}
						if w.b == a2a.BindingJSONRPC {
							raw, err := json.Marshal(e)
							if err != nil {
								panic(err)
							}
							ww.w.Header().Set("Content-Type", "application/json")
							ww.w.WriteHeader(tc.status)
							fmt.Fprintf(ww.w, `{"jsonrpc":"2.0","id":%s,"error":%s}`, ww.idOrNull(), raw)
							return
						}
						_, ct, body := a2a.MarshalHTTPError(w.v, e)
						ww.w.Header().Set("Content-Type", ct)
						ww.w.WriteHeader(tc.status)
						ww.w.Write(body)
					})
					var ws waits
					_, err := drain(t, a.client(t, ws.option(), stream.WithReconnect(reconnect.Policy{Backoff: hintBackoff})).Send(background(), hello()))
					require.NoError(t, err)
					larger := time.Duration(max(tc.header, tc.body)) * time.Second
					require.Equal(t, []time.Duration{hintBackoff, larger}, ws.all())
					require.Equal(t, 2, a.count(kindSubscribe))
				})
			})
		}
	}
}

// A server may put the other version's hint in its error: a 0.3 server a
// google.rpc.RetryInfo entry, a 1.0 server the 0.3 "retryable" object (or
// entry, over HTTP+JSON, where the details must be an array). Retryable()
// reads them all, and so does the stream.
func TestRetryHintInTheOtherVersionsShapeIsRead(t *testing.T) {
	for _, w := range wires() {
		data := `[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"4s"}]`
		switch {
		case w.v == a2a.V10 && w.b == a2a.BindingJSONRPC:
			data = `{"retryable":true,"retryAfter":4}`
		case w.v == a2a.V10:
			data = `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org"},{"retryable":true,"retryAfter":4}]`
		}
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := refusedOnceThenCompletes(w, func(ww *wireWriter) {
					ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", json.RawMessage(data))
				})
				var ws waits
				_, err := drain(t, a.client(t, ws.option(), stream.WithReconnect(reconnect.Policy{Backoff: hintBackoff})).Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, []time.Duration{hintBackoff, 4 * time.Second}, ws.all())
				require.Equal(t, 0, a.count(kindGet))
			})
		})
	}
}

// Retry-After in seconds or as an HTTP date sets the wait after a 429 or a
// 503 on a resubscribe; a send is never retried, whatever the server asks.
func TestRetryAfterHeaderInSecondsOrAsADate(t *testing.T) {
	// The synctest clock starts at 2000-01-01 00:00:00 UTC.
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		code   int
		header string
		want   func(at time.Time) time.Duration // the wait, given when it was decided
	}{
		{"seconds", 503, "7", func(time.Time) time.Duration { return 7 * time.Second }},
		{"429 seconds", 429, "2", func(time.Time) time.Duration { return 2 * time.Second }},
		{"capped at 30 s", 503, "86400", func(time.Time) time.Duration { return 30 * time.Second }},
		{"HTTP date", 503, epoch.Add(13 * time.Second).Format(http.TimeFormat), func(at time.Time) time.Duration { return epoch.Add(13 * time.Second).Sub(at) }},
		{"HTTP date far ahead", 503, epoch.Add(time.Hour).Format(http.TimeFormat), func(time.Time) time.Duration { return 30 * time.Second }},
		{"HTTP date past", 503, epoch.Add(-time.Hour).Format(http.TimeFormat), func(time.Time) time.Duration { return 500 * time.Millisecond }},
		{"shorter than the backoff", 503, "0", func(time.Time) time.Duration { return 500 * time.Millisecond }},
		{"negative", 503, "-5", func(time.Time) time.Duration { return 500 * time.Millisecond }},
		{"garbage", 503, "soon", func(time.Time) time.Duration { return 500 * time.Millisecond }},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					require.True(t, epoch.Equal(time.Now()))
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
						a2atest.WithFaults(a2atest.CutAfterEvents(3),
							a2atest.HTTPStatusWithHeader(c.code, "busy", http.Header{"Retry-After": {c.header}})))
					var rec reconnects
					s := newClient(t, agent, v, rec.option()).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					wirematrix.RequireSameAsServer(t, agent, s, got.fold)
					require.Len(t, rec.waits, 2)
					want := c.want(rec.at[1])
					require.Equal(t, []time.Duration{500 * time.Millisecond, want}, rec.waits)
					require.Len(t, rec.resumed, 1)
					require.Equal(t, want, rec.resumed[0].Sub(rec.at[1]), "the stream really waited that long")
					var he *transport.HTTPError
					require.ErrorAs(t, rec.causes[1], &he)
					require.Equal(t, c.code, he.StatusCode)
				})
			})
		}
		t.Run(string(v)+"/on the send", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v),
					a2atest.WithFaults(a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {"7"}})))
				_, err := drain(t, newClient(t, agent, v).Send(background(), hello()))
				var he *transport.HTTPError
				require.ErrorAs(t, err, &he, "a send is never retried, whatever the server asks")
				d, ok := he.RetryAfter()
				require.True(t, ok)
				require.Equal(t, 7*time.Second, d)
				require.Equal(t, 1, wirematrix.Sends(agent))
			})
		})
	}
}

// Stranger round 28, retry hints: however hostile the hint, a stream never
// waits a negative time nor longer than its 30 s cap, and a chain's links
// say at most a2a.MaxRetryHint.

// hintCap is the most a stream waits on a server's hint ("up to 30 s",
// README, Errors call by call; WithPollInterval "to at most 30 s").
const hintCap = 30 * time.Second

// retryHint is a Retry-After value and the hint it must read as: want < 0
// means no hint.
type retryHint struct {
	name  string
	value func(now time.Time) string
	want  time.Duration
	// approx: an HTTP date, whole seconds, so the wait may be up to a
	// second shorter.
	approx bool
}

func retryHints() []retryHint {
	v := func(s string) func(time.Time) string { return func(time.Time) string { return s } }
	return []retryHint{
		{"0", v("0"), 0, false},
		{"-1", v("-1"), -1, false},
		{"+5", v("+5"), -1, false},
		{"1e3", v("1e3"), -1, false},
		{"5.5", v("5.5"), -1, false},
		{"5", v("5"), 5 * time.Second, false},
		{"18446744074", v("18446744074"), a2a.MaxRetryHint, false},
		{"9223372037", v("9223372037"), a2a.MaxRetryHint, false},
		{"99999999999999999999", v("99999999999999999999"), a2a.MaxRetryHint, false},
		{"date far ahead", func(now time.Time) string { return now.Add(100 * 365 * 24 * time.Hour).UTC().Format(http.TimeFormat) }, a2a.MaxRetryHint, false},
		{"date in 10 s", func(now time.Time) string { return now.Add(10 * time.Second).UTC().Format(http.TimeFormat) }, 10 * time.Second, true},
		{"date past", func(now time.Time) string { return now.Add(-time.Hour).UTC().Format(http.TimeFormat) }, 0, false},
		{"year 9999", v("Fri, 31 Dec 9999 23:59:59 GMT"), a2a.MaxRetryHint, false},
		{"garbage", v("soon, please"), -1, false},
		{"empty", v(""), -1, false},
	}
}

func TestParseRetryAfterIsBounded(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, h := range retryHints() {
		t.Run(h.name, func(t *testing.T) {
			d, ok := a2a.ParseRetryAfter(h.value(now), now)
			if h.want < 0 {
				require.False(t, ok, "%v", d)
				return
			}
			require.True(t, ok)
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.LessOrEqual(t, d, a2a.MaxRetryHint)
			if h.approx {
				require.InDelta(t, float64(h.want), float64(d), float64(time.Second))
			} else {
				require.Equal(t, h.want, d)
			}
			he := &transport.HTTPError{StatusCode: 503, Header: http.Header{"Retry-After": {h.value(time.Now())}}}
			d2, ok2 := he.RetryAfter()
			require.True(t, ok2)
			require.GreaterOrEqual(t, d2, time.Duration(0))
			require.LessOrEqual(t, d2, a2a.MaxRetryHint)
		})
	}
}

// expectedWait is the wait a stream must make for a hint, given its own floor.
func expectedWait(h retryHint, floor time.Duration) time.Duration {
	want := h.want
	if want > hintCap {
		want = hintCap
	}
	if want < floor {
		want = floor
	}
	return want
}

// waitStamps wraps a handler and records when each request of a kind came.
type waitStamps struct {
	mu    sync.Mutex
	at    []time.Time
	kinds []string
}

func (s *waitStamps) wrap(w wire, h http.Handler, header func(kind string, rw http.ResponseWriter)) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		c := parseCall(w, r)
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.mu.Lock()
		s.at = append(s.at, time.Now())
		s.kinds = append(s.kinds, c.kind)
		s.mu.Unlock()
		if header != nil {
			header(c.kind, rw)
		}
		h.ServeHTTP(rw, r)
	})
}

func (s *waitStamps) gaps(kind string) []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []time.Duration
	var last time.Time
	for i, k := range s.kinds {
		if k != kind {
			continue
		}
		if !last.IsZero() {
			out = append(out, s.at[i].Sub(last))
		}
		last = s.at[i]
	}
	return out
}

func (s *waitStamps) times() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.at...)
}

// A 503 with a Retry-After on a resubscribe: the stream waits the larger
// of its backoff and the hint, at most 30 s, never less than zero.
func TestRetryAfterOnAResubscribe(t *testing.T) {
	const backoff = 100 * time.Millisecond
	for _, w := range wires() {
		for _, h := range retryHints() {
			t.Run(w.String()+"/"+h.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := w.agent(
						a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")),
						a2atest.WithFaults(a2atest.CutAfterEvents(1),
							a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {h.value(time.Now())}})))
					var st waitStamps
					var notices []stream.Notice
					c := w.client(t, st.wrap(w, agent, nil),
						stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: backoff}),
						stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) }))
					ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
					defer cancel()
					s := c.Send(ctx, hiMessage())
					defer s.Close()
					for s.Next() {
						if len(st.times()) >= 3 {
							break
						}
					}
					at := st.times()
					require.GreaterOrEqual(t, len(at), 3, "%v", s.Err())
					got := at[2].Sub(at[1])
					want := expectedWait(h, backoff)
					var waits []time.Duration
					for _, n := range notices {
						if n.Kind == stream.Reconnecting {
							waits = append(waits, n.Wait)
							require.GreaterOrEqual(t, n.Wait, time.Duration(0))
							require.LessOrEqual(t, n.Wait, hintCap)
						}
					}
					t.Logf("waited %v, notices %v", got, waits)
					require.GreaterOrEqual(t, got, time.Duration(0))
					require.LessOrEqual(t, got, hintCap)
					if h.approx {
						require.InDelta(t, float64(want), float64(got), float64(time.Second))
					} else {
						require.Equal(t, want, got)
					}
				})
			})
		}
	}
}

// A busy send with WithIdempotentSends: the same wait.
func TestRetryAfterOnABusySend(t *testing.T) {
	const backoff = 100 * time.Millisecond
	for _, w := range wires() {
		for _, h := range retryHints() {
			t.Run(w.String()+"/"+h.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := w.agent(a2atest.WithFaults(
						a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {h.value(time.Now())}})))
					var st waitStamps
					c := w.client(t, st.wrap(w, agent, nil), stream.WithIdempotentSends(),
						stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: backoff}))
					ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
					defer cancel()
					e := drainEnding(c.Send(ctx, hiMessage()))
					require.NoError(t, e.Err)
					at := st.times()
					require.Len(t, at, 2)
					got := at[1].Sub(at[0])
					want := expectedWait(h, backoff)
					t.Logf("waited %v", got)
					if h.approx {
						require.InDelta(t, float64(want), float64(got), float64(time.Second))
					} else {
						require.Equal(t, want, got)
					}
				})
			})
		}
	}
}

// A Retry-After on a poll's 200 answer, and on a failed poll: one wait
// lengthened, to at most 30 s, never shortened below the interval.
func TestRetryAfterOnAPoll(t *testing.T) {
	t.Parallel()
	const interval = time.Second
	for _, w := range wires() {
		for _, failed := range []bool{false, true} {
			for _, h := range retryHints() {
				t.Run(fmt.Sprintf("%s/failed=%t/%s", w, failed, h.name), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						opts := []a2atest.Option{a2atest.WithoutStreaming(),
							a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Minute), a2atest.Finish(a2a.StateCompleted, ""))}
						var header func(string, http.ResponseWriter)
						if failed {
							opts = append(opts, a2atest.WithGetFaults(
								a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {h.value(time.Now())}})))
						} else {
							first := true
							header = func(kind string, rw http.ResponseWriter) {
								if kind == "get" && first {
									first = false
									rw.Header().Set("Retry-After", h.value(time.Now()))
								}
							}
						}
						agent := w.agent(opts...)
						var st waitStamps
						c := w.client(t, st.wrap(w, agent, header), stream.WithPollInterval(interval),
							stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: 100 * time.Millisecond}))
						ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
						defer cancel()
						s := c.Send(ctx, hiMessage())
						defer s.Close()
						for s.Next() {
							if len(st.gaps("get")) >= 2 {
								break
							}
						}
						gaps := st.gaps("get")
						require.GreaterOrEqual(t, len(gaps), 1, "%v", s.Err())
						got := gaps[0]
						t.Logf("gaps %v", gaps[:min(3, len(gaps))])
						require.Greater(t, got, time.Duration(0))
						require.LessOrEqual(t, got, hintCap)
						floor := interval
						if failed {
							floor = 100 * time.Millisecond // a failed poll waits its backoff or its interval
						}
						want := expectedWait(h, floor)
						if h.want > interval || !failed {
							if h.approx {
								require.InDelta(t, float64(expectedWait(h, interval)), float64(got), float64(time.Second))
							} else {
								require.Equal(t, expectedWait(h, interval), got)
							}
						} else {
							require.GreaterOrEqual(t, got, want)
							require.LessOrEqual(t, got, interval)
						}
					})
				})
			}
		}
	}
}

// RetryInfo and 0.3 retryAfter of any size read as 0 to MaxRetryHint.
func TestRPCRetryHintIsBounded(t *testing.T) {
	for _, data := range []string{
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"99999999999999999999s"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"315576000000s"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"9223372037s"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"18446744074s"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"-5s"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1e30s"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2562047h"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":{"seconds":"99999999999999"}}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":{"seconds":-9223372036854775808,"nanos":-1}}]`,
		`{"retryable":true,"retryAfter":1e300}`,
		`{"retryable":true,"retryAfter":-1}`,
		`{"retryable":true,"retryAfter":9223372037}`,
		`{"retryable":true,"retryAfter":18446744074}`,
		`{"retryable":true,"retryAfter":99999999999999999999}`,
		`{"retryable":true,"retryAfter":"5"}`,
		`{"retryable":true,"retryAfter":NaN}`,
	} {
		t.Run(data, func(t *testing.T) {
			e := &a2a.RPCError{Code: a2a.CodeInternalError, Message: "busy", Data: json.RawMessage(data)}
			d := e.RetryAfter()
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.LessOrEqual(t, d, a2a.MaxRetryHint)
			for _, l := range chain.Of(e) {
				require.GreaterOrEqual(t, l.RetryAfter, time.Duration(0))
				require.LessOrEqual(t, l.RetryAfter, a2a.MaxRetryHint)
			}
			body := []byte(`{"error":{"code":503,"status":"UNAVAILABLE","message":"busy","details":` + data + `}}`)
			_, after := a2a.ParseHTTPRetry(body)
			require.GreaterOrEqual(t, after, time.Duration(0))
			require.LessOrEqual(t, after, a2a.MaxRetryHint)
		})
	}
}

// A huge RetryInfo on a resubscribe: the stream waits its 30 s cap.
func TestHugeRetryInfoOnAResubscribeWaitsTheCap(t *testing.T) {
	for _, w := range wires() {
		for _, after := range []time.Duration{1000 * time.Hour, time.Duration(1<<63 - 1)} {
			t.Run(fmt.Sprintf("%s/%v", w, after), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := w.agent(
						a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")),
						a2atest.WithFaults(a2atest.CutAfterEvents(1),
							a2atest.RetryableError(a2a.CodeInternalError, "busy", after, a2atest.ErrorAsJSON)))
					var st waitStamps
					c := w.client(t, st.wrap(w, agent, nil),
						stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: 100 * time.Millisecond}))
					ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
					defer cancel()
					s := c.Send(ctx, hiMessage())
					defer s.Close()
					for s.Next() {
						if len(st.times()) >= 3 {
							break
						}
					}
					at := st.times()
					require.GreaterOrEqual(t, len(at), 3, "%v", s.Err())
					require.Equal(t, hintCap, at[2].Sub(at[1]))
				})
			})
		}
	}
}

// chain.Error of any hint says at most MaxRetryHint, never negative.
func TestChainErrorRetryHintIsBounded(t *testing.T) {
	t.Parallel()
	var errs []error
	for _, h := range retryHints() {
		v := h.value(time.Now())
		for _, code := range []int{408, 429, 500, 503} {
			errs = append(errs, &transport.HTTPError{StatusCode: code, Status: http.StatusText(code), Header: http.Header{"Retry-After": {v}}})
			errs = append(errs, &transport.HTTPError{StatusCode: code, Status: http.StatusText(code), Header: http.Header{"Retry-After": {v}},
				Err: &a2a.RPCError{Code: a2a.CodeInternalError, Message: "x", Data: json.RawMessage(`{"retryable":true,"retryAfter":99999999999999999999}`)}})
		}
		errs = append(errs, &reconnect.Error{Attempts: 3, Err: &transport.HTTPError{StatusCode: 503, Header: http.Header{"Retry-After": {v}}}, TaskID: "t"})
	}
	errs = append(errs, &a2a.RPCError{Code: a2a.CodeInternalError, Message: "x",
		Data: json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"99999999999999999999s"}]`)})
	// a chain whose links carry hostile delays already
	errs = append(errs, chain.Encode(a2a.V10, []chain.Link{
		{Agent: "a", Code: a2a.CodeInternalError, Message: "m", Retryable: true, RetryAfter: -5 * time.Second},
		{Agent: "b", Message: "m", Retryable: true, RetryAfter: time.Duration(1<<63 - 1)}}))
	errs = append(errs, chain.Encode(a2a.V03, []chain.Link{
		{Agent: "a", Code: a2a.CodeInternalError, Message: "m", Retryable: true, RetryAfter: time.Duration(-1 << 63)},
		{Agent: "b", Message: "m", Retryable: true, RetryAfter: 1000 * time.Hour}}))
	for i, err := range errs {
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			t.Run(fmt.Sprintf("%d/%s", i, v), func(t *testing.T) {
				out := chain.Error(err, v, "me", "down")
				require.NotNil(t, out)
				require.GreaterOrEqual(t, out.RetryAfter(), time.Duration(0))
				require.LessOrEqual(t, out.RetryAfter(), a2a.MaxRetryHint)
				links := chain.Of(out)
				require.NotEmpty(t, links)
				for _, l := range links {
					require.GreaterOrEqual(t, l.RetryAfter, time.Duration(0), "%+v", l)
					require.LessOrEqual(t, l.RetryAfter, a2a.MaxRetryHint, "%+v", l)
				}
				var re *a2a.RPCError
				if errors.As(err, &re) {
					for _, l := range chain.Of(re) {
						require.GreaterOrEqual(t, l.RetryAfter, time.Duration(0), "%+v", l)
						require.LessOrEqual(t, l.RetryAfter, a2a.MaxRetryHint, "%+v", l)
					}
				}
			})
		}
	}
}

// A server that answers a poll with the task and a Retry-After header says
// when to ask again: WithPollInterval's doc, "a Retry-After from the server
// lengthens one wait". The next poll comes that long after
// (at most 30 s, as every wait a server asks for), once; the polls after it
// keep the interval.

func TestRetryAfterOnASuccessfulPollSetsTheNextPollsWait(t *testing.T) {
	cases := []struct {
		name   string
		header func() string   // the Retry-After of the second poll's answer
		polls  []time.Duration // when each poll came
	}{
		{"seconds", func() string { return "7" }, []time.Duration{time.Second, 2 * time.Second, 9 * time.Second, 10 * time.Second}},
		{"date", func() string { return time.Now().Add(7 * time.Second).UTC().Format(http.TimeFormat) },
			[]time.Duration{time.Second, 2 * time.Second, 9 * time.Second, 10 * time.Second}},
		{"shorter than the interval", func() string { return "0" }, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}},
		{"over the cap", func() string { return "86400" }, []time.Duration{time.Second, 2 * time.Second, 32 * time.Second, 33 * time.Second}},
		{"past 2^64 nanoseconds", func() string { return "18446744074" }, []time.Duration{time.Second, 2 * time.Second, 32 * time.Second, 33 * time.Second}},
		{"garbage", func() string { return "soon" }, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			t.Run(w.String()+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var at []time.Duration
					start := time.Now()
					refuse := func(ww *wireWriter, _ wireCall) {
						ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
					}
					agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
						kindStream:    refuse,
						kindSubscribe: refuse,
						kindSend: func(ww *wireWriter, _ wireCall) {
							ww.result(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}})
						},
						kindGet: func(ww *wireWriter, c wireCall) {
							at = append(at, time.Since(start))
							if c.n == 1 {
								ww.w.Header().Set("Retry-After", tc.header())
							}
							st := a2a.StateWorking
							if c.n >= 3 {
								st = a2a.StateCompleted
							}
							ww.task(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}})
						},
					})
					_, err := drainLoose(t, agent.client(t, stream.WithPollInterval(time.Second)).Send(context.Background(), hello()))
					require.NoError(t, err)
					require.Equal(t, tc.polls, at, "poll times")
				})
			})
		}
	}
}

// The retry hint across a chain of four agents on four different wires:
// README, "Errors across agent chains": the error carries "whether it is
// retryable and when … with the retry hint also where any client reads
// it", and chain.Error's doc: "This agent's error is retryable, with the
// same delay, exactly when the downstream link is". So the deepest
// agent's "come back in 7 s" reaches the top, link by link, whatever the
// ending: a 503 with Retry-After, an RPC error marked retryable, or a
// budget spent on resubscribes refused that way.

func TestChainErrorCarriesTheRetryHintFourAgentsDeep(t *testing.T) {
	busy := func(ww *wireWriter) {
		ww.w.Header().Set("Retry-After", "7")
		http.Error(ww.w, "overloaded, body-secret", http.StatusServiceUnavailable)
	}
	endings := map[string]func(w wire) map[callKind]func(*wireWriter, wireCall){
		"503": func(wire) map[callKind]func(*wireWriter, wireCall) {
			return map[callKind]func(*wireWriter, wireCall){
				kindStream: func(ww *wireWriter, _ wireCall) { busy(ww) },
			}
		},
		"retryable error": func(w wire) map[callKind]func(*wireWriter, wireCall) {
			return map[callKind]func(*wireWriter, wireCall){
				kindStream: func(ww *wireWriter, _ wireCall) {
					ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", retryData(w.v, 7))
				},
			}
		},
		"budget spent": func(wire) map[callKind]func(*wireWriter, wireCall) {
			return map[callKind]func(*wireWriter, wireCall){
				kindStream: func(ww *wireWriter, _ wireCall) {
					ww.sse()
					ww.event(snap(a2a.StateWorking, "x"))
				},
				kindSubscribe: func(ww *wireWriter, _ wireCall) { busy(ww) },
			}
		},
	}
	all := wires()
	for i, top := range all {
		mid, low, deep := all[(i+1)%4], all[(i+2)%4], all[(i+3)%4]
		for name, ending := range endings {
			t.Run(fmt.Sprintf("%s→%s→%s→%s/%s", top, mid, low, deep, name), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					rooms := newWireAgent(deep, ending(deep))
					hotels := chainAgent(t, low, "hotels", "rooms", rooms, make(chan []byte, 1))
					flights := chainAgent(t, mid, "flights", "hotels", hotels, make(chan []byte, 1))
					sent := make(chan []byte, 1)
					planner := chainAgent(t, top, "planner", "flights", flights, sent)

					_, err := planner.client(t).Send(background(), hello()).Wait()
					require.Error(t, err)
					require.NotContains(t, string(<-sent), "secret")
					links := chain.Of(err)
					require.Len(t, links, 4, "%v", err)
					for j, agent := range []string{"planner", "flights", "hotels", "rooms"} {
						require.Equal(t, agent, links[j].Agent)
						require.True(t, links[j].Retryable, "link %d (%s)", j, agent)
						require.Equal(t, 7*time.Second, links[j].RetryAfter, "link %d (%s)", j, agent)
					}
					var rpcErr *a2a.RPCError
					require.ErrorAs(t, err, &rpcErr)
					require.True(t, rpcErr.Retryable(), "any client reads the hint at the top")
					require.Equal(t, 7*time.Second, rpcErr.RetryAfter())
				})
			})
		}
	}
}
