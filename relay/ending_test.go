package relay_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/clip"
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

// EventSource fires an event named "error" of its own when its connection
// fails: a relay event of that name would reach the same listeners, and
// every page would have to tell them apart by their data. A stream that
// ends in an error ends with an event named "failure"; no relay event is
// named "error", nor "open", the other event EventSource fires of its
// own.
func TestNoRelayEventIsNamedLikeEventSourcesOwnEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateFailed, "out of paper"))}})
		evs := r.connect("").rest()
		require.NoError(t, r.wait())
		for _, ev := range evs {
			require.NotContains(t, []string{"error", "open"}, strings.ToLower(ev.Name))
		}
		require.Equal(t, "failure", evs[len(evs)-1].Name)
	})
}

// Stop ends a stream no replica drives with one EventFailure of kind
// "stopped", after the entries the log holds, and gives the lease up; the
// stream has then ended, for Drive as for a second Stop.
func TestStopEndsTheStreamWithOneStoppedFailure(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"its text", "the chat server stopped this conversation", "the chat server stopped this conversation"},
		{"no text", "", "the stream was stopped before its task ended"},
		{"a text of many lines", "stopped\nfor maintenance", "stopped for maintenance"},
	} {
		t.Run(c.name, func(t *testing.T) {
			log, err := newMemoryStore(t).Open(t.Context(), "k")
			require.NoError(t, err)
			f, err := log.Acquire(t.Context(), "dead", time.Minute)
			require.NoError(t, err)
			require.NoError(t, log.Commit(t.Context(), f, nil, relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)}))
			require.NoError(t, log.Release(t.Context(), f))

			require.NoError(t, relay.Stop(t.Context(), log, "web", c.text))
			last := lastEntry(t, log)
			require.Equal(t, uint64(2), last.Seq)
			require.Equal(t, relay.EventFailure, last.Name)
			var got relay.FailureData
			require.NoError(t, json.Unmarshal(last.Data, &got))
			require.Equal(t, relay.FailureData{Kind: "stopped", Text: c.want}, got)

			f, err = log.Acquire(t.Context(), "other", time.Minute)
			require.NoError(t, err, "Stop gave the lease up")
			require.ErrorIs(t, relay.Drive(t.Context(), log, f, relay.Send(unreachedClient(t, "Drive started a stopped stream"),
				a2a.NewTextMessage(a2a.RoleUser, "hello"))), relay.ErrEnded)
			require.NoError(t, log.Release(t.Context(), f))
			require.ErrorIs(t, relay.Stop(t.Context(), log, "web", c.text), relay.ErrEnded)
			require.Equal(t, uint64(2), lastEntry(t, log).Seq, "a second Stop appends nothing")
		})
	}
}

// Stop appends nothing to a stream another owner drives: ErrHeld.
func TestStopWhileAnotherOwnerDrivesAppendsNothing(t *testing.T) {
	log, err := newMemoryStore(t).Open(t.Context(), "k")
	require.NoError(t, err)
	_, err = log.Acquire(t.Context(), "driver", time.Minute)
	require.NoError(t, err)
	require.ErrorIs(t, relay.Stop(t.Context(), log, "web", "stopped"), relay.ErrHeld)
	tail, err := log.Tail(t.Context())
	require.NoError(t, err)
	require.Zero(t, tail)
}

// A text longer than an ending's line is cut to stream.MaxEndingLine bytes.
func TestStopCutsALongTextToOneEndingLine(t *testing.T) {
	log, err := newMemoryStore(t).Open(t.Context(), "k")
	require.NoError(t, err)
	require.NoError(t, relay.Stop(t.Context(), log, "web", strings.Repeat("é", clip.EndingLine)))
	var got relay.FailureData
	require.NoError(t, json.Unmarshal(lastEntry(t, log).Data, &got))
	require.LessOrEqual(t, len(got.Text), clip.EndingLine)
	require.NotEmpty(t, got.Text)
}

// Stop refuses a nil log and an empty owner with ErrInvalidOption.
func TestStopRefusesANilLogAndAnEmptyOwner(t *testing.T) {
	log, err := newMemoryStore(t).Open(t.Context(), "k")
	require.NoError(t, err)
	require.ErrorIs(t, relay.Stop(t.Context(), nil, "web", ""), relay.ErrInvalidOption)
	require.ErrorIs(t, relay.Stop(t.Context(), log, "", ""), relay.ErrInvalidOption)
	tail, err := log.Tail(t.Context())
	require.NoError(t, err)
	require.Zero(t, tail)
}
