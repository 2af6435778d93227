package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/clip"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// What browsers are told of each ending in an error: the agent's own
// words where it has some, and never the text of the error, which names
// the agent's address.
func TestFailureTextTellsPeopleWhatHappened(t *testing.T) {
	const where = "POST http://planner.internal:8081/agents/p"
	for _, tt := range []struct {
		name string
		e    stream.Ending
		kind string
		text string
	}{
		{"a failed task", stream.Ending{State: a2a.StateFailed, Err: errors.New(where), Failure: &terminal.Failure{Message: "out of paper"}},
			"failed", "failed: out of paper"},
		{"an error the agent answered", stream.Ending{Err: fmt.Errorf("%s: %w", where, &a2a.RPCError{Code: -32603, Message: "the planner is\noverloaded\u2028today"})},
			"agent-error", "the agent answered with an error: the planner is overloaded today"},
		{"an error without a message", stream.Ending{Err: fmt.Errorf("%s: %w", where, &a2a.RPCError{Code: -32603})},
			"agent-error", "the agent answered with an error"},
		{"an HTTP error", stream.Ending{Err: &transport.HTTPError{StatusCode: 502, Method: "POST", URL: where}},
			"http-error", "the agent could not be reached (HTTP 502)"},
		{"an agent never reached", stream.Ending{Err: &reconnect.Error{Attempts: 3, Unreachable: where, Err: errors.New("dial tcp 10.9.8.7:8081")}},
			"connection-lost", "the agent could not be reached"},
		{"a connection lost", stream.Ending{Err: &reconnect.Error{Attempts: 3, TaskID: "t-1", Err: errors.New("read tcp 10.9.8.7:8081")}},
			"connection-lost", "the connection to the agent was lost, and could not be resumed"},
		{"an unreadable answer", stream.Ending{Err: &transport.ProtocolError{Err: errors.New(where)}},
			"protocol-error", "the agent sent what the relay cannot read"},
		{"a status of another task", stream.Ending{Err: &transport.ProtocolError{Err: errors.New(where), Event: &a2a.StatusUpdate{TaskID: "t-2",
			Status: a2a.TaskStatus{State: a2a.StateFailed, Message: a2a.NewTextMessage(a2a.RoleAgent, "executor error")}}}},
			"protocol-error", "the agent sent what the relay cannot read: failed: executor error"},
		{"a stopped stream", stream.Ending{Err: fmt.Errorf("%s: %w", where, context.Canceled)},
			"stopped", "the stream was stopped before its task ended"},
		{"another error", stream.Ending{Err: errors.New(where)},
			"error", "the agent could not be reached"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.kind, errorKind(tt.e))
			text := failureText(tt.e, tt.kind)
			require.Equal(t, tt.text, text)
			require.NotContains(t, text, "planner.internal")
		})
	}
}

func TestFailureTextOfAnAgentsMessageIsOneBoundedLine(t *testing.T) {
	msg := strings.Repeat("line\r\nbreak\u0085next\u2029\v\f", 200)
	text := failureText(stream.Ending{Err: &a2a.RPCError{Code: 1, Message: msg}}, "agent-error")
	require.LessOrEqual(t, len(text), clip.EndingLine)
	require.NotContains(t, text, "\n")
	for _, r := range "\r\n\u0085\u2028\u2029\v\f" {
		require.NotContains(t, text, string(r))
	}
}
