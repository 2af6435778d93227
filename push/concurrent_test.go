package push_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/push"
)

// TestConcurrentRegistrations: agents POST at once to 32 registrations,
// each bound to its own task, while their consumers take concurrently; each
// agent also tries its events on the next registration, with its own
// token, and with the next registration's token for its own task. Every
// registration ends with exactly its own task's events, each once: nothing
// crosses between registrations (run it with -race).
func TestConcurrentRegistrations(t *testing.T) {
	const regs, events = 32, 40
	r := newReceiver(t)
	gs := make([]*push.Registration, regs)
	for i := range gs {
		gs[i] = register(t, r)
		require.NoError(t, gs[i].Bind(t.Context(), fmt.Sprintf("task-%d", i)))
	}
	body := func(i, j int) string {
		return fmt.Sprintf(`{"statusUpdate":{"taskId":"task-%d","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m%d","role":"ROLE_AGENT","parts":[{"text":"%d"}]}}}}`, i, j, j)
	}
	taken := make([][]push.Notification, regs)
	// statuses and losses are checked on the test's goroutine, once
	// every goroutine is joined.
	statuses := make([][3]int, regs*events)
	lost := make([]bool, regs)
	var agents, consumers sync.WaitGroup
	done := make(chan struct{})
	for i := range gs {
		agents.Go(func() {
			next := gs[(i+1)%regs]
			for j := range events {
				n := pushTo(gs[i], body(i, j))
				wrongReg := n
				wrongReg.url = next.URL()
				stolen := pushTo(next, body(i, j))
				statuses[i*events+j] = [3]int{serve(r, n).Code, serve(r, wrongReg).Code, serve(r, stolen).Code}
			}
		})
		consumers.Go(func() {
			for {
				select {
				case <-gs[i].Ready():
					ns, l := gs[i].Take()
					lost[i] = lost[i] || l
					taken[i] = append(taken[i], ns...)
				case <-done:
					ns, _ := gs[i].Take()
					taken[i] = append(taken[i], ns...)
					return
				}
			}
		})
	}
	agents.Wait()
	close(done)
	consumers.Wait()
	for _, s := range statuses {
		require.Equal(t, [3]int{http.StatusNoContent, http.StatusUnauthorized, http.StatusForbidden}, s)
	}
	for i := range gs {
		require.False(t, lost[i])
		require.Len(t, taken[i], events, "registration %d", i)
		for j, n := range taken[i] {
			want, err := a2a.Codec{}.DecodeEvent([]byte(body(i, j)))
			require.NoError(t, err)
			require.Equal(t, want, n.Event)
		}
	}
}
