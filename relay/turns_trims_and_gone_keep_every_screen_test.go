package relay_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// screenReader follows one stream as a page does, connection after
// connection with its last ID, folding what it gets into a screen, and
// notes every event that comes out of turn.
type screenReader struct {
	view     relay.View
	last     string // the last event's ID
	lastSeq  uint64
	ended    bool
	gones    int
	conns    int
	problems []string
}

// fold applies one event of the stream.
func (r *screenReader) fold(e rawEvent) {
	id, err := relay.ParseID(e.ID)
	if err != nil {
		r.problems = append(r.problems, "bad id "+e.ID)
		return
	}
	switch e.Name {
	case relay.EventGone:
		r.gones++
		var g relay.GoneData
		if err := json.Unmarshal([]byte(e.Data), &g); err != nil {
			r.problems = append(r.problems, err.Error())
			return
		}
		v, err := relay.ParseView(g.View)
		if err != nil {
			r.problems = append(r.problems, err.Error())
			return
		}
		if id.Seq <= r.lastSeq {
			r.problems = append(r.problems, fmt.Sprintf("gone to %d after %d", id.Seq, r.lastSeq))
		}
		r.view = *v
	default:
		if id.Seq != r.lastSeq+1 {
			r.problems = append(r.problems, fmt.Sprintf("event %d after %d", id.Seq, r.lastSeq))
		}
		if err := r.view.Apply(relay.Entry{Seq: id.Seq, Name: e.Name, Data: []byte(e.Data)}); err != nil {
			r.problems = append(r.problems, err.Error())
		}
		r.ended = r.ended || e.Name == relay.EventEnd
	}
	r.lastSeq, r.last = id.Seq, e.ID
}

// Stranger BC: while the driver saves a snapshot every 40 entries and trims
// the log through the one before, readers of every pace (in the Handler's
// window, behind it, cut by the write timeout and coming back with their
// last ID) each see every entry once, in order, or are sent away with gone
// to a later snapshot; the screen each folds is the stream's screen.
func TestTurnsTrimsAndGoneKeepEveryScreenExact(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		w := newWriter(t, mem, "a")
		var full relay.View
		var lastSnap uint64
		commit := func(es ...relay.Entry) {
			require.NoError(t, w.log.Commit(t.Context(), w.fence, nil, es...))
			w.tail = es[len(es)-1].Seq
			for _, e := range es {
				require.NoError(t, full.Apply(e))
				if e.Seq%40 == 0 {
					snap, err := json.Marshal(&full)
					require.NoError(t, err)
					require.NoError(t, w.log.SaveSnapshot(t.Context(), w.fence, relay.Snapshot{Seq: e.Seq, Data: snap}))
					if lastSnap > 0 {
						require.NoError(t, w.log.Trim(t.Context(), lastSnap))
					}
					lastSnap = e.Seq
				}
			}
		}
		commit(textEntry(1, "start"))
		l := pipeRelay(t, mem, nil, relay.WithPageSize(8), relay.WithWriteTimeout(30*time.Second),
			relay.WithStoreCalls(2))

		readers := make([]screenReader, 12)
		var wg sync.WaitGroup
		for i := range readers {
			pace := []int{0, 0, 0, 4000, 2000, 1000}[i%6]
			wg.Go(func() {
				r := &readers[i]
				for !r.ended && r.conns < 50 {
					r.conns++
					c := getSSE(t, l, "/s/a/events", r.last)
					var body io.Reader = c.resp.Body
					if pace > 0 {
						b, _ := readPaced(c.resp.Body, pace, time.Second)
						body = bytes.NewReader(b)
					}
					rd := newRawReader(t, body)
					for e, ok := rd.next(); ok; e, ok = rd.next() {
						r.fold(e)
					}
					_ = c.conn.Close()
				}
			})
		}
		tick := time.NewTicker(100 * time.Millisecond) // the driver's pace
		defer tick.Stop()
		for i := range 300 {
			next := w.tail + 1
			commit(textEntry(next, fmt.Sprintf("a%d ", i)), textEntry(next+1, fmt.Sprintf("b%d ", i)), textEntry(next+2, fmt.Sprintf("c%d ", i)))
			<-tick.C
		}
		commit(endEntry(w.tail + 1))
		wg.Wait()
		want, err := json.Marshal(&full)
		require.NoError(t, err)
		for i, r := range readers {
			t.Logf("reader %d: %d connections, %d gone", i, r.conns, r.gones)
			require.True(t, r.ended, "reader %d never got to the end", i)
			require.Less(t, r.conns, 50, "reader %d took as many connections as it may", i)
			require.Empty(t, r.problems, "reader %d", i)
			got, err := json.Marshal(&r.view)
			require.NoError(t, err)
			require.JSONEq(t, string(want), string(got), "reader %d folds the stream's screen", i)
		}
	})
}
