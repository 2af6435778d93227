package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// requireCutWithin waits, three timeouts at the most (of fake time), for the
// one response rec is told of to end, and checks that it was cut for its
// write within timeout of start.
func requireCutWithin(t *testing.T, rec *traceRec, start time.Time, timeout time.Duration) {
	t.Helper()
	select {
	case <-rec.ended:
	case <-time.After(3 * timeout):
	}
	ends, at := rec.readerEnds()
	require.Equal(t, []string{"write"}, ends, "the stopped reader was cut, for its write")
	require.LessOrEqual(t, at[0].Sub(start), timeout, "cut within the write timeout")
}

// requireEndedWhole reads body to its end and checks that it holds want
// events, and that the one response rec was told of ended with the stream.
func requireEndedWhole(t *testing.T, rec *traceRec, body []byte, want int) []rawEvent {
	t.Helper()
	evs := newRawReader(t, bytes.NewReader(body)).whole()
	require.Len(t, evs, want, "the steady reader got every event")
	synctest.Wait()
	ends, _ := rec.readerEnds()
	require.Equal(t, []string{"ended"}, ends)
	return evs
}

// Stranger BC: a browser that reads 4 KiB a second, steadily, takes a page
// of a MiB (64 entries of 16 KiB) in 256 s; with a write timeout of 10 s,
// each 32 KiB takes it 8 s, and it is not cut.
func TestWriteTimeoutSparesASteadySlowReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		w := newWriter(t, mem, "a")
		w.repeat(64, strings.Repeat("x", 16<<10))
		w.end()
		rec := &traceRec{}
		l := pipeRelay(t, mem, nil, relay.WithWriteTimeout(10*time.Second),
			relay.WithPageSize(64), relay.WithTrace(rec.trace()))

		c := getSSE(t, l, "/s/a/events", "")
		start := time.Now()
		body, err := readPaced(c.resp.Body, 4<<10, time.Second)
		require.NoError(t, c.conn.Close())
		require.NoError(t, err)
		t.Logf("it read for %v", time.Since(start))
		requireEndedWhole(t, rec, body, 65)
	})
}

// Stranger BC: a browser that stops reading is cut within the write timeout
// of the write it stopped taking, and a Trace is told End "write".
func TestWriteTimeoutCutsAStoppedReaderWithinTheTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		late bool // the entries come after the browser is waiting
	}{{"page at once", false}, {"live page", true}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := newMemoryStore(t)
				w := newWriter(t, mem, "a")
				big := strings.Repeat("y", 16<<10)
				if !tc.late {
					w.repeat(64, big)
				} else {
					w.texts("hello")
				}
				rec := &traceRec{ended: make(chan string, 1)}
				const timeout = 10 * time.Second
				l := pipeRelay(t, mem, nil, relay.WithWriteTimeout(timeout),
					relay.WithPageSize(64), relay.WithKeepAlive(time.Hour), relay.WithTrace(rec.trace()))

				c := getSSE(t, l, "/s/a/events", "")
				if tc.late {
					buf := make([]byte, 100) // reads the first event, then stops
					_, err := io.ReadAtLeast(c.resp.Body, buf, 50)
					require.NoError(t, err)
					synctest.Wait()
					w.repeat(64, big)
				}
				start := time.Now()
				requireCutWithin(t, rec, start, timeout)
				_, err := io.Copy(io.Discard, c.resp.Body)
				require.Error(t, err, "the connection was closed mid-response")
				require.NoError(t, c.conn.Close())
			})
		})
	}
}

// Stranger BC: a gone event whose snapshot holds half a MiB goes to a
// steady reader of 4 KiB a second (128 s for the event) 32 KiB at a time,
// each given the whole write timeout of 10 s: the reader is not cut, and
// gets the snapshot whole.
func TestWriteTimeoutSparesASteadySlowReaderOfABigGoneEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		w := newWriter(t, mem, "a")
		big := strings.Repeat("é€😀z", 1600) // 16,000 bytes
		for range 32 {
			w.texts(big)
		}
		var v relay.View
		for seq := uint64(1); seq <= w.tail; seq++ {
			require.NoError(t, v.Apply(textEntry(seq, big)))
		}
		snap, err := json.Marshal(&v)
		require.NoError(t, err)
		require.Greater(t, len(snap), 500_000)
		ctx := context.Background()
		require.NoError(t, w.log.SaveSnapshot(ctx, w.fence, relay.Snapshot{Seq: w.tail, Data: snap}))
		require.NoError(t, w.log.Trim(ctx, w.tail))
		w.texts("after")
		w.end()
		rec := &traceRec{}
		l := pipeRelay(t, mem, nil, relay.WithWriteTimeout(10*time.Second), relay.WithTrace(rec.trace()))

		c := getSSE(t, l, "/s/a/events", w.id(3))
		body, err := readPaced(c.resp.Body, 4<<10, time.Second)
		require.NoError(t, c.conn.Close())
		require.NoError(t, err)
		evs := requireEndedWhole(t, rec, body, 3)
		require.Equal(t, relay.EventGone, evs[0].Name)
		var gone relay.GoneData
		require.NoError(t, json.Unmarshal([]byte(evs[0].Data), &gone))
		require.Equal(t, "trimmed", gone.Reason)
		require.JSONEq(t, string(snap), string(gone.View))
	})
}
