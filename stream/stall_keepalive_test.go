package stream_test

// A stall limit that keep-alives cannot defeat: a server that sends only SSE
// comments while its task does nothing keeps bytes flowing (so the idle
// timeout never fires), but only an event that brings something new is
// progress. With an idle timeout set (without one, a stream's silence is
// not bounded, keep-alives or not), the stream ends with a *StalledError at
// exactly the stall limit after the last such event, on every wire.

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// keepAlive writes an SSE comment, as servers do to keep a connection open.
func keepAlive(ww *wireWriter) {
	fmt.Fprint(ww.w, ": keep-alive\n\n")
	ww.w.(http.Flusher).Flush()
}

func TestKeepAlivesDoNotCountAsProgress(t *testing.T) {
	const (
		every = 10 * time.Second // a comment every 10 s
		idle  = 15 * time.Second // the idle timeout, which the comments keep from firing
		limit = 45 * time.Second // the stall limit
	)
	cases := []struct {
		name   string
		events []time.Duration // when the agent sends news, from the send
	}{
		{"one event, then comments only", []time.Duration{0}},
		{"news restarts the clock", []time.Duration{0, 30 * time.Second}},
	}
	for _, c := range cases {
		for _, w := range wires() {
			t.Run(c.name+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
						kindStream: func(ww *wireWriter, call wireCall) {
							ww.sse()
							start := time.Now()
							tick := time.NewTicker(every)
							defer tick.Stop()
							// until waits for the moment at, sending a comment
							// every 10 s; false when the client left.
							until := func(at time.Time) bool {
								for {
									select {
									case <-call.ctx.Done():
										return false
									case <-tick.C:
										keepAlive(ww)
									case <-time.After(time.Until(at)):
										return true
									}
								}
							}
							var parts []string
							for i, at := range c.events {
								if !until(start.Add(at)) {
									return
								}
								ww.event(snap(a2a.StateWorking, parts...))
								parts = append(parts, fmt.Sprintf("chunk %d", i))
							}
							until(start.Add(time.Hour))
						},
						kindGet: func(ww *wireWriter, _ wireCall) { ww.task(snap(a2a.StateWorking)) },
					})
					s := a.client(t, stream.WithIdleTimeout(idle), stream.WithStallTimeout(limit)).Send(background(), hello())
					defer s.Close()
					var last time.Time
					events := 0
					for s.Next() {
						last = time.Now()
						events++
					}
					require.Equal(t, len(c.events), events, "every event the agent sent")
					var stalled *stream.StalledError
					require.ErrorAs(t, s.Err(), &stalled)
					require.Equal(t, limit, stalled.After)
					require.Equal(t, limit, time.Since(last), "stalled at exactly the limit after the last event")
					require.Equal(t, 1, a.count(kindStream))
					require.Equal(t, 0, a.count(kindSubscribe)+a.count(kindGet), "a stall is no drop")
					require.False(t, errors.Is(s.Err(), stream.ErrIdleTimeout))
				})
			})
		}
	}
}

// The stall clock counts the time the stream waits for news, not the time
// the caller takes between two events: a caller that works a minute on an
// event, past the 45 s limit, gets the next one, which came meanwhile, and
// the stream stalls 45 s after it, keep-alives or not.
func TestStallLimitCountsNotTheCallersTime(t *testing.T) {
	const limit = 45 * time.Second
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, call wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking))
						<-time.After(10 * time.Second)
						ww.event(snap(a2a.StateWorking, "chunk"))
						for {
							select {
							case <-call.ctx.Done():
								return
							case <-time.After(10 * time.Second):
								keepAlive(ww)
							}
						}
					},
				})
				s := a.client(t, stream.WithIdleTimeout(15*time.Second), stream.WithStallTimeout(limit)).Send(background(), hello())
				defer s.Close()
				require.True(t, s.Next())
				<-time.After(time.Minute) // the caller works on the first event, in the bubble's time
				require.True(t, s.Next(), "the second event came while the caller worked")
				last := time.Now()
				require.False(t, s.Next())
				var stalled *stream.StalledError
				require.ErrorAs(t, s.Err(), &stalled)
				require.Equal(t, limit, time.Since(last))
				require.Equal(t, "chunk", stalled.Task.Artifacts[0].Text())
			})
		})
	}
}

// Without an idle timeout the stall limit does not bound a stream, silent
// or sending keep-alives only, as WithStallTimeout says: a task that works
// an hour between two events, with a comment every 10 s, completes.
func TestWithoutAnIdleTimeoutKeepAlivesDoNotStallAStream(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, call wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking))
						end := time.After(time.Hour)
						for {
							select {
							case <-call.ctx.Done():
								return
							case <-end:
								ww.event(snap(a2a.StateCompleted, "done"))
								return
							case <-time.After(10 * time.Second):
								keepAlive(ww)
							}
						}
					},
				})
				start := time.Now()
				s := a.client(t, stream.WithStallTimeout(45*time.Second)).Send(background(), hello())
				defer s.Close()
				for s.Next() {
				}
				require.NoError(t, s.Err())
				require.Equal(t, time.Hour, time.Since(start))
			})
		})
	}
}
