package stream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// The Stream itself: errors of the first send, the caller's context, and
// ranging with All.

func TestInitialSendErrorsAreReturnedAsIs(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.HTTPStatus(503, "down")))
				_, err := drain(t, newClient(t, agent, v).Send(background(), hello()))
				var httpErr *transport.HTTPError
				require.ErrorAs(t, err, &httpErr)
				require.Equal(t, 503, httpErr.StatusCode)
				require.Equal(t, 1, wirematrix.Sends(agent), "a send is never retried: the message may have been accepted")

				for _, shape := range []a2atest.ErrorShape{a2atest.ErrorAsJSON, a2atest.ErrorAsEvent, a2atest.ErrorAsErrorEvent} {
					agent := a2atest.NewAgent(a2atest.WithVersions(v),
						a2atest.WithFaults(a2atest.RPCError(a2a.CodeInternalError, "boom", shape)))
					_, err := drain(t, newClient(t, agent, v).Send(background(), hello()))
					var rpcErr *a2a.RPCError
					require.ErrorAs(t, err, &rpcErr, shape.String())
					require.Equal(t, a2a.CodeInternalError, rpcErr.Code)
					require.Equal(t, "boom", rpcErr.Message)
					require.Equal(t, 1, wirematrix.Sends(agent))
				}
			})
		})
	}
}

func TestContextCancellation(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
					a2atest.WithFaults(a2atest.Hang()))
				ctx, cancel := context.WithTimeout(background(), 3*time.Second)
				defer cancel()
				start := time.Now()
				_, err := drain(t, newClient(t, agent, v).Send(ctx, hello()))
				require.ErrorIs(t, err, context.DeadlineExceeded)
				require.Equal(t, 3*time.Second, time.Since(start))

				// Cancelled during the backoff.
				agent = a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(2)))
				ctx, cancel = context.WithCancel(background())
				s := newClient(t, agent, v, stream.WithNotify(func(n stream.Notice) {
					if n.Kind == stream.Reconnecting {
						cancel()
					}
				})).Send(ctx, hello())
				_, err = drain(t, s)
				require.ErrorIs(t, err, context.Canceled)
				require.Equal(t, 0, wirematrix.Resubscribes(agent))
			})
		})
	}
}

func TestBreakingOutOfAllClosesTheStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Paced()...))
		s := newClient(t, agent, a2a.V10).Send(background(), hello())
		n := 0
		for ev, err := range s.All() {
			require.NoError(t, err)
			require.NotNil(t, ev)
			n++
			if n == 2 {
				break
			}
		}
		require.Equal(t, 2, n)
		require.False(t, s.Next(), "the stream is closed")
		require.NoError(t, s.Err(), "the caller's own close is not an error")
		require.NoError(t, s.Close(), "Close is idempotent")
		// synctest.Test fails if the agent's handler were still running.
	})
}

func TestAllYieldsTheErrorLast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateRejected, "not my job")))
		var errs []error
		events := 0
		for ev, err := range newClient(t, agent, a2a.V10).Send(background(), hello()).All() {
			if err != nil {
				require.Nil(t, ev)
				errs = append(errs, err)
				continue
			}
			events++
		}
		require.Len(t, errs, 1)
		var rejected *terminal.RejectedError
		require.ErrorAs(t, errs[0], &rejected)
		require.Equal(t, 3, events)
	})
}

// TestEventDataEndingInWhiteSpace: a server whose SSE data ends in white
// space (JSON allows it after the object; a data field may end in spaces
// or tabs, and in line feeds when the data spans lines) with events of
// about 512 bytes, the event decoder's first buffer, from 513 bytes on.
// Every chunk is delivered and the stream reaches the task's end, on every
// wire.
func TestEventDataEndingInWhiteSpace(t *testing.T) {
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		for _, v := range versions {
			t.Run(b.String()+"/"+string(v), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var (
						sent  []string // the chunks, in order
						wrong []int    // sizes of events not padded as asked
					)
					h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						var req struct {
							ID json.RawMessage `json:"id"`
						}
						body, _ := io.ReadAll(r.Body)
						_ = json.Unmarshal(body, &req)
						// data writes ev as the SSE data of one event, then
						// ws, padding its one text part (if any) to size
						// bytes.
						data := func(ev a2a.Event, size int, ws string) {
							frame := func() string {
								raw, err := a2a.Codec{Version: v, Binding: b}.EncodeEvent(ev)
								if err != nil {
									panic(err)
								}
								if b == a2a.BindingJSONRPC {
									raw = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, raw)
								}
								return string(raw) + ws
							}
							if u, ok := ev.(*a2a.ArtifactUpdate); ok {
								p := &u.Artifact.Parts[0]
								p.Text += strings.Repeat("x", size-len(frame()))
								sent = append(sent, p.Text)
							}
							d := frame()
							if size > 0 && len(d) != size {
								wrong = append(wrong, len(d))
							}
							for line := range strings.SplitSeq(d, "\n") {
								fmt.Fprintf(w, "data: %s\n", line)
							}
							fmt.Fprint(w, "\n")
							w.(http.Flusher).Flush()
						}
						sseHeaders(w)
						data(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}}, 0, "")
						spaces := []string{" ", "  ", "\t", "\n", " \n", "\t\n\n"}
						for i, size := range []int{513, 514, 515, 516, 517, 518, 519, 520, 509, 510, 511, 512} {
							data(&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: i > 0,
								Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: fmt.Sprint(i)}}}},
								size, spaces[i%len(spaces)])
						}
						data(&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Final: v == a2a.V03,
							Status: a2a.TaskStatus{State: a2a.StateCompleted}}, 0, " \n")
					})
					opts := []stream.Option{stream.WithHTTPClient(a2atest.NewClient(h)), stream.WithVersion(v),
						stream.WithReconnect(reconnect.Never())}
					var (
						c   *stream.Client
						err error
					)
					if b == a2a.BindingJSONRPC {
						c, err = stream.NewClient(endpoint, opts...)
					} else {
						c, err = stream.NewRESTClient("http://agent.test", opts...)
					}
					require.NoError(t, err)
					s := c.Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					require.Empty(t, wrong, "events of the sizes asked")
					require.Len(t, sent, 12)
					require.Equal(t, strings.Join(sent, ""), got.text("a1"), "every chunk, once, in order")
					require.Len(t, got.task.Artifact("a1").Parts, 12)
					require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				})
			})
		}
	}
}

// Task() is the fold of the events yielded, also when Cancel comes between
// two deltas of one task event: the deltas still queued are not in Task()
// until they are yielded, and the cancel's own deltas come after them. On
// every wire.
func TestCancelBetweenDeltasKeepsTaskTheFoldOfTheYielded(t *testing.T) {
	part := func(s string) a2a.Part { return a2a.TextPart(s) }
	first := taskWith(a2a.StateWorking, nil,
		a2a.Artifact{ID: "a1", Parts: []a2a.Part{part("one "), part("two ")}},
		a2a.Artifact{ID: "a2", Parts: []a2a.Part{part("x")}})
	canceled := taskWith(a2a.StateCanceled, nil,
		a2a.Artifact{ID: "a1", Parts: []a2a.Part{part("one "), part("two "), part("three")}},
		a2a.Artifact{ID: "a2", Parts: []a2a.Part{part("x")}},
		a2a.Artifact{ID: "a3", Parts: []a2a.Part{part("y")}})
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(w *wireWriter, c wireCall) {
						w.sse()
						w.event(first)
						<-c.ctx.Done()
					},
					kindCancel: func(w *wireWriter, _ wireCall) { w.task(canceled) },
				})
				s := agent.client(t).Send(bounded(t), hello())
				var app a2a.Task
				requireFold := func(when string) {
					t.Helper()
					require.Equal(t, app.Artifacts, s.Task().Artifacts, "Task() is the fold of the yielded events, %s", when)
				}
				require.True(t, s.Next())
				app.Apply(s.Event())
				requireFold("after the first delta")
				require.NoError(t, s.Cancel(background()))
				requireFold("after Cancel")
				for s.Next() {
					app.Apply(s.Event())
					requireFold("after each later delta")
				}
				var ce *terminal.CanceledError
				require.ErrorAs(t, s.Err(), &ce)
				require.Equal(t, canceled.Artifacts, app.Artifacts, "every part delivered once, in order")
				require.Equal(t, 1, agent.count(kindCancel))
			})
		})
	}
}

// TestManyStreamsOnOneClient runs 100 streams at once on one Client, each
// with its own drops, under the race detector in CI.
func TestManyStreamsOnOneClient(t *testing.T) {
	t.Parallel()
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const n = 100
				var faults []a2atest.Fault
				for i := range 3 * n {
					faults = append(faults, a2atest.CutAfterEvents(1+i%(wirematrix.PacedEvents-1)))
				}
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.SnapshotFirst),
					a2atest.WithScript(wirematrix.Paced()...), a2atest.WithFaults(faults...))
				client := newClient(t, agent, v)
				var wg sync.WaitGroup
				results := make([]error, n)
				texts := make([]string, n)
				for i := range n {
					wg.Go(func() {
						s := client.Send(background(), a2a.NewTextMessage(a2a.RoleUser, "hi"))
						task, err := s.Wait()
						results[i] = err
						if task != nil && task.Artifact("a1") != nil {
							texts[i] = task.Artifact("a1").Text()
						}
					})
				}
				wg.Wait()
				for i := range n {
					require.NoError(t, results[i], "stream %d", i)
					require.Equal(t, "one two three", texts[i], "stream %d", i)
				}
				require.Len(t, agent.TaskIDs(), n)
				require.Greater(t, wirematrix.Resubscribes(agent), n/2, "the streams really dropped")
			})
		})
	}
}
