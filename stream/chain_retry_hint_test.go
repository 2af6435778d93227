package stream_test

// The retry hint across a chain of four agents on four different wires:
// README, "Errors across agent chains": the error carries "whether it is
// retryable and when … with the retry hint also where any client reads
// it", and chain.Error's doc: "This agent's error is retryable, with the
// same delay, exactly when the downstream link is". So the deepest
// agent's "come back in 7 s" reaches the top, link by link, whatever the
// ending: a 503 with Retry-After, an RPC error marked retryable, or a
// budget spent on resubscribes refused that way.

import (
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chain"
)

func TestChainErrorCarriesTheRetryHintFourAgentsDeep(t *testing.T) {
	busy := func(ww *wireWriter) {
		ww.w.Header().Set("Retry-After", "7")
		http.Error(ww.w, "overloaded, body-secret", http.StatusServiceUnavailable)
	}
	endings := map[string]func(w wire) map[callKind]func(*wireWriter, wireCall){
		"503": func(wire) map[callKind]func(*wireWriter, wireCall) {
			return map[callKind]func(*wireWriter, wireCall){
				kindStream: func(ww *wireWriter, _ wireCall) { busy(ww) },
			}
		},
		"retryable error": func(w wire) map[callKind]func(*wireWriter, wireCall) {
			return map[callKind]func(*wireWriter, wireCall){
				kindStream: func(ww *wireWriter, _ wireCall) {
					ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", retryData(w.v, 7))
				},
			}
		},
		"budget spent": func(wire) map[callKind]func(*wireWriter, wireCall) {
			return map[callKind]func(*wireWriter, wireCall){
				kindStream: func(ww *wireWriter, _ wireCall) {
					ww.sse()
					ww.event(snap(a2a.StateWorking, "x"))
				},
				kindSubscribe: func(ww *wireWriter, _ wireCall) { busy(ww) },
			}
		},
	}
	all := wires()
	for i, top := range all {
		mid, low, deep := all[(i+1)%4], all[(i+2)%4], all[(i+3)%4]
		for name, ending := range endings {
			t.Run(fmt.Sprintf("%s→%s→%s→%s/%s", top, mid, low, deep, name), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					rooms := newWireAgent(deep, ending(deep))
					hotels := chainAgent(t, low, "hotels", "rooms", rooms, make(chan []byte, 1))
					flights := chainAgent(t, mid, "flights", "hotels", hotels, make(chan []byte, 1))
					sent := make(chan []byte, 1)
					planner := chainAgent(t, top, "planner", "flights", flights, sent)

					_, err := planner.client(t).Send(background(), hello()).Wait()
					require.Error(t, err)
					require.NotContains(t, string(<-sent), "secret")
					links := chain.Of(err)
					require.Len(t, links, 4, "%v", err)
					for j, agent := range []string{"planner", "flights", "hotels", "rooms"} {
						require.Equal(t, agent, links[j].Agent)
						require.True(t, links[j].Retryable, "link %d (%s)", j, agent)
						require.Equal(t, 7*time.Second, links[j].RetryAfter, "link %d (%s)", j, agent)
					}
					var rpcErr *a2a.RPCError
					require.ErrorAs(t, err, &rpcErr)
					require.True(t, rpcErr.Retryable(), "any client reads the hint at the top")
					require.Equal(t, 7*time.Second, rpcErr.RetryAfter())
				})
			})
		}
	}
}
