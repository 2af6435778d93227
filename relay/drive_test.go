package relay_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

func TestSnapshotIsTheScreenAfterItsSeq(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec *recordingLog
		r := newRig(t, rigConfig{
			agent: []a2atest.Option{a2atest.WithScript(busyScript()...)},
			drive: []relay.DriveOption{relay.WithSnapshotEvery(3, 1<<20), relay.WithChunkSize(1000)},
			wrap:  func(l relay.Log) relay.Log { rec = &recordingLog{Log: l}; return rec },
		})
		in, _ := untilInput(t, r.connect(""))
		code, _ := r.post("answer", "k", map[string]any{"prompt": in.Prompt, "text": "long"})
		require.Equal(t, http.StatusOK, code)
		require.NoError(t, r.wait())

		require.Greater(t, len(rec.snaps), 5)
		for _, s := range rec.snaps {
			want, err := json.Marshal(screenAfter(t, rec.entries[:s.Seq]))
			require.NoError(t, err)
			require.JSONEq(t, string(want), string(s.Data), "snapshot at %d", s.Seq)
		}
		sc := screenAfter(t, rec.entries)
		require.Equal(t, "final answer: 42", sc.Pane("artifact:a1").Text())
		require.Equal(t, "notes: "+strings.Repeat("é long notes ", 400), sc.Pane("artifact:a2").Text())
		require.Equal(t, "long", sc.Pane("answer:"+itoa(in.Prompt)).Text())
		require.Equal(t, a2a.StateCompleted, sc.State)
		var kinds []string
		for _, p := range sc.Panes {
			kinds = append(kinds, p.Kind)
		}
		require.Contains(t, kinds, "status")
		require.Contains(t, kinds, "message")
		for _, e := range rec.entries {
			require.LessOrEqual(t, len(e.Data), 1000+200, "entry %d: text is cut at the chunk size", e.Seq)
		}
	})
}

func TestDriveContinuesNumberingFromTheTail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := newMemoryStore(t)
		log, err := store.Open(ctx, "k")
		require.NoError(t, err)
		old, err := log.Acquire(ctx, "replica-1", time.Second)
		require.NoError(t, err)
		require.NoError(t, log.Commit(ctx, old, nil, relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)},
			relay.Entry{Seq: 2, Name: relay.EventNotice, Data: []byte(`{"kind":"reconnecting","text":"reconnecting (1/3)…"}`)}))
		time.Sleep(time.Second) // replica-1 died; its lease ends

		fence, err := log.Acquire(ctx, "replica-2", time.Minute)
		require.NoError(t, err)
		agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateCompleted, "")))
		client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
		require.NoError(t, err)
		require.NoError(t, relay.Drive(ctx, log, fence, relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hi"))))
		es, err := log.Read(ctx, 0, 100)
		require.NoError(t, err)
		for i, e := range es {
			require.Equal(t, uint64(i+1), e.Seq)
		}
		require.Greater(t, len(es), 3)
		require.Equal(t, relay.EventEnd, es[len(es)-1].Name)

		// The old owner, back from a pause, writes nothing.
		require.ErrorIs(t, log.Commit(ctx, old, nil, relay.Entry{Seq: uint64(len(es) + 1), Name: relay.EventStatus, Data: []byte(`{}`)}), relay.ErrStale)
	})
}

func TestDriveWithAStaleFenceStopsAndWritesNoEnding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(slowScript()...)}})
		rd := r.connect("")
		rd.take(2)
		// The driver waits for the agent's next word: the tail read here is
		// the last it wrote.
		synctest.Wait()
		before, err := r.log.Tail(context.Background())
		require.NoError(t, err)
		// Another replica takes the stream over while this driver waits
		// (as if its lease had run out).
		require.NoError(t, r.log.Release(context.Background(), r.fence))
		_, err = r.log.Acquire(context.Background(), "replica-2", time.Minute)
		require.NoError(t, err)
		require.ErrorIs(t, r.wait(), relay.ErrStale)
		after, err := r.log.Tail(context.Background())
		require.NoError(t, err)
		require.Equal(t, before, after, "the stale driver appended nothing, not even an ending")
		require.Zero(t, requestsOf(r.agent, "tasks/cancel", "CancelTask"), "nor did it cancel the task")
	})
}

func TestSnapshotsStopPastTheirBoundAndGoneStillGivesTheWholeScreen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec *recordingLog
		script, text := longAnswer(300, paused(time.Millisecond))
		r := newRig(t, rigConfig{
			agent: []a2atest.Option{a2atest.WithScript(script...)},
			store: []relay.StoreOption{relay.WithRetention(64)},
			drive: []relay.DriveOption{relay.WithSnapshotEvery(8, 1), relay.WithMaxSnapshot(600)},
			wrap:  func(l relay.Log) relay.Log { rec = &recordingLog{Log: l}; return rec },
		})
		require.NoError(t, r.wait())
		require.NotEmpty(t, rec.snaps)
		for _, s := range rec.snaps {
			require.LessOrEqual(t, len(s.Data), 600+200, "snapshot at %d", s.Seq)
		}
		last := rec.snaps[len(rec.snaps)-1]
		require.Less(t, last.Seq+200, uint64(len(rec.entries)), "no snapshot once the screen passed the bound")
		require.Equal(t, rec.entries[last.Seq:], r.logEntries(last.Seq), "the log keeps every entry after the last snapshot")

		evs := r.connect(relay.ID{Epoch: r.log.Epoch(), Seq: 1}.String()).rest()
		require.Equal(t, relay.EventGone, evs[0].Name)
		require.Equal(t, text, fold(t, evs).Pane("artifact:a1").Text())
	})
}

func TestDriveOnAStreamThatEndedStartsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(a2atest.Finish(a2a.StateCompleted, ""))}})
		require.NoError(t, r.wait())
		ctx := context.Background()
		tail, err := r.log.Tail(ctx)
		require.NoError(t, err)
		require.NoError(t, r.log.Release(ctx, r.fence))
		fence, err := r.log.Acquire(ctx, "replica-2", time.Minute)
		require.NoError(t, err)
		client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(r.agent.Client()))
		require.NoError(t, err)
		before := len(r.agent.Requests())
		err = relay.Drive(ctx, r.log, fence, relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello")))
		require.ErrorIs(t, err, relay.ErrEnded)
		require.Equal(t, before, len(r.agent.Requests()), "Drive called the agent")
		after, err := r.log.Tail(ctx)
		require.NoError(t, err)
		require.Equal(t, tail, after)
	})
}

// A Source of Resume on a log with no checkpoint has no stream to open:
// Drive returns ErrNotStarted, calls no agent and appends nothing.
func TestDriveOfAResumeSourceOnALogWithoutACheckpointOpensNothing(t *testing.T) {
	ctx := t.Context()
	log, err := newMemoryStore(t).Open(ctx, "k")
	require.NoError(t, err)
	fence, err := log.Acquire(ctx, "d", time.Minute)
	require.NoError(t, err)
	err = relay.Drive(ctx, log, fence, relay.Resume(unreachedClient(t, "Drive resumed a stream with no checkpoint")))
	require.ErrorIs(t, err, relay.ErrNotStarted)
	tail, err := log.Tail(ctx)
	require.NoError(t, err)
	require.Zero(t, tail)
}

// recordingLog records what is appended and every snapshot saved.
type recordingLog struct {
	relay.Log
	mu      sync.Mutex
	entries []relay.Entry
	snaps   []relay.Snapshot
}

func (l *recordingLog) Commit(ctx context.Context, f relay.Fence, cp []byte, es ...relay.Entry) error {
	err := l.Log.Commit(ctx, f, cp, es...)
	if err == nil {
		l.mu.Lock()
		for _, e := range es {
			e.Data = append([]byte(nil), e.Data...)
			l.entries = append(l.entries, e)
		}
		l.mu.Unlock()
	}
	return err
}

func (l *recordingLog) SaveSnapshot(ctx context.Context, f relay.Fence, s relay.Snapshot) error {
	err := l.Log.SaveSnapshot(ctx, f, s)
	if err == nil {
		l.mu.Lock()
		l.snaps = append(l.snaps, relay.Snapshot{Seq: s.Seq, Data: append([]byte(nil), s.Data...)})
		l.mu.Unlock()
	}
	return err
}

// busyScript has every kind of pane: status messages, an agent message,
// two artifacts, one replaced, a question, and a long chunk.
func busyScript() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("reading"),
		a2atest.Say("Hello, I will look."),
		a2atest.Chunk("a1", "draft ", false, false),
		a2atest.Chunk("a2", "notes: ", false, false),
		a2atest.Chunk("a1", "one", true, false),
		a2atest.Chunk("a1", "final answer: ", false, false),
		a2atest.Working("writing"),
		a2atest.AskInput("Short or long? " + strings.Repeat("Say which. ", 200)),
		a2atest.Chunk("a2", strings.Repeat("é long notes ", 400), true, true),
		a2atest.Chunk("a1", "42", true, true),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
}
