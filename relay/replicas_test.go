package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/relay"
)

// A browser that reconnects with any ID of the log, from 0 to the tail,
// gets exactly the entries after it; on a trimmed log, either those or
// gone with a screen that, with what follows, is the whole screen.
func TestEveryLastEventIDGetsExactlyTheRest(t *testing.T) {
	for _, trim := range []bool{false, true} {
		name := "untrimmed"
		drive := []relay.DriveOption{relay.WithoutTrim()}
		if trim {
			name = "trimmed"
			drive = []relay.DriveOption{relay.WithSnapshotEvery(8, 1<<20)}
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				script, text := longAnswer(30, paused(time.Millisecond))
				r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(script...)}, drive: drive})
				require.NoError(t, r.wait())
				tail, err := r.log.Tail(t.Context())
				require.NoError(t, err)
				snap, err := r.log.LoadSnapshot(t.Context())
				require.NoError(t, err)
				kept := r.logEntries(snap.Seq)
				epoch := r.log.Epoch()
				for after := uint64(0); after < tail; after++ {
					last := relay.ID{Epoch: epoch, Seq: after}.String()
					evs := r.connect(last).rest()
					require.NotEmpty(t, evs, "after %d", after)
					if evs[0].Name == relay.EventGone {
						require.True(t, trim, "gone on an untrimmed log, after %d", after)
						require.Less(t, after, snap.Seq, "gone for an ID the log still holds the entries after")
						requireEntries(t, kept, evs[1:])
						// A reconnect with the gone event's ID resumes after the snapshot.
						requireEntries(t, kept, r.connect(evs[0].ID).rest())
					} else {
						requireEntries(t, r.logEntries(after), evs)
					}
					if after == 0 || evs[0].Name == relay.EventGone {
						sc := fold(t, evs)
						require.Equal(t, tail, sc.Seq)
						require.Equal(t, relay.EventEnd, sc.End.Name)
						require.Equal(t, text, sc.Pane("artifact:a1").Text())
					}
				}
				rd := r.connect(relay.ID{Epoch: epoch, Seq: tail}.String())
				require.Equal(t, http.StatusNoContent, rd.status)
			})
		})
	}
}

// IDs that are not "<epoch>-<seq>" with seq a decimal number without sign,
// or whose seq does not fit, or that name another stream of the same store,
// get gone with the reason the package doc gives, never a partial replay.
func TestOddLastEventIDsGetGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script, text := longAnswer(20, paused(time.Millisecond))
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(script...)}, drive: []relay.DriveOption{relay.WithoutTrim()}})
		require.NoError(t, r.wait())
		other, err := r.store.Open(t.Context(), "other")
		require.NoError(t, err)
		require.NotEqual(t, r.log.Epoch(), other.Epoch())
		epoch := r.log.Epoch()
		all := r.logEntries(0)
		for _, c := range []struct{ id, reason string }{
			{epoch + "--5", "epoch"}, // the epoch is everything before the last '-'
			{epoch + "-5-", "unparsable"},
			{epoch + "-+5", "unparsable"},
			{epoch + "- 5", "unparsable"},
			{epoch + "-5 ", "unparsable"},
			{" " + epoch + "-5", "epoch"},
			{epoch + "-0x5", "unparsable"},
			{epoch + "-5.0", "unparsable"},
			{epoch + "-", "unparsable"},
			{"-5", "unparsable"},
			{epoch + "-18446744073709551615", "ahead"},
			{epoch + "-18446744073709551616", "unparsable"},
			{epoch + "-99999999999999999999999", "unparsable"},
			{other.Epoch() + "-5", "epoch"},
			{other.Epoch() + "-0", "epoch"},
		} {
			// The query parameter keeps spaces the header would lose.
			req, err := http.NewRequest(http.MethodGet, "http://relay.test/s/k/events?lastEventId="+url.QueryEscape(c.id), nil)
			require.NoError(t, err)
			resp, err := r.client.Do(req)
			require.NoError(t, err)
			rd := &reader{t: t, status: resp.StatusCode, resp: resp, dec: sse.NewDecoder(resp.Body, 1<<20), cancel: func() {}}
			evs := rd.rest()
			rd.close()
			require.Equal(t, http.StatusOK, rd.status, "%q", c.id)
			require.NotEmpty(t, evs, "%q", c.id)
			require.Equal(t, relay.EventGone, evs[0].Name, "%q", c.id)
			var g relay.GoneData
			require.NoError(t, json.Unmarshal(evs[0].Data, &g))
			require.Equal(t, c.reason, g.Reason, "%q", c.id)
			requireEntries(t, all, evs[1:])
			require.Equal(t, text, fold(t, evs).Pane("artifact:a1").Text(), "%q", c.id)
		}
	})
}

// Two replicas' Handlers on one store get the same prompt's answer at the
// same instant: with one key both get 200 and the agent gets it once;
// with two keys exactly one gets 200, the other 409 with the winner's
// answer, and the agent gets the winner's.
func TestAnswersPostedConcurrentlyToTwoHandlersAreAppliedOnce(t *testing.T) {
	for _, sameKey := range []bool{true, false} {
		name := "different keys"
		if sameKey {
			name = "same key"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(askScript()...)}})
				in, _ := untilInput(t, r.connect(""))
				keyOf := func(string) (string, bool) { return "k", true }
				clients := []*http.Client{
					a2atest.NewClient(newHandler(t, r.store, func(*http.Request) (string, bool) { return keyOf("") })),
					a2atest.NewClient(newHandler(t, r.store, func(*http.Request) (string, bool) { return keyOf("") })),
				}
				texts := []string{"Paris", "Rome"}
				codes := make([]int, 2)
				held := make([]any, 2)
				var wg sync.WaitGroup
				for i := range 2 {
					wg.Go(func() {
						key := "key-1"
						if !sameKey {
							key = []string{"key-a", "key-b"}[i]
						}
						text := texts[0]
						if !sameKey {
							text = texts[i]
						}
						b, _ := json.Marshal(map[string]any{"prompt": in.Prompt, "text": text})
						req, err := http.NewRequest(http.MethodPost, "http://relay.test/s/k/answer", bytesReader(b))
						if err != nil {
							t.Error(err)
							return
						}
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("Idempotency-Key", key)
						resp, err := clients[i].Do(req)
						if err != nil {
							t.Error(err)
							return
						}
						defer resp.Body.Close()
						var out map[string]any
						if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
							t.Error(err)
						}
						codes[i] = resp.StatusCode
						held[i] = out["answer"]
					})
				}
				wg.Wait()
				require.NoError(t, r.wait())
				got := followUps(r.agent)
				require.Len(t, got, 1, "the agent got one answer")
				if sameKey {
					require.Equal(t, []int{200, 200}, codes)
					require.Equal(t, []string{"Paris"}, got)
					return
				}
				require.ElementsMatch(t, []int{200, 409}, codes)
				loser := 0
				if codes[0] == 200 {
					loser = 1
				}
				winner := texts[1-loser]
				require.Equal(t, []string{winner}, got, "the agent got the answer that won")
				require.Equal(t, map[string]any{"prompt": float64(in.Prompt), "text": winner}, held[loser])
			})
		})
	}
}

// Two replicas that both start the same stream (both pass a Source of Send) at
// the same instant: the stream is started once, the log has one ending,
// on every wire.
func TestTwoStartersAtOnceStartTheStreamOnce(t *testing.T) {
	for _, w := range upstreams {
		t.Run(w.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				script, text := longAnswer(10, paused(time.Millisecond))
				r := newRunRig(t, w.v, w.rest, a2atest.WithScript(script...))
				errs := make([]error, 2)
				var wg sync.WaitGroup
				for i, owner := range []string{"replica-a", "replica-b"} {
					wg.Go(func() {
						log, err := r.store.Open(t.Context(), "k")
						if err != nil {
							errs[i] = err
							return
						}
						errs[i] = relay.Run(t.Context(), log, owner, r.start())
					})
				}
				wg.Wait()
				require.Equal(t, []error{nil, nil}, errs)
				require.Equal(t, 1, requestsOf(r.agent, "message/stream", "message/send", "SendStreamingMessage", "SendMessage"), "the message was sent once")
				evs := connect(t, r.http, "").rest()
				endings := 0
				for _, ev := range evs {
					if ev.Name == relay.EventEnd || ev.Name == relay.EventFailure {
						endings++
					}
				}
				require.Equal(t, 1, endings)
				tail, err := r.log.Tail(t.Context())
				require.NoError(t, err)
				require.Equal(t, tail, evs[len(evs)-1].seq(t))
				require.Equal(t, text, fold(t, evs).Pane("artifact:a1").Text())
			})
		})
	}
}

// errStoreOnce is the error of a store call that fails once.
var errStoreOnce = errors.New("store unavailable")

// A cancel posted before any replica started the stream is recorded: the
// driver that starts it cancels the task, and the stream ends canceled.
func TestCancelPostedBeforeTheStreamStartedCancelsTheTask(t *testing.T) {
	for _, w := range upstreams {
		t.Run(w.name, func(t *testing.T) { synctest.Test(t, func(t *testing.T) { cancelBeforeStart(t, w.v, w.rest) }) })
	}
}

// A cancel posted while no replica drives the stream (its driver died)
// reaches the agent through the replica that takes the stream over, at
// once: the resumed stream knows its task before its first event.
func TestCancelPostedWhileNoReplicaDrivesIsAppliedByTheNext(t *testing.T) {
	for _, w := range upstreams {
		t.Run(w.name, func(t *testing.T) { synctest.Test(t, func(t *testing.T) { cancelWhileNoDriver(t, w.v, w.rest) }) })
	}
}

// EventSource keeps the URL of its first connection, lastEventId query
// parameter included, and sends Last-Event-ID on each reconnect: the
// header, which is newer, decides where the events resume.
func TestLastEventIDHeaderWinsOverTheQueryParameterOnReconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script, _ := longAnswer(20, paused(time.Millisecond))
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(script...)}, drive: []relay.DriveOption{relay.WithoutTrim()}})
		require.NoError(t, r.wait())
		all := r.logEntries(0)
		epoch := r.log.Epoch()
		first := relay.ID{Epoch: epoch, Seq: 3}.String()
		req, err := http.NewRequest(http.MethodGet, "http://relay.test/s/k/events?lastEventId="+url.QueryEscape(first), nil)
		require.NoError(t, err)
		req.Header.Set("Last-Event-ID", relay.ID{Epoch: epoch, Seq: 12}.String())
		resp, err := r.client.Do(req)
		require.NoError(t, err)
		rd := &reader{t: t, status: resp.StatusCode, resp: resp, dec: sse.NewDecoder(resp.Body, 1<<20), cancel: func() {}}
		defer rd.close()
		requireEntries(t, all[12:], rd.rest())
	})
}

// A browser that reconnects with the ID of the last event of a stream
// that has not ended (a question waits for its answer) is not told to
// stop: it gets 200 and the events that follow, once they come.
func TestReconnectAtTheTailOfALiveStreamWaitsForTheNextEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(askScript()...)}})
		in, seen := untilInput(t, r.connect(""))
		synctest.Wait()
		tail, err := r.log.Tail(t.Context())
		require.NoError(t, err)
		require.Equal(t, in.Prompt, tail, "the question is the last event while it waits")
		rd := r.connect(seen[len(seen)-1].ID)
		require.Equal(t, http.StatusOK, rd.status)
		code, _ := r.post("answer", "key-1", map[string]any{"prompt": in.Prompt, "text": "Paris"})
		require.Equal(t, http.StatusOK, code)
		rest := rd.rest()
		require.NoError(t, r.wait())
		requireEntries(t, r.logEntries(tail), rest)
		require.Equal(t, "booked", fold(t, append(seen, rest...)).Pane("artifact:a1").Text())
	})
}

// A question whose EventInput the log trimmed (the snapshot holds the
// question open) is still answered: a page that got it from the gone
// event's screen posts the answer, and the agent gets it.
func TestAQuestionTrimmedFromTheLogIsAnsweredFromTheSnapshot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{
			agent: []a2atest.Option{a2atest.WithScript(askScript()...)},
			store: []relay.StoreOption{relay.WithRetention(1)},
			drive: []relay.DriveOption{relay.WithSnapshotEvery(1, 1)},
		})
		in, _ := untilInput(t, r.connect(""))
		synctest.Wait()
		_, err := r.log.Read(t.Context(), in.Prompt-1, 1)
		require.ErrorIs(t, err, relay.ErrGone, "the question's entry is trimmed")
		evs := r.connect(relay.ID{Epoch: r.log.Epoch(), Seq: in.Prompt - 1}.String()).take(1)
		require.Equal(t, relay.EventGone, evs[0].Name)
		q := fold(t, evs).Question
		require.NotNil(t, q, "the gone event's screen holds the question open")
		code, out := r.post("answer", "key-1", map[string]any{"prompt": q.Prompt, "text": "Paris"})
		require.Equal(t, http.StatusOK, code, "%v", out)
		require.NoError(t, r.wait())
		require.Equal(t, []string{"Paris"}, followUps(r.agent))
	})
}

// A browser whose answer's response was lost posts it again with the same
// key: "200 ... when this answer was stored, now or before with the same
// key", even once the question's entry is trimmed and closed.
func TestAnswerRetriedAfterItsQuestionWasTrimmedGets200(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{
			agent: []a2atest.Option{a2atest.WithScript(askScript()...)},
			store: []relay.StoreOption{relay.WithRetention(1)},
			drive: []relay.DriveOption{relay.WithSnapshotEvery(1, 1)},
		})
		in, _ := untilInput(t, r.connect(""))
		answer := map[string]any{"prompt": in.Prompt, "text": "Paris"}
		code, _ := r.post("answer", "key-1", answer)
		require.Equal(t, http.StatusOK, code)
		require.NoError(t, r.wait())
		_, err := r.log.Read(t.Context(), in.Prompt-1, 1)
		require.ErrorIs(t, err, relay.ErrGone, "the question's entry is trimmed")
		code, out := r.post("answer", "key-1", answer)
		require.Equal(t, http.StatusOK, code, "%v", out)
		require.Equal(t, map[string]any{"prompt": float64(in.Prompt), "text": "Paris"}, out)
	})
}

// Another browser answers the same question with its own key once the
// question was answered and its entry trimmed and closed: 409 with the
// answer held, as before the trim, not 410.
func TestAnswerWithAnotherKeyAfterItsQuestionWasTrimmedGets409(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{
			agent: []a2atest.Option{a2atest.WithScript(askScript()...)},
			store: []relay.StoreOption{relay.WithRetention(1)},
			drive: []relay.DriveOption{relay.WithSnapshotEvery(1, 1)},
		})
		in, _ := untilInput(t, r.connect(""))
		code, _ := r.post("answer", "key-1", map[string]any{"prompt": in.Prompt, "text": "Paris"})
		require.Equal(t, http.StatusOK, code)
		require.NoError(t, r.wait())
		_, err := r.log.Read(t.Context(), in.Prompt-1, 1)
		require.ErrorIs(t, err, relay.ErrGone, "the question's entry is trimmed")
		code, out := r.post("answer", "key-2", map[string]any{"prompt": in.Prompt, "text": "Lyon"})
		require.Equal(t, http.StatusConflict, code, "%v", out)
		require.Equal(t, map[string]any{"prompt": float64(in.Prompt), "text": "Paris"}, out["answer"], "the 409 carries the answer held")
	})
}

// An answer to a prompt that was never a question, past the log's
// retention, still gets 410: an answer is looked up, not made up.
func TestAnswerToATrimmedPromptNeverAnsweredGets410(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{
			agent: []a2atest.Option{a2atest.WithScript(askScript()...)},
			store: []relay.StoreOption{relay.WithRetention(1)},
			drive: []relay.DriveOption{relay.WithSnapshotEvery(1, 1)},
		})
		in, _ := untilInput(t, r.connect(""))
		code, _ := r.post("answer", "key-1", map[string]any{"prompt": in.Prompt, "text": "Paris"})
		require.Equal(t, http.StatusOK, code)
		require.NoError(t, r.wait())
		require.Greater(t, in.Prompt, uint64(1), "an entry before the question")
		_, err := r.log.Read(t.Context(), in.Prompt-2, 1)
		require.ErrorIs(t, err, relay.ErrGone, "the entry before the question is trimmed")
		code, out := r.post("answer", "key-1", map[string]any{"prompt": in.Prompt - 1, "text": "Paris"})
		require.Equal(t, http.StatusGone, code, "%v", out)
	})
}

// A reader sent away with gone gets the snapshot and the entries right
// after it, in one gone event, even when the driver saves a newer snapshot
// and trims through it just after the Handler read the snapshot: the
// snapshot and the cursor are read in one step (Log.Attach).
func TestReaderSentAwayWhileTheLogTrimsGetsOneGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		store := newMemoryStore(t)
		log, err := store.Open(ctx, "k")
		require.NoError(t, err)
		fence, err := log.Acquire(ctx, "driver", time.Hour)
		require.NoError(t, err)
		var es []relay.Entry
		for seq := uint64(1); seq <= 6; seq++ {
			es = append(es, relay.Entry{Seq: seq, Name: relay.EventNotice, Data: []byte(`{"n":` + itoa(seq) + `}`)})
		}
		es = append(es, relay.Entry{Seq: 7, Name: relay.EventEnd, Data: []byte(`{}`)})
		require.NoError(t, log.Commit(ctx, fence, nil, es...))
		require.NoError(t, log.SaveSnapshot(ctx, fence, relay.Snapshot{Seq: 2, Data: []byte(`{"seq":2,"panes":[]}`)}))
		require.NoError(t, log.Trim(ctx, 2))

		trimming := &trimAfterSnapshotLog{Log: log, fence: fence, snap: relay.Snapshot{Seq: 4, Data: []byte(`{"seq":4,"panes":[]}`)}}
		mux := http.NewServeMux()
		mux.Handle("/s/{key}/", newHandler(t, logStore{trimming}, func(*http.Request) (string, bool) { return "k", true }))
		evs := connect(t, a2atest.NewClient(mux), "").rest()

		require.NotEmpty(t, evs)
		require.Equal(t, relay.EventGone, evs[0].Name)
		require.Equal(t, relay.ID{Epoch: log.Epoch(), Seq: 2}.String(), evs[0].ID, "the gone event is the snapshot read")
		var got []string
		for _, ev := range evs[1:] {
			got = append(got, ev.Name+"@"+itoa(ev.seq(t)))
		}
		want := []string{"notice@3", "notice@4", "notice@5", "notice@6", "end@7"}
		require.Equal(t, want, got, "the entries right after the snapshot, with no second gone")
		require.True(t, trimming.trimmed, "the log trimmed after the snapshot was read")
	})
}

// trimAfterSnapshotLog saves snap and trims through it once, just after
// the first read of the snapshot (LoadSnapshot or Attach) returns: a
// driver that moves on while a reader is sent away.
type trimAfterSnapshotLog struct {
	relay.Log
	fence   relay.Fence
	snap    relay.Snapshot
	trimmed bool
}

func (l *trimAfterSnapshotLog) trim(ctx context.Context) {
	if l.trimmed {
		return
	}
	l.trimmed = true
	if err := l.Log.SaveSnapshot(ctx, l.fence, l.snap); err == nil {
		_ = l.Log.Trim(ctx, l.snap.Seq)
	}
}

func (l *trimAfterSnapshotLog) LoadSnapshot(ctx context.Context) (relay.Snapshot, error) {
	s, err := l.Log.LoadSnapshot(ctx)
	l.trim(ctx)
	return s, err
}

func (l *trimAfterSnapshotLog) Attach(ctx context.Context, max int) (relay.Snapshot, []relay.Entry, error) {
	s, es, err := l.Log.Attach(ctx, max)
	l.trim(ctx)
	return s, es, err
}

// logStore is a Store of one log, whatever the key.
type logStore struct{ log relay.Log }

func (s logStore) Open(context.Context, string) (relay.Log, error) { return s.log, nil }

// failOnceLog fails the third Commit of entries, once the stream knew
// its task.
type failOnceLog struct {
	relay.Log
	mu      sync.Mutex
	commits int
}

func (l *failOnceLog) Commit(ctx context.Context, f relay.Fence, cp []byte, es ...relay.Entry) error {
	l.mu.Lock()
	if len(es) > 0 {
		l.commits++
	}
	fail := len(es) > 0 && l.commits == 3
	l.mu.Unlock()
	if fail {
		return errStoreOnce
	}
	return l.Log.Commit(ctx, f, cp, es...)
}

func cancelBeforeStart(t *testing.T, v a2a.Version, rest bool) {
	script, _ := longAnswer(20, paused(100*time.Millisecond))
	r := newRunRig(t, v, rest, a2atest.WithScript(script...))
	r.cancel(t)
	require.NoError(t, relay.Run(t.Context(), r.log, "a", r.start()))
	name, kind := r.ending(t)
	require.Equal(t, relay.EventFailure, name)
	require.Equal(t, "canceled", kind)
	require.Equal(t, 1, requestsOf(r.agent, "tasks/cancel", "CancelTask"))
	ids := r.agent.TaskIDs()
	require.Len(t, ids, 1)
	require.Equal(t, a2a.StateCanceled, r.agent.Task(ids[0]).Status.State, "the agent's task is not left running")
}

func cancelWhileNoDriver(t *testing.T, v a2a.Version, rest bool) {
	script, _ := longAnswer(20, paused(time.Hour))
	r := newRunRig(t, v, rest, a2atest.WithScript(script...))
	err := relay.Run(t.Context(), &failOnceLog{Log: r.log}, "a", r.start())
	require.ErrorIs(t, err, errStoreOnce)
	r.cancel(t)
	began := time.Now()
	require.NoError(t, relay.Run(t.Context(), r.log, "b", relay.Resume(r.client)))
	require.Less(t, time.Since(began), 10*time.Second, "taken over before the task ended")
	name, kind := r.ending(t)
	require.Equal(t, relay.EventFailure, name)
	require.Equal(t, "canceled", kind)
	require.Equal(t, 1, requestsOf(r.agent, "tasks/cancel", "CancelTask"))
}
