package a2atest_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

func TestFaultRetryableErrorOverJSONRPC(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(
				a2atest.RetryableError(a2a.CodeInternalError, "model overloaded", 1500*time.Millisecond, a2atest.ErrorAsJSON),
				a2atest.RetryableError(a2a.CodeTaskNotFound, "not yet", 2*time.Second, a2atest.ErrorAsJSON),
			))
			c := agent.Client()
			for _, want := range []struct {
				code  int
				after time.Duration
			}{{a2a.CodeInternalError, 1500 * time.Millisecond}, {a2a.CodeTaskNotFound, 2 * time.Second}} {
				r := requireUnaryError(t, call(t.Context(), t, c, v, "stream", sendParams(t, v, "hi", "")), want.code)
				e := &a2a.RPCError{Code: r.Error.Code, Message: r.Error.Message, Data: r.Error.Data}
				require.True(t, e.Retryable(), "data %s", r.Error.Data)
				require.Equal(t, want.after, e.RetryAfter())
				if v == a2a.V10 {
					require.NotEmpty(t, e.Reason(), "1.0 data names the error: %s", r.Error.Data)
				} else {
					require.JSONEq(t, `{"retryable":true,"retryAfter":`+map[time.Duration]string{1500 * time.Millisecond: "1.5", 2 * time.Second: "2"}[want.after]+`}`, string(r.Error.Data))
				}
			}
			require.Empty(t, agent.TaskIDs(), "neither request was processed")
		})
	}
}

func TestFaultRetryableErrorOverHTTPJSON(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := restAgent(v, a2atest.WithFaults(a2atest.RetryableError(a2a.CodeInternalError, "model overloaded", 3*time.Second, a2atest.ErrorAsJSON)))
			resp := rest(t.Context(), t, agent.Client(), v, http.MethodPost, restPath(v, "message:stream"), restMessage(t, v, "hi", ""))
			e := requireRESTError(t, v, resp, http.StatusInternalServerError, a2a.CodeInternalError)
			require.True(t, e.Retryable())
			require.Equal(t, 3*time.Second, e.RetryAfter())
			require.Empty(t, agent.TaskIDs())
		})
	}
}

func TestFaultRetryableErrorAsAnEvent(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(
				a2atest.RetryableError(a2a.CodeInternalError, "tool crashed", time.Second, a2atest.ErrorAsErrorEvent)))
			resp := call(t.Context(), t, agent.Client(), v, "stream", sendParams(t, v, "hi", ""))
			ev, err := newSSEReader(resp.Body).next()
			require.NoError(t, err)
			r := decodeRPC(t, []byte(ev.data))
			require.NotNil(t, r.Error)
			e := &a2a.RPCError{Code: r.Error.Code, Data: r.Error.Data}
			require.True(t, e.Retryable())
			require.Equal(t, time.Second, e.RetryAfter())
		})
	}
}

func TestFaultRefuseFailsTheRoundTripAsARefusedDial(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.Refuse()))
			_, err := rawCall(t.Context(), agent.Client(), v, "stream", sendParams(t, v, "hi", ""))
			var opErr *net.OpError
			require.True(t, errors.As(err, &opErr), "err %v", err)
			require.Equal(t, "dial", opErr.Op)
			require.ErrorIs(t, err, syscall.ECONNREFUSED)
			require.Empty(t, agent.TaskIDs(), "the agent did not process it")
			reqs := agent.Requests()
			require.Len(t, reqs, 1)
			require.Equal(t, a2atest.Refuse(), reqs[0].Fault)
			// The next request has no fault.
			startTask(t.Context(), t, agent, v)
			require.Len(t, agent.TaskIDs(), 1)
		})
	}
}

func TestFaultRefuseOverARealServerDrops(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.Refuse()))
	srv := httptest.NewServer(agent)
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":"r1","method":"` + methodName(a2a.V10, "stream") + `","params":` + sendParams(t, a2a.V10, "hi", "") + `}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := srv.Client().Do(req)
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err, "the connection is cut, as by Drop")
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		require.NotEqual(t, "dial", opErr.Op, "the connection was accepted: not a refused dial")
	}
	require.Empty(t, agent.TaskIDs())
}
