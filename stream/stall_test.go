package stream_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// A stall limit that keep-alives cannot defeat: a server that sends only SSE
// comments while its task does nothing keeps bytes flowing (so the idle
// timeout never fires), but only an event that brings something new is
// progress. With an idle timeout set (without one, a stream's silence is
// not bounded, keep-alives or not), the stream ends with a *StalledError at
// exactly the stall limit after the last such event, on every wire.

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
					require.False(t, errors.Is(s.Err(), transport.ErrIdleTimeout))
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

// Stranger round 28, the stall limit with an idle timeout: servers that
// keep bytes flowing without news (comments, empty data lines, the same
// event again, an event dribbled a byte a second that never ends) stall
// the stream at the stall limit; a slow task that sends news does not.

const (
	idleGap    = 5 * time.Second
	stallAfter = 30 * time.Second
)

// noiseMaker writes what a server sends while its task does nothing, until
// ctx ends.
type noiseMaker func(ctx context.Context, rw http.ResponseWriter, c parsedCall, tick <-chan time.Time)

func everyTick(ctx context.Context, rw http.ResponseWriter, tick <-chan time.Time, s func() string) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			writeFlush(rw, s())
		}
	}
}

// emptyDataNoises are servers whose keep-alive is an event with empty data.
func emptyDataNoises() map[string]noiseMaker {
	return map[string]noiseMaker{
		"empty data lines": func(ctx context.Context, rw http.ResponseWriter, _ parsedCall, tick <-chan time.Time) {
			everyTick(ctx, rw, tick, func() string { return "data:\n\n" })
		},
		"empty data with an event name and id": func(ctx context.Context, rw http.ResponseWriter, _ parsedCall, tick <-chan time.Time) {
			n := 0
			everyTick(ctx, rw, tick, func() string { n++; return fmt.Sprintf("event: ping\nid: %d\nretry: 1000\ndata: \n\n", n) })
		},
	}
}

func noiseMakers() map[string]noiseMaker {
	stamp := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return map[string]noiseMaker{
		"comments": func(ctx context.Context, rw http.ResponseWriter, _ parsedCall, tick <-chan time.Time) {
			everyTick(ctx, rw, tick, func() string { return ": keep-alive\n\n" })
		},
		"the same status update again": func(ctx context.Context, rw http.ResponseWriter, c parsedCall, tick <-chan time.Time) {
			u := &a2a.StatusUpdate{TaskID: "t-28", ContextID: "c-28", Status: a2a.TaskStatus{State: a2a.StateWorking, Timestamp: stamp}}
			everyTick(ctx, rw, tick, func() string { return c.frame(u) })
		},
		"the same task again": func(ctx context.Context, rw http.ResponseWriter, c parsedCall, tick <-chan time.Time) {
			tk := taskInState(a2a.StateWorking)
			tk.Status.Timestamp = stamp
			everyTick(ctx, rw, tick, func() string { return c.frame(tk) })
		},
		"the same artifact again": func(ctx context.Context, rw http.ResponseWriter, c parsedCall, tick <-chan time.Time) {
			u := &a2a.ArtifactUpdate{TaskID: "t-28", ContextID: "c-28", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("same")}}}
			everyTick(ctx, rw, tick, func() string { return c.frame(u) })
		},
		"a byte a second of an event that never ends": func(ctx context.Context, rw http.ResponseWriter, _ parsedCall, tick <-chan time.Time) {
			first := true
			everyTick(ctx, rw, tick, func() string {
				if first {
					first = false
					return "data: {"
				}
				return " "
			})
		},
		"a byte a second of a comment that never ends": func(ctx context.Context, rw http.ResponseWriter, _ parsedCall, tick <-chan time.Time) {
			everyTick(ctx, rw, tick, func() string { return "x" }) // no newline: one endless line
		},
	}
}

// stallAgent answers every streaming call with the task, working, and
// then noise; get-task with the task, working.
func stallAgent(w wire, noise noiseMaker, calls *[]string, mu *sync.Mutex) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := parseCall(w, r)
		mu.Lock()
		*calls = append(*calls, c.kind)
		mu.Unlock()
		switch c.kind {
		case "stream", "subscribe":
			startSSE(rw)
			tk := taskInState(a2a.StateWorking)
			tk.Status.Timestamp = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			writeFlush(rw, c.frame(tk))
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			noise(r.Context(), rw, c, tick.C)
		case "get":
			tk := taskInState(a2a.StateWorking)
			tk.Status.Timestamp = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			c.task(rw, tk)
		default:
			http.Error(rw, "no", http.StatusNotImplemented)
		}
	})
}

// No news stalls the stream at the stall limit after the last news, whatever
// keeps the bytes flowing: comments, the same event again, an event or a
// comment dribbled a byte a second, or an event with empty data ("data:"
// alone, or with an event name such as "ping"): the brief asks that a server
// sending empty data stall at the stall limit, as one sending comments does.
func TestNoNewsStallsAtTheStallLimit(t *testing.T) {
	noises := noiseMakers()
	maps.Copy(noises, emptyDataNoises())
	for _, w := range wires() {
		for name, noise := range noises {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var mu sync.Mutex
					var calls []string
					c := w.client(t, stallAgent(w, noise, &calls, &mu),
						stream.WithIdleTimeout(idleGap), stream.WithStallTimeout(stallAfter))
					ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
					defer cancel()
					start := time.Now()
					e := drainEnding(c.Send(ctx, hiMessage()))
					took := time.Since(start)
					mu.Lock()
					t.Logf("ended after %v: %v; calls %v", took, e.Err, calls)
					mu.Unlock()
					var se *stream.StalledError
					require.ErrorAs(t, e.Err, &se, "%v", e.Err)
					require.Equal(t, "t-28", se.Task.ID)
					lastNews := time.Duration(0) // the task, at once
					if name == "the same artifact again" {
						lastNews = time.Second // the artifact's first copy is news
					}
					require.Equal(t, lastNews+stallAfter, took, "the stall limit after the last news")
				})
			})
		}
	}
}

// A task that is slow but sends news every 20 s (under the 30 s limit),
// with comments in between, is never stalled.
func TestASlowTaskWithNewsDoesNotStall(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					c := parseCall(w, r)
					if c.kind != "stream" {
						http.Error(rw, "unexpected", http.StatusInternalServerError)
						return
					}
					startSSE(rw)
					writeFlush(rw, c.frame(taskInState(a2a.StateWorking)))
					for i := range 12 {
						for range 20 {
							select {
							case <-r.Context().Done():
								return
							case <-time.After(time.Second):
							}
							writeFlush(rw, ": thinking\n\n")
						}
						writeFlush(rw, c.frame(&a2a.ArtifactUpdate{TaskID: "t-28", ContextID: "c-28", Append: i > 0,
							Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart(fmt.Sprintf("w%d ", i))}}}))
					}
					done := &a2a.StatusUpdate{TaskID: "t-28", ContextID: "c-28", Status: a2a.TaskStatus{State: a2a.StateCompleted}, Final: true}
					writeFlush(rw, c.frame(done))
				})
				c := w.client(t, h, stream.WithIdleTimeout(idleGap), stream.WithStallTimeout(stallAfter))
				start := time.Now()
				e := drainEnding(c.Send(t.Context(), hiMessage()))
				require.NoError(t, e.Err)
				require.Equal(t, a2a.StateCompleted, e.State)
				require.Equal(t, 240*time.Second, time.Since(start))
				require.True(t, strings.HasPrefix(e.Task.Artifact("a1").Text(), "w0 w1 "))
			})
		})
	}
}

// A caller that is slow between two events (the stall clock counts the
// stream's waits only) is not stalled; a sanity check that errors.As sees
// no StalledError on a completed stream.
func TestTheCallersOwnTimeIsNotAStall(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					c := parseCall(w, r)
					startSSE(rw)
					writeFlush(rw, c.frame(taskInState(a2a.StateWorking)))
					writeFlush(rw, c.frame(&a2a.StatusUpdate{TaskID: "t-28", ContextID: "c-28", Status: a2a.TaskStatus{State: a2a.StateCompleted}, Final: true}))
				})
				c := w.client(t, h, stream.WithIdleTimeout(idleGap), stream.WithStallTimeout(stallAfter))
				s := c.Send(t.Context(), hiMessage())
				defer s.Close()
				for s.Next() {
					<-time.After(time.Minute) // the caller's own time, in the bubble's fake clock
				}
				var se *stream.StalledError
				require.False(t, errors.As(s.Err(), &se), "%v", s.Err())
				require.NoError(t, s.Err())
			})
		})
	}
}

// A subscription that stays silent past the idle timeout while get-task
// says the task is working costs no reconnect attempt: the agent is alive,
// only quiet. The stall limit bounds it, so that a server that never
// finishes cannot hold the caller forever.

func TestSilentWorkingTaskDoesNotSpendTheBudget(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				a := silentAgent(w, func() bool { return time.Since(start) >= 3*time.Minute })
				c := a.client(t, stream.WithIdleTimeout(10*time.Second), stream.WithReconnect(reconnect.Policy{MaxAttempts: 2}))
				got, err := drain(t, c.Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "one two", got.text("a1"))
				require.Greater(t, a.count(kindGet), 2, "more quiet cycles than the budget has attempts")
			})
		})
	}
}

func TestSilentWorkingTaskStallsAfterTheStallTimeout(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := silentAgent(w, func() bool { return false })
				start := time.Now()
				c := a.client(t, stream.WithIdleTimeout(10*time.Second), stream.WithStallTimeout(time.Minute))
				_, err := drain(t, c.Send(background(), hello()))
				var stalled *stream.StalledError
				require.ErrorAs(t, err, &stalled)
				require.Equal(t, time.Minute, stalled.After)
				require.Equal(t, a2a.StateWorking, stalled.Task.Status.State)
				var re *reconnect.Error
				require.False(t, errors.As(err, &re), "not a spent budget: %v", err)
				// The send's leg goes silent at 0 and is cut at 10 s; each
				// cycle then waits the backoff (500 ms), subscribes, is cut
				// 10 s later and fetches the task. The first fetch at or past
				// one minute of nothing new ends the stream.
				elapsed := time.Since(start)
				require.GreaterOrEqual(t, elapsed, time.Minute)
				require.Equal(t, 10*time.Second+5*(backoff+10*time.Second), elapsed)
			})
		})
	}
}

// Stranger round 28b, keep-alives: SSE events with empty data are skipped
// on all four wires, and a real event after them arrives exactly once.

// s28bKeepAlives are events with empty data. The CHANGELOG (issue 28)
// promises: "an SSE event with empty data (`data:` alone, or `event: ping`
// with it) is a keep-alive: skipped".
func s28bKeepAlives() map[string]string {
	return map[string]string{
		"data: alone":                  "data:\n\n",
		"data: and a space":            "data: \n\n",
		"data: CRLF":                   "data:\r\n\r\n",
		"data: CR":                     "data:\r\r",
		"event ping and data:":         "event: ping\ndata:\n\n",
		"event ping, id, retry, data:": "event: ping\nid: 7\nretry: 500\ndata: \n\n",
		"several empty data lines":     "data:\ndata:\ndata: \n\n",
		"many in a row":                "data:\n\ndata:\n\nevent: ping\ndata:\n\n",
	}
}

// s28bWhitespace are events whose data is whitespace only, or a record
// separator: not named by the docs ("empty data"), but no JSON either.
func s28bWhitespace() map[string]string {
	return map[string]string{
		"two spaces":              "data:  \n\n",
		"a tab":                   "data:\t\n\n",
		"a record separator":      "data: \x1e\n\n",
		"a record separator bare": "data:\x1e\n\n",
		// Over 16 KiB of data: the SSE decoder hands it out in chunks.
		"20 KiB of white space around a record separator": "data: " + strings.Repeat(" \t", 5<<10) + "\x1e" +
			strings.Repeat(" ", 10<<10) + "\ndata: " + strings.Repeat(" ", 1<<10) + "\n\n",
	}
}

type s28bCalls struct {
	mu    sync.Mutex
	kinds []string
}

func (c *s28bCalls) add(k string) { c.mu.Lock(); c.kinds = append(c.kinds, k); c.mu.Unlock() }
func (c *s28bCalls) get() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.kinds...)
}

// s28bKeepAliveAgent streams the task, the noise, one artifact, the noise
// again, and the completed status. Any other call is recorded and refused.
func s28bKeepAliveAgent(w wire, noise string, calls *s28bCalls) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := parseCall(w, r)
		calls.add(c.kind)
		if c.kind != "stream" {
			http.Error(rw, "unexpected", http.StatusInternalServerError)
			return
		}
		startSSE(rw)
		writeFlush(rw, c.frame(taskInState(a2a.StateWorking)))
		writeFlush(rw, noise)
		writeFlush(rw, c.frame(&a2a.ArtifactUpdate{TaskID: "t-28", ContextID: "c-28", LastChunk: true,
			Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("real")}}}))
		writeFlush(rw, noise)
		writeFlush(rw, c.frame(&a2a.StatusUpdate{TaskID: "t-28", ContextID: "c-28",
			Status: a2a.TaskStatus{State: a2a.StateCompleted}, Final: true}))
	})
}

func s28bRunKeepAlive(t *testing.T, w wire, noise string) {
	synctest.Test(t, func(t *testing.T) {
		calls := &s28bCalls{}
		c := w.client(t, s28bKeepAliveAgent(w, noise, calls))
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		s := c.Send(ctx, hiMessage())
		defer s.Close()
		var artifacts []string
		var events int
		for s.Next() {
			events++
			if u, ok := s.Event().(*a2a.ArtifactUpdate); ok {
				for _, p := range u.Artifact.Parts {
					artifacts = append(artifacts, p.Text)
				}
			}
		}
		require.NoError(t, s.Err())
		require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
		require.Equal(t, []string{"real"}, artifacts, "the artifact exactly once")
		require.Equal(t, "real", s.Task().Artifact("a1").Text())
		require.Equal(t, []string{"stream"}, calls.get(), "one call, no reconnect")
	})
}

// Events whose data is empty (the CHANGELOG's keep-alive) or whitespace only
// are skipped on every wire, and the real event between them arrives once.
func TestEmptyOrWhitespaceDataIsAKeepAliveOnEveryWire(t *testing.T) {
	noises := s28bKeepAlives()
	maps.Copy(noises, s28bWhitespace())
	for _, w := range wires() {
		for name, noise := range noises {
			t.Run(w.String()+"/"+name, func(t *testing.T) { s28bRunKeepAlive(t, w, noise) })
		}
	}
}

// An "error" event is not a keep-alive, even with empty data: the stream
// ends in an error, not in the completion that follows.
func TestErrorEventWithEmptyDataIsNotSkipped(t *testing.T) {
	for _, w := range wires() {
		for name, noise := range map[string]string{
			"event error, data:":       "event: error\ndata:\n\n",
			"event error, data: space": "event: error\ndata: \n\n",
		} {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					calls := &s28bCalls{}
					c := w.client(t, s28bKeepAliveAgent(w, noise, calls))
					ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
					defer cancel()
					e := drainEnding(c.Send(ctx, hiMessage()))
					t.Logf("ended: %T %v; calls %v", e.Err, e.Err, calls.get())
					require.Error(t, e.Err)
					require.NotErrorIs(t, e.Err, context.DeadlineExceeded, "ended by the bound, not by the error event")
					var pe *transport.ProtocolError
					var rpc *a2a.RPCError
					var he *transport.HTTPError
					require.True(t, errors.As(e.Err, &pe) || errors.As(e.Err, &rpc) || errors.As(e.Err, &he),
						"a typed error: %T %v", e.Err, e.Err)
				})
			})
		}
	}
}
