package stream_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/fanout"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// WithBreaker: a circuit breaker shared by the Clients of one agent, asked
// before each request and told each result.

// errTripOpen is tripBreaker's refusal.
var errTripOpen = errors.New("test breaker: open")

// requireStatusResult checks that a breaker was told an *HTTPError of code.
func requireStatusResult(t *testing.T, err error, code int) {
	t.Helper()
	var he *transport.HTTPError
	require.ErrorAs(t, err, &he)
	require.Equal(t, code, he.StatusCode)
}

// After threshold failures in a row, sends, get-tasks and cancels fail at
// once with ErrCircuitOpen (and the breaker's own error), through every
// Client sharing the breaker, without a request reaching the agent. On
// every wire.
func TestBreakerOpensAfterFailuresAndCallsFailFast(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
				kindStream: unavailable, kindGet: unavailable, kindCancel: unavailable,
			})
			b := &tripBreaker{threshold: 3, cooldown: time.Hour}
			c := agent.client(t, stream.WithBreaker(b))
			for range 3 {
				_, err := c.Send(background(), hello()).Wait()
				var he *transport.HTTPError
				require.ErrorAs(t, err, &he)
				require.Equal(t, http.StatusServiceUnavailable, he.StatusCode)
				require.NotErrorIs(t, err, transport.ErrCircuitOpen)
			}
			require.Len(t, b.told(), 3)
			for _, r := range b.told() {
				requireStatusResult(t, r, http.StatusServiceUnavailable)
			}

			other := agent.client(t, stream.WithBreaker(b)) // another Client of the agent
			_, err := c.Send(background(), hello()).Wait()
			require.ErrorIs(t, err, transport.ErrCircuitOpen)
			require.ErrorIs(t, err, errTripOpen, "the breaker's own error is reachable")
			_, err = other.Send(background(), hello()).Wait()
			require.ErrorIs(t, err, transport.ErrCircuitOpen)
			_, err = other.GetTask(background(), "t-1")
			require.ErrorIs(t, err, transport.ErrCircuitOpen)
			_, err = c.Cancel(background(), "t-1")
			require.ErrorIs(t, err, transport.ErrCircuitOpen)

			require.Equal(t, 3, agent.count(kindStream), "no send reached the agent once the circuit opened")
			require.Zero(t, agent.count(kindGet))
			require.Zero(t, agent.count(kindCancel))
			require.Len(t, b.told(), 3, "a refused request reports nothing")
		})
	}
}

// A send the breaker refuses ends its stream at once: it is not retried,
// whatever the reconnect policy, and a negotiating Client does not try the
// other version.
func TestBreakerRefusedSendIsNotRetried(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){kindStream: unavailable})
			b := &tripBreaker{threshold: 0, cooldown: time.Hour} // open from the start
			b.openUntil = time.Now().Add(time.Hour)
			for _, c := range []*stream.Client{
				agent.client(t, stream.WithBreaker(b), stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: time.Millisecond})),
				agent.clientOf(t, stream.WithHTTPClient(a2atest.NewClient(agent)), stream.WithBreaker(b)),
			} {
				before := b.askedCount()
				_, err := c.Send(background(), hello()).Wait()
				require.ErrorIs(t, err, transport.ErrCircuitOpen)
				var re *reconnect.Error
				require.False(t, errors.As(err, &re), "it fails fast, not as a connection lost: %v", err)
				require.Equal(t, before+1, b.askedCount(), "asked once: no retry, no other version")
			}
			require.Empty(t, agent.received(), "nothing reached the agent")
		})
	}
}

// A transport error (a refused or reset connection) is a failure the
// breaker is told as it is.
func TestBreakerCountsTransportErrors(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := newWireAgent(w, nil)
			b := &tripBreaker{threshold: 2, cooldown: time.Hour}
			hc := &http.Client{Transport: &resetTransport{next: a2atest.NewTransport(agent)}}
			c := agent.clientOf(t, stream.WithHTTPClient(hc), stream.WithVersion(w.v), stream.WithBreaker(b))
			for range 2 {
				_, err := c.GetTask(background(), "t-1")
				require.ErrorIs(t, err, errReset)
			}
			_, err := c.GetTask(background(), "t-1")
			require.ErrorIs(t, err, transport.ErrCircuitOpen)
			require.Len(t, b.told(), 2)
			for _, r := range b.told() {
				require.ErrorIs(t, r, errReset)
			}
		})
	}
}

// The breaker is told nil for any answer but 408, 429 and 5xx, which it is
// told as an *HTTPError with the status and headers: an A2A error, a 404 or
// a 400 shows an agent that answers.
func TestBreakerToldTheStatusesAClientRetries(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			cases := []struct {
				name   string
				answer func(w *wireWriter)
				want   int // 0: told nil
			}{
				{"a task", func(w *wireWriter) { w.task(taskWith(a2a.StateWorking, nil)) }, 0},
				{"an A2A error", func(w *wireWriter) { w.rpcError(a2a.CodeTaskNotFound, "no such task") }, 0},
				{"400", func(w *wireWriter) { w.w.WriteHeader(http.StatusBadRequest) }, 0},
				{"404", func(w *wireWriter) { w.w.WriteHeader(http.StatusNotFound) }, 0},
				{"408", func(w *wireWriter) { w.w.WriteHeader(http.StatusRequestTimeout) }, http.StatusRequestTimeout},
				{"429", func(w *wireWriter) {
					w.w.Header().Set("Retry-After", "7")
					w.w.WriteHeader(http.StatusTooManyRequests)
				}, http.StatusTooManyRequests},
				{"500", func(w *wireWriter) { w.w.WriteHeader(http.StatusInternalServerError) }, http.StatusInternalServerError},
				{"502", func(w *wireWriter) { w.w.WriteHeader(http.StatusBadGateway) }, http.StatusBadGateway},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
						kindGet: func(w *wireWriter, _ wireCall) { tc.answer(w) },
					})
					b := &tripBreaker{threshold: 100, cooldown: time.Hour}
					_, _ = agent.client(t, stream.WithBreaker(b)).GetTask(background(), "t-1")
					require.Len(t, b.told(), 1)
					if tc.want == 0 {
						require.NoError(t, b.told()[0])
						return
					}
					requireStatusResult(t, b.told()[0], tc.want)
					if tc.want == http.StatusTooManyRequests {
						var he *transport.HTTPError
						require.ErrorAs(t, b.told()[0], &he)
						d, ok := he.RetryAfter()
						require.True(t, ok)
						require.Equal(t, 7*time.Second, d)
					}
				})
			}
		})
	}
}

// The breaker is told the result of a stream when its headers arrive, not
// when its body ends, which may be hours later.
func TestBreakerToldWhenAStreamsHeadersArrive(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(statusEvent(w.v, a2a.StateWorking, nil))
						<-release
						ww.event(statusEvent(w.v, a2a.StateCompleted, nil))
					},
				})
				b := &tripBreaker{threshold: 1, cooldown: time.Hour}
				s := agent.client(t, stream.WithBreaker(b)).Send(bounded(t), hello())
				require.True(t, s.Next())
				synctest.Wait()
				require.Equal(t, []error{nil}, b.told(), "told once the headers arrived, the body still open")
				close(release)
				_, err := s.Wait()
				require.NoError(t, err)
				require.Equal(t, []error{nil}, b.told(), "told once only")
			})
		})
	}
}

// A request that the caller's context ends before the agent answers is
// reported with the context's error, which a breaker can leave out of its
// counts; silence past the idle timeout is reported as ErrIdleTimeout, a
// failure.
func TestBreakerToldTheCallersCancelApartFromSilence(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindGet: func(_ *wireWriter, c wireCall) { <-c.ctx.Done() }, // never answers
				})
				b := &tripBreaker{threshold: 1, cooldown: time.Hour}
				c := agent.client(t, stream.WithBreaker(b), stream.WithIdleTimeout(5*time.Second))

				ctx, cancel := context.WithTimeout(background(), 2*time.Second)
				defer cancel()
				_, err := c.GetTask(ctx, "t-1")
				require.ErrorIs(t, err, context.DeadlineExceeded)
				ctx, cancel = context.WithCancel(background())
				time.AfterFunc(time.Second, cancel)
				_, err = c.GetTask(ctx, "t-1")
				require.ErrorIs(t, err, context.Canceled)
				require.Len(t, b.told(), 2)
				require.ErrorIs(t, b.told()[0], context.DeadlineExceeded)
				require.ErrorIs(t, b.told()[1], context.Canceled)

				start := time.Now()
				_, err = c.GetTask(background(), "t-1")
				require.ErrorIs(t, err, transport.ErrIdleTimeout)
				require.Equal(t, 5*time.Second, time.Since(start))
				require.Len(t, b.told(), 3)
				require.ErrorIs(t, b.told()[2], transport.ErrIdleTimeout)
				require.NotErrorIs(t, b.told()[2], context.Canceled, "silence is the agent's failure, not a cancel")
				_, err = c.GetTask(background(), "t-1")
				require.ErrorIs(t, err, transport.ErrCircuitOpen, "the silence opened the circuit; the cancels did not")
			})
		})
	}
}

// Once the circuit's cooldown ends, exactly one request goes through as a
// probe while the others are refused; its success closes the circuit.
func TestBreakerHalfOpenLetsOneProbeThrough(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindGet: func(ww *wireWriter, c wireCall) {
						if c.n == 0 {
							ww.w.WriteHeader(http.StatusServiceUnavailable)
							return
						}
						if c.n == 1 {
							<-release // the probe waits for the test
						}
						ww.task(taskWith(a2a.StateWorking, nil))
					},
				})
				const cooldown = 30 * time.Second
				b := &tripBreaker{threshold: 1, cooldown: cooldown}
				c := agent.client(t, stream.WithBreaker(b))
				_, err := c.GetTask(background(), "t-1")
				requireStatusResult(t, err, http.StatusServiceUnavailable)

				waitFake(cooldown - time.Nanosecond)
				_, err = c.GetTask(background(), "t-1")
				require.ErrorIs(t, err, transport.ErrCircuitOpen, "still open 1 ns before the cooldown ends")
				waitFake(time.Nanosecond)

				errs := make([]error, 4)
				var wg sync.WaitGroup
				for i := range errs {
					wg.Go(func() { _, errs[i] = c.GetTask(background(), "t-1") })
				}
				synctest.Wait()
				require.Equal(t, 2, agent.count(kindGet), "one probe reached the agent")
				refused := 0
				for _, err := range errs {
					if errors.Is(err, transport.ErrCircuitOpen) {
						refused++
					}
				}
				require.Equal(t, 3, refused, "the other calls were refused at once")
				close(release)
				wg.Wait()
				succeeded := 0
				for _, err := range errs {
					if err == nil {
						succeeded++
					}
				}
				require.Equal(t, 1, succeeded, "the probe succeeded")

				_, err = c.GetTask(background(), "t-1")
				require.NoError(t, err, "the probe's success closed the circuit")
				require.Equal(t, 3, agent.count(kindGet))
			})
		})
	}
}

// In the middle of a stream, a resubscribe the breaker refuses is a failed
// reconnect attempt like any other: the stream waits the backoff and tries
// again, and resumes once the circuit lets a probe through. On every wire.
func TestBreakerRefusedResubscribeIsAFailedAttempt(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(statusEvent(w.v, a2a.StateWorking, nil))
						// then the connection closes before the task settled
					},
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						if c.n == 0 {
							ww.w.WriteHeader(http.StatusBadGateway)
							return
						}
						ww.sse()
						ww.event(taskWith(a2a.StateCompleted, nil))
					},
				})
				b := &tripBreaker{threshold: 1, cooldown: 25 * time.Second}
				var notices []stream.Notice
				c := agent.client(t, stream.WithBreaker(b),
					stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: 10 * time.Second}),
					stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) }))
				start := time.Now()
				_, err := c.Send(bounded(t), hello()).Wait()
				require.NoError(t, err)
				require.Equal(t, 40*time.Second, time.Since(start), "subscribes at 10 s (502), 20 s and 30 s (refused), 40 s (the probe)")
				require.Equal(t, 2, agent.count(kindSubscribe), "the refused attempts sent nothing")

				var attempts []int
				for _, n := range notices {
					if n.Kind == stream.Reconnecting {
						attempts = append(attempts, n.Attempt)
						if n.Attempt == 3 || n.Attempt == 4 {
							require.ErrorIs(t, n.Cause, transport.ErrCircuitOpen, "attempt %d follows a refusal", n.Attempt)
						}
					}
				}
				require.Equal(t, []int{1, 2, 3, 4}, attempts)
				require.Equal(t, stream.Resumed, notices[len(notices)-1].Kind)
			})
		})
	}
}

// A stream whose every call the breaker refused tried no connection: it
// ends as a spent budget with ErrCircuitOpen, and does not say it could not
// connect. On every wire.
func TestBreakerRefusingEverySubscribeIsNotCouldNotConnect(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){})
				b := &tripBreaker{threshold: 0, cooldown: time.Hour} // open from the start
				b.openUntil = time.Now().Add(time.Hour)
				c := agent.client(t, stream.WithBreaker(b), stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second}))
				_, err := c.Subscribe(bounded(t), "t-1").Wait()
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, 2, re.Attempts)
				require.ErrorIs(t, err, transport.ErrCircuitOpen)
				require.NotErrorIs(t, err, reconnect.ErrCouldNotConnect)
				require.Empty(t, re.Unreachable)
				require.Empty(t, agent.received(), "nothing reached the agent")
			})
		})
	}
}

// WithBreaker is Client-wide: a call refuses it. The Client does not modify
// the http.Client it was given.
func TestWithBreakerIsClientWide(t *testing.T) {
	agent := newWireAgent(wire{a2a.V10, a2a.BindingJSONRPC}, map[callKind]func(*wireWriter, wireCall){
		kindGet: func(w *wireWriter, _ wireCall) { w.task(taskWith(a2a.StateWorking, nil)) },
	})
	hc := a2atest.NewClient(agent)
	transport := hc.Transport
	b := &tripBreaker{threshold: 1, cooldown: time.Hour}
	c := agent.clientOf(t, stream.WithHTTPClient(hc), stream.WithVersion(a2a.V10), stream.WithBreaker(b))
	require.Equal(t, transport, hc.Transport, "the caller's http.Client keeps its transport")

	_, err := c.GetTask(background(), "t-1", stream.WithBreaker(b))
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	_, err = c.Send(background(), hello(), stream.WithBreaker(b)).Wait()
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	require.Zero(t, b.askedCount())

	resp, err := hc.Get("http://agent.test/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Zero(t, b.askedCount(), "the caller's own requests do not go through the breaker")
	_, err = c.GetTask(background(), "t-1")
	require.NoError(t, err)
	require.Equal(t, 1, b.askedCount())
}

// What the Breaker is told of a request that got no response because its
// connection was never made in time: the agent's failure, not a cancel.

// An agent whose address black-holes (the connection is never made) is
// the most common "agent down": the connect timeout cuts each dial. The
// Breaker doc says the breaker is told "the transport's error when no
// response arrived", and context.Canceled only "when the caller's context
// ended the request"; the caller's context did not end here. Told
// context.Canceled, a breaker that leaves cancels out of its counts (as
// the doc advises) never opens for such an agent, and every call waits the
// connect timeout again.
func TestBreakerToldAConnectTimeoutAsTheAgentsFailure(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var hole blackHole
				tr := &http.Transport{DialContext: hole.dial}
				defer tr.CloseIdleConnections()
				b := &tripBreaker{threshold: 1, cooldown: time.Hour}
				c := bindingClient(t, w.b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}),
					stream.WithVersion(w.v), stream.WithBreaker(b), stream.WithConnectTimeout(2*time.Second))
				_, err := c.GetTask(background(), "t-1")
				require.ErrorIs(t, err, transport.ErrConnectTimeout)
				require.Len(t, b.told(), 1)
				require.NotErrorIs(t, b.told()[0], context.Canceled, "the caller cancelled nothing")
				require.ErrorIs(t, b.told()[0], transport.ErrConnectTimeout)

				_, err = c.GetTask(background(), "t-1")
				require.ErrorIs(t, err, transport.ErrCircuitOpen, "the timeout opened the circuit")
				require.Equal(t, int32(1), hole.n.Load())
			})
		})
	}
}

// A fan-out over agents (fanout.Quorum), each agent with its Client and its
// circuit breaker (WithBreaker): how the breakers and the cancel of the
// calls not needed meet.

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
				require.True(t, errors.Is(results[3].Err, transport.ErrCircuitOpen) || results[3].Err == fanout.ErrNotNeeded, "got %v", results[3].Err)
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
				require.ErrorIs(t, err, transport.ErrCircuitOpen)
				require.ErrorIs(t, err, context.DeadlineExceeded)
				require.Equal(t, []string{"sunny", "", "rainy", ""}, []string{results[0].Value, results[1].Value, results[2].Value, results[3].Value})
				require.ErrorIs(t, results[1].Err, context.DeadlineExceeded)
				require.ErrorIs(t, results[3].Err, transport.ErrCircuitOpen)
				require.Empty(t, agents[3].received())
				require.Equal(t, []error{context.Canceled, context.DeadlineExceeded}, breakers[1].told())
				require.Equal(t, 2, slow.count(kindStream))
			})
		})
	}
}
