package stream_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// Servers that answer with what is not A2A: HTML pages, wrong content types,
// bodies that are not JSON, too deep or too big, responses to another request.
// Every case ends in a precise typed error or in a correct resume, with memory
// bounded by the configured limits. Big and endless bodies are streamed by the
// handler from an io.Reader and the bytes it managed to write before the
// client hung up are counted: the a2atest transport is an unbuffered pipe, so
// that count is what the client read.

// A poll answered 200 with a body that is not a task is a
// *transport.ProtocolError carrying the last task; the send is not sent again,
// and the client reads no more of the answer than its limits allow. The rows:
//   - an HTML page (a captive portal, a proxy's error page served as 200):
//     README: "wrong content type";
//   - truncated JSON in a complete response (the server's bug, not the
//     network's);
//   - an endless body: README: "oversized event"; the client stops reading
//     near the limit.
func TestPollAnsweredWithABodyThatIsNotATaskIsAProtocolError(t *testing.T) {
	rows := []struct {
		name string
		opts []stream.Option
		// answer writes the poll's answer and adds to written the bytes of
		// the body the client took.
		answer func(w http.ResponseWriter, written *int64)
	}{
		{"HTML", nil, func(w http.ResponseWriter, written *int64) {
			w.Header().Set("Content-Type", "text/html")
			n, _ := io.WriteString(w, htmlPage)
			*written += int64(n)
		}},
		{"truncated JSON", nil, func(w http.ResponseWriter, written *int64) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "20")
			n, _ := io.WriteString(w, `{"id":"t-1","status"`)
			*written += int64(n)
		}},
		{"endless body", []stream.Option{stream.WithMaxEventSize(1 << 20)}, func(w http.ResponseWriter, written *int64) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"t-1","contextId":"c-1","metadata":{"x":"`)
			buf := make([]byte, 32<<10)
			for i := range buf {
				buf[i] = 'a'
			}
			for *written < 100<<20 {
				n, err := w.Write(buf)
				*written += int64(n)
				if err != nil {
					return
				}
			}
		}},
	}
	for _, r := range rows {
		for _, v := range versions {
			t.Run(r.name+"/"+string(v), func(t *testing.T) {
				var written int64
				synctest.Test(t, func(t *testing.T) {
					srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
						func(w http.ResponseWriter, _ *restServer) { r.answer(w, &written) })
					_, err := drain(t, restClient(t, srv, v, r.opts...).Send(background(), hello()))
					pe := requireProtocolError(t, err, "")
					requireKept(t, pe)
					require.Equal(t, 1, srv.count("send"))
				})
				require.Less(t, written, int64(4<<20), "the client stopped reading at the answer's end or near the 1 MiB limit")
			})
		}
	}
}

// A poll answered 204 No Content, then the task: an empty answer is not a
// task. Whatever it is taken for, the stream must not end in nil with a
// task that is not done, and must not take it for the end of the task.
func TestPollAnsweredWith204IsNotTheTask(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
					func(w http.ResponseWriter, _ *restServer) { w.WriteHeader(http.StatusNoContent) },
					answer(snap(a2a.StateCompleted, "kept", "!")))
				s := restClient(t, srv, v).Send(background(), hello())
				got, err := drain(t, s)
				if err == nil {
					require.Equal(t, "kept!", got.text("a1"))
					require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
					return
				}
				var pe *transport.ProtocolError
				var he *transport.HTTPError
				require.True(t, errors.As(err, &pe) || errors.As(err, &he), "a typed error: %T %v", err, err)
			})
		})
	}
}

// A poll answered with a Message instead of a Task: not the task; the
// stream must end in a typed error, not in nil and not in a silent stall.
func TestPollAnsweredWithAMessageIsNotTheTask(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
					func(w http.ResponseWriter, s *restServer) {
						raw, err := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}.EncodeEvent(agentMsg("x", "hello"))
						require.NoError(t, err)
						w.Header().Set("Content-Type", "application/json")
						w.Write(raw)
					})
				start := time.Now()
				_, err := drain(t, restClient(t, srv, v, stream.WithStallTimeout(time.Hour)).Send(background(), hello()))
				require.Error(t, err)
				var pe *transport.ProtocolError
				require.ErrorAs(t, err, &pe, "%T %v after %v", err, err, time.Since(start))
			})
		})
	}
}

// An HTML 502 page answering the send is a *transport.HTTPError keeping the
// page's first 4 KiB (and reading no more of an endless one); a send is never
// retried.
func TestHTMLBadGatewayOnSendIsAnHTTPError(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				page := htmlPage + strings.Repeat("<p>upstream unreachable</p>", 400) + "</body></html>"
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.HTTPStatus(502, page)))
				s := newClient(t, agent, v).Send(background(), hello())
				_, err := drain(t, s)
				var he *transport.HTTPError
				require.ErrorAs(t, err, &he)
				require.Equal(t, 502, he.StatusCode)
				require.Equal(t, []byte(page[:4096]), he.Body, "the first 4 KiB of the page are kept")
				method := map[a2a.Version]string{a2a.V03: "message/stream", a2a.V10: "SendStreamingMessage"}[v]
				require.Equal(t, "stream: HTTP 502 Bad Gateway from POST http://agent.test/ ("+method+")", err.Error(),
					"the request is named, the page is not part of the text")
				require.Equal(t, 1, wirematrix.Sends(agent), "a send is never retried")
				require.Len(t, agent.Requests(), 1)
				require.Nil(t, s.Task())

				// An endless error page: the client reads 4 KiB of it and hangs up.
				var written atomic.Int64
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					w.WriteHeader(http.StatusBadGateway)
					pour(w, io.MultiReader(strings.NewReader(htmlPage), repeatByte('x')), &written)
				})
				_, err = drain(t, newClient(t, h, v).Send(background(), hello()))
				require.ErrorAs(t, err, &he)
				require.Equal(t, 502, he.StatusCode)
				require.Len(t, he.Body, 4096)
				require.Equal(t, int64(4096), written.Load(), "not a byte more than the 4 KiB kept was read")
			})
		})
	}
}

// An HTML 502 page answering a resubscribe is a failed attempt: one backoff,
// then the stream resumes and completes.
func TestHTMLBadGatewayOnResubscribeIsAFailedAttempt(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(3), a2atest.HTTPStatus(502, htmlPage+"</body></html>")))
				var rec reconnects
				s := newClient(t, agent, v, rec.option()).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Len(t, rec.causes, 2, "the drop, then the failed attempt")
				require.ErrorIs(t, rec.causes[0], io.ErrUnexpectedEOF)
				var he *transport.HTTPError
				require.ErrorAs(t, rec.causes[1], &he)
				require.Equal(t, 502, he.StatusCode)
				require.Len(t, rec.resumed, 1)
				require.Equal(t, 500*time.Millisecond, rec.resumed[0].Sub(rec.at[1]), "one backoff after the 502")
				require.Equal(t, 1, wirematrix.Sends(agent))
				require.Equal(t, 2, wirematrix.Resubscribes(agent))
			})
		})
	}
}

// A body that is not text/event-stream or JSON (HTML, XML, a sniffed page) is
// a *transport.ProtocolError, on the send, the resubscribe and the get-task, and
// is not tried again.
func TestWrongContentTypeIsAProtocolError(t *testing.T) {
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
					s := newClient(t, h, v).Send(background(), hello())
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
					_, err = drain(t, newClient(t, h, v).Send(background(), hello()))
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
					_, err = drain(t, newClient(t, h, v).Send(background(), hello()))
					requireKept(t, requireProtocolError(t, err, "unexpected content type"))
					require.Equal(t, 3, calls)
				})
			})
		}
	}
}

// Bytes that are not UTF-8 in IDs, texts and messages are read as U+FFFD,
// as encoding/json does, and the stream completes.
func TestInvalidUTF8IsReadAsReplacementCharacters(t *testing.T) {
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
				s := newClient(t, h, v).Send(background(), hello())
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

// JSON nested deeper than the decoder's limit is a *transport.ProtocolError
// that keeps what was delivered; nesting within the limit is read whole.
func TestDeeplyNestedJSONIsReadUpToTheDecodersDepth(t *testing.T) {
	t.Parallel()
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
					got, err := drain(t, newClient(t, h, v).Send(background(), hello()))
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
				s := newClient(t, h, v).Send(background(), hello())
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

// A JSON-RPC response whose id is not the request's (on the send, the
// resubscribe or the get-task) is a *transport.ProtocolError, even when it is an
// error: someone else's error is not ours.
func TestMismatchedJSONRPCResponseIDIsAProtocolError(t *testing.T) {
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
						_, err := drain(t, newClient(t, h, v).Send(background(), hello()))
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
						_, err := drain(t, newClient(t, h, v).Send(background(), hello()))
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

const htmlPage = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1>"

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

// nested returns depth nested JSON arrays around a 1.
func nested(depth int) string {
	return strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
}

// Send with a message that continues task t-1; the server streams another
// task. The README: an event for another task is a *ProtocolError.
func TestSendContinuingATaskAnsweredWithAnotherTaskIsAProtocolError(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					sseHeaders(w)
					sseEvent(w, r.id, v, &a2a.Task{ID: "t-other", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}})
					sseEvent(w, r.id, v, &a2a.StatusUpdate{TaskID: "t-other", ContextID: "c-1", Final: v == a2a.V03,
						Status: a2a.TaskStatus{State: a2a.StateCompleted}})
				})
				reply := &a2a.Message{ID: "m-reply", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleUser, Parts: textParts("Oct")}
				s := newClient(t, srv, v).Send(bounded(t), reply)
				_, err := drain(t, s)
				requireProtocolError(t, err, "")
			})
		})
	}
}

// Context IDs: an event in a context other than the task's is a
// *transport.ProtocolError; events without a context ID are the task's.
func TestEventsInAnotherContextAreAProtocolError(t *testing.T) {
	noCtxTask := &a2a.Task{ID: "t-1", Status: a2a.TaskStatus{State: a2a.StateWorking}}
	cases := []struct {
		name    string
		events  []a2a.Event
		wantErr bool
	}{
		{"task without context, events in c-1, then c-2", []a2a.Event{
			noCtxTask,
			&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking, Message: agentMessage("m-1", "x")}},
			&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-2", Artifact: a2a.Artifact{ID: "a1", Parts: textParts("y")}},
		}, true},
		{"events without context IDs", []a2a.Event{
			firstTask,
			&a2a.ArtifactUpdate{TaskID: "t-1", Artifact: a2a.Artifact{ID: "a1", Parts: textParts("y")}},
			&a2a.StatusUpdate{TaskID: "t-1", Final: true, Status: a2a.TaskStatus{State: a2a.StateCompleted}},
		}, false},
		{"message in another context", []a2a.Event{
			firstTask,
			&a2a.Message{ID: "m-x", TaskID: "t-1", ContextID: "c-9", Role: a2a.RoleAgent, Parts: textParts("z")},
		}, true},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
						if r.n != 1 {
							jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
							return
						}
						sseHeaders(w)
						for _, ev := range c.events {
							sseEvent(w, r.id, v, ev)
						}
					})
					s := newClient(t, srv, v).Send(bounded(t), hello())
					_, err := drain(t, s)
					if c.wantErr {
						requireProtocolError(t, err, "context")
						return
					}
					require.NoError(t, err)
					require.Equal(t, "c-1", s.Task().ContextID)
				})
			})
		}
	}
}

// A get-task that closes a gap answers the right task in another context.
func TestGapGetTaskAnsweringTheTaskInAnotherContextIsAProtocolError(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					switch {
					case r.n == 1:
						firstLegThenCut(w, r.id, v)
					case r.isSubscribe():
						jsonRPCError(w, r.id, a2a.CodeTaskNotFound, "task not found")
					case r.isGet():
						unaryTask(w, r.id, v, &a2a.Task{ID: "t-1", ContextID: "c-other", Status: a2a.TaskStatus{State: a2a.StateCompleted}})
					}
				})
				s := newClient(t, srv, v).Send(bounded(t), hello())
				_, err := drain(t, s)
				requireProtocolError(t, err, "context")
			})
		})
	}
}

// README: "event for another task or another context" is a
// *transport.ProtocolError, never retried, carrying the last task.
func TestPollAnsweringAnotherTaskIsAProtocolError(t *testing.T) {
	for _, v := range versions {
		for _, c := range []struct {
			name string
			bad  *a2a.Task
		}{
			{"another task", &a2a.Task{ID: "t-2", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted}}},
			{"another context", &a2a.Task{ID: "t-1", ContextID: "c-9", Status: a2a.TaskStatus{State: a2a.StateCompleted}}},
		} {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")), answer(c.bad))
					_, err := drain(t, restClient(t, srv, v).Send(background(), hello()))
					pe := requireProtocolError(t, err, "")
					requireKept(t, pe)
					require.Equal(t, 2, srv.count("get"), "never retried")
				})
			})
		}
	}
}

// A resubscribe for the right task in another context is a protocol error,
// not retried, and keeps what was delivered.
func TestSnapshotFromAnotherContextIsAProtocolError(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				elsewhere := &a2a.Task{ID: "t-1", ContextID: "c-other", Status: a2a.TaskStatus{State: a2a.StateWorking},
					Artifacts: []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{{Text: "kept"}}}}}
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					if r.n == 1 {
						firstLegThenCut(w, r.id, v)
					}
					sseHeaders(w)
					sseEvent(w, r.id, v, elsewhere)
				})
				s := newClient(t, srv, v).Send(bounded(t), hello())
				got, err := drain(t, s)
				pe := requireProtocolError(t, err, "")
				requireKept(t, pe)
				require.Equal(t, "c-1", pe.Task.ContextID)
				require.Equal(t, "kept", got.text("a1"))
				require.Len(t, srv.requests(), 2, "not retried")
				require.Equal(t, 1, srv.count(scriptedReq.isSubscribe))
			})
		})
	}
}

// A status, artifact or message for another task, live, in a snapshot or
// from a get-task, is a *transport.ProtocolError; nothing of it reaches the
// application.
func TestEventForAnotherTaskIsAProtocolError(t *testing.T) {
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
						s := newClient(t, h, v).Send(background(), hello())
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

// A resubscribe answered with another task, as a snapshot or from the
// get-task, is a *transport.ProtocolError, not retried, keeping what was
// delivered.
func TestResubscribeAnsweringAnotherTaskIsAProtocolError(t *testing.T) {
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
				got, err := drain(t, newClient(t, h, v).Send(background(), hello()))
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
				got, err := drain(t, newClient(t, h, v).Send(background(), hello()))
				requireKept(t, requireProtocolError(t, err, `asked for task "t-1", got task "t-2"`))
				require.Equal(t, "kept", got.text("a1"))
				require.Equal(t, 3, calls, "not retried")
			})
		})
	}
}
