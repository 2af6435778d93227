package relay_test

import (
	"bufio"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// Stranger BC: the write deadlines a Handler sets on a connection for an
// event stream do not outlive its response: a browser that reuses the
// keep-alive connection a minute later (to post a cancel, or read another
// stream) gets its answer.
func TestWriteTimeoutLeavesNoDeadlineOnTheConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		w := newWriter(t, mem, "a")
		w.many(3)
		w.end()
		l := pipeRelay(t, mem, nil, relay.WithWriteTimeout(10*time.Second))
		c := sendGet(t, l, "/s/a/events", "")
		defer c.Close()
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		require.NoError(t, err)
		require.Len(t, newRawReader(t, resp.Body).whole(), 4)
		require.NoError(t, resp.Body.Close())
		require.False(t, resp.Close, "the connection is kept alive")

		<-time.After(time.Minute) // of fake time: past every deadline the response set
		_, err = io.WriteString(c, "POST /s/a/cancel HTTP/1.1\r\nHost: relay.test\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
		require.NoError(t, err)
		resp, err = http.ReadResponse(br, nil)
		require.NoError(t, err, "the second request on the connection got no answer")
		_, _ = io.Copy(io.Discard, resp.Body)
		require.NoError(t, resp.Body.Close())
		require.Less(t, resp.StatusCode, 500)
	})
}
