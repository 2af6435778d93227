package relay_test

import (
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

func TestEveryStreamEndsWithATypedEvent(t *testing.T) {
	for _, tt := range []struct {
		name   string
		agent  []a2atest.Option
		stream []stream.Option
		last   string        // the last event's name
		kind   string        // FailureData.Kind, for EventFailure
		state  a2a.TaskState // its State
	}{
		{"completed", []a2atest.Option{a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateCompleted, "done"))}, nil, relay.EventEnd, "", a2a.StateCompleted},
		{"message answer", []a2atest.Option{a2atest.WithScript(a2atest.Reply("hi"))}, nil, relay.EventEnd, "", ""},
		{"failed", []a2atest.Option{a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateFailed, "quota exceeded"))}, nil, relay.EventFailure, "failed", a2a.StateFailed},
		{"rejected", []a2atest.Option{a2atest.WithScript(a2atest.Finish(a2a.StateRejected, "no"))}, nil, relay.EventFailure, "rejected", a2a.StateRejected},
		{"canceled by the agent", []a2atest.Option{a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateCanceled, ""))}, nil, relay.EventFailure, "canceled", a2a.StateCanceled},
		{"no answer in time", []a2atest.Option{a2atest.WithScript(askScript()...)}, []stream.Option{stream.WithInputTimeout(time.Minute)}, relay.EventFailure, "no-answer", a2a.StateInputRequired},
		{"auth required", []a2atest.Option{a2atest.WithScript(a2atest.AskAuth("sign in"))}, nil, relay.EventFailure, "auth-required", a2a.StateAuthRequired},
		{"connection lost", []a2atest.Option{a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Second), a2atest.Finish(a2a.StateCompleted, "")), a2atest.WithFaults(a2atest.CutAfterEvents(1), a2atest.Drop(), a2atest.Drop(), a2atest.Drop())},
			[]stream.Option{stream.WithReconnect(reconnect.Policy{Backoff: time.Second, MaxAttempts: 2})}, relay.EventFailure, "connection-lost", ""},
		{"agent error", []a2atest.Option{a2atest.WithNewTaskFault(a2atest.RPCError(-32603, "internal", a2atest.ErrorAsJSON))}, nil, relay.EventFailure, "agent-error", ""},
		{"HTTP error", []a2atest.Option{a2atest.WithNewTaskFault(a2atest.HTTPStatus(502, "bad gateway"))}, nil, relay.EventFailure, "http-error", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, rigConfig{agent: tt.agent, stream: tt.stream})
				evs := r.connect("").rest()
				require.NoError(t, r.wait())
				all := r.logEntries(0)
				requireEntries(t, all, evs)
				for _, e := range all[:len(all)-1] {
					require.NotContains(t, []string{relay.EventEnd, relay.EventFailure}, e.Name, "one ending, the last entry")
				}
				last := all[len(all)-1]
				require.Equal(t, tt.last, last.Name)
				if tt.last == relay.EventEnd {
					var e relay.EndData
					require.NoError(t, json.Unmarshal(last.Data, &e))
					require.Equal(t, tt.state, e.State)
					return
				}
				var e relay.FailureData
				require.NoError(t, json.Unmarshal(last.Data, &e))
				require.Equal(t, tt.kind, e.Kind, e.Text)
				require.Equal(t, tt.state, e.State)
				require.NotEmpty(t, e.Text)
			})
		})
	}
}
