package stream_test

// Stranger round 28, endings: how a stream ends and the one line it says,
// on the four wires, against agents that write hostile reasons.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// s28Wire is one of the four wires the client speaks.
type s28Wire struct {
	v a2a.Version
	b a2a.Binding
}

func (w s28Wire) String() string { return string(w.v) + "/" + string(w.b) }

func s28Wires() []s28Wire {
	return []s28Wire{
		{a2a.V03, a2a.BindingJSONRPC}, {a2a.V10, a2a.BindingJSONRPC},
		{a2a.V03, a2a.BindingHTTPJSON}, {a2a.V10, a2a.BindingHTTPJSON},
	}
}

func (w s28Wire) codec() a2a.Codec { return a2a.Codec{Version: w.v, Binding: w.b} }

// agent returns an a2atest agent that speaks only this wire.
func (w s28Wire) agent(opts ...a2atest.Option) *a2atest.Agent {
	return a2atest.NewAgent(append([]a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, opts...)...)
}

// client returns a client of this wire on hc at base.
func (w s28Wire) clientAt(t *testing.T, base string, hc *http.Client, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(hc), stream.WithVersion(w.v)}, opts...)
	var c *stream.Client
	var err error
	if w.b == a2a.BindingHTTPJSON {
		c, err = stream.NewRESTClient(base, all...)
	} else {
		c, err = stream.NewClient(base, all...)
	}
	require.NoError(t, err)
	return c
}

func (w s28Wire) client(t *testing.T, h http.Handler, opts ...stream.Option) *stream.Client {
	t.Helper()
	return w.clientAt(t, "http://agent.test/", a2atest.NewClient(h), opts...)
}

// s28Call is what a hand-written server reads of a request.
type s28Call struct {
	kind string          // "stream", "subscribe", "get", "send", "cancel"
	id   json.RawMessage // the JSON-RPC id
	w    s28Wire
}

func s28Read(w s28Wire, r *http.Request) s28Call {
	body, _ := io.ReadAll(r.Body)
	c := s28Call{w: w, id: json.RawMessage(`1`)}
	if w.b == a2a.BindingHTTPJSON {
		p := r.URL.Path
		switch {
		case strings.HasSuffix(p, "message:stream"):
			c.kind = "stream"
		case strings.HasSuffix(p, ":subscribe"):
			c.kind = "subscribe"
		case strings.HasSuffix(p, "message:send"):
			c.kind = "send"
		case strings.HasSuffix(p, ":cancel"):
			c.kind = "cancel"
		case r.Method == http.MethodGet && strings.Contains(p, "/tasks/"):
			c.kind = "get"
		}
		return c
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &env)
	if len(env.ID) > 0 {
		c.id = env.ID
	}
	switch env.Method {
	case "message/stream", "SendStreamingMessage":
		c.kind = "stream"
	case "tasks/resubscribe", "SubscribeToTask":
		c.kind = "subscribe"
	case "tasks/get", "GetTask":
		c.kind = "get"
	case "message/send", "SendMessage":
		c.kind = "send"
	case "tasks/cancel", "CancelTask":
		c.kind = "cancel"
	}
	return c
}

// frame is one SSE event carrying ev, as the wire writes it.
func (c s28Call) frame(ev a2a.Event) string {
	b, err := c.w.codec().EncodeEvent(ev)
	if err != nil {
		panic(err)
	}
	if c.w.b == a2a.BindingJSONRPC {
		b = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, c.id, b))
	}
	return "data: " + string(b) + "\n\n"
}

// task writes a unary task answer (get-task).
func (c s28Call) task(w http.ResponseWriter, t *a2a.Task) {
	b, err := c.w.codec().EncodeTask(t)
	if err != nil {
		panic(err)
	}
	if c.w.b == a2a.BindingJSONRPC {
		b = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, c.id, b))
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func s28SSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

func s28Write(w http.ResponseWriter, s string) {
	_, _ = io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

func s28Task(state a2a.TaskState) *a2a.Task {
	return &a2a.Task{ID: "t-28", ContextID: "c-28", Status: a2a.TaskStatus{State: state}}
}

// s28Hostile are reasons a hostile agent may give.
func s28Hostile() map[string]string {
	big := strings.Repeat("\u2028x\x1b[31m€", 1<<20/8)
	return map[string]string{
		"VT FF":            "a\vb\fc",
		"NEL":              "a\u0085b",
		"LS PS":            "a\u2028b\u2029c",
		"CR LF":            "a\r\nb\nc\rd",
		"C0":               "a\x00\x01\x07\x08\x1f\x7fb",
		"C1":               "a\u0080\u008d\u009b\u009fb",
		"bidi":             "a\u202eevil\u202c\u2066b\u2067c\u2068d\u2069\u200e\u200f\u061c\u202a\u202b\u202d",
		"ANSI":             "\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b[2J",
		"zero-width":       "a\u200bb\u200cc\u200dd\ufeffe",
		"invalid UTF-8":    "a\xffb\xc3(c\xe2\x82\xed\xa0\x80d",
		"1 MiB":            big,
		"euro at the cut":  strings.Repeat("€", 1000),
		"emoji at the cut": "x" + strings.Repeat("😀", 500),
		"cut +1":           "xy" + strings.Repeat("😀", 500),
		"cut +2":           "xyz" + strings.Repeat("😀", 500),
		"LS at the cut":    strings.Repeat("\u2028", 600),
		"only breaks":      "\n\n\n",
	}
}

// s28RequireOneLine checks the promise of Ending.String: one line, valid
// UTF-8, no control character, no line break, no bidi control, at most
// MaxEndingLine bytes.
func s28RequireOneLine(t *testing.T, line string) {
	t.Helper()
	require.True(t, utf8.ValidString(line), "not valid UTF-8: %q", trim(line))
	require.LessOrEqual(t, len(line), stream.MaxEndingLine, "too long: %q", trim(line))
	for i, r := range line {
		bad := unicode.IsControl(r) || r == '\u2028' || r == '\u2029' ||
			(r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') ||
			r == '\u200e' || r == '\u200f' || r == '\u061c'
		require.False(t, bad, "rune %U at %d in %q", r, i, trim(line))
	}
	require.NotContains(t, line, "ended: ended:")
}

func trim(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// s28Drain runs s to its end and returns its ending.
func s28Drain(s *stream.Stream) stream.Ending {
	defer s.Close()
	for s.Next() {
	}
	return s.Ending()
}

func s28Msg() *a2a.Message { return a2a.NewTextMessage(a2a.RoleUser, "hi") }

// Every way a hostile reason reaches the ending, with a2atest agents, on
// every wire: the line is one bounded line of valid UTF-8.
func TestStranger28EndingLineOfAHostileReasonOnEveryWire(t *testing.T) {
	t.Parallel()
	type way struct {
		name  string
		opts  func(reason string) []a2atest.Option
		state a2a.TaskState
	}
	ways := []way{
		{"failed", func(r string) []a2atest.Option {
			return []a2atest.Option{a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateFailed, r))}
		}, a2a.StateFailed},
		{"structured failure", func(r string) []a2atest.Option {
			return []a2atest.Option{a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateFailed, r).
				WithMetadata(map[string]any{"error_type": r, "error_code": r, "error_message": r}))}
		}, a2a.StateFailed},
		{"rejected", func(r string) []a2atest.Option {
			return []a2atest.Option{a2atest.WithScript(a2atest.Finish(a2a.StateRejected, r))}
		}, a2a.StateRejected},
		{"canceled", func(r string) []a2atest.Option {
			return []a2atest.Option{a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateCanceled, r))}
		}, a2a.StateCanceled},
		{"auth-required", func(r string) []a2atest.Option {
			return []a2atest.Option{a2atest.WithScript(a2atest.Working(""), a2atest.AskAuth(r))}
		}, a2a.StateAuthRequired},
		{"input-required without a hook", func(r string) []a2atest.Option {
			return []a2atest.Option{a2atest.WithScript(a2atest.Working(""), a2atest.AskInput(r))}
		}, a2a.StateInputRequired},
		{"RPC error as JSON", func(r string) []a2atest.Option {
			return []a2atest.Option{a2atest.WithFaults(a2atest.RPCError(a2a.CodeInternalError, r, a2atest.ErrorAsJSON))}
		}, ""},
		{"RPC error as event", func(r string) []a2atest.Option {
			return []a2atest.Option{a2atest.WithFaults(a2atest.RPCError(-32005, r, a2atest.ErrorAsErrorEvent))}
		}, ""},
		{"HTTP error body", func(r string) []a2atest.Option {
			return []a2atest.Option{a2atest.WithFaults(a2atest.HTTPStatus(http.StatusBadRequest, r))}
		}, ""},
	}
	for _, w := range s28Wires() {
		for _, wy := range ways {
			for name, reason := range s28Hostile() {
				t.Run(w.String()+"/"+wy.name+"/"+name, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := w.agent(wy.opts(reason)...)
						c := w.client(t, agent, stream.WithReconnect(reconnect.Never()))
						e := s28Drain(c.Send(t.Context(), s28Msg()))
						require.Error(t, e.Err)
						require.Equal(t, wy.state, e.State, "%v", e.Err)
						line := e.String()
						s28RequireOneLine(t, line)
						if wy.state == "" {
							require.True(t, strings.HasPrefix(line, "ended: "), "%q", trim(line))
						} else {
							require.True(t, strings.HasPrefix(line, string(wy.state)), "%q", trim(line))
						}
						// The first program's line.
						printed := "ended: " + line
						if e.State == "" && e.Err != nil {
							printed = line
						}
						require.Equal(t, 1, strings.Count(printed, "ended: ")-strings.Count(reason, "ended: "), "%q", trim(printed))
					})
				})
			}
		}
	}
}

// The HTTP status line's reason phrase is the server's own text too: a
// raw server writes control characters and bidi controls in it.
func TestStranger28EndingLineOfAHostileStatusLine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	reason := "Bad \x1b[31mGateway\x0b\x0c\u0085\u2028\u202eevil\u2066 \x01\x7f\xff"
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				r := bufio.NewReader(conn)
				req, err := http.ReadRequest(r)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				fmt.Fprintf(conn, "HTTP/1.1 502 %s\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno", reason)
			}()
		}
	}()
	for _, w := range s28Wires() {
		t.Run(w.String(), func(t *testing.T) {
			c := w.clientAt(t, "http://"+ln.Addr().String()+"/", &http.Client{}, stream.WithReconnect(reconnect.Never()))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			e := s28Drain(c.Send(ctx, s28Msg()))
			var he *stream.HTTPError
			require.ErrorAs(t, e.Err, &he)
			t.Logf("%q", e.String())
			s28RequireOneLine(t, e.String())
			require.True(t, strings.HasPrefix(e.String(), "ended: "), e.String())
		})
	}
}

// A REST problem detail (RFC 9457) with a hostile detail, and a hostile
// google.rpc.Status message: the line is one line.
func TestStranger28EndingLineOfARESTProblemDetail(t *testing.T) {
	reason := "quota\u2028exceeded\x1b[31m\u202e\xff" + strings.Repeat("€", 600)
	q, err := json.Marshal(reason)
	require.NoError(t, err)
	bodies := map[string]struct{ ct, body string }{
		"problem+json": {"application/problem+json", fmt.Sprintf(`{"type":"about:blank","title":%s,"status":400,"detail":%s}`, q, q)},
		"rpc status":   {"application/json", fmt.Sprintf(`{"error":{"code":400,"status":"FAILED_PRECONDITION","message":%s,"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_CANCELABLE","domain":"a2a-protocol.org"}]}}`, q)},
		"bare 0.3":     {"application/json", fmt.Sprintf(`{"code":-32004,"message":%s}`, q)},
		"raw bytes":    {"application/json", `{"code":-32004,"message":"a` + "\xff\x1b\u2028\u202e" + `b"}`},
	}
	for _, w := range s28Wires() {
		if w.b != a2a.BindingHTTPJSON {
			continue
		}
		for name, b := range bodies {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
						rw.Header().Set("Content-Type", b.ct)
						rw.WriteHeader(http.StatusBadRequest)
						_, _ = io.WriteString(rw, b.body)
					})
					c := w.client(t, h, stream.WithReconnect(reconnect.Never()))
					e := s28Drain(c.Send(t.Context(), s28Msg()))
					require.Error(t, e.Err)
					t.Logf("%q", e.String())
					s28RequireOneLine(t, e.String())
					require.True(t, strings.HasPrefix(e.String(), "ended: "), e.String())
				})
			})
		}
	}
}

// A JSON-RPC error whose message holds raw invalid UTF-8 bytes and raw
// control bytes the JSON decoder may keep.
func TestStranger28EndingLineOfRawBytesInAnRPCError(t *testing.T) {
	msg := "a\xff\xfe b \u2028 \u202e c \\u0085 \\u001b[31m \\u2029 \\ud800 d"
	for _, w := range s28Wires() {
		if w.b != a2a.BindingJSONRPC {
			continue
		}
		for _, asEvent := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/event=%t", w, asEvent), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
						c := s28Read(w, r)
						body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"%s"}}`, c.id, msg)
						if asEvent {
							s28SSE(rw)
							s28Write(rw, "data: "+body+"\n\n")
							return
						}
						rw.Header().Set("Content-Type", "application/json")
						_, _ = io.WriteString(rw, body)
					})
					c := w.client(t, h, stream.WithReconnect(reconnect.Never()))
					e := s28Drain(c.Send(t.Context(), s28Msg()))
					var re *a2a.RPCError
					require.ErrorAs(t, e.Err, &re)
					s28RequireOneLine(t, e.String())
				})
			})
		}
	}
}

// Every way a stream ends says "ended: " at most once, and exactly once in
// the first program's printed line.
func TestStranger28EveryEndingSaysEndedOnce(t *testing.T) {
	type way struct {
		name string
		run  func(t *testing.T, w s28Wire) stream.Ending
		// ended: the String starts with "ended: " (the task did not end)
		ended bool
		want  string // a prefix of the line
	}
	send := func(t *testing.T, w s28Wire, agent *a2atest.Agent, opts ...stream.Option) stream.Ending {
		c := w.client(t, agent, opts...)
		return s28Drain(c.Send(t.Context(), s28Msg()))
	}
	ways := []way{
		{"completed", func(t *testing.T, w s28Wire) stream.Ending { return send(t, w, w.agent()) }, false, "completed"},
		{"answered", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithScript(a2atest.Reply("hi"))))
		}, false, "answered"},
		{"failed", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithScript(a2atest.Finish(a2a.StateFailed, "boom"))))
		}, false, "failed: boom"},
		{"rejected", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithScript(a2atest.Finish(a2a.StateRejected, "no"))))
		}, false, "rejected"},
		{"canceled", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithScript(a2atest.Finish(a2a.StateCanceled, ""))))
		}, false, "canceled"},
		{"auth-required", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithScript(a2atest.AskAuth("sign in"))))
		}, false, "auth-required"},
		{"input-required without a hook", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithScript(a2atest.AskInput("which?"))))
		}, false, "input-required"},
		{"input-required, the hook fails", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithScript(a2atest.AskInput("which?"))),
				stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
					return nil, errors.New("no answer")
				})))
		}, false, "input-required"},
		{"RPC error", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithFaults(a2atest.RPCError(a2a.CodeInternalError, "oops", a2atest.ErrorAsJSON))))
		}, true, "ended: "},
		{"HTTP error", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithFaults(a2atest.HTTPStatus(500, "oops"))))
		}, true, "ended: "},
		{"connection lost", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Second), a2atest.Finish(a2a.StateCompleted, "")),
				a2atest.WithFaults(a2atest.CutAfterEvents(1), a2atest.Drop(), a2atest.Drop(), a2atest.Drop())),
				stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Millisecond}))
		}, true, "ended: "},
		{"connection lost before a task", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithFaults(a2atest.CutAfterEvents(0))))
		}, true, "ended: "},
		{"could not connect", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithFaults(a2atest.Refuse(), a2atest.Refuse(), a2atest.Refuse(), a2atest.Refuse(), a2atest.Refuse())),
				stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Millisecond}))
		}, true, "ended: "},
		{"stalled", func(t *testing.T, w s28Wire) stream.Ending {
			return send(t, w, w.agent(a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, ""))),
				stream.WithIdleTimeout(time.Second), stream.WithStallTimeout(10*time.Second))
		}, true, "ended: "},
		{"ctx canceled", func(t *testing.T, w s28Wire) stream.Ending {
			agent := w.agent(a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")))
			c := w.client(t, agent)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			s := c.Send(ctx, s28Msg())
			defer s.Close()
			for s.Next() {
				cancel()
			}
			return s.Ending()
		}, true, "ended: "},
		{"protocol error", func(t *testing.T, w s28Wire) stream.Ending {
			h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				c := s28Read(w, r)
				s28SSE(rw)
				other := s28Task(a2a.StateWorking)
				s28Write(rw, c.frame(other))
				o2 := s28Task(a2a.StateWorking)
				o2.ID = "another"
				s28Write(rw, c.frame(o2))
			})
			return s28Drain(w.client(t, h, stream.WithReconnect(reconnect.Never())).Send(t.Context(), s28Msg()))
		}, true, "ended: "},
		{"closed", func(t *testing.T, w s28Wire) stream.Ending {
			agent := w.agent(a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")))
			s := w.client(t, agent).Send(t.Context(), s28Msg())
			require.True(t, s.Next())
			s.Close()
			return s.Ending()
		}, false, "closed"},
	}
	for _, w := range s28Wires() {
		for _, wy := range ways {
			t.Run(w.String()+"/"+wy.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					e := wy.run(t, w)
					line := e.String()
					t.Logf("%s", line)
					s28RequireOneLine(t, line)
					require.True(t, strings.HasPrefix(line, wy.want), "%q", line)
					if wy.ended {
						require.Empty(t, e.State)
						require.Error(t, e.Err)
						require.Equal(t, 1, strings.Count(line, "ended: "), "%q", line)
					} else {
						require.Equal(t, 0, strings.Count(line, "ended: "), "%q", line)
					}
					if wy.name == "closed" {
						return // the first program reads its ending before Close
					}
					// the first program's line
					printed := "ended: " + line
					if e.State == "" && e.Err != nil {
						printed = line
					}
					require.Equal(t, 1, strings.Count(printed, "ended: "), "%q", printed)
				})
			})
		}
	}
}
