package relay_test

import (
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// Stranger BC: a browser that stops reading an idle stream is cut at its
// first keep-alive that waits past the write timeout, told as End "write".
func TestWriteTimeoutCutsAStoppedReaderOfAnIdleStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		w := newWriter(t, mem, "a")
		w.texts("hello")
		rec := &traceRec{ended: make(chan string, 1)}
		l := pipeRelay(t, mem, nil, relay.WithWriteTimeout(10*time.Second),
			relay.WithKeepAlive(15*time.Second), relay.WithTrace(rec.trace()))
		c := getSSE(t, l, "/s/a/events", "")
		buf := make([]byte, 60)
		_, err := io.ReadFull(c.resp.Body, buf) // part of the first event, then nothing
		require.NoError(t, err)
		requireCutWithin(t, rec, time.Now(), 25*time.Second) // the keep-alive's write timeout
		require.NoError(t, c.conn.Close())
	})
}

// Stranger BC: over HTTP/2 (h2c), where flow control, not a socket, stops
// the writes of a browser that stops reading, the write timeout cuts it
// too, told as End "write".
func TestWriteTimeoutCutsAStoppedReaderOverHTTP2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		w := newWriter(t, mem, "a")
		w.texts("hello")
		rec := &traceRec{ended: make(chan string, 1)}
		const timeout = 10 * time.Second
		l := pipeRelay(t, mem, h2c(), relay.WithWriteTimeout(timeout), relay.WithKeepAlive(time.Hour),
			relay.WithTrace(rec.trace()))
		resp, err := pipeClient(t, l, h2c()).Get("http://relay.test/s/a/events")
		require.NoError(t, err)
		require.Equal(t, 2, resp.ProtoMajor)
		buf := make([]byte, 60)
		_, err = io.ReadFull(resp.Body, buf)
		require.NoError(t, err)
		synctest.Wait()
		for range 8 { // 8 MiB: past the client's 4 MiB window for the stream
			w.repeat(64, strings.Repeat("z", 16<<10))
		}
		requireCutWithin(t, rec, time.Now(), timeout)
		require.NoError(t, resp.Body.Close())
	})
}

// Stranger BC: over HTTP/2 (h2c), a browser that reads 4 KiB a second,
// steadily, through 6 MiB (past the client's window of 4 MiB, so flow
// control paces the writes), is not cut by a write timeout of 10 s.
func TestWriteTimeoutSparesASteadySlowReaderOverHTTP2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		w := newWriter(t, mem, "a")
		for range 6 {
			w.repeat(64, strings.Repeat("z", 16<<10))
		}
		w.end()
		rec := &traceRec{}
		l := pipeRelay(t, mem, h2c(), relay.WithWriteTimeout(10*time.Second), relay.WithTrace(rec.trace()))
		resp, err := pipeClient(t, l, h2c()).Get("http://relay.test/s/a/events")
		require.NoError(t, err)
		body, err := readPaced(resp.Body, 4<<10, time.Second)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		requireEndedWhole(t, rec, body, 6*64+1)
	})
}
