package stream_test

// The connect timeout counts from the moment net/http's Transport starts to
// get a connection (httptrace's GetConn), which the trace cannot tell apart
// from a dial through a custom DialContext: so a Transport that caps its
// connections to a host (MaxConnsPerHost) and queues a call until one is
// free has that wait cut by the connect timeout too, as WithConnectTimeout
// documents. Nothing of the call was sent.

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

func TestConnectTimeoutCountsAWaitForAPooledConnection(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking))
						time.Sleep(30 * time.Second) // the agent works, in the bubble's time
						ww.event(snap(a2a.StateCompleted, "done"))
					},
					kindGet: func(ww *wireWriter, _ wireCall) {
						ww.task(snap(a2a.StateCompleted, "done"))
					},
				})
				p := &pipeServer{h: a}
				tr := &http.Transport{DialContext: p.dial, MaxConnsPerHost: 1}
				defer p.close()
				defer tr.CloseIdleConnections()
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
					stream.WithConnectTimeout(10*time.Second))
				s := c.Send(background(), hello())
				require.True(t, s.Next(), "the stream holds the one connection")
				done := make(chan error, 1)
				go func() { _, err := s.Wait(); done <- err }()
				var streamErr error
				defer func() { require.NoError(t, streamErr) }()
				defer func() { streamErr = <-done }() // whatever GetTask does

				start := time.Now()
				_, err := c.GetTask(background(), "t-1")
				require.ErrorIs(t, err, stream.ErrConnectTimeout)
				require.Equal(t, 10*time.Second, time.Since(start))
				require.Equal(t, 0, a.count(kindGet), "nothing of the call was sent")
			})
		})
	}
}
