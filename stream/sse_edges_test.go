package stream_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// TestEventsNear513BytesEndingInWhiteSpace: events whose data line
// is around 512 bytes long and whose JSON ends in white space (spaces,
// tabs), with LF, CRLF or CR line ends, decode whole on every wire.
func TestEventsNear513BytesEndingInWhiteSpace(t *testing.T) {
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
