package stream_test

// The hostile-server catalogue: servers that misbehave on purpose. Every case
// ends in a precise typed error or in a correct resume (the application's
// artifacts equal the server's), with memory bounded by the configured limits.
// Big and endless bodies are streamed by the handler from an io.Reader and
// the bytes it managed to write before the client hung up are counted: the
// a2atest transport is an unbuffered pipe, so that count is what the client
// read.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// repeatByte is an endless reader of one byte value.
type repeatByte byte

func (r repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// pour copies src into w until src ends or the client goes away, and adds
// the bytes w accepted to n.
func pour(w io.Writer, src io.Reader, n *atomic.Int64) {
	buf := make([]byte, 32<<10)
	for {
		k, rerr := src.Read(buf)
		if k > 0 {
			m, werr := w.Write(buf[:k])
			n.Add(int64(m))
			if werr != nil {
				return
			}
		}
		if rerr != nil {
			return
		}
	}
}

// cutHere aborts the response: the client sees a dropped connection.
func cutHere() { panic(http.ErrAbortHandler) }

// firstLegThenCut is the first leg of most hand-written scenarios: the task
// and one chunk ("kept"), then a dropped connection.
func firstLegThenCut(w http.ResponseWriter, id json.RawMessage, v a2a.Version) {
	sseHeaders(w)
	sseEvent(w, id, v, firstTask)
	sseEvent(w, id, v, firstChunk)
	cutHere()
}

// jsonRPCError answers with a plain JSON-RPC error, HTTP 200.
func jsonRPCError(w http.ResponseWriter, id json.RawMessage, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, msg)
}

// unaryTask answers a get-task with t.
func unaryTask(w http.ResponseWriter, id json.RawMessage, v a2a.Version, t *a2a.Task) {
	raw, err := a2a.Codec{Version: v}.EncodeTask(t)
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, raw)
}

// reconnects records the Reconnecting and Resumed notices, with the fake
// time each came at.
type reconnects struct {
	causes  []error
	waits   []time.Duration
	at      []time.Time
	resumed []time.Time
}

func (r *reconnects) option() stream.Option {
	return stream.WithNotify(func(n stream.Notice) {
		switch n.Kind {
		case stream.Reconnecting:
			r.causes = append(r.causes, n.Cause)
			r.waits = append(r.waits, n.Wait)
			r.at = append(r.at, time.Now())
		case stream.Resumed:
			r.resumed = append(r.resumed, time.Now())
		}
	})
}

func requireProtocolError(t *testing.T, err error, reason string) *stream.ProtocolError {
	t.Helper()
	var pe *stream.ProtocolError
	require.ErrorAs(t, err, &pe, "got %T: %v", err, err)
	require.Contains(t, pe.Reason, reason)
	var re *reconnect.Error
	require.False(t, errors.As(err, &re), "a protocol error is never retried")
	return pe
}

// requireKept checks that a protocol error carries the task as last known.
func requireKept(t *testing.T, pe *stream.ProtocolError) {
	t.Helper()
	require.NotNil(t, pe.Task, "the last task is carried")
	require.Equal(t, "t-1", pe.Task.ID)
	require.Equal(t, "kept", pe.Task.Artifact("a1").Text())
}

const htmlPage = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1>"

func TestHostileHTMLBadGatewayOnSend(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				page := htmlPage + strings.Repeat("<p>upstream unreachable</p>", 400) + "</body></html>"
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.HTTPStatus(502, page)))
				s := newClient(t, agent, v).Send(background(), hello())
				_, err := drain(t, s)
				var he *stream.HTTPError
				require.ErrorAs(t, err, &he)
				require.Equal(t, 502, he.StatusCode)
				require.Equal(t, []byte(page[:4096]), he.Body, "the first 4 KiB of the page are kept")
				method := map[a2a.Version]string{a2a.V03: "message/stream", a2a.V10: "SendStreamingMessage"}[v]
				require.Equal(t, "stream: HTTP 502 Bad Gateway from POST http://agent.test/ ("+method+")", err.Error(),
					"the request is named, the page is not part of the text")
				require.Equal(t, 1, sends(agent), "a send is never retried")
				require.Len(t, agent.Requests(), 1)
				require.Nil(t, s.Task())

				// An endless error page: the client reads 4 KiB of it and hangs up.
				var written atomic.Int64
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					w.WriteHeader(http.StatusBadGateway)
					pour(w, io.MultiReader(strings.NewReader(htmlPage), repeatByte('x')), &written)
				})
				_, err = drain(t, hostileClient(t, h, v).Send(background(), hello()))
				require.ErrorAs(t, err, &he)
				require.Equal(t, 502, he.StatusCode)
				require.Len(t, he.Body, 4096)
				require.Equal(t, int64(4096), written.Load(), "not a byte more than the 4 KiB kept was read")
			})
		})
	}
}

func TestHostileHTMLBadGatewayOnResubscribe(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(3), a2atest.HTTPStatus(502, htmlPage+"</body></html>")))
				var rec reconnects
				s := newClient(t, agent, v, rec.option()).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Len(t, rec.causes, 2, "the drop, then the failed attempt")
				require.ErrorIs(t, rec.causes[0], io.ErrUnexpectedEOF)
				var he *stream.HTTPError
				require.ErrorAs(t, rec.causes[1], &he)
				require.Equal(t, 502, he.StatusCode)
				require.Len(t, rec.resumed, 1)
				require.Equal(t, 500*time.Millisecond, rec.resumed[0].Sub(rec.at[1]), "one backoff after the 502")
				require.Equal(t, 1, sends(agent))
				require.Equal(t, 2, resubscribes(agent))
			})
		})
	}
}

func TestHostileContentType(t *testing.T) {
	types := []struct {
		name, ct, body string
	}{
		{"text/html", "text/html; charset=utf-8", "<html><body>hello</body></html>"},
		{"application/xml", "application/xml", `<?xml version="1.0"?><error>no</error>`},
		{"sniffed html", "", "<html><body>no content type</body></html>"},
		{"octet-stream", "application/octet-stream", "\x00\x01\x02"},
	}
	answer := func(w http.ResponseWriter, ct, body string) {
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(200)
		fmt.Fprint(w, body)
	}
	for _, v := range versions {
		for _, c := range types {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					// On the send: no task yet.
					calls := 0
					h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
						calls++
						answer(w, c.ct, c.body)
					})
					s := hostileClient(t, h, v).Send(background(), hello())
					_, err := drain(t, s)
					pe := requireProtocolError(t, err, "unexpected content type")
					require.Nil(t, pe.Task)
					require.Equal(t, 1, calls)

					// On the resubscribe: the last task is carried, and the
					// resubscribe is not tried again.
					calls = 0
					h = rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
						calls++
						if n == 1 {
							firstLegThenCut(w, id, v)
						}
						answer(w, c.ct, c.body)
					})
					_, err = drain(t, hostileClient(t, h, v).Send(background(), hello()))
					requireKept(t, requireProtocolError(t, err, "unexpected content type"))
					require.Equal(t, 2, calls)

					// On the get-task that follows a refused resubscribe.
					calls = 0
					h = rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
						calls++
						switch n {
						case 1:
							firstLegThenCut(w, id, v)
						case 2:
							jsonRPCError(w, id, a2a.CodeTaskNotFound, "task not found")
						default:
							answer(w, c.ct, c.body)
						}
					})
					_, err = drain(t, hostileClient(t, h, v).Send(background(), hello()))
					requireKept(t, requireProtocolError(t, err, "unexpected content type"))
					require.Equal(t, 3, calls)
				})
			})
		}
	}
}

const hundredMB = 100 << 20

// heapGrowth runs f and returns how many bytes it allocated on the heap. The
// package's tests do not run in parallel, so the count is f's own give or
// take the runtime's noise.
func heapGrowth(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestHostileHundredMegabyteLine(t *testing.T) {
	const limit = 1 << 20
	// slack is what may be in flight beyond the limit: the decoder's 64 KiB
	// read buffer and one 32 KiB write of the handler.
	const slack = 96 << 10
	for _, v := range versions {
		for _, afterTask := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/after task %v", v, afterTask), func(t *testing.T) {
				var written atomic.Int64
				var err error
				calls := 0
				alloc := heapGrowth(func() {
					synctest.Test(t, func(t *testing.T) {
						h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
							calls++
							sseHeaders(w)
							if afterTask {
								sseEvent(w, id, v, firstTask)
								sseEvent(w, id, v, firstChunk)
							}
							fmt.Fprint(w, "data: ")
							pour(w, io.LimitReader(repeatByte('x'), hundredMB), &written)
							fmt.Fprint(w, "\n\n")
						})
						_, err = drain(t, hostileClient(t, h, v, stream.WithMaxEventSize(limit)).Send(background(), hello()))
					})
				})
				pe := requireProtocolError(t, err, "event too large")
				if afterTask {
					requireKept(t, pe)
				} else {
					require.Nil(t, pe.Task)
				}
				require.Equal(t, 1, calls)
				t.Logf("the handler wrote %d bytes of 100 MiB; the test allocated %d bytes", written.Load(), alloc)
				require.Less(t, written.Load(), int64(limit+slack), "the client read at most the limit before giving up")
				require.Less(t, alloc, uint64(16*limit), "the client buffered no more than the limit")
			})
		}
		t.Run(string(v)+"/default limit", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var written atomic.Int64
				h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					sseHeaders(w)
					fmt.Fprint(w, "data: ")
					pour(w, io.LimitReader(repeatByte('x'), hundredMB), &written)
				})
				_, err := drain(t, hostileClient(t, h, v).Send(background(), hello()))
				requireProtocolError(t, err, "event too large")
				require.Less(t, written.Load(), int64(stream.DefaultMaxEventSize+slack))
				require.Greater(t, written.Load(), int64(stream.DefaultMaxEventSize-len("data: ")), "the limit, not less, is what stopped it")
			})
		})
		t.Run(string(v)+"/single JSON answer", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// A 100 MB application/json body standing in for the stream,
				// and one answering the get-task.
				var written atomic.Int64
				huge := func(w http.ResponseWriter, id json.RawMessage) {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"message","x":"`, id)
					pour(w, io.LimitReader(repeatByte('x'), hundredMB), &written)
				}
				h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) { huge(w, id) })
				_, err := drain(t, hostileClient(t, h, v, stream.WithMaxEventSize(limit)).Send(background(), hello()))
				requireProtocolError(t, err, "event too large")
				require.Less(t, written.Load(), int64(limit+slack))

				written.Store(0)
				h = rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					switch n {
					case 1:
						firstLegThenCut(w, id, v)
					case 2:
						jsonRPCError(w, id, a2a.CodeTaskNotFound, "task not found")
					default:
						huge(w, id)
					}
				})
				_, err = drain(t, hostileClient(t, h, v, stream.WithMaxEventSize(limit)).Send(background(), hello()))
				requireKept(t, requireProtocolError(t, err, "response too large"))
				require.Less(t, written.Load(), int64(limit+slack))
			})
		})
	}
}

func TestHostileEndlessLine(t *testing.T) {
	const limit = 64 << 10
	const slack = 96 << 10
	// Each line starts a different kind of SSE line and never ends.
	starts := map[string]string{
		"data":       "data: ",
		"comment":    ": keep-alive",
		"field name": "xxxx",
		"event":      "event: ",
		"id":         "id: ",
		"retry":      "retry: 9",
	}
	for _, v := range versions {
		for name, start := range starts {
			t.Run(string(v)+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var written atomic.Int64
					fill := byte('x')
					if name == "retry" {
						fill = '9'
					}
					h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
						sseHeaders(w)
						sseEvent(w, id, v, firstTask)
						sseEvent(w, id, v, firstChunk)
						fmt.Fprint(w, start)
						pour(w, repeatByte(fill), &written)
					})
					_, err := drain(t, hostileClient(t, h, v, stream.WithMaxEventSize(limit)).Send(background(), hello()))
					requireKept(t, requireProtocolError(t, err, "event too large"))
					require.Less(t, written.Load(), int64(limit+slack))
				})
			})
		}
	}
}

// withRawBytes marshals ev as a stream result and then swaps each
// placeholder for raw bytes that may not be valid UTF-8 or valid JSON
// strings.
func withRawBytes(v a2a.Version, ev a2a.Event, swaps ...string) []byte {
	raw, err := a2a.Codec{Version: v}.EncodeEvent(ev)
	if err != nil {
		panic(err)
	}
	for i := 0; i < len(swaps); i += 2 {
		raw = bytes.ReplaceAll(raw, []byte(swaps[i]), []byte(swaps[i+1]))
	}
	return raw
}

func rawEvent(w http.ResponseWriter, id json.RawMessage, raw []byte) {
	fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, raw)
}

func TestHostileInvalidUTF8(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The task ID, an artifact's text, a message and the final
				// status message carry bytes that are not UTF-8.
				bad := []string{"T-ID", "t-\xff", "TEXT1", "caf\xe9 ", "TEXT2", "\xff\xfeok", "SAID", "\xc3(", "DONE", "bye\x80"}
				task := &a2a.Task{ID: "T-ID", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}}
				chunk1 := &a2a.ArtifactUpdate{TaskID: "T-ID", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: "TEXT1"}}}}
				chunk2 := &a2a.ArtifactUpdate{TaskID: "T-ID", Append: true, LastChunk: true, Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: "TEXT2"}}}}
				said := &a2a.Message{ID: "m-1", TaskID: "T-ID", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "SAID"}}}
				done := &a2a.StatusUpdate{TaskID: "T-ID", Final: true, Status: a2a.TaskStatus{State: a2a.StateCompleted,
					Message: &a2a.Message{ID: "m-2", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "DONE"}}}}}
				var raws [][]byte
				for _, ev := range []a2a.Event{task, chunk1, chunk2, said, done} {
					raw := withRawBytes(v, ev, bad...)
					require.False(t, utf8.Valid(raw), "the wire holds invalid UTF-8")
					raws = append(raws, raw)
				}
				h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					sseHeaders(w)
					for _, raw := range raws {
						rawEvent(w, id, raw)
					}
				})
				s := hostileClient(t, h, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				// encoding/json turns each invalid byte into U+FFFD.
				require.Equal(t, "t-\uFFFD", s.Task().ID)
				require.Equal(t, "caf\uFFFD \uFFFD\uFFFDok", got.text("a1"))
				require.Equal(t, "caf\uFFFD \uFFFD\uFFFDok", s.Task().Artifact("a1").Text())
				var texts []string
				for _, ev := range got.events {
					if m, ok := ev.(*a2a.Message); ok {
						texts = append(texts, m.Text())
					}
				}
				require.Equal(t, []string{"\uFFFD("}, texts)
				require.Equal(t, "bye\uFFFD", s.Task().Status.Message.Text())
			})
		})
	}
}

// nested returns depth nested JSON arrays around a 1.
func nested(depth int) string {
	return strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
}

func TestHostileDeeplyNestedJSON(t *testing.T) {
	deep := func(v a2a.Version, depth int) []byte {
		ev := &a2a.ArtifactUpdate{TaskID: "t-1", Artifact: a2a.Artifact{ID: "a2",
			Parts: []a2a.Part{{Text: "deep"}}, Metadata: map[string]any{"deep": "DEEP"}}}
		return withRawBytes(v, ev, `"DEEP"`, nested(depth))
	}
	for _, v := range versions {
		// 20k levels are decoded as a small event, 100k as a big one.
		for _, depth := range []int{20_000, 100_000} {
			t.Run(fmt.Sprintf("%s/%d levels", v, depth), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
						sseHeaders(w)
						sseEvent(w, id, v, firstTask)
						sseEvent(w, id, v, firstChunk)
						rawEvent(w, id, deep(v, depth))
					})
					got, err := drain(t, hostileClient(t, h, v).Send(background(), hello()))
					pe := requireProtocolError(t, err, "malformed JSON-RPC response")
					requireKept(t, pe)
					require.Contains(t, pe.Error(), "exceeded max depth")
					require.Empty(t, got.text("a2"))
				})
			})
		}
		t.Run(string(v)+"/9000 levels", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// Just under encoding/json's limit of 10,000: accepted, and
				// cloned and compared without trouble.
				h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					sseHeaders(w)
					sseEvent(w, id, v, firstTask)
					sseEvent(w, id, v, firstChunk)
					rawEvent(w, id, deep(v, 9000))
					sseEvent(w, id, v, &a2a.StatusUpdate{TaskID: "t-1", Final: true, Status: a2a.TaskStatus{State: a2a.StateCompleted}})
				})
				s := hostileClient(t, h, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, "kept", got.text("a1"))
				require.Equal(t, "deep", got.text("a2"))
				levels := 0
				for x := s.Task().Artifact("a2").Metadata["deep"]; ; levels++ {
					arr, ok := x.([]any)
					if !ok {
						require.Equal(t, float64(1), x)
						break
					}
					require.Len(t, arr, 1)
					x = arr[0]
				}
				require.Equal(t, 9000, levels)
			})
		})
	}
}

func TestHostileEventForAnotherTask(t *testing.T) {
	other := []a2a.Event{
		&a2a.StatusUpdate{TaskID: "t-other", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted}},
		&a2a.ArtifactUpdate{TaskID: "t-other", ContextID: "c-1", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: "not yours"}}}},
		&a2a.Message{ID: "m-x", TaskID: "t-other", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "not yours"}}},
	}
	for _, v := range versions {
		for _, ev := range other {
			for _, onResubscribe := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%T/resubscribe %v", v, ev, onResubscribe), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						calls := 0
						h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
							calls++
							if onResubscribe && n == 1 {
								firstLegThenCut(w, id, v)
							}
							sseHeaders(w)
							if !onResubscribe {
								sseEvent(w, id, v, firstTask)
								sseEvent(w, id, v, firstChunk)
							}
							sseEvent(w, id, v, ev)
						})
						s := hostileClient(t, h, v).Send(background(), hello())
						got, err := drain(t, s)
						pe := requireProtocolError(t, err, `event for task "t-other" on the stream of task "t-1"`)
						requireKept(t, pe)
						require.Equal(t, "kept", got.text("a1"), "nothing of the other task reached the application")
						require.Equal(t, []a2a.TaskState{a2a.StateWorking}, got.states)
						if onResubscribe {
							require.Equal(t, 2, calls)
						} else {
							require.Equal(t, 1, calls)
						}
					})
				})
			}
		}
	}
}

func TestHostileMismatchedResponseID(t *testing.T) {
	wrongIDs := []string{`"someone-else"`, `1`, `{"id":"x"}`}
	for _, v := range versions {
		for _, wrong := range wrongIDs {
			t.Run(string(v)+"/"+wrong, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					wid := json.RawMessage(wrong)
					// The first event of the send, as a stream and as a single
					// JSON answer; a JSON-RPC error with another ID is not
					// taken for ours either.
					answers := []func(w http.ResponseWriter){
						func(w http.ResponseWriter) { sseHeaders(w); sseEvent(w, wid, v, firstTask) },
						func(w http.ResponseWriter) {
							raw, _ := a2a.Codec{Version: v}.EncodeEvent(firstTask)
							w.Header().Set("Content-Type", "application/json")
							fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, wid, raw)
						},
						func(w http.ResponseWriter) { jsonRPCError(w, wid, a2a.CodeInternalError, "boom") },
						func(w http.ResponseWriter) {
							sseHeaders(w)
							fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32603,\"message\":\"boom\"}}\n\n", wid)
						},
					}
					for i, answer := range answers {
						h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) { answer(w) })
						_, err := drain(t, hostileClient(t, h, v).Send(background(), hello()))
						pe := requireProtocolError(t, err, "does not match request ID")
						require.Nil(t, pe.Task, "answer %d", i)
						var rpcErr *a2a.RPCError
						require.False(t, errors.As(err, &rpcErr), "answer %d: someone else's error is not ours", i)
					}

					// The resubscribe, and the get-task after a refusal.
					for _, getTask := range []bool{false, true} {
						calls := 0
						h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
							calls++
							switch {
							case n == 1:
								firstLegThenCut(w, id, v)
							case !getTask:
								sseHeaders(w)
								sseEvent(w, wid, v, firstChunk)
							case n == 2:
								jsonRPCError(w, id, a2a.CodeTaskNotFound, "task not found")
							default:
								unaryTask(w, wid, v, firstTask)
							}
						})
						_, err := drain(t, hostileClient(t, h, v).Send(background(), hello()))
						requireKept(t, requireProtocolError(t, err, "does not match request ID"))
						if getTask {
							require.Equal(t, 3, calls)
						} else {
							require.Equal(t, 2, calls)
						}
					}
				})
			})
		}
	}
}

// silentAfter serves agent, but the first streaming request goes silent
// after n events: the connection stays open and nothing more arrives.
func silentAfter(agent *a2atest.Agent, n int) http.Handler {
	var calls atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w = &silencer{ResponseWriter: w, left: n, done: r.Context().Done()}
		}
		agent.ServeHTTP(w, r)
	})
}

type silencer struct {
	http.ResponseWriter
	left int
	done <-chan struct{}
}

func (s *silencer) Write(p []byte) (int, error) {
	if s.left <= 0 {
		<-s.done
		return 0, io.ErrClosedPipe
	}
	n, err := s.ResponseWriter.Write(p)
	s.left -= bytes.Count(p[:n], []byte("\n\n"))
	return n, err
}

func (s *silencer) Flush() { s.ResponseWriter.(http.Flusher).Flush() }

func TestHostileSilentSocket(t *testing.T) {
	for _, v := range versions {
		for _, style := range styles {
			t.Run(string(v)+"/"+style.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					// The send goes silent after the task, working and "one "
					// (at 100 ms). With a 250 ms idle timeout and a 50 ms
					// backoff the stream is back at 400 ms, while the agent is
					// still producing.
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(style), a2atest.WithScript(paced()...))
					var rec reconnects
					start := time.Now()
					s := hostileClient(t, silentAfter(agent, 3), v, rec.option(), stream.WithIdleTimeout(250*time.Millisecond),
						stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 50 * time.Millisecond})).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					requireSameAsServer(t, agent, s, got)
					require.Len(t, rec.causes, 1)
					require.ErrorIs(t, rec.causes[0], stream.ErrIdleTimeout)
					require.Equal(t, 350*time.Millisecond, rec.at[0].Sub(start), "dropped one idle timeout after the last byte")
					require.Equal(t, 1, sends(agent))
					require.Equal(t, 1, resubscribes(agent))
				})
			})
		}
	}
}

func TestHostileEarlyFIN(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v)+"/send", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// 200 text/event-stream, then a clean EOF before any event.
				calls := 0
				h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					calls++
					sseHeaders(w)
				})
				s := hostileClient(t, h, v).Send(background(), hello())
				_, err := drain(t, s)
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, 0, re.Attempts)
				require.Nil(t, re.Task)
				require.ErrorIs(t, err, stream.ErrEndedEarly)
				require.Nil(t, s.Task())
				require.Equal(t, 1, calls, "the message is never sent twice")
			})
		})
		t.Run(string(v)+"/resubscribe", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The task still runs when the stream comes back, so the
				// resubscribe is answered as a stream: 200, headers, EOF.
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(3), a2atest.CloseAfterEvents(0)))
				var rec reconnects
				s := newClient(t, agent, v, rec.option(),
					stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 50 * time.Millisecond})).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Len(t, rec.causes, 2, "the drop, then the empty resubscribe as a failed attempt")
				require.ErrorIs(t, rec.causes[1], stream.ErrEndedEarly)
				require.Equal(t, 2, resubscribes(agent))
				require.Equal(t, 1, sends(agent))
			})
		})
	}
}

// countingTransport counts the response body bytes the client read.
type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

func TestHostileSlowDrip(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// One byte a second, for minutes of fake time, against a
				// 1.5 s idle timeout: slow but alive.
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.Drip(time.Second)))
				ct := &countingTransport{next: a2atest.NewTransport(agent)}
				start := time.Now()
				s := newClient(t, agent, v, stream.WithHTTPClient(&http.Client{Transport: ct}),
					stream.WithIdleTimeout(1500*time.Millisecond)).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, "hello world", got.text("a1"))
				require.Equal(t, 0, resubscribes(agent))
				n := ct.n.Load()
				require.Greater(t, n, int64(100))
				require.Equal(t, time.Duration(n-1)*time.Second, time.Since(start), "one second per byte after the first")
			})
		})
	}
}

// TestHostileSlowDripOnGetTask drips the get-task answers too: the idle
// timeout must treat them as alive, as it does the streams.
func TestHostileSlowDripOnGetTask(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				drip := a2atest.Drip(time.Second)
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithScript(paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(pacedEvents-1)),
					a2atest.WithGetFaults(drip, drip, drip, drip, drip))
				c := newClient(t, agent, v, stream.WithIdleTimeout(1500*time.Millisecond))
				s := c.Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err, "a get-task that drips one byte a second is alive")
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, 1, gets(agent))

				task, err := c.GetTask(background(), s.Task().ID)
				require.NoError(t, err)
				require.Equal(t, a2a.StateCompleted, task.Status.State)
			})
		})
	}
}

func TestHostileResubscribeAnswersAnotherTask(t *testing.T) {
	stranger := &a2a.Task{ID: "t-2", ContextID: "c-9", Status: a2a.TaskStatus{State: a2a.StateCompleted},
		Artifacts: []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{{Text: "someone else's"}}}}}
	for _, v := range versions {
		t.Run(string(v)+"/snapshot", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					calls++
					if n == 1 {
						firstLegThenCut(w, id, v)
					}
					sseHeaders(w)
					sseEvent(w, id, v, stranger)
				})
				got, err := drain(t, hostileClient(t, h, v).Send(background(), hello()))
				requireKept(t, requireProtocolError(t, err, `event for task "t-2" on the stream of task "t-1"`))
				require.Equal(t, "kept", got.text("a1"))
				require.Equal(t, 2, calls, "not retried")
			})
		})
		t.Run(string(v)+"/get-task", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					calls++
					switch n {
					case 1:
						firstLegThenCut(w, id, v)
					case 2:
						jsonRPCError(w, id, a2a.CodeTaskNotFound, "task not found")
					default:
						unaryTask(w, id, v, stranger)
					}
				})
				got, err := drain(t, hostileClient(t, h, v).Send(background(), hello()))
				requireKept(t, requireProtocolError(t, err, `asked for task "t-1", got task "t-2"`))
				require.Equal(t, "kept", got.text("a1"))
				require.Equal(t, 3, calls, "not retried")
			})
		})
	}
}

func TestHostileRetryAfter(t *testing.T) {
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
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...),
						a2atest.WithFaults(a2atest.CutAfterEvents(3),
							a2atest.HTTPStatusWithHeader(c.code, "busy", http.Header{"Retry-After": {c.header}})))
					var rec reconnects
					s := newClient(t, agent, v, rec.option()).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					requireSameAsServer(t, agent, s, got)
					require.Len(t, rec.waits, 2)
					want := c.want(rec.at[1])
					require.Equal(t, []time.Duration{500 * time.Millisecond, want}, rec.waits)
					require.Len(t, rec.resumed, 1)
					require.Equal(t, want, rec.resumed[0].Sub(rec.at[1]), "the stream really waited that long")
					var he *stream.HTTPError
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
				var he *stream.HTTPError
				require.ErrorAs(t, err, &he, "a send is never retried, whatever the server asks")
				d, ok := he.RetryAfter()
				require.True(t, ok)
				require.Equal(t, 7*time.Second, d)
				require.Equal(t, 1, sends(agent))
			})
		})
	}
}
