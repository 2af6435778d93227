package a2atest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

// TestRESTWithoutStreaming checks the REST answer of @a2a-js/sdk to a
// streaming call when the card says streaming: false: 400 with its words
// (0.3.14: RestTransportHandler.requireCapability; 1.3.0:
// DefaultRequestHandler), for sends and subscribes by GET or POST alike,
// whatever the task; unary sends and gets work.
func TestRESTWithoutStreaming(t *testing.T) {
	want := map[a2a.Version][2]string{
		a2a.V03: {"Unsupported operation: Agent does not support streaming", "Unsupported operation: Agent does not support streaming"},
		a2a.V10: {"Streaming is not supported.", "Streaming (and thus resubscription) is not supported."},
	}
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := restAgent(v, a2atest.WithoutStreaming(), a2atest.WithScript(a2atest.Working(""), a2atest.AskInput("which one?")))
			require.False(t, *agent.Card("agent.test").Capabilities.Streaming)
			c := agent.Client()
			task := restResult(t, v, rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:send"), restSend(t, v, "hi", "", ""))).(*a2a.Task)
			require.Equal(t, a2a.StateInputRequired, task.Status.State)

			tests := []struct {
				name, method, path, body string
				message                  string
			}{
				{"new task", "POST", "message:stream", restSend(t, v, "hi", "", ""), want[v][0]},
				{"follow-up", "POST", "message:stream", restSend(t, v, "blue", task.ID, ""), want[v][0]},
				{"follow-up to an unknown task", "POST", "message:stream", restSend(t, v, "blue", "nope", ""), want[v][0]},
				{"subscribe", "POST", "tasks/" + task.ID + ":subscribe", "", want[v][1]},
				{"subscribe by GET", "GET", "tasks/" + task.ID + ":subscribe", "", want[v][1]},
				{"subscribe to an unknown task", "POST", "tasks/nope:subscribe", "", want[v][1]},
			}
			for _, tt := range tests {
				e := requireRESTError(t, v, rest(t.Context(), t, c, v, tt.method, restPath(v, tt.path), tt.body), http.StatusBadRequest, a2a.CodeUnsupportedOperation)
				require.Equal(t, tt.message, e.Message, tt.name)
				if v == a2a.V10 {
					require.Equal(t, "UNSUPPORTED_OPERATION", e.Reason(), tt.name)
				}
			}
			// The body is checked first.
			requireRESTError(t, v, rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:stream"), `{}`), http.StatusBadRequest, a2a.CodeInvalidParams)

			got := restTask(t, v, rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/"+task.ID), ""), http.StatusOK)
			require.Equal(t, a2a.StateInputRequired, got.Status.State)
			require.Len(t, agent.TaskIDs(), 1)
		})
	}
}

// TestRESTWithoutStreamingFaults checks that refused REST streaming
// requests count toward WithFaults, and that a fault replacing the answer
// replaces the refusal.
func TestRESTWithoutStreamingFaults(t *testing.T) {
	agent := restAgent(a2a.V10, a2atest.WithoutStreaming(),
		a2atest.WithFaults(a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"), a2atest.Fault{}, a2atest.CutAfterBytes(10)))
	c := agent.Client()
	resp := restStream(t.Context(), t, agent, a2a.V10, "hi")
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	requireRESTError(t, a2a.V10, rest(t.Context(), t, c, a2a.V10, http.MethodGet, "/tasks/x:subscribe", ""), http.StatusBadRequest, a2a.CodeUnsupportedOperation)
	resp = restStream(t.Context(), t, agent, a2a.V10, "hi")
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Equal(t, `{"error":{`, string(body))

	var got []string
	for _, r := range agent.Requests() {
		got = append(got, r.Method+" "+r.Fault.String())
	}
	require.Equal(t, []string{
		`SendStreamingMessage HTTPStatus(503, "busy")`,
		"SubscribeToTask none",
		"SendStreamingMessage CutAfterBytes(10)",
	}, got)
	require.Empty(t, agent.TaskIDs())
}

// requireRouteNotFound requires express's 404 page.
func requireRouteNotFound(t *testing.T, resp *http.Response) {
	t.Helper()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Contains(t, string(body), "<pre>Cannot "+resp.Request.Method+" ")
}

// TestRESTWithoutResubscribe checks that the subscribe routes are gone (404,
// express's answer for a route it lacks), whatever the task's state, while
// streaming sends work and get shows what a dropped stream missed.
func TestRESTWithoutResubscribe(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := restAgent(v, a2atest.WithoutResubscribe(), pausedScript(),
					// The first stream ends cleanly after T and S(working), at 0s.
					a2atest.WithFaults(a2atest.CloseAfterEvents(2)))
				c := agent.Client()
				start := time.Now()
				id, evs := startRESTTask(t.Context(), t, agent, v)
				require.Equal(t, []string{"T(submitted)", "S(working)"}, kinds(evs))

				refused := func(id string) {
					t.Helper()
					requireRouteNotFound(t, rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "tasks/"+id+":subscribe"), ""))
					requireRouteNotFound(t, rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/"+id+":subscribe"), ""))
				}
				refused(id) // running
				refused("nope")

				advance(1500 * time.Millisecond)
				task := restTask(t, v, rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/"+id), ""), http.StatusOK)
				require.Equal(t, a2a.StateWorking, task.Status.State)
				require.Equal(t, "x", task.Artifacts[0].Text())

				advance(2 * time.Second)
				refused(id) // completed
				task = restTask(t, v, rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/"+id), ""), http.StatusOK)
				require.Equal(t, a2a.StateCompleted, task.Status.State)
				require.Equal(t, "xy", task.Artifacts[0].Text())
				require.Equal(t, 3500*time.Millisecond, time.Since(start))

				_, evs = startRESTTask(t.Context(), t, agent, v)
				require.Len(t, evs, 5)

				n := 0
				for _, r := range agent.Requests() {
					if r.Method == methodName(v, "subscribe") {
						n++
						require.Equal(t, a2atest.SnapshotFirst, r.Style)
					}
				}
				require.Equal(t, 6, n, "refused subscribes are recorded as subscribes")
			})
		})
	}
}

// TestRESTWithoutResubscribeCountsAndOrder checks that refused subscribes
// use up their fault and style, that a fault replaces (or damages) the
// 404, that the 404 comes before the A2A-Version check, and that it wins
// over WithoutStreaming's refusal.
func TestRESTWithoutResubscribeCountsAndOrder(t *testing.T) {
	agent := restAgent(a2a.V10, a2atest.WithoutResubscribe(),
		a2atest.WithStyles(a2atest.LiveOnly, a2atest.FullReplay),
		a2atest.WithFaults(a2atest.Fault{}, a2atest.HTTPStatus(http.StatusBadGateway, ""), a2atest.Fault{}, a2atest.CutAfterEvents(0)))
	c := agent.Client()
	id, _ := startRESTTask(t.Context(), t, agent, a2a.V10)
	resp := rest(t.Context(), t, c, a2a.V10, http.MethodPost, "/tasks/"+id+":subscribe", "")
	require.Equal(t, http.StatusBadGateway, resp.StatusCode)
	// No A2A-Version header: still 404.
	requireRouteNotFound(t, rest(t.Context(), t, c, a2a.V03, http.MethodPost, "/tasks/"+id+":subscribe", ""))
	resp = rest(t.Context(), t, c, a2a.V10, http.MethodGet, "/tasks/"+id+":subscribe", "")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	_, err := io.ReadAll(resp.Body)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)

	reqs := agent.Requests()
	require.Len(t, reqs, 4)
	require.Equal(t, a2atest.HTTPStatus(http.StatusBadGateway, ""), reqs[1].Fault)
	require.Equal(t, []a2atest.ResubscribeStyle{0, a2atest.LiveOnly, a2atest.FullReplay, a2atest.FullReplay},
		[]a2atest.ResubscribeStyle{reqs[0].Style, reqs[1].Style, reqs[2].Style, reqs[3].Style})

	for _, v := range bothVersions() {
		both := restAgent(v, a2atest.WithoutResubscribe(), a2atest.WithoutStreaming())
		requireRouteNotFound(t, rest(t.Context(), t, both.Client(), v, http.MethodPost, restPath(v, "tasks/x:subscribe"), ""))
		requireRESTError(t, v, restStream(t.Context(), t, both, v, "hi"), http.StatusBadRequest, a2a.CodeUnsupportedOperation)
	}
}

// TestRESTStyles checks the resubscribe styles over REST; a style's refusal
// before the first event is an HTTP error, not an error event.
func TestRESTStyles(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := restAgent(v, pausedScript(),
					a2atest.WithStyles(a2atest.SnapshotFirst, a2atest.FullReplay, a2atest.LiveOnly),
					a2atest.WithFaults(a2atest.CloseAfterEvents(2)))
				id, _ := startRESTTask(t.Context(), t, agent, v)
				const n = 4
				var resps [n]*http.Response
				for i := range resps {
					method := http.MethodPost
					if i%2 == 1 {
						method = http.MethodGet
					}
					resps[i] = rest(t.Context(), t, agent.Client(), v, method, restPath(v, "tasks/"+id+":subscribe"), "")
				}
				final := "S(completed)"
				if v == a2a.V03 {
					final = "S(completed,F)"
				}
				want := [n][]string{
					{"T(working)", "A(a1)", "A(a1+L)", final},
					{"T(submitted)", "S(working)", "A(a1)", "A(a1+L)", final},
					{"A(a1)", "A(a1+L)", final},
					{"A(a1)", "A(a1+L)", final},
				}
				for i, resp := range resps {
					require.Equal(t, want[i], kinds(readAllRESTStream(t, v, resp)), "subscribe #%d", i+1)
				}

				// LiveOnly refuses a settled task with task not found.
				requireRESTError(t, v, rest(t.Context(), t, agent.Client(), v, http.MethodPost, restPath(v, "tasks/"+id+":subscribe"), ""),
					http.StatusNotFound, a2a.CodeTaskNotFound)
			})
		})
	}
}

// TestRESTStylesShareTheListWithJSONRPC checks that the requests of both
// bindings count toward the same styles and faults.
func TestRESTStylesShareTheListWithJSONRPC(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithBindings(a2a.BindingJSONRPC, a2a.BindingHTTPJSON),
		a2atest.WithScript(a2atest.Working(""), a2atest.AskInput("?")),
		a2atest.WithStyles(a2atest.SnapshotFirst, a2atest.FullReplay),
		a2atest.WithFaults(a2atest.Fault{}, a2atest.CutAfterEvents(1), a2atest.Fault{}, a2atest.CloseAfterEvents(1)))
	c := agent.Client()
	id, _ := startTask(t.Context(), t, agent, a2a.V10)
	evs, err := readRESTStream(t, a2a.V10, restStream(t.Context(), t, agent, a2a.V10, "hi"))
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Len(t, evs, 1)
	require.Equal(t, []string{"T(input-required)"}, kinds(readAllStream(t, call(t.Context(), t, c, a2a.V10, "subscribe", idParams(id)))))
	require.Equal(t, []string{"T(submitted)"}, kinds(readAllRESTStream(t, a2a.V10, rest(t.Context(), t, c, a2a.V10, http.MethodPost, "/tasks/"+id+":subscribe", ""))))
	reqs := agent.Requests()
	require.Equal(t, []a2atest.ResubscribeStyle{a2atest.SnapshotFirst, a2atest.FullReplay}, []a2atest.ResubscribeStyle{reqs[2].Style, reqs[3].Style})
	require.Equal(t, []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON, a2a.BindingJSONRPC, a2a.BindingHTTPJSON},
		[]a2a.Binding{reqs[0].Binding, reqs[1].Binding, reqs[2].Binding, reqs[3].Binding})
}

// TestRESTStayOpenOnInterrupt checks WithStayOpenOnInterrupt over REST, as
// the captured subscriptions to an input-required task stay open: the
// follow-up's Task and the next turn arrive on the subscription.
func TestRESTStayOpenOnInterrupt(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := restAgent(v, a2atest.WithStayOpenOnInterrupt(),
					a2atest.WithScript(a2atest.Working(""), a2atest.AskInput("which one?"), a2atest.Pause(time.Second),
						a2atest.Chunk("a1", "blue", false, true), a2atest.Finish(a2a.StateCompleted, "")))
				id, _ := startRESTTask(t.Context(), t, agent, v)
				sub := rest(t.Context(), t, agent.Client(), v, http.MethodGet, restPath(v, "tasks/"+id+":subscribe"), "")
				r := newSSEReader(sub.Body)
				ev, err := r.next()
				require.NoError(t, err)
				require.Equal(t, "T(input-required)", kind(decodeRESTEvent(t, v, ev)))

				advance(time.Minute)
				readAllRESTStream(t, v, rest(t.Context(), t, agent.Client(), v, http.MethodPost, restPath(v, "message:stream"), restSend(t, v, "blue", id, "")))
				var got []string
				for {
					ev, err := r.next()
					if errors.Is(err, io.EOF) {
						break
					}
					require.NoError(t, err)
					e := decodeRESTEvent(t, v, ev)
					got = append(got, kind(e))
					if task, ok := e.(*a2a.Task); ok {
						require.Equal(t, "blue", task.History[len(task.History)-1].Text(), "the follow-up is in the Task's history")
					}
				}
				final := "S(completed)"
				if v == a2a.V03 {
					final = "S(completed,F)"
				}
				require.Equal(t, []string{"T(input-required)", "A(a1L)", final}, got)
			})
		})
	}
}

// TestRESTFaults checks the faults that damage or replace REST answers.
func TestRESTFaults(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v)+" CutAfterEvents", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := restAgent(v, pausedScript(), a2atest.WithFaults(a2atest.CutAfterEvents(2)))
				start := time.Now()
				evs, err := readRESTStream(t, v, restStream(t.Context(), t, agent, v, "hi"))
				require.ErrorIs(t, err, io.ErrUnexpectedEOF)
				require.Equal(t, []string{"T(submitted)", "S(working)"}, kinds(evs))
				id := evs[0].(*a2a.Task).ID
				evs = readAllRESTStream(t, v, rest(t.Context(), t, agent.Client(), v, http.MethodPost, restPath(v, "tasks/"+id+":subscribe"), ""))
				require.Equal(t, 3*time.Second, time.Since(start))
				require.Len(t, evs, 4)
			})
		})
		t.Run(string(v)+" get faults", func(t *testing.T) {
			agent := restAgent(v, a2atest.WithGetFaults(a2atest.CutAfterBytes(10), a2atest.Drop(), a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"), a2atest.CloseAfterEvents(0)))
			id, _ := startRESTTask(t.Context(), t, agent, v)
			c := agent.Client()
			resp := rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/"+id), "")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			body, err := io.ReadAll(resp.Body)
			require.ErrorIs(t, err, io.ErrUnexpectedEOF)
			require.Equal(t, `{"id":"`+id[:3], string(body))

			_, err = rawREST(t.Context(), c, v, http.MethodGet, restPath(v, "tasks/"+id), "")
			require.ErrorIs(t, err, io.ErrUnexpectedEOF)

			resp = rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/"+id), "")
			require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)

			resp = rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/"+id), "")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			body, err = io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Empty(t, body, "closed cleanly before the body")

			restTask(t, v, rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/"+id), ""), http.StatusOK)
			var got []string
			for _, r := range agent.Requests() {
				got = append(got, r.Fault.String())
			}
			require.Equal(t, []string{"none", "CutAfterBytes(10)", "Drop()", `HTTPStatus(503, "busy")`, "CloseAfterEvents(0)", "none"}, got)
		})
		t.Run(string(v)+" send faults", func(t *testing.T) {
			agent := restAgent(v, a2atest.WithSendFaults(a2atest.HTTPStatus(http.StatusBadGateway, "bad gateway"), a2atest.CutAfterEvents(0)))
			c := agent.Client()
			resp := rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:send"), restSend(t, v, "hi", "", ""))
			require.Equal(t, http.StatusBadGateway, resp.StatusCode)
			require.Empty(t, agent.TaskIDs(), "the message was not taken")
			resp = rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:send"), restSend(t, v, "hi", "", ""))
			_, err := io.ReadAll(resp.Body)
			require.ErrorIs(t, err, io.ErrUnexpectedEOF)
			require.Len(t, agent.TaskIDs(), 1, "the message was taken although the answer was lost")
		})
		t.Run(string(v)+" RPCError", func(t *testing.T) {
			agent := restAgent(v, a2atest.WithFaults(
				a2atest.RPCError(a2a.CodeInternalError, "internal error", a2atest.ErrorAsJSON),
				a2atest.RPCError(a2a.CodeTaskNotFound, "task not found", a2atest.ErrorAsEvent),
				a2atest.RPCError(a2a.CodeUnsupportedOperation, "nope", a2atest.ErrorAsErrorEvent),
			))
			c := agent.Client()
			e := requireRESTError(t, v, restStream(t.Context(), t, agent, v, "hi"), http.StatusInternalServerError, a2a.CodeInternalError)
			require.Equal(t, "internal error", e.Message)

			for i, tt := range []struct {
				resp  *http.Response
				field string
				code  int
			}{
				{restStream(t.Context(), t, agent, v, "hi"), "", a2a.CodeTaskNotFound},
				{rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/x:subscribe"), ""), "error", a2a.CodeUnsupportedOperation},
			} {
				require.Equal(t, http.StatusOK, tt.resp.StatusCode)
				require.Equal(t, "text/event-stream", tt.resp.Header.Get("Content-Type"))
				r := newSSEReader(tt.resp.Body)
				ev, err := r.next()
				require.NoError(t, err)
				require.Equal(t, tt.field, ev.event, "#%d", i)
				e, ok := a2a.ParseHTTPError(0, []byte(ev.data))
				require.True(t, ok, "data %s", ev.data)
				require.Equal(t, tt.code, e.Code, "data %s", ev.data)
				if v == a2a.V03 {
					require.True(t, strings.HasPrefix(ev.data, `{"code":`), "a bare error: %s", ev.data)
				} else {
					var g struct{ Error json.RawMessage }
					require.NoError(t, json.Unmarshal([]byte(ev.data), &g))
					require.NotEmpty(t, g.Error, "a google.rpc.Status: %s", ev.data)
				}
				_, err = r.next()
				require.ErrorIs(t, err, io.EOF)
			}
			require.Empty(t, agent.TaskIDs())
			startRESTTask(t.Context(), t, agent, v)
		})
	}
	t.Run("Hang", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := restAgent(a2a.V10, a2atest.WithFaults(a2atest.Hang()), a2atest.WithGetFaults(a2atest.Hang()))
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			start := time.Now()
			resp := rest(ctx, t, agent.Client(), a2a.V10, http.MethodPost, "/message:stream", restSend(t, a2a.V10, "hi", "", ""))
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			b, err := io.ReadAll(resp.Body)
			require.Empty(t, b)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.Equal(t, 30*time.Second, time.Since(start))

			ctx, cancel = context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			_, err = rawREST(ctx, agent.Client(), a2a.V10, http.MethodGet, "/tasks/x", "")
			require.ErrorIs(t, err, context.DeadlineExceeded, "a unary request gets nothing at all")
			require.Empty(t, agent.TaskIDs())
		})
	})
}

// TestRESTErrorMidStream checks the framing of an error in the middle of a
// REST stream, as sendStreamResponse writes it: "event: error" and the
// error body, then the end of the stream. An artifact the codec cannot
// encode (its data part is not JSON) stands for a failing executor.
func TestRESTErrorMidStream(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := restAgent(v, a2atest.WithScript(
				a2atest.Working(""),
				a2atest.ArtifactChunk(a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Data: json.RawMessage(`{`)}}}, false, true),
				a2atest.Finish(a2a.StateCompleted, ""),
			))
			resp := restStream(t.Context(), t, agent, v, "hi")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			r := newSSEReader(resp.Body)
			for _, want := range []string{"T(submitted)", "S(working)"} {
				ev, err := r.next()
				require.NoError(t, err)
				require.Equal(t, want, kind(decodeRESTEvent(t, v, ev)))
			}
			ev, err := r.next()
			require.NoError(t, err)
			require.Equal(t, "error", ev.event)
			e, ok := a2a.ParseHTTPError(0, []byte(ev.data))
			require.True(t, ok, "data %s", ev.data)
			require.Equal(t, a2a.CodeInternalError, e.Code)
			if v == a2a.V10 {
				require.True(t, strings.HasPrefix(ev.data, `{"error":{"code":500,"status":"INTERNAL"`), ev.data)
			} else {
				require.True(t, strings.HasPrefix(ev.data, `{"code":-32603,`), ev.data)
			}
			_, err = r.next()
			require.ErrorIs(t, err, io.EOF)
		})
	}
}
