package a2atest_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

// TestEventFaultsLeaveAPlainAnswerWhole pins that CutAfterEvents and
// CloseAfterEvents count the events of an event stream only: a plain JSON
// answer (a refusal, a unary result) has none, so with n >= 1 it goes out
// whole and ends normally, while n = 0 still cuts it after the header.
func TestEventFaultsLeaveAPlainAnswerWhole(t *testing.T) {
	for _, tt := range []struct {
		name    string
		opts    []a2atest.Option
		request func(t *testing.T, agent *a2atest.Agent) *http.Response
		cut     bool // the read ends in io.ErrUnexpectedEOF
		want    string
	}{{
		// NewClient's 1.0 probe to an agent that speaks only 0.3.
		name: "version refusal of a streaming send, CutAfterEvents(1)",
		opts: []a2atest.Option{a2atest.WithVersions(a2a.V03), a2atest.WithFaults(a2atest.CutAfterEvents(1))},
		request: func(t *testing.T, agent *a2atest.Agent) *http.Response {
			return call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "hi", ""))
		},
		want: `"code":-32601`,
	}, {
		name: "1.0 subscribe refused as plain JSON, CutAfterEvents(1)",
		opts: []a2atest.Option{a2atest.WithFaults(a2atest.CutAfterEvents(1))},
		request: func(t *testing.T, agent *a2atest.Agent) *http.Response {
			return call(t.Context(), t, agent.Client(), a2a.V10, "subscribe", idParams("nope"))
		},
		want: `"code":-32001`,
	}, {
		name: "HTTP+JSON subscribe refused, CutAfterEvents(1)",
		opts: []a2atest.Option{a2atest.WithBindings(a2a.BindingHTTPJSON), a2atest.WithFaults(a2atest.CutAfterEvents(1))},
		request: func(t *testing.T, agent *a2atest.Agent) *http.Response {
			return rest(t.Context(), t, agent.Client(), a2a.V10, http.MethodPost, restPath(a2a.V10, "tasks/nope:subscribe"), "")
		},
		want: `"TASK_NOT_FOUND"`,
	}, {
		name: "unary send's result, CutAfterEvents(1)",
		opts: []a2atest.Option{a2atest.WithSendFaults(a2atest.CutAfterEvents(1))},
		request: func(t *testing.T, agent *a2atest.Agent) *http.Response {
			return call(t.Context(), t, agent.Client(), a2a.V10, "send", sendParams(t, a2a.V10, "hi", ""))
		},
		want: `"TASK_STATE_COMPLETED"`,
	}, {
		name: "unary send's result, CloseAfterEvents(1)",
		opts: []a2atest.Option{a2atest.WithSendFaults(a2atest.CloseAfterEvents(1))},
		request: func(t *testing.T, agent *a2atest.Agent) *http.Response {
			return call(t.Context(), t, agent.Client(), a2a.V10, "send", sendParams(t, a2a.V10, "hi", ""))
		},
		want: `"TASK_STATE_COMPLETED"`,
	}, {
		name: "version refusal, CutAfterEvents(0): cut after the header",
		opts: []a2atest.Option{a2atest.WithVersions(a2a.V03), a2atest.WithFaults(a2atest.CutAfterEvents(0))},
		request: func(t *testing.T, agent *a2atest.Agent) *http.Response {
			return call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "hi", ""))
		},
		cut: true,
	}, {
		// A 0.3 refusal of a subscribe is a stream of one error event: an
		// event stream, so it is cut.
		name: "0.3 subscribe refused as an event, CutAfterEvents(1)",
		opts: []a2atest.Option{a2atest.WithVersions(a2a.V03), a2atest.WithFaults(a2atest.CutAfterEvents(1))},
		request: func(t *testing.T, agent *a2atest.Agent) *http.Response {
			return call(t.Context(), t, agent.Client(), a2a.V03, "subscribe", idParams("nope"))
		},
		cut:  true,
		want: `"code":-32001`,
	}} {
		t.Run(tt.name, func(t *testing.T) {
			agent := a2atest.NewAgent(tt.opts...)
			resp := tt.request(t, agent)
			body, err := io.ReadAll(resp.Body)
			if tt.cut {
				require.ErrorIs(t, err, io.ErrUnexpectedEOF)
			} else {
				require.NoError(t, err, "body %s", body)
			}
			require.Contains(t, string(body), tt.want)
			reqs := agent.Requests()
			require.Len(t, reqs, 1)
			require.False(t, reqs[0].Fault.IsZero(), "the request took the fault")
		})
	}
}
