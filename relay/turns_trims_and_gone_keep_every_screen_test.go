package relay_test

import (
	"bytes"
	"context"
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

// Stranger BC: while the driver saves a snapshot every 40 entries and trims
// the log through the one before, readers of every pace (in the Handler's
// window, behind it, cut by the write timeout and coming back with their
// last ID) each see every entry once, in order, or are sent away with gone
// to a later snapshot; the screen each folds is the stream's screen.
func TestTurnsTrimsAndGoneKeepEveryScreenExact(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem, err := relay.NewMemoryStore()
		require.NoError(t, err)
		w := newWriter(t, mem, "a")
		var full relay.View
		var lastSnap uint64
		commit := func(texts ...string) {
			first := w.tail + 1
			w.texts(texts...)
			for seq := first; seq <= w.tail; seq++ {
				require.NoError(t, full.Apply(textEntry(seq, texts[seq-first])))
				if seq%40 == 0 {
					snap, err := json.Marshal(&full)
					require.NoError(t, err)
					ctx := context.Background()
					require.NoError(t, w.log.SaveSnapshot(ctx, w.fence, relay.Snapshot{Seq: seq, Data: snap}))
					if lastSnap > 0 {
						require.NoError(t, w.log.Trim(ctx, lastSnap))
					}
					lastSnap = seq
				}
			}
		}
		commit("start")
		h, err := relay.NewHandler(mem, pathKey, relay.WithPageSize(8), relay.WithWriteTimeout(30*time.Second),
			relay.WithStoreCalls(2))
		require.NoError(t, err)
		pn, stop := servePipes(h)
		defer stop()

		type result struct {
			screen   []byte
			problems []string
			gones    int
			conns    int
		}
		results := make([]result, 12)
		var wg sync.WaitGroup
		for i := range results {
			pace := []int{0, 0, 0, 4000, 2000, 1000}[i%6]
			wg.Go(func() {
				var v relay.View
				var last string
				var lastSeq uint64
				r := &results[i]
				for r.conns < 50 {
					r.conns++
					var headers []string
					if last != "" {
						headers = append(headers, "Last-Event-ID: "+last)
					}
					c := getSSE(t, pn, "/s/a/events", headers...)
					var body io.Reader = c.resp.Body
					if pace > 0 {
						b, _ := readPaced(c.resp.Body, pace, time.Second)
						body = bytes.NewReader(b)
					}
					ended := false
					_, _ = parseSSEFunc(body, func(e sseEvent) {
						id, err := relay.ParseID(e.ID)
						if err != nil {
							r.problems = append(r.problems, "bad id "+e.ID)
							return
						}
						switch e.Name {
						case relay.EventGone:
							r.gones++
							var g relay.GoneData
							require.NoError(t, json.Unmarshal([]byte(e.Data), &g))
							nv, err := relay.ParseView(g.View)
							require.NoError(t, err)
							if id.Seq <= lastSeq {
								r.problems = append(r.problems, fmt.Sprintf("gone to %d after %d", id.Seq, lastSeq))
							}
							v = *nv
						default:
							if id.Seq != lastSeq+1 {
								r.problems = append(r.problems, fmt.Sprintf("event %d after %d", id.Seq, lastSeq))
							}
							if err := v.Apply(relay.Entry{Seq: id.Seq, Name: e.Name, Data: []byte(e.Data)}); err != nil {
								r.problems = append(r.problems, err.Error())
							}
							if e.Name == relay.EventEnd {
								ended = true
							}
						}
						lastSeq, last = id.Seq, e.ID
					})
					_ = c.conn.Close()
					if ended {
						break
					}
				}
				r.screen, _ = json.Marshal(&v)
			})
		}
		for i := range 300 {
			commit(fmt.Sprintf("a%d ", i), fmt.Sprintf("b%d ", i), fmt.Sprintf("c%d ", i))
			time.Sleep(100 * time.Millisecond)
		}
		w.tail++
		end := endEntry(w.tail)
		require.NoError(t, w.log.Commit(context.Background(), w.fence, nil, end))
		require.NoError(t, full.Apply(end))
		wg.Wait()
		want, err := json.Marshal(&full)
		require.NoError(t, err)
		for i, r := range results {
			t.Logf("reader %d: %d connections, %d gone", i, r.conns, r.gones)
			require.Less(t, r.conns, 50, "reader %d never got to the end", i)
			require.Empty(t, r.problems, "reader %d", i)
			require.JSONEq(t, string(want), string(r.screen), "reader %d folds the stream's screen", i)
		}
	})
}
