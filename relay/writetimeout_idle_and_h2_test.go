package relay_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
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
		mem, err := relay.NewMemoryStore()
		require.NoError(t, err)
		w := newWriter(t, mem, "a")
		w.texts("hello")
		var dt doneTrace
		h, err := relay.NewHandler(mem, pathKey, relay.WithWriteTimeout(10*time.Second),
			relay.WithKeepAlive(15*time.Second), relay.WithTrace(dt.trace()))
		require.NoError(t, err)
		pn, stop := servePipes(h)
		defer stop()
		c := getSSE(t, pn, "/s/a/events")
		buf := make([]byte, 60)
		_, err = io.ReadFull(c.resp.Body, buf) // part of the first event, then nothing
		require.NoError(t, err)
		start := time.Now()
		time.Sleep(time.Minute)
		ends, times := dt.get()
		require.Equal(t, []string{"write"}, ends)
		require.LessOrEqual(t, times[0].Sub(start), 25*time.Second, "cut at the keep-alive's write timeout")
		require.NoError(t, c.conn.Close())
	})
}

// Stranger BC: over HTTP/2 (h2c), where flow control, not a socket, stops
// the writes of a browser that stops reading, the write timeout cuts it
// too, told as End "write".
func TestWriteTimeoutCutsAStoppedReaderOverHTTP2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem, err := relay.NewMemoryStore()
		require.NoError(t, err)
		w := newWriter(t, mem, "a")
		big := strings.Repeat("z", 16<<10)
		texts := make([]string, 64)
		for i := range texts {
			texts[i] = big
		}
		w.texts("hello")
		var dt doneTrace
		const timeout = 10 * time.Second
		h, err := relay.NewHandler(mem, pathKey, relay.WithWriteTimeout(timeout), relay.WithKeepAlive(time.Hour),
			relay.WithTrace(dt.trace()))
		require.NoError(t, err)
		pn := newPipeNet()
		var protos http.Protocols
		protos.SetUnencryptedHTTP2(true)
		srv := &http.Server{Handler: h, Protocols: &protos}
		served := make(chan struct{})
		go func() { defer close(served); _ = srv.Serve(pn) }()
		defer func() { _ = srv.Close(); <-served }()
		tr := &http.Transport{Protocols: &protos, DialContext: func(context.Context, string, string) (net.Conn, error) {
			return pn.dial(t), nil
		}}
		defer tr.CloseIdleConnections()
		hc := &http.Client{Transport: tr}
		resp, err := hc.Get("http://relay.test/s/a/events")
		require.NoError(t, err)
		require.Equal(t, 2, resp.ProtoMajor)
		buf := make([]byte, 60)
		_, err = io.ReadFull(resp.Body, buf)
		require.NoError(t, err)
		synctest.Wait()
		for range 8 { // 8 MiB: past the client's 4 MiB window for the stream
			w.texts(texts...)
		}
		start := time.Now()
		synctest.Wait()
		time.Sleep(3 * timeout)
		ends, times := dt.get()
		require.Equal(t, []string{"write"}, ends, "the stopped HTTP/2 reader was cut, for its write")
		require.LessOrEqual(t, times[0].Sub(start), timeout)
		require.NoError(t, resp.Body.Close())
	})
}

// Stranger BC: over HTTP/2 (h2c), a browser that reads 4 KiB a second,
// steadily, through 6 MiB (past the client's window of 4 MiB, so flow
// control paces the writes), is not cut by a write timeout of 10 s.
func TestWriteTimeoutSparesASteadySlowReaderOverHTTP2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem, err := relay.NewMemoryStore()
		require.NoError(t, err)
		w := newWriter(t, mem, "a")
		big := strings.Repeat("z", 16<<10)
		texts := make([]string, 64)
		for i := range texts {
			texts[i] = big
		}
		for range 6 {
			w.texts(texts...)
		}
		w.end()
		var dt doneTrace
		h, err := relay.NewHandler(mem, pathKey, relay.WithWriteTimeout(10*time.Second), relay.WithTrace(dt.trace()))
		require.NoError(t, err)
		pn := newPipeNet()
		var protos http.Protocols
		protos.SetUnencryptedHTTP2(true)
		srv := &http.Server{Handler: h, Protocols: &protos}
		served := make(chan struct{})
		go func() { defer close(served); _ = srv.Serve(pn) }()
		defer func() { _ = srv.Close(); <-served }()
		tr := &http.Transport{Protocols: &protos, DialContext: func(context.Context, string, string) (net.Conn, error) {
			return pn.dial(t), nil
		}}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get("http://relay.test/s/a/events")
		require.NoError(t, err)
		body, err := readPaced(resp.Body, 4<<10, time.Second)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		s, err := parseSSE(bytes.NewReader(body))
		require.NoError(t, err)
		require.Len(t, s.Events, 6*64+1)
		synctest.Wait()
		ends, _ := dt.get()
		require.Equal(t, []string{"ended"}, ends)
	})
}
