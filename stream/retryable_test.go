package stream_test

// Errors a server marks as retryable (A2A 0.3's data {"retryable":true,
// "retryAfter":N}, 1.0's google.rpc.RetryInfo): on a resubscribe, a
// get-task, a poll, and inside a stream, a failed attempt that waits the
// larger of the backoff and the delay asked for; on a send, an ending
// unless the caller opted in.

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// waits records the waits of the Reconnecting notices.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) option() stream.Option {
	return stream.WithNotify(func(n stream.Notice) {
		if n.Kind == stream.Reconnecting {
			w.mu.Lock()
			w.d = append(w.d, n.Wait)
			w.mu.Unlock()
		}
	})
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

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

func TestRetryableErrorInsideAStreamResubscribes(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking, "one"))
						ww.streamError(a2a.CodeInternalError, "tool crashed", retryData(w.v, 2))
					},
					kindSubscribe: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateCompleted, "one", " two"))
					},
				})
				var ws waits
				s := a.client(t, ws.option()).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, "one two", got.text("a1"))
				require.Equal(t, []time.Duration{2 * time.Second}, ws.all())
				require.Equal(t, 1, a.count(kindSubscribe))
				require.Equal(t, 0, a.count(kindGet), "a retryable error is a drop, not an ending to check")
			})
		})
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

func TestRetryAfterOverTheCapIsCut(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking, "one"))
						ww.streamError(a2a.CodeInternalError, "come back tomorrow", retryData(w.v, 86400))
					},
					kindSubscribe: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateCompleted, "one"))
					},
				})
				var ws waits
				_, err := drain(t, a.client(t, ws.option()).Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, []time.Duration{30 * time.Second}, ws.all())
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
