package a2atest_test

import (
	"context"
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

func TestFaultCutAfterEvents(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), pausedScript(), a2atest.WithFaults(a2atest.CutAfterEvents(2)))
				start := time.Now()
				evs, err := readStream(t, call(t.Context(), t, agent.Client(), v, "stream", sendParams(t, v, "hi", "")))
				require.ErrorIs(t, err, io.ErrUnexpectedEOF)
				require.Equal(t, []string{"T(submitted)", "S(working)"}, kinds(evs))
				require.Zero(t, time.Since(start), "the cut comes right after the second event")

				// The task runs on without the stream: a later request sees
				// it finished at its scheduled time.
				id := evs[0].(*a2a.Task).ID
				require.Equal(t, a2a.StateWorking, agent.Task(id).Status.State)
				evs = readAllStream(t, call(t.Context(), t, agent.Client(), v, "subscribe", idParams(id)))
				require.Equal(t, 3*time.Second, time.Since(start))
				require.Equal(t, a2a.StateCompleted, agent.Task(id).Status.State)
				require.Len(t, evs, 4)
			})
		})
	}
	t.Run("zero events", func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.CutAfterEvents(0)))
		resp := call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "hi", ""))
		evs, err := readStream(t, resp)
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)
		require.Empty(t, evs)
		require.Len(t, agent.TaskIDs(), 1, "the request was processed")
	})
	t.Run("more events than the stream has", func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.CutAfterEvents(10)))
		evs := readAllStream(t, call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "hi", "")))
		require.Len(t, evs, 5)
	})
}

func TestFaultCloseAfterEvents(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithFaults(a2atest.CloseAfterEvents(1), a2atest.CloseAfterEvents(0)))
	evs := readAllStream(t, call(t.Context(), t, agent.Client(), a2a.V03, "stream", sendParams(t, a2a.V03, "hi", "")))
	require.Equal(t, []string{"T(submitted)"}, kinds(evs))
	id := evs[0].(*a2a.Task).ID
	evs = readAllStream(t, call(t.Context(), t, agent.Client(), a2a.V03, "subscribe", idParams(id)))
	require.Empty(t, evs)
	// The third streaming request has no fault.
	evs = readAllStream(t, call(t.Context(), t, agent.Client(), a2a.V03, "subscribe", idParams(id)))
	require.Equal(t, []string{"T(completed)"}, kinds(evs))
}

func TestFaultCutAfterBytes(t *testing.T) {
	for _, n := range []int{0, 1, 10, 100} {
		t.Run(itoa(n), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.CutAfterBytes(n)))
			resp := call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "hi", ""))
			require.Equal(t, http.StatusOK, resp.StatusCode)
			b, err := io.ReadAll(resp.Body)
			require.ErrorIs(t, err, io.ErrUnexpectedEOF)
			require.Len(t, b, n)
			full := "data: {"
			if n < len(full) {
				require.Equal(t, full[:n], string(b))
			} else {
				require.True(t, strings.HasPrefix(string(b), full), "body %q", b)
			}
		})
	}
}

func TestFaultHTTPStatus(t *testing.T) {
	tests := []struct {
		name   string
		fault  a2atest.Fault
		status int
		ct     string
		body   string
		header string
	}{
		{"plain", a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"), 503, "text/plain; charset=utf-8", "busy", ""},
		{"html", a2atest.HTTPStatus(http.StatusRequestEntityTooLarge, "<html>too large</html>"), 413, "text/html; charset=utf-8", "<html>too large</html>", ""},
		{"retry-after", a2atest.HTTPStatusWithHeader(http.StatusTooManyRequests, "slow down", http.Header{"Retry-After": {"7"}}),
			429, "text/plain; charset=utf-8", "slow down", "7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faulty := a2atest.NewAgent(a2atest.WithFaults(tt.fault))
			resp := call(t.Context(), t, faulty.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "hi", ""))
			require.Equal(t, tt.status, resp.StatusCode)
			require.Equal(t, tt.ct, resp.Header.Get("Content-Type"))
			require.Equal(t, tt.header, resp.Header.Get("Retry-After"))
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, tt.body, string(b))
			require.Empty(t, faulty.TaskIDs(), "the request was not processed")
			require.Equal(t, tt.fault, faulty.Requests()[0].Fault)
		})
	}
	t.Run("follow-up not consumed", func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.Fault{}, a2atest.HTTPStatus(http.StatusBadGateway, "bad gateway")),
			a2atest.WithScript(a2atest.AskInput("?"), a2atest.Finish(a2a.StateCompleted, "")))
		id, _ := startTask(t.Context(), t, agent, a2a.V10)
		resp := call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "answer", id))
		require.Equal(t, http.StatusBadGateway, resp.StatusCode)
		require.Equal(t, a2a.StateInputRequired, agent.Task(id).Status.State)
		// The same answer, sent again, goes through.
		evs := readAllStream(t, call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "answer", id)))
		require.Equal(t, []string{"T(input-required)", "S(completed)"}, kinds(evs))
	})
}

func TestFaultRPCError(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(
				a2atest.RPCError(a2a.CodeInternalError, "internal error", a2atest.ErrorAsJSON),
				a2atest.RPCError(a2a.CodeTaskNotFound, "task not found", a2atest.ErrorAsEvent),
				a2atest.RPCError(a2a.CodeUnsupportedOperation, "nope", a2atest.ErrorAsErrorEvent),
			))
			c := agent.Client()
			r := requireUnaryError(t, call(t.Context(), t, c, v, "stream", sendParams(t, v, "hi", "")), a2a.CodeInternalError)
			require.Equal(t, "internal error", r.Error.Message)
			requireEventError(t, call(t.Context(), t, c, v, "stream", sendParams(t, v, "hi", "")), a2a.CodeTaskNotFound, "")
			requireEventError(t, call(t.Context(), t, c, v, "subscribe", idParams("x")), a2a.CodeUnsupportedOperation, "error")
			require.Empty(t, agent.TaskIDs())
			// The fourth streaming request has no fault.
			startTask(t.Context(), t, agent, v)
			require.Len(t, agent.TaskIDs(), 1)
		})
	}
}

func TestFaultHang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.Hang()))
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		start := time.Now()
		resp := call(ctx, t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "hi", ""))
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
		require.Zero(t, time.Since(start), "the header comes at once")
		b, err := io.ReadAll(resp.Body)
		require.Empty(t, b)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Equal(t, 30*time.Second, time.Since(start))
		require.Empty(t, agent.TaskIDs())
	})
}

func TestFaultDrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.Drip(10 * time.Millisecond)))
		start := time.Now()
		resp := call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "hi", ""))
		var body []byte
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			require.LessOrEqual(t, n, 1, "one byte at a time")
			body = append(body, buf[:n]...)
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
		}
		require.Equal(t, time.Duration(len(body)-1)*10*time.Millisecond, time.Since(start))
		evs := readAllStream(t, &http.Response{StatusCode: 200, Header: resp.Header, Body: io.NopCloser(strings.NewReader(string(body)))})
		require.Len(t, evs, 5)
	})
}

func TestGetFaults(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithGetFaults(
		a2atest.HTTPStatus(http.StatusInternalServerError, "oops"),
		a2atest.Fault{},
		a2atest.CutAfterBytes(5),
	))
	c := agent.Client()
	id, _ := startTask(t.Context(), t, agent, a2a.V10)

	resp := call(t.Context(), t, c, a2a.V10, "get", idParams(id))
	require.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	task, err := a2a.Codec{}.DecodeTask(unaryResult(t, call(t.Context(), t, c, a2a.V10, "get", idParams(id))))
	require.NoError(t, err)
	require.Equal(t, id, task.ID)
	resp = call(t.Context(), t, c, a2a.V10, "get", idParams(id))
	b, err := io.ReadAll(resp.Body)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Equal(t, `{"jso`, string(b))
	unaryResult(t, call(t.Context(), t, c, a2a.V10, "get", idParams(id)))

	var faults []string
	for _, r := range agent.Requests() {
		faults = append(faults, r.Method+" "+r.Fault.String())
	}
	require.Equal(t, []string{
		"SendStreamingMessage none",
		`GetTask HTTPStatus(500, "oops")`,
		"GetTask none",
		"GetTask CutAfterBytes(5)",
		"GetTask none",
	}, faults)
}

func TestFaultString(t *testing.T) {
	tests := []struct {
		f    a2atest.Fault
		want string
	}{
		{a2atest.Fault{}, "none"},
		{a2atest.CutAfterEvents(3), "CutAfterEvents(3)"},
		{a2atest.CloseAfterEvents(-1), "CloseAfterEvents(0)"},
		{a2atest.CutAfterBytes(12), "CutAfterBytes(12)"},
		{a2atest.HTTPStatus(503, "busy"), `HTTPStatus(503, "busy")`},
		{a2atest.HTTPStatusWithHeader(429, "", http.Header{"Retry-After": {"2"}}), `HTTPStatusWithHeader(429, "", {Retry-After: 2})`},
		{a2atest.RPCError(-32603, "x", a2atest.ErrorAsErrorEvent), `RPCError(-32603, "x", ErrorAsErrorEvent)`},
		{a2atest.Hang(), "Hang()"},
		{a2atest.Drip(time.Millisecond), "Drip(1ms)"},
		{a2atest.Drop(), "Drop()"},
		{a2atest.RetryableError(-32603, "x", 1500*time.Millisecond, a2atest.ErrorAsJSON), `RetryableError(-32603, "x", 1.5s, ErrorAsJSON)`},
		{a2atest.Refuse(), "Refuse()"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.f.String())
		require.Equal(t, tt.want == "none", tt.f.IsZero())
	}
	require.Equal(t, "FullReplay", a2atest.FullReplay.String())
	require.Equal(t, "ErrorAsJSON", a2atest.ErrorAsJSON.String())
	require.Equal(t, `ArtifactChunk("a", append=true, last=false)`, a2atest.Chunk("a", "b", true, false).String())
	require.Equal(t, `Status(input-required, "?")`, a2atest.AskInput("?").String())
	require.Equal(t, "Pause(2s)", a2atest.Pause(2*time.Second).String())
}

// TestSendFaults checks that unary sends take their faults from
// WithSendFaults, counted on their own, and which faults let the send do
// its work.
func TestSendFaults(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), pausedScript(),
					a2atest.WithSendFaults(
						a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"),
						a2atest.Drop(),
						a2atest.Hang(),
						a2atest.CutAfterBytes(10),
						a2atest.Fault{},
						a2atest.CloseAfterEvents(0),
					),
					a2atest.WithFaults(a2atest.CloseAfterEvents(1)))
				c := agent.Client()
				send := func(ctx context.Context, config string) (*http.Response, error) {
					resp, err := rawCall(ctx, c, v, "send", sendParamsWith(t, v, "hi", "", config))
					if err == nil {
						t.Cleanup(func() { _ = resp.Body.Close() })
					}
					return resp, err
				}
				start := time.Now()

				// Faults that replace the answer: the message is not taken.
				resp, err := send(t.Context(), returnAtOnce(v))
				require.NoError(t, err)
				require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
				_, err = send(t.Context(), returnAtOnce(v))
				require.ErrorIs(t, err, io.ErrUnexpectedEOF)
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
				_, err = send(ctx, returnAtOnce(v))
				cancel()
				require.ErrorIs(t, err, context.DeadlineExceeded, "a hung unary send gets no header")
				require.Empty(t, agent.TaskIDs())
				require.Equal(t, 5*time.Second, time.Since(start))

				// A streaming send does not use up a send fault.
				_, evs := startTask(t.Context(), t, agent, v)
				require.Len(t, evs, 1)

				// Faults that damage the answer: the task exists and runs.
				// The blocking send is cut when the task settles, 3s on.
				resp, err = send(t.Context(), "")
				require.NoError(t, err)
				body, err := io.ReadAll(resp.Body)
				require.ErrorIs(t, err, io.ErrUnexpectedEOF)
				require.Equal(t, `{"jsonrpc"`, string(body))
				require.Equal(t, 8*time.Second, time.Since(start))
				require.Len(t, agent.TaskIDs(), 2)
				require.Equal(t, a2a.StateCompleted, agent.Task(agent.TaskIDs()[1]).Status.State)

				unaryTask(t, call(t.Context(), t, c, v, "send", sendParamsWith(t, v, "hi", "", returnAtOnce(v))))
				resp, err = send(t.Context(), returnAtOnce(v))
				require.NoError(t, err)
				body, err = io.ReadAll(resp.Body)
				require.NoError(t, err)
				require.Empty(t, body, "closed before the answer")
				require.Len(t, agent.TaskIDs(), 4)

				var got []string
				for _, r := range agent.Requests() {
					got = append(got, r.Fault.String())
				}
				require.Equal(t, []string{`HTTPStatus(503, "busy")`, "Drop()", "Hang()", "CloseAfterEvents(1)",
					"CutAfterBytes(10)", "none", "CloseAfterEvents(0)"}, got)
			})
		})
	}
}

// TestGetFaultsDropAndHang checks the faults that make a poll fail without
// an answer.
func TestGetFaultsDropAndHang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithGetFaults(a2atest.Drop(), a2atest.Hang()))
		c := agent.Client()
		id, _ := startTask(t.Context(), t, agent, a2a.V10)

		_, err := rawCall(t.Context(), c, a2a.V10, "get", idParams(id))
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)

		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err = rawCall(ctx, c, a2a.V10, "get", idParams(id))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Equal(t, time.Second, time.Since(start))

		require.Equal(t, id, getTask(t, agent, a2a.V10, id).ID)
	})
}

func TestRandomFaults(t *testing.T) {
	choices := []a2atest.Fault{a2atest.Drop(), a2atest.HTTPStatus(503, "busy"), a2atest.CutAfterBytes(20)}
	a := a2atest.RandomFaults(7, 200, 0.3, choices...)
	require.Len(t, a, 200)
	require.Equal(t, a, a2atest.RandomFaults(7, 200, 0.3, choices...), "the same seed gives the same list")
	require.NotEqual(t, a, a2atest.RandomFaults(8, 200, 0.3, choices...))
	faulty := 0
	for _, f := range a {
		if !f.IsZero() {
			faulty++
			require.Contains(t, choices, f)
		}
	}
	require.InDelta(t, 60, faulty, 30, "about 30 percent of 200")

	all := a2atest.RandomFaults(1, 300, 1, choices...)
	seen := map[a2atest.Fault]int{}
	for _, f := range all {
		seen[f]++
	}
	require.Len(t, seen, len(choices), "p = 1: every request gets one of the choices, and each is picked")
	for _, f := range a2atest.RandomFaults(1, 50, 0, choices...) {
		require.True(t, f.IsZero())
	}
	for _, f := range a2atest.RandomFaults(1, 50, 0.5) {
		require.True(t, f.IsZero(), "no choices")
	}
	require.Empty(t, a2atest.RandomFaults(1, 0, 1, choices...))
	require.Empty(t, a2atest.RandomFaults(1, -1, 1, choices...))
}

// TestPollingThroughRandomGetFaults plays a client of an agent that cannot
// stream: one non-blocking send, then polls every 500ms, about half of which
// fail at random, until the task settles.
func TestPollingThroughRandomGetFaults(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				faults := a2atest.RandomFaults(42, 100, 0.5,
					a2atest.Drop(), a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"), a2atest.CutAfterBytes(20))
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithoutStreaming(), pausedScript(),
					a2atest.WithGetFaults(faults...))
				c := agent.Client()
				start := time.Now()
				task := unaryTask(t, call(t.Context(), t, c, v, "send", sendParamsWith(t, v, "hi", "", returnAtOnce(v))))
				polls, failed := 0, 0
				for !task.Status.State.Terminal() {
					advance(500 * time.Millisecond)
					polls++
					resp, err := rawCall(t.Context(), c, v, "get", idParams(task.ID))
					if err != nil {
						failed++
						continue
					}
					body, err := io.ReadAll(resp.Body)
					_ = resp.Body.Close()
					if err != nil || resp.StatusCode != http.StatusOK {
						failed++
						continue
					}
					got, err := a2a.Codec{}.DecodeTask(decodeRPC(t, body).Result)
					require.NoError(t, err)
					task = got
				}
				require.Equal(t, "xy", task.Artifacts[0].Text())
				require.GreaterOrEqual(t, time.Since(start), 3*time.Second)

				reqs := agent.Requests()
				require.Len(t, reqs, 1+polls)
				require.Equal(t, methodName(v, "send"), reqs[0].Method, "the message is sent once")
				require.True(t, reqs[0].Fault.IsZero())
				n := 0
				for i, r := range reqs[1:] {
					require.Equal(t, faults[i], r.Fault, "poll %d", i)
					if !r.Fault.IsZero() {
						n++
					}
				}
				require.Equal(t, n, failed)
				require.Positive(t, failed)
			})
		})
	}
}

// WithNewTaskFault cuts every new task's first stream, however many came
// before, and leaves resubscribes and follow-ups to WithFaults.
func TestNewTaskFault(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), pausedScript(),
					a2atest.WithNewTaskFault(a2atest.CutAfterEvents(1)),
					a2atest.WithFaults(a2atest.CloseAfterEvents(2)))
				for range 3 {
					evs, err := readStream(t, call(t.Context(), t, agent.Client(), v, "stream", sendParams(t, v, "hi", "")))
					require.ErrorIs(t, err, io.ErrUnexpectedEOF, "every new task's stream is cut")
					require.Equal(t, []string{"T(submitted)"}, kinds(evs))
				}
				ids := agent.TaskIDs()
				require.Len(t, ids, 3)
				// The first resubscribe takes WithFaults' first fault: the
				// new tasks' sends did not count toward it.
				evs, err := readStream(t, call(t.Context(), t, agent.Client(), v, "subscribe", idParams(ids[0])))
				require.NoError(t, err, "a clean close, not a cut")
				require.Len(t, evs, 2)
				for _, r := range agent.Requests() {
					if r.TaskID == "" {
						require.Equal(t, a2atest.CutAfterEvents(1), r.Fault)
					}
				}
			})
		})
	}
}
