package stream_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// TestFirstSendCutAtEveryByteIsNotResent: the streaming send of a
// new message answered 200 and cut at any byte offset (inside or after the
// first event) is never sent again, whatever style the server resubscribes
// in: the stream either ends in reconnect.ErrNoTask (no task ID was seen)
// or follows the task to its end with the uncut run's artifacts
// (wirematrix.FirstSendCutAtEveryByte, every offset below 900 on the four
// HTTP wires; the gRPC wires cut around each event).
func TestFirstSendCutAtEveryByteIsNotResent(t *testing.T) {
	onHTTPWires(t, "FirstSendCutAtEveryByte")
}

var (
	_ = errors.Is
	_ = http.StatusOK
)

// TestCardNoStreamingSendsUnaryOnce: a client resolved from a card
// that says streaming false never tries a streaming call, and its unary
// send (first message and reply), damaged in any way, goes out once.
func TestCardNoStreamingSendsUnaryOnce(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for name, f := range wirematrix.SendFaults() {
			for _, onReply := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/reply=%v", w, name, onReply), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						faults := []a2atest.Fault{f}
						if onReply {
							faults = []a2atest.Fault{{}, f}
						}
						agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(wirematrix.AskScript()...),
							a2atest.WithoutStreaming(), a2atest.WithSendFaults(faults...))
						asked := 0
						c, err := stream.Resolve(context.Background(), "http://agent.test/", stream.WithHTTPClient(agent.Client()),
							stream.WithHumanInput(wirematrix.HitlFunc(func() { asked++ })), stream.WithPollInterval(100*time.Millisecond),
							stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}))
						require.NoError(t, err)
						ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
						defer cancel()
						_, _ = drain(t, c.Send(ctx, hello()))
						for _, r := range agent.Requests() {
							require.NotContains(t, []string{"message/stream", "SendStreamingMessage", "tasks/resubscribe", "SubscribeToTask"}, r.Method)
						}
						first, replies := sendCounts(agent)
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
						agent := a2atest.NewAgent(a2atest.WithVersions(vs...), a2atest.WithBindings(b), a2atest.WithScript(wirematrix.ChunkyScript()...),
							a2atest.WithNewTaskFault(f))
						c := negotiatingClient(t, b, agent.Client())
						ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
						defer cancel()
						_, _ = drainLoose(t, c.Send(ctx, hello()))
						// The fault falls on the first try (1.0 first): it is no
						// version refusal, so nothing else is sent. Except that
						// a 0.3-only JSON-RPC server refuses the 1.0 try in
						// plain JSON, which has no event for CutAfterEvents(1)
						// to cut: that is a version refusal, and the message
						// goes out in 0.3, once, where the fault falls.
						want := 1
						if f == a2atest.CutAfterEvents(1) && b == a2a.BindingJSONRPC && len(vs) == 1 && vs[0] == a2a.V03 {
							want = 2
							require.Equal(t, "SendStreamingMessage", agent.Requests()[0].Method)
						}
						first, _ := sendCounts(agent)
						require.Equal(t, want, first, "the message went out once in each version it was tried in: %v", agent.Requests())
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
	for _, a := range wirematrix.ResubscribeStyles() {
		for _, b := range wirematrix.ResubscribeStyles() {
			for _, c := range wirematrix.ResubscribeStyles() {
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
						c := reconnectingClient(t, w, agent, stream.WithHumanInput(wirematrix.HitlFunc(func() { asked++ })),
							stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: 100 * time.Millisecond}))
						var notes []string
						c2 := stream.WithNotify(func(n stream.Notice) { notes = append(notes, fmt.Sprintf("%s(%d %v)", n.Kind, n.Attempt, n.Cause)) })
						col, err := drainLoose(t, c.Send(context.Background(), hello(), c2))
						if err != nil {
							for _, r := range agent.Requests() {
								t.Logf("req %s task=%s style=%v fault=%v", r.Method, r.TaskID, r.Style, r.Fault)
							}
							t.Logf("events %s", describeEvents(col.events))
							t.Logf("notes %v", notes)
							t.Logf("agent task %+v", agent.Task(agent.TaskIDs()[0]).Status)
						}
						require.NoError(t, err)
						first, replies := sendCounts(agent)
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
						_, err := drainLoose(t, c.Send(ctx, hello()))
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
							ww.task(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}, Artifacts: []a2a.Artifact{textArtifact("a1", "done")}})
						},
					})
					var notices []stream.Notice
					c := agent.client(t, stream.WithPollInterval(time.Second), stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) }))
					col, err := drainLoose(t, c.Send(context.Background(), hello()))
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

// TestDroppedReplyResentWithSameIDOnlyToAnIdempotentAgent: a reply whose
// send died before any response (dropped, never processed, which the
// client cannot tell from processed) is sent again, once, with the same
// message ID, to an agent that WithIdempotentSends says takes a message ID
// twice as once; the human is asked once; streamed or polled. Without the
// option the reply may have reached the agent: it is never sent again, and
// the stream ends carrying the task, still waiting on its prompt.
func TestDroppedReplyResentWithSameIDOnlyToAnIdempotentAgent(t *testing.T) {
	for _, w := range wires() {
		for _, polled := range []bool{false, true} {
			for _, idempotent := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/polled=%v/idempotent=%v", w, polled, idempotent), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						opts := []a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(wirematrix.AskScript()...)}
						if polled {
							opts = append(opts, a2atest.WithoutStreaming(), a2atest.WithSendFaults(a2atest.Fault{}, a2atest.Drop()))
						} else {
							opts = append(opts, a2atest.WithFaults(a2atest.Fault{}, a2atest.Drop()))
						}
						agent := a2atest.NewAgent(opts...)
						asked := 0
						copts := []stream.Option{stream.WithHumanInput(wirematrix.HitlFunc(func() { asked++ }))}
						if idempotent {
							copts = append(copts, stream.WithIdempotentSends())
						}
						c := reconnectingClient(t, w, agent, copts...)
						col, err := drainLoose(t, c.Send(context.Background(), hello()))
						var ids []string
						for _, r := range agent.Requests() {
							if r.Message != nil && r.Message.TaskID != "" && (!polled || r.Method == "message/send" || r.Method == "SendMessage") {
								ids = append(ids, r.Message.ID)
							}
						}
						require.Equal(t, 1, asked)
						if !idempotent {
							require.Len(t, ids, 1, "the dropped reply, never sent again")
							require.Error(t, err)
							require.Equal(t, a2a.StateInputRequired, stream.EndingOf(err).Task.Status.State, "the ending carries the task, still waiting")
							return
						}
						require.NoError(t, err)
						require.Equal(t, "plan", col.text("a1"))
						require.Len(t, ids, 2, "the dropped reply and its one re-send")
						require.Equal(t, ids[0], ids[1], "the same message ID")
					})
				})
			}
		}
	}
}

// A message that may have reached the agent is never sent again, whatever
// the path it took there: a redirect followed before the failure, a
// breaker consulted on the redirect's hop, or an HTTP/2 connection whose
// server reset the stream after it had read the whole request. Every test
// counts the sends the agent (or the server) received.

// movedTo answers a call with 307 Temporary Redirect to target, which keeps
// the method and the body: net/http follows it with the same POST.
func movedTo(ww *wireWriter, target string) {
	ww.w.Header().Set("Location", target)
	ww.w.WriteHeader(http.StatusTemporaryRedirect)
}

// redirectingAgent answers the first streaming send with a 307 to another
// origin, and later ones with a completed task.
func redirectingAgent(w wire) *wireAgent {
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, c wireCall) {
			if c.n == 0 {
				movedTo(ww, "http://moved.test/a2a")
				return
			}
			ww.sse()
			ww.event(snap(a2a.StateCompleted, "done"))
		},
	})
}

// A RoundTripper that reports no connection steps (a custom transport, as
// reach.go allows for): the first hop reaches the agent, which answers 307;
// the redirect's hop fails with a dial error. That dial error is the
// second hop's, not the message's: the agent had the message.
func TestSendRedirectedToARefusedOriginIsNotSentAgain(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := redirectingAgent(w)
				rt := refuseOnce{next: a2atest.NewTransport(a), refuse: func(r *http.Request) bool {
					return r.URL.Host == "moved.test"
				}}
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: rt}), stream.WithVersion(w.v))
				_, err := drain(t, c.Send(background(), hello()))
				require.Equal(t, 1, a.count(kindStream), "the agent had the message once: it answered the first hop")
				require.ErrorIs(t, err, syscall.ECONNREFUSED)
			})
		})
	}
}

// The same redirect over a real Transport, whose connection steps reach.go
// follows: the first hop got a connection, so the redirect's refused dial
// does not make the send again.
func TestSendRedirectedToARefusedOriginOverARealTransportIsNotSentAgain(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := redirectingAgent(w)
				p := &pipeServer{h: a}
				var refused atomic.Int32
				tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					if addr == "moved.test:80" {
						refused.Add(1)
						return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
					}
					return p.dial(ctx, network, addr)
				}}
				defer p.close()
				defer tr.CloseIdleConnections()
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v))
				_, err := drain(t, c.Send(background(), hello()))
				require.ErrorIs(t, err, syscall.ECONNREFUSED)
				require.Equal(t, int32(1), refused.Load())
				require.Equal(t, 1, a.count(kindStream))
			})
		})
	}
}

// refuseNth is a Breaker that lets every request through but the n-th it
// is asked about (from 1), which it refuses as an open circuit does.
type refuseNth struct {
	n     int
	asked atomic.Int32
}

var errRefusedNth = errors.New("breaker: refused")

func (b *refuseNth) Allow() (func(error), error) {
	if int(b.asked.Add(1)) == b.n {
		return nil, errRefusedNth
	}
	return func(error) {}, nil
}

// A reply whose send the agent answers 307: the breaker refuses the
// redirect's hop (WithBreaker asks it for "each redirect followed"). The
// agent answered the reply's first hop, so it may have taken the reply,
// which must not be sent again; ErrCircuitOpen on the hop does not prove
// that nothing was sent.
func TestReplyWhoseRedirectTheBreakerRefusesIsNotSentAgain(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				asking := snap(a2a.StateInputRequired)
				asking.Status.Message = agentMsg("q-1", "which city?")
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						switch c.n {
						case 0:
							ww.sse()
							ww.event(asking)
						case 1:
							movedTo(ww, "http://moved.test/a2a")
						default:
							ww.sse()
							ww.event(snap(a2a.StateCompleted, "Paris it is"))
						}
					},
					kindSubscribe: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateCompleted, "Paris it is"))
					},
					kindGet: func(ww *wireWriter, _ wireCall) {
						ww.task(snap(a2a.StateCompleted, "Paris it is"))
					},
				})
				moved := newWireAgent(w, nil)
				routes := newOriginRouter().serve("http://agent.test", a).serve("http://moved.test", moved)
				// Asked for: 1 the message, 2 the reply, 3 the reply's redirect.
				b := &refuseNth{n: 3}
				hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text("Paris"), nil })
				c := a.clientOf(t, stream.WithHTTPClient(routes.client()), stream.WithVersion(w.v),
					stream.WithHumanInput(hook), stream.WithBreaker(b))
				_, _ = drain(t, c.Send(background(), hello()))
				require.GreaterOrEqual(t, int(b.asked.Load()), 3, "the breaker was asked about the redirect")
				require.Len(t, a.sentIDs(), 2, "the message, then the reply once: the agent answered the reply's first hop")
			})
		})
	}
}

// h2Resetter is an HTTP/2 server (prior knowledge, over in-memory
// connections) that reads each request whole, counts it, and then answers
// as its reset function says (with a RST_STREAM frame), never with a
// response. It speaks just enough HTTP/2 for that: no HPACK is needed to
// count requests and refuse them.
type h2Resetter struct {
	// reset writes the frame that answers the n-th request (from 1) on
	// stream id.
	reset func(w io.Writer, n int, id uint32)

	mu       sync.Mutex
	requests int
	conns    []net.Conn
}

// HTTP/2 frame types and flags (RFC 9113, section 6).
const (
	h2Data       = 0x0
	h2Headers    = 0x1
	h2RSTStream  = 0x3
	h2Settings   = 0x4
	h2EndStream  = 0x1
	h2Ack        = 0x1
	h2ErrProto   = 0x1
	h2ErrInt     = 0x2
	h2PrefaceLen = 24
)

func h2Frame(w io.Writer, typ, flags byte, id uint32, payload []byte) {
	var hdr [9]byte
	hdr[0], hdr[1], hdr[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	hdr[3], hdr[4] = typ, flags
	binary.BigEndian.PutUint32(hdr[5:], id)
	_, _ = w.Write(append(hdr[:], payload...))
}

// rstStream resets stream id with code.
func rstStream(w io.Writer, id, code uint32) {
	h2Frame(w, h2RSTStream, 0, id, binary.BigEndian.AppendUint32(nil, code))
}

func (s *h2Resetter) dial(context.Context, string, string) (net.Conn, error) {
	client, server := net.Pipe()
	s.mu.Lock()
	s.conns = append(s.conns, server)
	s.mu.Unlock()
	go s.serve(server)
	return client, nil
}

func (s *h2Resetter) serve(c net.Conn) {
	defer c.Close()
	preface := make([]byte, h2PrefaceLen)
	if _, err := io.ReadFull(c, preface); err != nil {
		return
	}
	// net.Pipe does not buffer: frames go out from their own goroutine,
	// so that reading the client's frames never waits on writing ours.
	out := make(chan []byte, 64)
	defer close(out)
	go func() {
		for b := range out {
			_, _ = c.Write(b)
		}
	}()
	write := func(f func(io.Writer)) {
		var b bytes.Buffer
		f(&b)
		out <- b.Bytes()
	}
	write(func(w io.Writer) { h2Frame(w, h2Settings, 0, 0, nil) })
	for {
		var hdr [9]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return
		}
		n := int(hdr[0])<<16 | int(hdr[1])<<8 | int(hdr[2])
		typ, flags, id := hdr[3], hdr[4], binary.BigEndian.Uint32(hdr[5:])&0x7fffffff
		if _, err := io.CopyN(io.Discard, c, int64(n)); err != nil {
			return
		}
		switch {
		case typ == h2Settings && flags&h2Ack == 0:
			write(func(w io.Writer) { h2Frame(w, h2Settings, h2Ack, 0, nil) })
		case (typ == h2Headers || typ == h2Data) && flags&h2EndStream != 0:
			// The request is in, whole: the agent has the message.
			s.mu.Lock()
			s.requests++
			k := s.requests
			s.mu.Unlock()
			write(func(w io.Writer) { s.reset(w, k, id) })
		}
	}
}

func (s *h2Resetter) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

func (s *h2Resetter) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
}

// An HTTP/2 server (or a proxy in front of the agent) that reads the whole
// send and then resets its stream with PROTOCOL_ERROR: net/http's HTTP/2
// transport makes such a request again by itself (golang/go#47635),
// rewinding the body with Request.GetBody, before the stream sees any
// error. Unlike REFUSED_STREAM, or a GOAWAY below the stream's ID, that
// reset does not say the server left the request unprocessed. The agent
// then has the message twice; the stream must not let its transport do
// that.
func TestSendOverHTTP2ResetWithProtocolErrorIsNotRepeatedByTheTransport(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &h2Resetter{reset: func(w io.Writer, n int, id uint32) {
					code := uint32(h2ErrProto)
					if n > 1 {
						code = h2ErrInt // a repeat is refused for good
					}
					rstStream(w, id, code)
				}}
				defer srv.close()
				var protos http.Protocols
				protos.SetUnencryptedHTTP2(true)
				tr := &http.Transport{DialContext: srv.dial, Protocols: &protos}
				defer tr.CloseIdleConnections()
				c := bindingClient(t, w.b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v))
				_, err := drain(t, c.Send(background(), hello()))
				require.Equal(t, 1, srv.count(), "the server read the whole send once; it must not get it again")
				require.Error(t, err)
			})
		})
	}
}

// WithConnectTimeout "bounds the making of each call's connection": a
// redirect's hop makes a connection of the call too. The first hop got its
// connection and stopped the timer; the hop to a black-holed origin must
// still be cut after the connect timeout, and the send, which reached the
// agent on the first hop, not made again.
func TestConnectTimeoutBoundsARedirectsDial(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := redirectingAgent(w)
				p := &pipeServer{h: a}
				var hole blackHole
				tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					if addr == "moved.test:80" {
						return hole.dial(ctx, network, addr)
					}
					return p.dial(ctx, network, addr)
				}}
				defer p.close()
				defer tr.CloseIdleConnections()
				ctx, cancel := context.WithTimeout(background(), time.Minute)
				defer cancel()
				start := time.Now()
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
					stream.WithConnectTimeout(2*time.Second))
				_, err := drain(t, c.Send(ctx, hello()))
				require.Equal(t, int32(1), hole.n.Load(), "the redirect was followed")
				require.ErrorIs(t, err, transport.ErrConnectTimeout)
				require.Equal(t, 2*time.Second, time.Since(start))
				require.Equal(t, 1, a.count(kindStream))
			})
		})
	}
}

// slowReplier is an agent whose task asks a question, lists no user message in
// its history, and acts on the reply only slowly: working 5 s after the
// reply arrived, completed 10 s after. Its first streamed reply (or unary
// reply) is damaged as cut says; its subscribes follow style.
type slowReplier struct {
	mu      sync.Mutex
	replyAt time.Time // zero until a reply arrived
	replies int
}

const (
	slowWorkAfter = 5 * time.Second
	slowDoneAfter = 10 * time.Second
)

var cityPrompt = &a2a.Message{ID: "p-1", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("Which city?")}}

func (a *slowReplier) state() (a2a.TaskState, time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.replyAt.IsZero() {
		return a2a.StateInputRequired, -1
	}
	since := time.Since(a.replyAt)
	switch {
	case since < slowWorkAfter:
		return a2a.StateInputRequired, slowWorkAfter - since
	case since < slowDoneAfter:
		return a2a.StateWorking, slowDoneAfter - since
	}
	return a2a.StateCompleted, -1
}

func (a *slowReplier) task() *a2a.Task {
	st, _ := a.state()
	t := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}, History: []a2a.Message{*cityPrompt}}
	if st == a2a.StateInputRequired {
		t.Status.Message = cityPrompt
	}
	if st == a2a.StateCompleted {
		t.Artifacts = []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{a2a.TextPart("Lisbon plan")}}}
	}
	return t
}

func (a *slowReplier) status(st a2a.TaskState) *a2a.StatusUpdate {
	u := &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}, Final: st.Terminal() || st.Interrupted()}
	if st == a2a.StateInputRequired {
		u.Status.Message = cityPrompt
	}
	return u
}

// live streams what happens from now on until the task settles again.
func (a *slowReplier) live(w *wireWriter, c wireCall) {
	for {
		st, wait := a.state()
		if wait < 0 {
			if st == a2a.StateCompleted {
				w.event(&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("Lisbon plan")}}, LastChunk: true})
				w.event(a.status(st))
			}
			return
		}
		select {
		case <-time.After(wait):
		case <-c.ctx.Done():
			return
		}
		st, _ = a.state()
		if st == a2a.StateWorking {
			w.event(a.status(st))
		}
	}
}

func (a *slowReplier) handlers(damage string, style string) map[callKind]func(w *wireWriter, c wireCall) {
	first := func(w *wireWriter, c wireCall) {
		w.sse()
		w.event(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}})
		w.event(a.status(a2a.StateWorking))
		w.event(a.status(a2a.StateInputRequired))
	}
	takeReply := func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.replies++
		if a.replyAt.IsZero() {
			a.replyAt = time.Now()
		}
	}
	damaged := func(w *wireWriter, c wireCall, unary bool) {
		takeReply()
		switch damage {
		case "headers-then-cut":
			if unary {
				w.cutAfter(0, []byte("{}"))
			}
			w.sse()
			panic(http.ErrAbortHandler)
		case "no-event-eof":
			if unary { // a 200 JSON answer with an empty body
				w.w.Header().Set("Content-Type", "application/json")
				w.w.WriteHeader(http.StatusOK)
				return
			}
			w.sse()
		case "stale-snapshot-then-cut":
			if unary {
				raw, _ := a2a.Codec{Version: w.a.v, Binding: w.a.b}.EncodeEvent(a.task())
				w.cutAfter(len(raw)/2, raw)
			}
			w.sse()
			w.event(a.task())
			panic(http.ErrAbortHandler)
		case "503":
			w.w.Header().Set("Retry-After", "1")
			w.w.WriteHeader(http.StatusServiceUnavailable)
		}
	}
	return map[callKind]func(w *wireWriter, c wireCall){
		kindStream: func(w *wireWriter, c wireCall) {
			if c.msg != nil && c.msg.TaskID == "" {
				first(w, c)
				return
			}
			damaged(w, c, false)
		},
		kindSend: func(w *wireWriter, c wireCall) {
			if c.msg != nil && c.msg.TaskID == "" {
				w.result(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateInputRequired, Message: cityPrompt}, History: []a2a.Message{*cityPrompt}})
				return
			}
			damaged(w, c, true)
		},
		kindGet: func(w *wireWriter, c wireCall) { w.task(a.task()) },
		kindSubscribe: func(w *wireWriter, c wireCall) {
			st, _ := a.state()
			switch style {
			case "live-only":
				if st.Interrupted() || st.Terminal() {
					w.rpcError(a2a.CodeTaskNotFound, "task not found")
					return
				}
				w.sse()
				a.live(w, c)
			case "snapshot-first":
				if st.Terminal() {
					w.rpcError(a2a.CodeUnsupportedOperation, "task is terminal")
					return
				}
				w.sse()
				w.event(a.task())
				if st.Interrupted() {
					return
				}
				a.live(w, c)
			case "full-replay":
				w.sse()
				w.event(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}})
				w.event(a.status(a2a.StateWorking))
				w.event(a.status(a2a.StateInputRequired))
				if st == a2a.StateInputRequired {
					return
				}
				a.live(w, c)
			}
		},
	}
}

// TestSlowAgentReplyNotResent: the reply's send got a response
// (200 then a cut, a 200 with no event, a stale snapshot then a cut, a 503)
// from an agent that lists no user message in its history and is slow to
// act on the reply. The reply is never sent again and the human is never
// asked again, streamed or polled, whatever the server's subscribe style;
// the stream follows the task until it completes.
func TestSlowAgentReplyNotResent(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, polled := range []bool{false, true} {
			for _, damage := range []string{"headers-then-cut", "no-event-eof", "stale-snapshot-then-cut", "503"} {
				for _, style := range []string{"live-only", "snapshot-first", "full-replay"} {
					t.Run(fmt.Sprintf("%s/polled=%v/%s/%s", w, polled, damage, style), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							slow := &slowReplier{}
							h := slow.handlers(damage, style)
							if polled { // an agent that cannot stream, as @a2a-js/sdk refuses
								refuse := func(w *wireWriter, c wireCall) {
									w.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
								}
								h[kindStream], h[kindSubscribe] = refuse, refuse
							}
							agent := newWireAgent(w, h)
							asked := 0
							c := agent.client(t, stream.WithHumanInput(wirematrix.HitlFunc(func() { asked++ })),
								stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: time.Second}),
								stream.WithPollInterval(time.Second))
							ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
							defer cancel()
							col, err := drain(t, c.Send(ctx, hello()))
							require.Equal(t, 1, slow.replies, "the reply went out once (the stream ended in %v)", err)
							require.Equal(t, 1, asked, "the human was asked once")
							var pe *transport.ProtocolError
							if polled && damage == "no-event-eof" && errors.As(err, &pe) {
								return // an empty JSON body is malformed: a server bug, never retried
							}
							if damage != "503" {
								require.NoError(t, err)
								require.Equal(t, "Lisbon plan", col.text("a1"))
							}
						})
					})
				}
			}
		}
	}
}

// Sends made again: a send whose request provably never left (the dial was
// refused or timed out) is made again within the budget, with the same
// message ID; a send the agent answered "busy" is made again only with
// WithIdempotentSends. Every test counts the sends the agent received.

// comeBackWait is the real backoff of the test below: short, since its
// subtests wait it on real sockets, and so that the port it frees stays
// free no longer than it must.
const comeBackWait = 100 * time.Millisecond

// TestSendRefusedAtDialIsSentAgainWhenTheAgentComesBack runs on real
// sockets: the agent's port is closed when the send starts, and the agent
// listens on it while the stream waits its first backoff (comeBackWait).

func TestSendRefusedAtDialIsSentAgainWhenTheAgentComesBack(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			t.Parallel()
			a := completes(w)
			// Take a free port, and free it: nothing listens there now.
			l, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			addr := l.Addr().String()
			require.NoError(t, l.Close())

			srv := &http.Server{Handler: a, ReadHeaderTimeout: 10 * time.Second}
			served := make(chan error, 1)
			var once sync.Once
			listen := func() {
				l, err := net.Listen("tcp", addr)
				if err != nil {
					served <- err
					return
				}
				go func() { served <- srv.Serve(l) }()
			}
			var notices []stream.Notice
			tr := http.DefaultTransport.(*http.Transport).Clone()
			defer tr.CloseIdleConnections()
			c := bindingClient(t, w.b, "http://"+addr, stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
				stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: comeBackWait}),
				stream.WithNotify(func(n stream.Notice) {
					notices = append(notices, n)
					once.Do(listen) // the agent comes back during the wait
				}))
			msg := hello()
			got, err := drain(t, c.Send(background(), msg))
			require.NoError(t, err)
			require.Equal(t, "done", got.text("a1"))
			require.Equal(t, []string{msg.ID}, a.sentIDs(), "one send reached the agent, with the message's ID")
			require.Len(t, notices, 2)
			require.Equal(t, stream.Reconnecting, notices[0].Kind)
			require.Equal(t, comeBackWait, notices[0].Wait)
			var opErr *net.OpError
			require.ErrorAs(t, notices[0].Cause, &opErr)
			require.ErrorIs(t, notices[0].Cause, syscall.ECONNREFUSED)
			require.Equal(t, stream.Resumed, notices[1].Kind)
			require.NoError(t, srv.Shutdown(context.Background()))
			require.ErrorIs(t, <-served, http.ErrServerClosed)
		})
	}
}

// refusingDialer is a net/http Transport dial that refuses every
// connection, as a closed port does, and counts them.
type refusingDialer struct{ n atomic.Int32 }

func (d *refusingDialer) dial(context.Context, string, string) (net.Conn, error) {
	d.n.Add(1)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
}

func TestSendRefusedAtDialSpendsTheBudget(t *testing.T) {
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var d refusingDialer
				tr := &http.Transport{DialContext: d.dial}
				defer tr.CloseIdleConnections()
				start := time.Now()
				c := bindingClient(t, b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(a2a.V10))
				_, err := drain(t, c.Send(background(), hello()))
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, 3, re.Attempts)
				require.ErrorIs(t, err, syscall.ECONNREFUSED)
				require.Equal(t, int32(4), d.n.Load(), "the send and three more")
				require.Equal(t, 3*backoff, time.Since(start))
			})
		})
	}
}

func TestConnectTimeoutBoundsEachDial(t *testing.T) {
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var d blackHole
				tr := &http.Transport{DialContext: d.dial}
				defer tr.CloseIdleConnections()
				start := time.Now()
				c := bindingClient(t, b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(a2a.V10),
					stream.WithConnectTimeout(2*time.Second), stream.WithReconnect(reconnect.Policy{MaxAttempts: 2}))
				_, err := drain(t, c.Send(background(), hello()))
				require.ErrorIs(t, err, transport.ErrConnectTimeout)
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, 2, re.Attempts)
				require.Equal(t, int32(3), d.n.Load())
				require.Equal(t, 3*2*time.Second+2*backoff, time.Since(start), "three dials of 2s, two backoffs")
			})
		})
	}
}

// TestAgentThatIsDownEndsInCouldNotConnect: a stream none of whose calls
// could connect (every dial refused, or every dial past the connect
// timeout) says it could not connect, naming the URL without its secrets,
// not that a connection was lost; the transport's cause stays reachable.
func TestAgentThatIsDownEndsInCouldNotConnect(t *testing.T) {
	const (
		endpoint = "http://user:pw@agent.test/a2a?key=secret"
		shown    = "http://xxxxx:xxxxx@agent.test/a2a?key=xxxxx"
	)
	cases := []struct {
		name     string
		dial     func(context.Context, string, string) (net.Conn, error)
		policy   reconnect.Policy
		attempts int
		cause    error
		opErr    bool // the dial's *net.OpError is in the chain
	}{
		{"refused", (&refusingDialer{}).dial, reconnect.Policy{MaxAttempts: 2}, 2, syscall.ECONNREFUSED, true},
		{"refused, no reconnect", (&refusingDialer{}).dial, reconnect.Never(), 0, syscall.ECONNREFUSED, true},
		{"connect timeout", (&blackHole{}).dial, reconnect.Policy{MaxAttempts: 1}, 1, transport.ErrConnectTimeout, false},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			t.Run(w.String()+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					tr := &http.Transport{DialContext: tc.dial}
					defer tr.CloseIdleConnections()
					opts := []stream.Option{stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
						stream.WithConnectTimeout(time.Second), stream.WithReconnect(tc.policy)}
					var (
						c   *stream.Client
						err error
					)
					if w.b == a2a.BindingHTTPJSON {
						c, err = stream.NewRESTClient(endpoint, opts...)
					} else {
						c, err = stream.NewClient(endpoint, opts...)
					}
					require.NoError(t, err)
					_, err = drain(t, c.Send(background(), hello()))
					var re *reconnect.Error
					require.ErrorAs(t, err, &re)
					require.Equal(t, shown, re.Unreachable)
					require.Equal(t, tc.attempts, re.Attempts)
					require.ErrorIs(t, err, reconnect.ErrCouldNotConnect)
					require.NotErrorIs(t, err, reconnect.ErrNoTask, "no connection was lost")
					require.ErrorIs(t, err, tc.cause)
					if tc.opErr {
						var opErr *net.OpError
						require.ErrorAs(t, err, &opErr)
					}
					require.Contains(t, err.Error(), "could not connect to "+shown)
					require.NotContains(t, err.Error(), "connection lost")
					require.NotContains(t, err.Error(), "secret")
					require.NotContains(t, err.Error(), ":pw@")
				})
			})
		}
	}
}

func TestConnectTimeoutDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var d blackHole
		tr := &http.Transport{DialContext: d.dial}
		defer tr.CloseIdleConnections()
		start := time.Now()
		c := bindingClient(t, a2a.BindingJSONRPC, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}),
			stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Never()))
		_, err := drain(t, c.Send(background(), hello()))
		require.ErrorIs(t, err, transport.ErrConnectTimeout)
		require.Equal(t, stream.DefaultConnectTimeout, time.Since(start))
	})
}

func TestConnectTimeoutDoesNotCutASlowAnswer(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						time.Sleep(time.Minute) // the agent thinks, in the bubble's time
						ww.sse()
						ww.event(snap(a2a.StateCompleted, "done"))
					},
				})
				// A real Transport over an in-memory connection, so that
				// the connection steps are reported.
				p := &pipeServer{h: a}
				tr := &http.Transport{DialContext: p.dial}
				defer p.close()
				defer tr.CloseIdleConnections()
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
					stream.WithConnectTimeout(time.Second))
				got, err := drain(t, c.Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "done", got.text("a1"))
				require.Equal(t, 1, a.count(kindStream))
			})
		})
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

func TestReplyRefusedAtDialIsSentAgain(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				asking := snap(a2a.StateInputRequired)
				asking.Status.Message = agentMsg("q-1", "which city?")
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						ww.sse()
						if c.n == 0 {
							ww.event(asking)
							return
						}
						ww.event(snap(a2a.StateCompleted, "Paris it is"))
					},
				})
				var streams atomic.Int32
				rt := refuseOnce{next: a2atest.NewTransport(a), refuse: func(*http.Request) bool {
					return streams.Add(1) == 2 // the reply's first send
				}}
				hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text("Paris"), nil })
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: rt}), stream.WithVersion(w.v), stream.WithHumanInput(hook))
				got, err := drain(t, c.Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "Paris it is", got.text("a1"))
				ids := a.sentIDs()
				require.Len(t, ids, 2, "the message, then the reply once")
				require.Equal(t, int32(3), streams.Load(), "the reply was tried twice")
				require.Equal(t, 0, a.count(kindSubscribe), "made again at once, not found by resubscribing")
			})
		})
	}
}

func TestBusySendIsNotSentAgainByDefault(t *testing.T) {
	for _, w := range wires() {
		for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
			t.Run(w.String()+"/"+http.StatusText(status), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := busyOnce(w, status)
					_, err := drain(t, a.client(t).Send(background(), hello()))
					var httpErr *transport.HTTPError
					require.ErrorAs(t, err, &httpErr)
					require.Equal(t, status, httpErr.StatusCode)
					require.Equal(t, 1, a.count(kindStream))
				})
			})
		}
	}
}

// busyOnce is an agent that answers the first streaming send with status
// and Retry-After: 2, and the next with a completed task.
func busyOnce(w wire, status int) *wireAgent {
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, c wireCall) {
			if c.n == 0 {
				ww.w.Header().Set("Retry-After", "2")
				http.Error(ww.w, http.StatusText(status), status)
				return
			}
			ww.sse()
			ww.event(snap(a2a.StateCompleted, "done"))
		},
	})
}

func TestBusySendIsSentAgainWithIdempotentSends(t *testing.T) {
	for _, w := range wires() {
		for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
			t.Run(w.String()+"/"+http.StatusText(status), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := busyOnce(w, status)
					var ws waits
					msg := hello()
					got, err := drain(t, a.client(t, stream.WithIdempotentSends(), ws.option()).Send(background(), msg))
					require.NoError(t, err)
					require.Equal(t, "done", got.text("a1"))
					require.Equal(t, []string{msg.ID, msg.ID}, a.sentIDs(), "the same message, by its ID")
					require.Equal(t, []time.Duration{2 * time.Second}, ws.all(), "the Retry-After, longer than the backoff")
				})
			})
		}
	}
}

func TestRetryableSendErrorIsSentAgainWithIdempotentSends(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						if c.n == 0 {
							ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", retryData(w.v, 3))
							return
						}
						ww.sse()
						ww.event(snap(a2a.StateCompleted, "done"))
					},
				})
				var ws waits
				msg := hello()
				_, err := drain(t, a.client(t, stream.WithIdempotentSends(), ws.option()).Send(background(), msg))
				require.NoError(t, err)
				require.Equal(t, []string{msg.ID, msg.ID}, a.sentIDs())
				require.Equal(t, []time.Duration{3 * time.Second}, ws.all())
			})
		})
	}
}

func TestSendThatReachedTheAgentIsNeverSentAgainEvenWithIdempotentSends(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.w.WriteHeader(http.StatusBadGateway)
					},
				})
				_, err := drain(t, a.client(t, stream.WithIdempotentSends()).Send(background(), hello()))
				var httpErr *transport.HTTPError
				require.ErrorAs(t, err, &httpErr)
				require.Equal(t, http.StatusBadGateway, httpErr.StatusCode)
				require.Equal(t, 1, a.count(kindStream), "a 502 is not a busy answer")
			})
		})
	}
}

func TestSendCancelledByTheCallerDuringTheDialIsNotSentAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var d blackHole
		tr := &http.Transport{DialContext: d.dial}
		defer tr.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(background(), time.Second)
		defer cancel()
		c := bindingClient(t, a2a.BindingJSONRPC, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(a2a.V10))
		_, err := drain(t, c.Send(ctx, hello()))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.False(t, errors.Is(err, transport.ErrConnectTimeout))
		require.Equal(t, int32(1), d.n.Load())
	})
}

// One Client shared by many concurrent streams while the agent restarts,
// twice (its port refuses connections): every send that was refused is
// made again, every resubscribe refused is a failed attempt, and each
// user's message reaches the agent exactly once. And the connect timeout
// given to one call overrides the Client's.

func TestSharedClientAcrossAgentRestartsSendsEachMessageOnce(t *testing.T) {
	t.Parallel()
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
				require.ErrorIs(t, err, transport.ErrConnectTimeout)
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, 2, re.Attempts)
				require.Equal(t, int32(3), d.n.Load())
				require.Equal(t, 3*time.Second+2*backoff, time.Since(start), "three dials of 1 s, two backoffs")

				start = time.Now()
				_, err = c.GetTask(background(), "t-1", stream.WithConnectTimeout(2*time.Second))
				require.ErrorIs(t, err, transport.ErrConnectTimeout)
				require.Equal(t, 2*time.Second, time.Since(start))

				start = time.Now()
				_, err = c.GetTask(background(), "t-1")
				require.ErrorIs(t, err, transport.ErrConnectTimeout)
				require.Equal(t, time.Minute, time.Since(start), "the Client's own, for a call without one")
			})
		})
	}
}
