package stream_test

// What the Breaker is told of a request that got no response because its
// connection was never made in time: the agent's failure, not a cancel.

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/stream"
)

// An agent whose address black-holes (the connection is never made) is
// the most common "agent down": the connect timeout cuts each dial. The
// Breaker doc says the breaker is told "the transport's error when no
// response arrived", and context.Canceled only "when the caller's context
// ended the request"; the caller's context did not end here. Told
// context.Canceled, a breaker that leaves cancels out of its counts (as
// the doc advises) never opens for such an agent, and every call waits the
// connect timeout again.
func TestBreakerToldAConnectTimeoutAsTheAgentsFailure(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var hole blackHole
				tr := &http.Transport{DialContext: hole.dial}
				defer tr.CloseIdleConnections()
				b := &tripBreaker{threshold: 1, cooldown: time.Hour}
				c := bindingClient(t, w.b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}),
					stream.WithVersion(w.v), stream.WithBreaker(b), stream.WithConnectTimeout(2*time.Second))
				_, err := c.GetTask(background(), "t-1")
				require.ErrorIs(t, err, stream.ErrConnectTimeout)
				require.Len(t, b.told(), 1)
				require.NotErrorIs(t, b.told()[0], context.Canceled, "the caller cancelled nothing")
				require.ErrorIs(t, b.told()[0], stream.ErrConnectTimeout)

				_, err = c.GetTask(background(), "t-1")
				require.ErrorIs(t, err, stream.ErrCircuitOpen, "the timeout opened the circuit")
				require.Equal(t, int32(1), hole.n.Load())
			})
		})
	}
}
