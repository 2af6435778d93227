package stream_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// detaching is an http.RoundTripper of the caller's that calls on with
// the request detached from its context's cancellation (a middleware
// with that bug).
type detaching struct{ next http.RoundTripper }

func (d detaching) RoundTrip(r *http.Request) (*http.Response, error) {
	return d.next.RoundTrip(r.WithContext(context.WithoutCancel(r.Context())))
}

// The idle timer still cuts a silent stream when a RoundTripper of the
// caller's detached the request from the call's cancellation: the body is
// closed when the call's context ends, which ends the read that waits. The
// agent's stream ends exactly one idle timeout after its last event, and
// the stream heals by resubscribing (an eighth stranger round's L1, on the
// HTTP bindings).
func TestIdleTimeoutCutsAStreamWhoseRequestWasDetached(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		var (
			mu    sync.Mutex
			ended time.Duration
		)
		start := time.Now()
		agent := newWireAgent(w, answers{
			kindStream: func(ww *wireWriter, c wireCall) {
				ww.sse()
				ww.event(statusEvent(w.v, a2a.StateWorking, nil))
				<-c.ctx.Done()
				mu.Lock()
				ended = time.Since(start)
				mu.Unlock()
			},
			kindSubscribe: legOf(snap(a2a.StateCompleted, "done")),
		})
		hc := a2atest.NewClient(agent)
		hc.Transport = detaching{hc.Transport}
		s := agent.client(t, stream.WithHTTPClient(hc), stream.WithIdleTimeout(time.Minute)).Send(bounded(t), hello())
		task, err := s.Wait()
		require.NoError(t, err)
		require.Equal(t, a2a.StateCompleted, task.Status.State)
		mu.Lock()
		defer mu.Unlock()
		require.Equal(t, time.Minute, ended, "the silent call ended at its idle timeout")
	})
}
