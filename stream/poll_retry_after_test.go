package stream_test

// A server that answers a poll with the task and a Retry-After header says
// when to ask again: WithPollInterval's doc, "a Retry-After from the server
// lengthens one wait". The next poll comes that long after
// (at most 30 s, as every wait a server asks for), once; the polls after it
// keep the interval.

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

func TestRetryAfterOnASuccessfulPollSetsTheNextPollsWait(t *testing.T) {
	cases := []struct {
		name   string
		header func() string   // the Retry-After of the second poll's answer
		polls  []time.Duration // when each poll came
	}{
		{"seconds", func() string { return "7" }, []time.Duration{time.Second, 2 * time.Second, 9 * time.Second, 10 * time.Second}},
		{"date", func() string { return time.Now().Add(7 * time.Second).UTC().Format(http.TimeFormat) },
			[]time.Duration{time.Second, 2 * time.Second, 9 * time.Second, 10 * time.Second}},
		{"shorter than the interval", func() string { return "0" }, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}},
		{"over the cap", func() string { return "86400" }, []time.Duration{time.Second, 2 * time.Second, 32 * time.Second, 33 * time.Second}},
		{"past 2^64 nanoseconds", func() string { return "18446744074" }, []time.Duration{time.Second, 2 * time.Second, 32 * time.Second, 33 * time.Second}},
		{"garbage", func() string { return "soon" }, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			t.Run(w.String()+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var at []time.Duration
					start := time.Now()
					refuse := func(ww *wireWriter, _ wireCall) {
						ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
					}
					agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
						kindStream:    refuse,
						kindSubscribe: refuse,
						kindSend: func(ww *wireWriter, _ wireCall) {
							ww.result(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}})
						},
						kindGet: func(ww *wireWriter, c wireCall) {
							at = append(at, time.Since(start))
							if c.n == 1 {
								ww.w.Header().Set("Retry-After", tc.header())
							}
							st := a2a.StateWorking
							if c.n >= 3 {
								st = a2a.StateCompleted
							}
							ww.task(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}})
						},
					})
					_, err := sgDrain(t, agent.client(t, stream.WithPollInterval(time.Second)).Send(context.Background(), hello()))
					require.NoError(t, err)
					require.Equal(t, tc.polls, at, "poll times")
				})
			})
		}
	}
}
