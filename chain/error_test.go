package chain_test

// Error: the link it writes of each error a call of package stream (or a
// fan-out) ends in, and what it keeps out of it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/chain"
	"github.com/a2astream/a2astream/fanout"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// TestErrorDescribesEachError: the downstream link of each error this
// package returns, and this agent's link, in both versions; no secret
// planted in an error (headers, bodies, URLs, error data, prompts, error
// text) reaches the error object.
func TestErrorDescribesEachError(t *testing.T) {
	t.Parallel()
	task := func(state a2a.TaskState, text string) *a2a.Task {
		t := &a2a.Task{ID: "t-9", ContextID: "c-9", Status: a2a.TaskStatus{State: state}}
		if text != "" {
			t.Status.Message = a2a.NewTextMessage(a2a.RoleAgent, text)
		}
		return t
	}
	secretHeader := http.Header{"Www-Authenticate": {`Bearer realm="header-secret"`}, "Set-Cookie": {"s=cookie-secret"}}
	busy := &transport.HTTPError{StatusCode: 503, Status: "503 header-secret", Body: []byte(strings.Repeat("body-secret ", 1000)),
		Header: http.Header{"Retry-After": {"7"}, "Set-Cookie": {"s=cookie-secret"}}}
	dialErr := &url.Error{Op: "Post", URL: "https://bot:pw-secret@flights.test/a2a?code=code-secret",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect 10.0.0.7: refused, token tcp-secret")}}
	chained := chain.Encode(a2a.V10, []chain.Link{
		{Agent: "flights-eu", Code: a2a.CodeInternalError, Message: "downstream agent seats failed"},
		{Agent: "seats", Code: a2a.CodeTaskNotFound, Message: "task not found", Reason: "TASK_NOT_FOUND"},
	})
	for _, tc := range []struct {
		name string
		err  error
		want []chain.Link // the downstream links, Agent left out
	}{
		{"failed", &terminal.FailedError{Task: task(a2a.StateFailed, "no seats")},
			[]chain.Link{{Message: "task t-9 ended in state failed: no seats", TaskID: "t-9", State: a2a.StateFailed}}},
		{"rejected", fmt.Errorf("booking: %w", &terminal.RejectedError{Task: task(a2a.StateRejected, "")}),
			[]chain.Link{{Message: "task t-9 ended in state rejected", TaskID: "t-9", State: a2a.StateRejected}}},
		{"canceled", &terminal.CanceledError{Task: task(a2a.StateCanceled, "")},
			[]chain.Link{{Message: "task t-9 ended in state canceled", TaskID: "t-9", State: a2a.StateCanceled}}},
		{"auth required", &terminal.AuthRequiredError{Task: task(a2a.StateAuthRequired, "sign in")},
			[]chain.Link{{Message: "task t-9 ended in state auth-required: sign in", TaskID: "t-9", State: a2a.StateAuthRequired}}},
		{"terminal without a task", &terminal.FailedError{},
			[]chain.Link{{Message: "task ended in state failed", State: a2a.StateFailed}}},
		{"input required", &hitl.Error{Task: task(a2a.StateInputRequired, "your password-secret?"),
			Prompt: a2a.NewTextMessage(a2a.RoleAgent, "your password-secret?"), Err: hitl.ErrNoHook},
			[]chain.Link{{Message: "task t-9 needs input", TaskID: "t-9", State: a2a.StateInputRequired}}},
		{"reconnects exhausted on a 503", &reconnect.Error{Attempts: 3, TaskID: "t-9", Task: task(a2a.StateWorking, ""), Err: busy},
			[]chain.Link{{Message: "connection lost; gave up after 3 attempts", TaskID: "t-9", State: a2a.StateWorking,
				HTTPStatus: 503, Retryable: true, RetryAfter: 7 * time.Second}}},
		{"connection lost before any task", &reconnect.Error{Err: fmt.Errorf("%w: %w", reconnect.ErrNoTask, dialErr)},
			[]chain.Link{{Message: "connection lost", Retryable: true}}},
		{"could not connect", &reconnect.Error{Attempts: 3, Err: dialErr, Unreachable: "https://flights.test/?code=xxxxx"},
			[]chain.Link{{Message: "could not connect; gave up after 3 attempts", Retryable: true}}},
		{"circuit open", &url.Error{Op: "Post", URL: "https://flights.test/?code=code-secret",
			Err: fmt.Errorf("%w: %w", transport.ErrCircuitOpen, errors.New("circuit breaker is open"))},
			[]chain.Link{{Message: "circuit open: nothing sent", Retryable: true}}},
		{"connect timeout", &url.Error{Op: "Post", URL: "https://flights.test/", Err: fmt.Errorf("%w (10s): %w", transport.ErrConnectTimeout, dialErr)},
			[]chain.Link{{Message: "no connection within the connect timeout", Retryable: true}}},
		{"quorum out of reach", &fanout.QuorumError{Need: 2, Succeeded: 1, Errs: []error{nil, busy, &terminal.FailedError{Task: task(a2a.StateFailed, "")}}},
			[]chain.Link{{Message: "quorum not reached: 1 of 3 calls succeeded, 2 needed", Retryable: true}}},
		{"quorum out of reach, nothing to retry", &fanout.QuorumError{Need: 2, Succeeded: 0, Errs: []error{&terminal.FailedError{Task: task(a2a.StateFailed, "")}, fanout.ErrNotNeeded}},
			[]chain.Link{{Message: "quorum not reached: 0 of 2 calls succeeded, 2 needed"}}},
		{"HTTP 429", &transport.HTTPError{StatusCode: 429, Header: http.Header{"Retry-After": {"30"}}, Body: []byte("body-secret")},
			[]chain.Link{{Message: "HTTP 429 Too Many Requests", HTTPStatus: 429, Retryable: true, RetryAfter: 30 * time.Second}}},
		{"HTTP 503", busy,
			[]chain.Link{{Message: "HTTP 503 Service Unavailable", HTTPStatus: 503, Retryable: true, RetryAfter: 7 * time.Second}}},
		{"HTTP 401", &transport.HTTPError{StatusCode: 401, Header: secretHeader, Body: []byte(`{"error":"bad token tok-secret"}`)},
			[]chain.Link{{Message: "HTTP 401 Unauthorized", HTTPStatus: 401}}},
		{"HTTP 500 whose google.rpc.Status asks for a retry", &transport.HTTPError{StatusCode: 500, Header: secretHeader,
			Body: []byte(`{"error":{"code":500,"status":"INTERNAL","message":"body-secret","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}`)},
			[]chain.Link{{Message: "HTTP 500 Internal Server Error", HTTPStatus: 500, Retryable: true, RetryAfter: 3 * time.Second}}},
		{"HTTP 400 whose body asks for a retry", &transport.HTTPError{StatusCode: 400, Body: []byte(`{"code":400,"data":{"retryable":true,"retryAfter":"6"}}`)},
			[]chain.Link{{Message: "HTTP 400 Bad Request", HTTPStatus: 400, Retryable: true, RetryAfter: 6 * time.Second}}},
		{"HTTP status without a text", &transport.HTTPError{StatusCode: 599},
			[]chain.Link{{Message: "HTTP 599", HTTPStatus: 599, Retryable: true}}},
		{"A2A error in a 500", &transport.HTTPError{StatusCode: 500, Header: secretHeader,
			Err: &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "task not found", Data: json.RawMessage(`{"debug":"data-secret"}`)}},
			[]chain.Link{{Code: a2a.CodeTaskNotFound, Message: "task not found", HTTPStatus: 500}}},
		{"A2A error in a 503 with Retry-After", &transport.HTTPError{StatusCode: 503, Header: http.Header{"Retry-After": {"9"}},
			Err: &a2a.RPCError{Code: a2a.CodeInternalError, Message: "busy"}},
			[]chain.Link{{Code: a2a.CodeInternalError, Message: "busy", HTTPStatus: 503, Retryable: true, RetryAfter: 9 * time.Second}}},
		{"A2A error that is retryable, delay from the header", &transport.HTTPError{StatusCode: 500, Header: http.Header{"Retry-After": {"4"}},
			Err: &a2a.RPCError{Code: a2a.CodeInternalError, Message: "busy", Data: json.RawMessage(`{"retryable":true}`)}},
			[]chain.Link{{Code: a2a.CodeInternalError, Message: "busy", HTTPStatus: 500, Retryable: true, RetryAfter: 4 * time.Second}}},
		{"JSON-RPC error", &a2a.RPCError{Code: a2a.CodeInternalError, Message: strings.Repeat("x", 300),
			Data: json.RawMessage(`{"retryable":true,"retryAfter":2,"trace":"data-secret"}`)},
			[]chain.Link{{Code: a2a.CodeInternalError, Message: strings.Repeat("x", 256) + "…", Retryable: true, RetryAfter: 2 * time.Second}}},
		{"JSON-RPC error of 1.0", &a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "task ended",
			Data: json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"a2a-protocol.org","metadata":{"k":"data-secret"}}]`)},
			[]chain.Link{{Code: a2a.CodeUnsupportedOperation, Message: "task ended", Reason: "UNSUPPORTED_OPERATION"}}},
		{"a chain", fmt.Errorf("send: %w", chained),
			[]chain.Link{{Code: a2a.CodeInternalError, Message: "downstream agent seats failed"},
				{Agent: "seats", Code: a2a.CodeTaskNotFound, Message: "task not found", Reason: "TASK_NOT_FOUND"}}},
		{"protocol error", &transport.ProtocolError{Reason: "malformed JSON", Err: errors.New("near body-secret")},
			[]chain.Link{{Message: "protocol error: malformed JSON"}}},
		{"stalled", &stream.StalledError{Task: task(a2a.StateWorking, "thinking"), After: 5 * time.Minute},
			[]chain.Link{{Message: "task t-9 made no progress for 5m0s", TaskID: "t-9", State: a2a.StateWorking}}},
		{"invalid message", fmt.Errorf("%w: data part", transport.ErrInvalidMessage), []chain.Link{{Message: "invalid message"}}},
		{"invalid option", fmt.Errorf("%w: header value-secret", stream.ErrInvalidOption), []chain.Link{{Message: "invalid option"}}},
		{"invalid card", &agentcard.InvalidError{URL: "https://agent.test/?sig=sig-secret", Reason: "no interface", Err: io.ErrUnexpectedEOF},
			[]chain.Link{{Message: "invalid agent card", Retryable: true}}},
		{"deadline", fmt.Errorf("calling: %w", context.DeadlineExceeded), []chain.Link{{Message: "deadline exceeded", Retryable: true}}},
		{"canceled", context.Canceled, []chain.Link{{Message: "canceled"}}},
		{"idle", fmt.Errorf("drop: %w", transport.ErrIdleTimeout), []chain.Link{{Message: "no data within the idle timeout", Retryable: true}}},
		{"transport", dialErr, []chain.Link{{Message: "connection failed", Retryable: true}}},
		{"cut", io.ErrUnexpectedEOF, []chain.Link{{Message: "connection failed", Retryable: true}}},
		{"ended early", transport.ErrEndedEarly, []chain.Link{{Message: "connection failed", Retryable: true}}},
		{"anything else", errors.New("db password is pw-secret"), []chain.Link{{Message: "call failed"}}},
	} {
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			t.Run(tc.name+"/"+string(v), func(t *testing.T) {
				t.Parallel()
				e := chain.Error(tc.err, v, "planner", "flights")
				require.NotNil(t, e)
				raw, err := json.Marshal(e)
				require.NoError(t, err)
				require.NotContains(t, string(raw), "secret")
				require.NotContains(t, string(raw), "10.0.0.7")

				want := append([]chain.Link(nil), tc.want...)
				want[0].Agent = "flights"
				own := chain.Link{Agent: "planner", Code: a2a.CodeInternalError,
					Message:   "downstream agent flights failed: " + want[0].Message,
					Retryable: want[0].Retryable, RetryAfter: want[0].RetryAfter}
				own.Message = own.Message[:min(len(own.Message), 256)]
				if len(own.Message) == 256 {
					own.Message += "…"
				}
				require.Equal(t, append([]chain.Link{own}, want...), chain.Of(e))
				require.Equal(t, a2a.CodeInternalError, e.Code)
				require.Equal(t, own.Retryable, e.Retryable())
				require.Equal(t, own.RetryAfter, e.RetryAfter())
			})
		}
	}
	require.Nil(t, chain.Error(nil, a2a.V10, "planner", "flights"))
}

// TestErrorNamesAnAgentGivenAsAURLByItsOrigin: agents should be named
// by names, but an agent named by its URL is named by its origin, in the
// links and in the message, without the URL's password, path or query.
func TestErrorNamesAnAgentGivenAsAURLByItsOrigin(t *testing.T) {
	t.Parallel()
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		e := chain.Error(transport.ErrIdleTimeout, v, "https://planner.test/a2a?key=self-secret",
			"https://bot:pw-secret@flights.test:8443/a2a/v1?code=code-secret#frag-secret")
		raw, err := json.Marshal(e)
		require.NoError(t, err)
		require.NotContains(t, string(raw), "secret", "%s", v)
		require.Equal(t, []chain.Link{
			{Agent: "https://planner.test", Code: a2a.CodeInternalError, Message: "downstream agent https://flights.test:8443 failed: no data within the idle timeout", Retryable: true},
			{Agent: "https://flights.test:8443", Message: "no data within the idle timeout", Retryable: true},
		}, chain.Of(e), "%s", v)
	}
}

// The error of a fan-out of a hundred calls, one of which succeeded and
// each other of which ended in one of five ways, is retryable: some of its
// calls are. The chain an agent answers with names the quorum and copies
// none of its errors.
func TestErrorOfAQuorumOfAHundredCallsIsRetryable(t *testing.T) {
	endings := []error{
		&terminal.FailedError{Task: &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateFailed}}},
		&reconnect.Error{Attempts: 3, Err: transport.ErrEndedEarly, TaskID: "t-1"},
		fmt.Errorf("skipped: %w", transport.ErrCircuitOpen),
		&transport.HTTPError{StatusCode: 503, Status: "503 Service Unavailable"},
		&stream.StalledError{Task: &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}}, After: time.Minute},
	}
	calls := make([]func(context.Context) (int, error), 100)
	for i := range calls {
		calls[i] = func(context.Context) (int, error) {
			if i == 99 {
				return i, nil
			}
			return 0, endings[i%len(endings)]
		}
	}
	_, err := fanout.Quorum(context.Background(), 2, calls...)
	var qe *fanout.QuorumError
	require.ErrorAs(t, err, &qe)
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		links := chain.Of(chain.Error(err, v, "planner", "fan-out"))
		require.Len(t, links, 2)
		require.True(t, links[0].Retryable)
		require.True(t, links[1].Retryable)
		require.Contains(t, links[1].Message, "quorum not reached")
	}
}
