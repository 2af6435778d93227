package relay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/relay"
)

// paused pauses d before every step.
func paused(d time.Duration) func(int) a2atest.Step {
	return func(int) a2atest.Step { return a2atest.Pause(d) }
}

// requireEntries fails unless evs are exactly the log's entries want.
func requireEntries(t *testing.T, want []relay.Entry, evs []event) {
	t.Helper()
	line := func(e relay.Entry) string { return fmt.Sprintf("%d %s %s", e.Seq, e.Name, e.Data) }
	var got, exp []string
	for _, ev := range evs {
		got = append(got, line(ev.entry(t)))
	}
	for _, e := range want {
		exp = append(exp, line(e))
	}
	require.Equal(t, exp, got)
}

func TestReconnectWithLastEventIDGetsExactlyTheMissedEventsThenLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script, text := longAnswer(300, paused(10*time.Millisecond))
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(script...)}, drive: []relay.DriveOption{relay.WithoutTrim()}})

		first := r.connect("")
		require.Equal(t, 200, first.status)
		seen := first.take(100)
		first.close()
		time.Sleep(500 * time.Millisecond) // about 50 chunks go by unseen

		missedTo, err := r.log.Tail(context.Background())
		require.NoError(t, err)
		last := seen[len(seen)-1]
		require.Greater(t, missedTo, last.seq(t)+40, "events were missed while disconnected")
		second := r.connect(last.ID)
		rest := second.rest()
		require.NoError(t, r.wait())

		all := r.logEntries(0)
		require.Greater(t, uint64(len(all)), missedTo+100, "the second response carried live events after the missed ones")
		requireEntries(t, all, append(append([]event(nil), seen...), rest...))
		require.Equal(t, last.seq(t)+1, rest[0].seq(t), "the replay starts right after Last-Event-ID")
		require.Equal(t, relay.EventEnd, rest[len(rest)-1].Name, "the response ends after the ending")

		sc := fold(t, append(seen, rest...))
		require.Equal(t, text, sc.Pane("artifact:a1").Text())
		require.Equal(t, relay.EventEnd, sc.End.Name)
		require.Zero(t, requestsOf(r.agent, "tasks/cancel", "CancelTask"), "a disconnect does not cancel")
	})
}

func TestLastEventIDFromQueryParameterOnFirstConnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script, _ := longAnswer(20, paused(time.Millisecond))
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(script...)}})
		require.NoError(t, r.wait())
		all := r.logEntries(0)
		id := relay.ID{Epoch: r.log.Epoch(), Seq: 5}
		req, err := http.NewRequest(http.MethodGet, "http://relay.test/s/k/events?lastEventId="+url.QueryEscape(id.String()), nil)
		require.NoError(t, err)
		resp, err := r.client.Do(req)
		require.NoError(t, err)
		rd := &reader{t: t, status: resp.StatusCode, resp: resp, dec: sse.NewDecoder(resp.Body, 1<<20), cancel: func() {}}
		defer rd.close()
		requireEntries(t, all[5:], rd.rest())
	})
}

func TestResumeAfterTheEndReplaysUpToIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script, text := longAnswer(40, paused(time.Millisecond))
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(script...)}, drive: []relay.DriveOption{relay.WithoutTrim()}})
		require.NoError(t, r.wait())
		all := r.logEntries(0)
		epoch := r.log.Epoch()

		// From the start, from the middle, from just before the end.
		for _, after := range []uint64{0, 17, uint64(len(all)) - 1} {
			last := ""
			if after > 0 {
				last = relay.ID{Epoch: epoch, Seq: after}.String()
			}
			rd := r.connect(last)
			require.Equal(t, 200, rd.status)
			requireEntries(t, all[after:], rd.rest())
		}
		// From the end itself: 204, which stops EventSource.
		rd := r.connect(relay.ID{Epoch: epoch, Seq: uint64(len(all))}.String())
		require.Equal(t, 204, rd.status)
		require.Empty(t, rd.rest())

		require.Equal(t, text, fold(t, r.connect("").rest()).Pane("artifact:a1").Text())
	})
}

func TestIDsThatCannotBeReplayedGetGoneWithTheSnapshot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script, text := longAnswer(200, paused(time.Millisecond))
		r := newRig(t, rigConfig{
			agent: []a2atest.Option{a2atest.WithScript(script...)},
			drive: []relay.DriveOption{relay.WithSnapshotEvery(16, 1<<20)},
		})
		require.NoError(t, r.wait())
		snap, err := r.log.LoadSnapshot(context.Background())
		require.NoError(t, err)
		require.Greater(t, snap.Seq, uint64(16), "the driver saved snapshots")
		_, err = r.log.Read(context.Background(), 0, 1)
		require.ErrorIs(t, err, relay.ErrGone, "the driver trimmed the log")
		kept := r.logEntries(snap.Seq)
		epoch := r.log.Epoch()

		for _, tt := range []struct {
			name, lastID, reason string
		}{
			{"trimmed", relay.ID{Epoch: epoch, Seq: 3}.String(), "trimmed"},
			{"no ID on a trimmed log", "", "trimmed"},
			{"foreign epoch", relay.ID{Epoch: "another-epoch", Seq: 150}.String(), "epoch"},
			{"past the tail", relay.ID{Epoch: epoch, Seq: 1 << 40}.String(), "ahead"},
			{"unparsable", "150", "unparsable"},
			{"garbage", "\x7f-?", "unparsable"},
		} {
			evs := r.connect(tt.lastID).rest()
			require.NotEmpty(t, evs, tt.name)
			require.Equal(t, relay.EventGone, evs[0].Name)
			var g relay.GoneData
			require.NoError(t, json.Unmarshal(evs[0].Data, &g))
			require.Equal(t, tt.reason, g.Reason, tt.name)
			require.JSONEq(t, string(snap.Data), string(g.View), "the gone event carries the snapshot")
			require.Equal(t, relay.ID{Epoch: epoch, Seq: snap.Seq}.String(), evs[0].ID, "its ID is the snapshot's")
			requireEntries(t, kept, evs[1:])
			sc := fold(t, evs)
			require.Equal(t, text, sc.Pane("artifact:a1").Text(), "snapshot plus the entries after it is the whole screen")
			require.Equal(t, relay.EventEnd, sc.End.Name)
		}
	})
}

func TestResumeAfterTheEndWhenTheEndIsTrimmed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script, text := longAnswer(10, paused(time.Millisecond))
		r := newRig(t, rigConfig{
			agent: []a2atest.Option{a2atest.WithScript(script...)},
			store: []relay.StoreOption{relay.WithRetention(1)},
			drive: []relay.DriveOption{relay.WithSnapshotEvery(1, 1)},
		})
		require.NoError(t, r.wait())
		tail, err := r.log.Tail(context.Background())
		require.NoError(t, err)
		_, err = r.log.Read(context.Background(), tail-1, 1)
		require.ErrorIs(t, err, relay.ErrGone, "the ending itself is trimmed: the snapshot holds it")

		rd := r.connect(relay.ID{Epoch: r.log.Epoch(), Seq: tail}.String())
		require.Equal(t, http.StatusNoContent, rd.status, "the browser saw the end: nothing more to send")
		rd.close()

		evs := r.connect(relay.ID{Epoch: r.log.Epoch(), Seq: tail - 1}.String()).rest()
		require.Len(t, evs, 1, "gone, whose screen holds the end, and nothing after")
		require.Equal(t, relay.EventGone, evs[0].Name)
		sc := fold(t, evs)
		require.Equal(t, text, sc.Pane("artifact:a1").Text())
		require.Equal(t, relay.EventEnd, sc.End.Name)
	})
}

func TestLineBreaksInDataStayInTheData(t *testing.T) {
	ctx := t.Context()
	store := newMemoryStore(t)
	log, err := store.Open(ctx, "k")
	require.NoError(t, err)
	fence, err := log.Acquire(ctx, "writer", time.Hour)
	require.NoError(t, err)
	data := "{\"text\":\"x\"}\rid: forged-1\revent: end\r\ndata: {}\n\nevent: end"
	require.NoError(t, log.Commit(ctx, fence, nil,
		relay.Entry{Seq: 1, Name: relay.EventMessage, Data: []byte(data)},
		relay.Entry{Seq: 2, Name: relay.EventEnd, Data: []byte(`{}`)}))
	client := a2atest.NewClient(newHandler(t, store, func(*http.Request) (string, bool) { return "k", true }))
	evs := connect(t, client, "").rest()
	require.Len(t, evs, 2)
	require.Equal(t, relay.EventMessage, evs[0].Name)
	require.Equal(t, relay.ID{Epoch: log.Epoch(), Seq: 1}.String(), evs[0].ID)
	require.Equal(t, "{\"text\":\"x\"}\nid: forged-1\nevent: end\ndata: {}\n\nevent: end", string(evs[0].Data))
}
