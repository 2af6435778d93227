package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// doneTrace records each ReaderDone with the time it came.
type doneTrace struct {
	mu    sync.Mutex
	ends  []string
	times []time.Time
}

func (d *doneTrace) trace() *relay.Trace {
	return &relay.Trace{Reader: func(ri relay.ReaderInfo) {
		if ri.Kind != relay.ReaderDone {
			return
		}
		d.mu.Lock()
		d.ends = append(d.ends, ri.End)
		d.times = append(d.times, time.Now())
		d.mu.Unlock()
	}}
}

func (d *doneTrace) get() ([]string, []time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.ends...), append([]time.Time(nil), d.times...)
}

// readPaced reads r chunk bytes at a time, one chunk per every, to its end.
func readPaced(r io.Reader, chunk int, every time.Duration) ([]byte, error) {
	var out bytes.Buffer
	buf := make([]byte, chunk)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		n, err := io.ReadFull(r, buf)
		out.Write(buf[:n])
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return out.Bytes(), nil
		}
		if err != nil {
			return out.Bytes(), err
		}
		<-tick.C
	}
}

// Stranger BC: a browser that reads 4 KiB a second, steadily, takes a page
// of a MiB (64 entries of 16 KiB) in 256 s; with a write timeout of 10 s,
// each 32 KiB takes it 8 s, and it is not cut.
func TestWriteTimeoutSparesASteadySlowReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem, err := relay.NewMemoryStore()
		require.NoError(t, err)
		w := newWriter(t, mem, "a")
		big := strings.Repeat("x", 16<<10)
		texts := make([]string, 64)
		for i := range texts {
			texts[i] = big
		}
		w.texts(texts...)
		w.end()
		var dt doneTrace
		h, err := relay.NewHandler(mem, pathKey, relay.WithWriteTimeout(10*time.Second),
			relay.WithPageSize(64), relay.WithTrace(dt.trace()))
		require.NoError(t, err)
		pn, stop := servePipes(h)
		defer stop()

		c := getSSE(t, pn, "/s/a/events")
		start := time.Now()
		body, err := readPaced(c.resp.Body, 4<<10, time.Second)
		require.NoError(t, c.conn.Close())
		require.NoError(t, err)
		took := time.Since(start)
		s, err := parseSSE(bytes.NewReader(body))
		require.NoError(t, err)
		require.Len(t, s.Events, 65, "the steady reader got every event (it read for %v)", took)
		synctest.Wait()
		ends, _ := dt.get()
		require.Equal(t, []string{"ended"}, ends)
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
				mem, err := relay.NewMemoryStore()
				require.NoError(t, err)
				w := newWriter(t, mem, "a")
				big := strings.Repeat("y", 16<<10)
				texts := make([]string, 64)
				for i := range texts {
					texts[i] = big
				}
				if !tc.late {
					w.texts(texts...)
				} else {
					w.texts("hello")
				}
				var dt doneTrace
				const timeout = 10 * time.Second
				h, err := relay.NewHandler(mem, pathKey, relay.WithWriteTimeout(timeout),
					relay.WithPageSize(64), relay.WithKeepAlive(time.Hour), relay.WithTrace(dt.trace()))
				require.NoError(t, err)
				pn, stop := servePipes(h)
				defer stop()

				c := getSSE(t, pn, "/s/a/events")
				if tc.late {
					buf := make([]byte, 100) // reads the first event, then stops
					_, err := io.ReadAtLeast(c.resp.Body, buf, 50)
					require.NoError(t, err)
					synctest.Wait()
					w.texts(texts...)
				}
				start := time.Now()
				synctest.Wait()
				time.Sleep(3 * timeout)
				ends, times := dt.get()
				require.Equal(t, []string{"write"}, ends, "the stopped reader was cut, for its write")
				require.LessOrEqual(t, times[0].Sub(start), timeout, "cut within the write timeout")
				_, err = io.Copy(io.Discard, c.resp.Body)
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
		mem, err := relay.NewMemoryStore()
		require.NoError(t, err)
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
		var dt doneTrace
		h, err := relay.NewHandler(mem, pathKey, relay.WithWriteTimeout(10*time.Second), relay.WithTrace(dt.trace()))
		require.NoError(t, err)
		pn, stop := servePipes(h)
		defer stop()

		c := getSSE(t, pn, "/s/a/events", "Last-Event-ID: "+w.id(3))
		body, err := readPaced(c.resp.Body, 4<<10, time.Second)
		require.NoError(t, c.conn.Close())
		require.NoError(t, err)
		s, err := parseSSE(bytes.NewReader(body))
		require.NoError(t, err)
		require.Len(t, s.Events, 3)
		require.Equal(t, relay.EventGone, s.Events[0].Name)
		var gone relay.GoneData
		require.NoError(t, json.Unmarshal([]byte(s.Events[0].Data), &gone))
		require.Equal(t, "trimmed", gone.Reason)
		require.JSONEq(t, string(snap), string(gone.View))
		synctest.Wait()
		ends, _ := dt.get()
		require.Equal(t, []string{"ended"}, ends)
	})
}
