package relay_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
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

func TestLastEventIDs(t *testing.T) {
	type want struct {
		status int
		gone   string // reason of a leading gone, "" for none
		first  uint64 // Seq of the first entry after gone (or first event)
	}
	for _, trim := range []bool{false, true} {
		t.Run(fmt.Sprint("trim=", trim), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := newMemoryStore(t)
				log, full := finishedLog(t, store, "a", trim)
				ep := log.Epoch()
				first := uint64(1)
				if trim {
					first = 4
				}
				cases := map[string]want{
					"":                                 {200, map[bool]string{false: "", true: "trimmed"}[trim], first},
					ep + "-0":                          {200, map[bool]string{false: "", true: "trimmed"}[trim], first},
					ep + "-2":                          {200, map[bool]string{false: "", true: "trimmed"}[trim], map[bool]uint64{false: 3, true: 4}[trim]},
					ep + "-4":                          {200, "", 5},
					ep + "-6":                          {204, "", 0},
					ep + "-7":                          {200, "ahead", first},
					ep + "-18446744073709551615":       {200, "ahead", first},
					ep + "-18446744073709551616":       {200, "unparsable", first},
					ep + "-99999999999999999999999":    {200, "unparsable", first},
					ep + "-+3":                         {200, "unparsable", first},
					ep + "- 3":                         {200, "unparsable", first},
					ep + "-0x3":                        {200, "unparsable", first},
					ep + "-3.0":                        {200, "unparsable", first},
					ep:                                 {200, epochAlone(ep), first},
					"-3":                               {200, "unparsable", first},
					"garbage":                          {200, "unparsable", first},
					"other-epoch-3":                    {200, "epoch", first},
					strings.Repeat("e", 200000) + "-3": {200, "epoch", first},
					strings.Repeat("9", 200000):        {200, "unparsable", first},
					"\u00e9\u00e9-3":                   {200, "epoch", first},
				}
				h := handlerAB(t, store)
				client := a2atest.NewClient(h)
				for id, w := range cases {
					status, evs, raw, ended := readAllEvents(t, client, "http://relay.test/s/a/events", id)
					short := id
					if len(short) > 40 {
						short = short[:40] + "…"
					}
					require.Equal(t, w.status, status, "ID %q: %s", short, raw)
					require.True(t, ended, "ID %q: the response did not end", short)
					if status == 204 {
						require.Empty(t, evs)
						continue
					}
					require.NotEmpty(t, evs, "ID %q", short)
					i := 0
					if w.gone != "" {
						require.Equal(t, relay.EventGone, evs[0].Name, "ID %q: %v", short, namesOf(evs))
						var g relay.GoneData
						require.NoError(t, json.Unmarshal([]byte(evs[0].Data), &g))
						require.Equal(t, w.gone, g.Reason, "ID %q", short)
						i = 1
					} else {
						require.NotEqual(t, relay.EventGone, evs[0].Name, "ID %q: %s", short, evs[0].Data)
					}
					require.Equal(t, w.first, evs[i].entry(t).Seq, "ID %q: %v", short, namesOf(evs))
					require.Equal(t, relay.EventEnd, evs[len(evs)-1].Name)
					if w.gone != "" || w.first == 1 {
						s := foldRaw(t, evs)
						require.Equal(t, full.Seq, s.Seq)
						require.Equal(t, full.Pane("artifact:x").Text(), s.Pane("artifact:x").Text(), "ID %q", short)
					}
					if len(id) > 100 {
						require.NotContains(t, raw, id[:100], "the ID is echoed")
					}
				}
			})
		})
	}
}

// The lastEventId query parameter works for a first connection, loses to
// the header, and nothing in it is written into the event stream.
func TestLastEventIDQueryParameter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newMemoryStore(t)
		log, _ := finishedLog(t, store, "a", false)
		client := a2atest.NewClient(handlerAB(t, store))
		base := "http://relay.test/s/a/events?lastEventId="

		_, evs, _, ended := readAllEvents(t, client, base+url.QueryEscape(log.Epoch()+"-4"), "")
		require.True(t, ended)
		require.Equal(t, []string{relay.EventStatus, relay.EventEnd}, namesOf(evs))

		_, evs, _, _ = readAllEvents(t, client, base+url.QueryEscape(log.Epoch()+"-1"), log.Epoch()+"-4")
		require.Equal(t, []string{relay.EventStatus, relay.EventEnd}, namesOf(evs), "the header wins")

		inj := "x\nevent: end\ndata: {\"injected\":1}\nid: z-9\n\nretry: 1\n"
		status, evs, raw, ended := readAllEvents(t, client, base+url.QueryEscape(inj), "")
		require.Equal(t, 200, status)
		require.True(t, ended)
		require.NotContains(t, raw, "injected")
		require.NotContains(t, raw, "retry: 1\n")
		require.Equal(t, relay.EventGone, evs[0].Name)
	})
}

// A page of a log the store lost ends with gone "lost" and a failure
// "lost", and its ID then gets 204.
func TestPageOfALostLogEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newMemoryStore(t)
		log, _ := finishedLog(t, store, "a", false)
		old := log.Epoch()
		store.Delete("a")
		client := a2atest.NewClient(handlerAB(t, store))
		for _, id := range []string{old + "-3", old + "-6", old + "-0"} {
			status, evs, raw, ended := readAllEvents(t, client, "http://relay.test/s/a/events", id)
			require.Equal(t, 200, status, raw)
			require.True(t, ended, "ID %s: the page of a lost log hangs: %s", id, raw)
			require.Equal(t, []string{relay.EventGone, relay.EventFailure}, namesOf(evs), raw)
			var g relay.GoneData
			require.NoError(t, json.Unmarshal([]byte(evs[0].Data), &g))
			require.Equal(t, "lost", g.Reason)
			var f relay.FailureData
			require.NoError(t, json.Unmarshal([]byte(evs[1].Data), &f))
			require.Equal(t, "lost", f.Kind)
			status, _, raw, _ = readAllEvents(t, client, "http://relay.test/s/a/events", evs[1].ID)
			require.Equal(t, 204, status, "after the lost failure, ID %s: %s", evs[1].ID, raw)
		}
	})
}

// Many readers of a live stream all get every event, in order.
func TestManyReaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		steps := []a2atest.Step{a2atest.Working("")}
		want := ""
		for i := range 100 {
			steps = append(steps, a2atest.Pause(time.Millisecond), a2atest.Chunk("x", fmt.Sprintf("p%d ", i), i > 0, i == 99))
			want += fmt.Sprintf("p%d ", i)
		}
		steps = append(steps, a2atest.Finish(a2a.StateCompleted, ""))
		store := newMemoryStore(t)
		agent := a2atest.NewAgent(a2atest.WithScript(steps...))
		client := a2atest.NewClient(handlerAB(t, store, relay.WithPageSize(3)))
		var wg sync.WaitGroup
		results := make([]*relay.View, 30)
		errs := make([]string, 30)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, evs, raw, ended := readAllEvents(t, client, "http://relay.test/s/a/events", "")
				if status != 200 || !ended {
					errs[i] = fmt.Sprintf("%d ended=%v %s", status, ended, raw)
					return
				}
				results[i] = foldRaw(t, evs)
			}()
		}
		synctest.Wait()
		_, done := driveAgent(t, store, "a", agent, nil, relay.WithoutTrim())
		require.NoError(t, <-done)
		wg.Wait()
		for i, s := range results {
			require.Empty(t, errs[i])
			require.NotNil(t, s, "reader %d", i)
			require.Equal(t, want, s.Pane("artifact:x").Text(), "reader %d", i)
			require.NotNil(t, s.End)
		}
	})
}

// A reader that never reads stalls neither the driver nor other readers.
func TestAReaderThatNeverReadsStallsNobody(t *testing.T) {
	store := newMemoryStore(t)
	srv := httptest.NewServer(handlerAB(t, store))
	defer srv.Close()
	addr := srv.Listener.Addr().String()

	// Three stuck readers: they send the request and never read.
	for range 3 {
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer conn.Close()
		if tc, ok := conn.(*net.TCPConn); ok {
			require.NoError(t, tc.SetReadBuffer(4096))
		}
		_, err = fmt.Fprintf(conn, "GET /s/a/events HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", addr)
		require.NoError(t, err)
	}

	chunk := strings.Repeat("z", 16<<10)
	steps := []a2atest.Step{a2atest.Working("")}
	for i := range 384 { // 6 MiB
		steps = append(steps, a2atest.Chunk("x", chunk, i > 0, i == 383))
	}
	steps = append(steps, a2atest.Finish(a2a.StateCompleted, ""))
	agent := a2atest.NewAgent(a2atest.WithScript(steps...))
	_, done := driveAgent(t, store, "a", agent, nil, relay.WithoutTrim())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(60 * time.Second):
		t.Fatal("the driver did not finish within 60 s while readers do not read")
	}

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	resp := getEvents(t, ctx, srv.Client(), srv.URL+"/s/a/events", "", nil)
	require.Equal(t, 200, resp.StatusCode)
	rd := newRawReader(t, resp.Body)
	evs := rd.rest()
	require.NoError(t, ctx.Err(), "another reader was stalled")
	require.Equal(t, relay.EventEnd, evs[len(evs)-1].Name)
	require.Len(t, foldRaw(t, evs).Pane("artifact:x").Text(), 384*len(chunk))
}

// While the store fails, EventSource gets 200 with retry: and the
// response ends; others get 503 with Retry-After; a live event stream the
// store cuts ends with retry:, and resumes exactly after it comes back.
func TestStoreOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &flakyStore{Store: newMemoryStore(t)}
		log, _ := finishedLog(t, store, "a", false)
		_ = log
		h := handlerAB(t, store, relay.WithOutageRetry(1500*time.Millisecond))
		client := a2atest.NewClient(h)
		store.down.Store(true)

		for _, id := range []string{"", log.Epoch() + "-2", "garbage"} {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			resp := getEvents(t, ctx, client, "http://relay.test/s/a/events", id, nil)
			require.Equal(t, 200, resp.StatusCode)
			require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"), resp.Header)
			rd := newRawReader(t, resp.Body)
			evs := rd.rest()
			require.NoError(t, ctx.Err(), "the outage response did not end")
			cancel()
			require.Len(t, evs, 1, rd.raw.String())
			require.Equal(t, rawEvent{Retry: "1500"}, evs[0])
		}

		code, hdr, body := serve(t, h, "GET", "http://relay.test/s/a/events", "", "", nil)
		require.Equal(t, 503, code, body)
		require.Equal(t, "2", hdr.Get("Retry-After"))
		code, hdr, body = serve(t, h, "POST", "http://relay.test/s/a/answer", "application/json", goodAnswer, map[string]string{"Idempotency-Key": "k"})
		require.Equal(t, 503, code, body)
		require.Equal(t, "2", hdr.Get("Retry-After"))
		code, hdr, body = serve(t, h, "POST", "http://relay.test/s/a/cancel", "application/json", "", nil)
		require.Equal(t, 503, code, body)
		require.Equal(t, "2", hdr.Get("Retry-After"))
		require.NotContains(t, body, "flaky store", "the store's error text reaches the browser")
		store.down.Store(false)
		require.False(t, cancelRequested(t, log))
	})
}

func TestStoreOutageCutsALiveStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &flakyStore{Store: newMemoryStore(t)}
		log := questionLog(t, store, "a")
		client := a2atest.NewClient(handlerAB(t, store))
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		resp := getEvents(t, ctx, client, "http://relay.test/s/a/events", "", nil)
		rd := newRawReader(t, resp.Body)
		e1, _ := rd.next()
		e2, _ := rd.next()
		require.Equal(t, []string{relay.EventStatus, relay.EventInput}, []string{e1.Name, e2.Name})
		synctest.Wait()
		store.down.Store(true)
		rest := rd.rest()
		require.NoError(t, ctx.Err(), "the live stream did not end when the store failed")
		require.NotEmpty(t, rest, "the cut stream ended without retry:")
		require.NotEmpty(t, rest[len(rest)-1].Retry, "the cut stream ended without retry: %s", rd.raw.String())
		store.down.Store(false)

		// Back: the page resumes after its last ID.
		_, fence := log, relay.Fence{}
		_ = fence
		f, err := log.Acquire(t.Context(), "manual", time.Hour) // same owner renews
		require.NoError(t, err)
		require.NoError(t, log.Commit(t.Context(), f, nil, relay.Entry{Seq: 3, Name: relay.EventEnd, Data: []byte(`{"text":"answered"}`)}))
		_, evs, _, ended := readAllEvents(t, client, "http://relay.test/s/a/events", e2.ID)
		require.True(t, ended)
		require.Equal(t, []string{relay.EventEnd}, namesOf(evs))
	})
}

// Methods other than GET and POST change nothing; HEAD of the events does
// not hang.
func TestOtherMethods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newMemoryStore(t)
		log := questionLog(t, store, "a")
		h := handlerAB(t, store)
		for _, m := range []string{"PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"} {
			for _, route := range []string{"answer", "cancel", "events"} {
				code, _, body := serve(t, h, m, "http://relay.test/s/a/"+route, "application/json", goodAnswer, map[string]string{"Idempotency-Key": "k"})
				require.GreaterOrEqual(t, code, 400, "%s %s: %s", m, route, body)
				require.Less(t, code, 500, "%s %s: %s", m, route, body)
			}
		}
		_, ok := loadAnswer(t, log, 2)
		require.False(t, ok)
		require.False(t, cancelRequested(t, log))

		// HEAD on a live stream: must answer without waiting for events.
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, "http://relay.test/s/a/events", nil)
		require.NoError(t, err)
		resp, err := a2atest.NewClient(h).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		require.NoError(t, ctx.Err(), "HEAD of a live stream hung")
		_ = bufio.ErrTooLong
	})
}

// finishedLog is a finished log of 6 entries; with trim, a snapshot at 3
// and the log trimmed through 3.
func finishedLog(t *testing.T, store relay.Store, key string, trim bool) (relay.Log, *relay.View) {
	entries := []relay.Entry{
		{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working","taskId":"t1"}`)},
		{Seq: 2, Name: relay.EventArtifact, Data: []byte(`{"pane":"artifact:x","id":"x","text":"one "}`)},
		{Seq: 3, Name: relay.EventArtifact, Data: []byte(`{"pane":"artifact:x","id":"x","text":"two ","append":true}`)},
		{Seq: 4, Name: relay.EventArtifact, Data: []byte(`{"pane":"artifact:x","id":"x","text":"three","append":true}`)},
		{Seq: 5, Name: relay.EventStatus, Data: []byte(`{"state":"completed","taskId":"t1"}`)},
		{Seq: 6, Name: relay.EventEnd, Data: []byte(`{"state":"completed","taskId":"t1","text":"completed"}`)},
	}
	log, fence := manualLog(t, store, key, entries...)
	var full relay.View
	for i, e := range entries {
		require.NoError(t, full.Apply(e))
		if trim && i == 2 {
			data, err := json.Marshal(&full)
			require.NoError(t, err)
			require.NoError(t, log.SaveSnapshot(t.Context(), fence, relay.Snapshot{Seq: 3, Data: data}))
		}
	}
	if trim {
		require.NoError(t, log.Trim(t.Context(), 3))
	}
	return log, &full
}

func namesOf(evs []rawEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

// epochAlone is the gone reason of a Last-Event-ID that is the epoch alone:
// unparsable, unless the epoch's last group (a UUID's) is all digits, which
// reads as a sequence number after another epoch (one UUID in about 280).
func epochAlone(ep string) string {
	if _, err := relay.ParseID(ep); err == nil {
		return "epoch"
	}
	return "unparsable"
}
