package relay_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// A watcher whose log stays empty leaves the lease free and gives up after
// the start wait, 30 s by default, with ErrNotStarted; the log stays empty.
func TestRunAsAWatcherOfAnEmptyLogGivesUpAfterTheStartWait(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []relay.RunOption
		want time.Duration
	}{
		{"default", nil, 30 * time.Second},
		{"WithStartWait(2s)", []relay.RunOption{relay.WithStartWait(2 * time.Second)}, 2 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				log, err := newMemoryStore(t).Open(t.Context(), "k")
				require.NoError(t, err)
				began := time.Now()
				err = relay.Run(t.Context(), log, "watcher", noResume(t), c.opts...)
				require.ErrorIs(t, err, relay.ErrNotStarted)
				require.Equal(t, c.want, time.Since(began))
				f, err := log.Acquire(t.Context(), "starter", time.Second)
				require.NoError(t, err, "the watcher left the lease free")
				require.Positive(t, f.Term)
				tail, err := log.Tail(t.Context())
				require.NoError(t, err)
				require.Zero(t, tail)
			})
		})
	}
}

// A log whose driver died before its stream knew its task (entries, or
// the mark Run stores before it starts, and no checkpoint of a task)
// cannot be resumed: the replica that takes it over, once the dead
// driver's lease expired, appends one EventFailure of kind "unresumable"
// and returns nil, and resumes nothing.
func TestRunTakingOverAStreamWithoutATaskEndsItUnresumable(t *testing.T) {
	for _, c := range []struct {
		name string
		dead func(t *testing.T, log relay.Log, f relay.Fence)
		tail uint64
	}{
		{"entries and no checkpoint", func(t *testing.T, log relay.Log, f relay.Fence) {
			require.NoError(t, log.Commit(t.Context(), f, nil, relay.Entry{Seq: 1, Name: relay.EventNotice, Data: []byte(`{"kind":"reconnecting","text":"reconnecting (1/3)…"}`)}))
		}, 1},
		{"the mark of a start: a checkpoint that names no task", func(t *testing.T, log relay.Log, f relay.Fence) {
			mark, err := new(stream.Checkpoint).MarshalBinary()
			require.NoError(t, err)
			require.NoError(t, log.Commit(t.Context(), f, mark))
		}, 0},
		{"a checkpoint that does not parse", func(t *testing.T, log relay.Log, f relay.Fence) {
			require.NoError(t, log.Commit(t.Context(), f, []byte("not a checkpoint")))
		}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				log, err := newMemoryStore(t).Open(t.Context(), "k")
				require.NoError(t, err)
				f, err := log.Acquire(t.Context(), "dead", 5*time.Second)
				require.NoError(t, err)
				c.dead(t, log, f)
				began := time.Now()
				require.NoError(t, relay.Run(t.Context(), log, "taker", noResume(t)))
				require.Equal(t, 5*time.Second, time.Since(began), "taken over when the dead driver's lease expired")
				es, err := log.Read(t.Context(), c.tail, 10)
				require.NoError(t, err)
				require.Len(t, es, 1)
				require.Equal(t, relay.EventFailure, es[0].Name)
				var e relay.FailureData
				require.NoError(t, json.Unmarshal(es[0].Data, &e))
				require.Equal(t, "unresumable", e.Kind)
			})
		})
	}
}

// The checkpoint slot holds only stream checkpoints: before Run starts a
// stream it stores the checkpoint of a stream that knows no task yet,
// which parses (a replica that takes the log over reads it as "started,
// no task known"), not a text of the relay's own.
func TestRunMarksAStartWithACheckpointThatParsesAndNamesNoTask(t *testing.T) {
	log, err := newMemoryStore(t).Open(t.Context(), "k")
	require.NoError(t, err)
	var (
		cp    []byte
		got   *stream.Checkpoint
		sends int
	)
	// The agent reads the log's checkpoint as the message arrives, and
	// answers 400, which ends the stream.
	agent := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sends++
		cp, err = log.LoadCheckpoint(r.Context())
		require.NoError(t, err)
		got, err = stream.ParseCheckpoint(cp)
		return &http.Response{StatusCode: http.StatusBadRequest, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})
	client, cerr := stream.NewClient("http://agent.test/", stream.WithHTTPClient(&http.Client{Transport: agent}))
	require.NoError(t, cerr)
	require.NoError(t, relay.Run(t.Context(), log, "starter", relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello")), relay.WithLease(time.Minute)))
	require.Equal(t, 1, sends, "the message was sent once")
	require.NotNil(t, cp, "Run stored a mark before it started the stream")
	require.NoError(t, err, "the mark is a stream checkpoint")
	require.Empty(t, got.TaskID(), "the mark names no task")
}

// noResume is the Source of a watcher whose client fails a test that
// resumes.
func noResume(t *testing.T) relay.Source {
	return relay.Resume(unreachedClient(t, "Run resumed a stream it cannot resume"))
}
