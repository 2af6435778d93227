package stream_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// sgSends counts the sends the agent received of a new message (first) and
// of follow-ups (replies), refused ones included: what went on the wire.
func sgSends(agent *a2atest.Agent) (first, replies int) {
	return sgSendsOf(agent, false)
}

// sgSendsOf is sgSends; with unaryOnly it counts unary sends only (for an
// agent that refuses every streaming send, which a client not told so
// tries first: a refused streaming call was not taken).
func sgSendsOf(agent *a2atest.Agent, unaryOnly bool) (first, replies int) {
	for _, r := range agent.Requests() {
		if r.Message == nil {
			continue
		}
		if unaryOnly && r.Method != "message/send" && r.Method != "SendMessage" {
			continue
		}
		if r.Message.TaskID == "" {
			first++
		} else {
			replies++
		}
	}
	return first, replies
}

var sgStyles = []a2atest.ResubscribeStyle{a2atest.SnapshotFirst, a2atest.LiveOnly, a2atest.FullReplay}

// sgChunkyScript: a task that streams a few chunks over time and completes.
func sgChunkyScript() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("on it"),
		a2atest.Chunk("a1", "one ", false, false),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "two ", true, false),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "three", true, true),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

func sgNewClient(t *testing.T, w wire, agent *a2atest.Agent, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(agent.Client()), stream.WithVersion(w.v),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}), stream.WithPollInterval(100 * time.Millisecond)}, opts...)
	return bindingClient(t, w.b, "http://agent.test", all...)
}

// TestFirstSendCutAtEveryByteIsNotResent: the streaming send of a
// new message answered 200 and cut at any byte offset (inside or after the
// first event) is never sent again, whatever style the server resubscribes
// in: the stream either ends in reconnect.ErrNoTask (no task ID was seen)
// or follows the task to its end with the uncut run's artifacts.
func TestFirstSendCutAtEveryByteIsNotResent(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, style := range sgStyles {
			step := 1
			if style != a2atest.SnapshotFirst {
				step = 5
			}
			for n := 0; n < 900; n += step {
				t.Run(fmt.Sprintf("%s/%s/%d", w, style, n), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(sgChunkyScript()...),
							a2atest.WithStyle(style), a2atest.WithFaults(a2atest.CutAfterBytes(n)))
						c := sgNewClient(t, w, agent)
						col, err := drain(t, c.Send(context.Background(), hello()))
						first, _ := sgSends(agent)
						require.Equal(t, 1, first, "the message went out once")
						if err != nil {
							require.ErrorIs(t, err, reconnect.ErrNoTask, "an ending other than no-task: %v", err)
							return
						}
						require.Equal(t, "one two three", col.text("a1"))
					})
				})
			}
		}
	}
}

var (
	_ = errors.Is
	_ = http.StatusOK
)

// sgAskScript: a task that asks a question and, once answered, finishes.
func sgAskScript() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("on it"),
		a2atest.AskInput("Which city?"),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "plan", false, true),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

// sgSendFaults are answers to a send that may have been taken (or that got
// a response, which is enough not to send again).
func sgSendFaults() map[string]a2atest.Fault {
	f := map[string]a2atest.Fault{
		"200-no-event-eof": a2atest.CloseAfterEvents(0),
		"200-no-event-cut": a2atest.CutAfterEvents(0),
		"cut-after-first":  a2atest.CutAfterEvents(1),
		"500":              a2atest.HTTPStatus(500, "<html>boom</html>"),
		"502":              a2atest.HTTPStatus(502, "bad gateway"),
		"503-retry-after":  a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {"1"}}),
		"504":              a2atest.HTTPStatus(504, "timeout"),
	}
	for _, n := range []int{1, 10, 17, 40, 80, 120, 200} {
		f[fmt.Sprintf("cut-at-%d", n)] = a2atest.CutAfterBytes(n)
	}
	return f
}

// TestFirstSendNeverResent: a new message whose send (streamed, or
// unary for an agent that cannot stream) got any response is sent once.
func TestFirstSendNeverResent(t *testing.T) {
	for _, w := range wires() {
		for _, polled := range []bool{false, true} {
			for name, f := range sgSendFaults() {
				t.Run(fmt.Sprintf("%s/polled=%v/%s", w, polled, name), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						opts := []a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(sgChunkyScript()...)}
						if polled {
							opts = append(opts, a2atest.WithoutStreaming(), a2atest.WithSendFaults(f))
						} else {
							opts = append(opts, a2atest.WithFaults(f))
						}
						agent := a2atest.NewAgent(opts...)
						c := sgNewClient(t, w, agent)
						ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
						defer cancel()
						_, _ = drain(t, c.Send(ctx, hello()))
						first, _ := sgSendsOf(agent, polled)
						require.Equal(t, 1, first, "the message went out once")
					})
				})
			}
		}
	}
}

// TestReplyNeverResent: a human's reply whose send got any
// response (streamed, or unary for an agent that cannot stream) is never
// sent again, and the human is asked once, whatever the server's style.
func TestReplyNeverResent(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, polled := range []bool{false, true} {
			for _, style := range sgStyles {
				for name, f := range sgSendFaults() {
					t.Run(fmt.Sprintf("%s/polled=%v/%s/%s", w, polled, style, name), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							opts := []a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(sgAskScript()...), a2atest.WithStyle(style)}
							if polled {
								opts = append(opts, a2atest.WithoutStreaming(), a2atest.WithSendFaults(a2atest.Fault{}, f))
							} else {
								opts = append(opts, a2atest.WithFaults(a2atest.Fault{}, f))
							}
							agent := a2atest.NewAgent(opts...)
							asked := 0
							hook := hitlFunc(func() { asked++ })
							c := sgNewClient(t, w, agent, stream.WithHumanInput(hook))
							ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
							defer cancel()
							_, err := drain(t, c.Send(ctx, hello()))
							first, replies := sgSendsOf(agent, polled)
							require.Equal(t, 1, first, "the message went out once")
							require.Equal(t, 1, replies, "the reply went out once (ended in %v)", err)
							require.Equal(t, 1, asked, "the human was asked once")
							hit := false
							for _, r := range agent.Requests() {
								hit = hit || r.Message != nil && r.Message.TaskID != "" && r.Fault == f
							}
							require.True(t, hit, "the fault fell on the reply")
						})
					})
				}
			}
		}
	}
}

// TestCardNoStreamingSendsUnaryOnce: a client resolved from a card
// that says streaming false never tries a streaming call, and its unary
// send (first message and reply), damaged in any way, goes out once.
func TestCardNoStreamingSendsUnaryOnce(t *testing.T) {
	for _, w := range wires() {
		for name, f := range sgSendFaults() {
			for _, onReply := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/reply=%v", w, name, onReply), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						faults := []a2atest.Fault{f}
						if onReply {
							faults = []a2atest.Fault{{}, f}
						}
						agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(sgAskScript()...),
							a2atest.WithoutStreaming(), a2atest.WithSendFaults(faults...))
						asked := 0
						c, err := stream.Resolve(context.Background(), "http://agent.test/", stream.WithHTTPClient(agent.Client()),
							stream.WithHumanInput(hitlFunc(func() { asked++ })), stream.WithPollInterval(100*time.Millisecond),
							stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}))
						require.NoError(t, err)
						ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
						defer cancel()
						_, _ = drain(t, c.Send(ctx, hello()))
						for _, r := range agent.Requests() {
							require.NotContains(t, []string{"message/stream", "SendStreamingMessage", "tasks/resubscribe", "SubscribeToTask"}, r.Method)
						}
						first, replies := sgSends(agent)
						require.Equal(t, 1, first)
						require.LessOrEqual(t, replies, 1)
						if onReply {
							require.Equal(t, 1, replies)
							require.Equal(t, 1, asked)
						}
					})
				})
			}
		}
	}
}

// TestNegotiatingSendNotResentInOtherVersion: a negotiating Client
// (no WithVersion) whose first streaming send got a response that is not a
// version refusal (a 5xx, a 503 with Retry-After, a 200 cut before or
// after the first event, an empty 200 stream) does not try the message
// again in the other version, nor in the same one, on either binding,
// against a 1.0-only, a 0.3-only or a hybrid server.
func TestNegotiatingSendNotResentInOtherVersion(t *testing.T) {
	faults := map[string]a2atest.Fault{
		"500":             a2atest.HTTPStatus(500, "<html>boom</html>"),
		"503-retry-after": a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {"1"}}),
		"cut-at-10":       a2atest.CutAfterBytes(10),
		"cut-headers":     a2atest.CutAfterEvents(0),
		"cut-after-first": a2atest.CutAfterEvents(1),
		"empty-200":       a2atest.CloseAfterEvents(0),
	}
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		for _, vs := range [][]a2a.Version{{a2a.V10}, {a2a.V03}, {a2a.V03, a2a.V10}} {
			for name, f := range faults {
				t.Run(fmt.Sprintf("%s/%v/%s", b, vs, name), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewAgent(a2atest.WithVersions(vs...), a2atest.WithBindings(b), a2atest.WithScript(sgChunkyScript()...),
							a2atest.WithNewTaskFault(f))
						c := sgNegotiating(t, b, agent.Client())
						ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
						defer cancel()
						_, _ = sgDrain(t, c.Send(ctx, hello()))
						// The fault falls on the first try (1.0 first): it is no
						// version refusal, so nothing else is sent.
						first, _ := sgSends(agent)
						require.Equal(t, 1, first, "the message went out once: %v", agent.Requests())
					})
				})
			}
		}
	}
}

// TestStylesPerReconnectNoResend: cuts of the first stream, of the
// reply's stream and of resubscribes, against a server whose style changes
// at each resubscribe (a load balancer over live-only, snapshot-first and
// full-replay servers): each message goes out once, the human is asked
// once, and the artifacts end as the server's.
func TestStylesPerReconnectNoResend(t *testing.T) {
	t.Parallel()
	perms := [][]a2atest.ResubscribeStyle{}
	for _, a := range sgStyles {
		for _, b := range sgStyles {
			for _, c := range sgStyles {
				perms = append(perms, []a2atest.ResubscribeStyle{a, b, c})
			}
		}
	}
	script := []a2atest.Step{
		a2atest.Working("on it"),
		a2atest.Chunk("a1", "one ", false, false),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "two ", true, false),
		a2atest.AskInput("Which city?"),
		a2atest.Working("thanks"),
		a2atest.Chunk("a1", "three ", true, false),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "four", true, true),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
	for _, w := range wires() {
		for _, styles := range perms {
			for _, cuts := range [][]a2atest.Fault{
				{a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(1), a2atest.CutAfterEvents(1), a2atest.CutAfterEvents(1)},
				{a2atest.Fault{}, a2atest.CutAfterEvents(1), a2atest.CutAfterEvents(1), a2atest.CutAfterBytes(30)},
				{a2atest.CutAfterEvents(3), a2atest.CutAfterBytes(25), a2atest.CutAfterEvents(2)},
			} {
				t.Run(fmt.Sprintf("%s/%v/%v", w, styles, cuts), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(script...),
							a2atest.WithStyles(styles...), a2atest.WithFaults(cuts...))
						asked := 0
						c := sgNewClient(t, w, agent, stream.WithHumanInput(hitlFunc(func() { asked++ })),
							stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: 100 * time.Millisecond}))
						var notes []string
						c2 := stream.WithNotify(func(n stream.Notice) { notes = append(notes, fmt.Sprintf("%s(%d %v)", n.Kind, n.Attempt, n.Cause)) })
						col, err := sgDrain(t, c.Send(context.Background(), hello(), c2))
						if err != nil {
							for _, r := range agent.Requests() {
								t.Logf("req %s task=%s style=%v fault=%v", r.Method, r.TaskID, r.Style, r.Fault)
							}
							t.Logf("events %s", sgDescribe(col.events))
							t.Logf("notes %v", notes)
							t.Logf("agent task %+v", agent.Task(agent.TaskIDs()[0]).Status)
						}
						require.NoError(t, err)
						first, replies := sgSends(agent)
						require.Equal(t, 1, first)
						require.Equal(t, 1, replies)
						require.Equal(t, 1, asked)
						final := agent.Task(agent.TaskIDs()[0])
						col.requireArtifacts(t, final.Artifacts, "the end")
					})
				})
			}
		}
	}
}

// TestSendRedirectedToGetNotResent: a server that takes the
// message and answers its POST with a redirect that net/http follows as a
// GET (301, 302, 303: the POST-redirect-GET pattern) makes the client see
// the GET's answer: a 405 (or 404, or 501) there is no refusal of the
// send, which may have been taken: the message is not sent again, unary
// or streamed.
func TestSendRedirectedToGetNotResent(t *testing.T) {
	for _, w := range wires() {
		for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther} {
			for _, getAnswer := range []int{http.StatusMethodNotAllowed, http.StatusNotImplemented, http.StatusNotFound} {
				t.Run(fmt.Sprintf("%s/%d/%d", w, code, getAnswer), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						taken := 0
						agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
							kindStream: func(ww *wireWriter, c wireCall) {
								taken++
								http.Redirect(ww.w, &http.Request{Method: http.MethodPost, URL: &url.URL{Path: "/"}}, "/tasks-created/t-1", code)
							},
							kindSend: func(ww *wireWriter, c wireCall) {
								taken++
								ww.result(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted}})
							},
							kindGet: func(ww *wireWriter, c wireCall) {
								ww.task(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted}})
							},
						})
						h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
							if strings.HasPrefix(r.URL.Path, "/tasks-created/") {
								rw.WriteHeader(getAnswer)
								return
							}
							agent.ServeHTTP(rw, r)
						})
						var opts []stream.Option
						opts = append(opts, stream.WithHTTPClient(a2atest.NewClient(h)), stream.WithVersion(w.v))
						c := agent.clientOf(t, opts...)
						ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
						defer cancel()
						_, err := sgDrain(t, c.Send(ctx, hello()))
						require.Equal(t, 1, taken, "the message was sent %d times (ended in %v)", taken, err)
					})
				})
			}
		}
	}
}

// TestCannotStreamWithoutCardSendsOnce: an agent that cannot
// stream, reached without a card, refuses the streaming send (-32601 once
// the version is settled, -32004, HTTP 405 or 501): the message goes out
// once, unary, and the task is polled to its end with one Polling notice.
func TestCannotStreamWithoutCardSendsOnce(t *testing.T) {
	for _, w := range wires() {
		refusals := map[string]func(ww *wireWriter, r wireCall){
			"-32004": func(ww *wireWriter, c wireCall) {
				ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
			},
		}
		if w.b == a2a.BindingJSONRPC {
			refusals["-32601"] = func(ww *wireWriter, c wireCall) { ww.rpcError(a2a.CodeMethodNotFound, "Method not found") }
		} else {
			for _, code := range []int{http.StatusMethodNotAllowed, http.StatusNotImplemented} {
				refusals[fmt.Sprint(code)] = func(ww *wireWriter, c wireCall) {
					ww.w.Header().Set("Content-Type", "text/html")
					ww.w.WriteHeader(code)
					ww.w.Write([]byte("<html>no</html>"))
				}
			}
		}
		for name, refuse := range refusals {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					polls := 0
					agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
						kindStream:    refuse,
						kindSubscribe: refuse,
						kindSend: func(ww *wireWriter, c wireCall) {
							ww.result(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}})
						},
						kindGet: func(ww *wireWriter, c wireCall) {
							polls++
							st := a2a.StateWorking
							if polls >= 3 {
								st = a2a.StateCompleted
							}
							ww.task(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}, Artifacts: []a2a.Artifact{sgText("a1", "done")}})
						},
					})
					var notices []stream.Notice
					c := agent.client(t, stream.WithPollInterval(time.Second), stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) }))
					col, err := sgDrain(t, c.Send(context.Background(), hello()))
					require.NoError(t, err)
					require.Equal(t, "done", col.text("a1"))
					require.Equal(t, 1, agent.count(kindSend), "one unary send")
					require.Equal(t, 1, agent.count(kindStream), "one refused streaming send")
					polling := 0
					for _, n := range notices {
						if n.Kind == stream.Polling {
							polling++
						}
					}
					require.Equal(t, 1, polling)
				})
			})
		}
	}
}

// TestDroppedReplyResentWithSameID: a reply whose send died before
// any response (dropped, never processed) is sent again, once, with the
// same message ID, and the human is asked once; streamed or polled.
func TestDroppedReplyResentWithSameID(t *testing.T) {
	for _, w := range wires() {
		for _, polled := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/polled=%v", w, polled), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					opts := []a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(sgAskScript()...)}
					if polled {
						opts = append(opts, a2atest.WithoutStreaming(), a2atest.WithSendFaults(a2atest.Fault{}, a2atest.Drop()))
					} else {
						opts = append(opts, a2atest.WithFaults(a2atest.Fault{}, a2atest.Drop()))
					}
					agent := a2atest.NewAgent(opts...)
					asked := 0
					c := sgNewClient(t, w, agent, stream.WithHumanInput(hitlFunc(func() { asked++ })))
					col, err := sgDrain(t, c.Send(context.Background(), hello()))
					require.NoError(t, err)
					require.Equal(t, "plan", col.text("a1"))
					var ids []string
					for _, r := range agent.Requests() {
						if r.Message != nil && r.Message.TaskID != "" && (!polled || r.Method == "message/send" || r.Method == "SendMessage") {
							ids = append(ids, r.Message.ID)
						}
					}
					require.Len(t, ids, 2, "the dropped reply and its one re-send")
					require.Equal(t, ids[0], ids[1], "the same message ID")
					require.Equal(t, 1, asked)
				})
			})
		}
	}
}
