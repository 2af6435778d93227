package relay_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// lastEntry returns the log's last entry.
func lastEntry(t *testing.T, log relay.Log) relay.Entry {
	t.Helper()
	tail, err := log.Tail(t.Context())
	require.NoError(t, err)
	require.Positive(t, tail)
	es, err := log.Read(t.Context(), tail-1, 1)
	require.NoError(t, err)
	require.Len(t, es, 1)
	return es[0]
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
	require.NoError(t, relay.Stop(t.Context(), log, "web", strings.Repeat("é", stream.MaxEndingLine)))
	var got relay.FailureData
	require.NoError(t, json.Unmarshal(lastEntry(t, log).Data, &got))
	require.LessOrEqual(t, len(got.Text), stream.MaxEndingLine)
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
