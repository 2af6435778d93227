package stream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// TestEventsNear513BytesEndingInWhiteSpace: events whose data line
// is around 512 bytes long and whose JSON ends in white space (spaces,
// tabs), with LF, CRLF or CR line ends, decode whole on every wire.
func TestEventsNear513BytesEndingInWhiteSpace(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, eol := range []string{"\n", "\r\n", "\r"} {
			for _, ws := range []string{" ", "\t", " \t  ", strings.Repeat(" ", 64)} {
				for target := 500; target <= 530; target++ {
					name := fmt.Sprintf("%s/eol=%q/ws=%d/%d", w, eol, len(ws), target)
					t.Run(name, func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							var want string
							agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
								kindStream: func(ww *wireWriter, c wireCall) {
									ww.sse()
									write := func(ev a2a.Event, padTo int) {
										raw, err := a2a.Codec{Version: ww.a.v, Binding: ww.a.b}.EncodeEvent(ev)
										require.NoError(t, err)
										if ww.a.b == a2a.BindingJSONRPC {
											raw = ww.envelope(raw)
										}
										line := "data: " + string(raw) + ws
										fmt.Fprintf(ww.w, "%s%s%s", line, eol, eol)
										ww.w.(interface{ Flush() }).Flush()
									}
									task := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}}
									write(task, 0)
									// A chunk whose data line is target bytes long.
									base := &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("")}}, LastChunk: true}
									raw, _ := a2a.Codec{Version: ww.a.v, Binding: ww.a.b}.EncodeEvent(base)
									if ww.a.b == a2a.BindingJSONRPC {
										raw = ww.envelope(raw)
									}
									n := target - len("data: ") - len(raw) - len(ws)
									if n < 1 {
										n = 1
									}
									want = strings.Repeat("x", n-1) + "."
									base.Artifact.Parts[0] = a2a.TextPart(want)
									write(base, target)
									write(&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted}, Final: true}, 0)
								},
							})
							col, err := drain(t, agent.client(t).Send(context.Background(), hello()))
							require.NoError(t, err)
							require.Equal(t, want, col.text("a1"))
						})
					})
				}
			}
		}
	}
}

// TestUnaryNear513BytesEndingInWhiteSpace: unary answers (a
// streaming send refused with a plain JSON error, a unary send, get-task
// polls) around 512 bytes long that end in white space, sent as
// application/json, as text/plain (a2a-go) or with no Content-Type at all,
// are read whole on every wire.
func TestUnaryNear513BytesEndingInWhiteSpace(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, ct := range []string{"application/json", "text/plain; charset=utf-8", ""} {
			for _, ws := range []string{" ", "\n", "\r\n", "\t \n"} {
				for target := 505; target <= 520; target++ {
					name := fmt.Sprintf("%s/ct=%q/ws=%q/%d", w, ct, ws, target)
					t.Run(name, func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							var want string
							pad := func(ww *wireWriter, raw []byte, padded func(n int) []byte) {
								if ww.a.b == a2a.BindingJSONRPC {
									raw = ww.envelope(raw)
								}
								n := target - len(raw) - len(ws)
								if n > 1 && padded != nil {
									raw = padded(n)
									if ww.a.b == a2a.BindingJSONRPC {
										raw = ww.envelope(raw)
									}
								}
								if ct != "" {
									ww.w.Header().Set("Content-Type", ct)
								}
								ww.w.WriteHeader(200)
								ww.w.Write(append(raw, ws...))
							}
							task := func(text string) *a2a.Task {
								return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted},
									Artifacts: []a2a.Artifact{sgText("a1", text)}}
							}
							agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
								kindStream: func(ww *wireWriter, c wireCall) {
									ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
								},
								kindSend: func(ww *wireWriter, c wireCall) {
									raw, _ := a2a.Codec{Version: ww.a.v, Binding: ww.a.b}.EncodeEvent(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}})
									pad(ww, raw, nil)
								},
								kindGet: func(ww *wireWriter, c wireCall) {
									raw, _ := a2a.Codec{Version: ww.a.v, Binding: ww.a.b}.EncodeTask(task(""))
									pad(ww, raw, func(n int) []byte {
										want = strings.Repeat("y", n-1) + "."
										raw, _ := a2a.Codec{Version: ww.a.v, Binding: ww.a.b}.EncodeTask(task(want))
										return raw
									})
								},
							})
							col, err := drain(t, agent.client(t).Send(context.Background(), hello()))
							require.NoError(t, err)
							require.Equal(t, want, col.text("a1"))
						})
					})
				}
			}
		}
	}
}

// TestStreamAnsweredWithPlainErrorNear513Bytes: a streaming send
// answered with a plain JSON error (no stream) around 512 bytes long that
// ends in white space, as application/json, text/plain or with no
// Content-Type, ends the stream in that *a2a.RPCError, message whole.
func TestStreamAnsweredWithPlainErrorNear513Bytes(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, ct := range []string{"application/json", "text/plain; charset=utf-8", ""} {
			for _, ws := range []string{" ", "\n", "\r\n", " \t\n"} {
				for target := 505; target <= 520; target++ {
					t.Run(fmt.Sprintf("%s/ct=%q/ws=%q/%d", w, ct, ws, target), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							var msg string
							agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
								kindStream: func(ww *wireWriter, c wireCall) {
									body := func(m string) []byte {
										if ww.a.b == a2a.BindingJSONRPC {
											return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%q}}`, ww.idOrNull(), m)
										}
										_, _, b := a2a.MarshalHTTPError(ww.a.v, &a2a.RPCError{Code: -32603, Message: m})
										return b
									}
									n := target - len(body("")) - len(ws)
									msg = strings.Repeat("e", max(n, 1))
									status := 200
									if ww.a.b == a2a.BindingHTTPJSON {
										status, _, _ = a2a.MarshalHTTPError(ww.a.v, &a2a.RPCError{Code: -32603, Message: msg})
									}
									if ct != "" {
										ww.w.Header().Set("Content-Type", ct)
									}
									ww.w.WriteHeader(status)
									ww.w.Write(append(body(msg), ws...))
								},
							})
							_, err := sgDrain(t, agent.client(t).Send(context.Background(), hello()))
							var rpc *a2a.RPCError
							require.ErrorAs(t, err, &rpc, "ended in %v", err)
							require.Equal(t, -32603, rpc.Code)
							require.Equal(t, msg, rpc.Message)
						})
					})
				}
			}
		}
	}
}

// A 100 MB SSE line, or a 100 MB JSON body, before or after the task: the
// client reads at most the event size limit, buffers no more, and ends in a
// *stream.ProtocolError.
func TestHundredMegabyteLineIsCutAtTheLimit(t *testing.T) {
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
						_, err = drain(t, handlerClient(t, h, v, stream.WithMaxEventSize(limit)).Send(background(), hello()))
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
				_, err := drain(t, handlerClient(t, h, v).Send(background(), hello()))
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
				_, err := drain(t, handlerClient(t, h, v, stream.WithMaxEventSize(limit)).Send(background(), hello()))
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
				_, err = drain(t, handlerClient(t, h, v, stream.WithMaxEventSize(limit)).Send(background(), hello()))
				requireKept(t, requireProtocolError(t, err, "response too large"))
				require.Less(t, written.Load(), int64(limit+slack))
			})
		})
	}
}

// A line that never ends, whatever kind of SSE line it starts: the client
// reads at most the limit.
func TestEndlessLineIsCutAtTheLimit(t *testing.T) {
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
					_, err := drain(t, handlerClient(t, h, v, stream.WithMaxEventSize(limit)).Send(background(), hello()))
					requireKept(t, requireProtocolError(t, err, "event too large"))
					require.Less(t, written.Load(), int64(limit+slack))
				})
			})
		}
	}
}

const hundredMB = 100 << 20

// heapGrowth runs f and returns how many bytes it allocated on the heap. Its
// callers do not call t.Parallel, and the package's parallel tests start
// only after every other test has ended, so the count is f's own give or
// take the runtime's noise.
func heapGrowth(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
