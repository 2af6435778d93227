package stream_test

// Stranger round 28, the stall limit with an idle timeout: servers that
// keep bytes flowing without news (comments, empty data lines, the same
// event again, an event dribbled a byte a second that never ends) stall
// the stream at the stall limit; a slow task that sends news does not.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

const (
	s28Idle  = 5 * time.Second
	s28Stall = 30 * time.Second
)

// s28Noise writes what a server sends while its task does nothing, until
// ctx ends.
type s28Noise func(ctx context.Context, rw http.ResponseWriter, c s28Call, tick <-chan time.Time)

func s28Every(ctx context.Context, rw http.ResponseWriter, tick <-chan time.Time, s func() string) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			s28Write(rw, s())
		}
	}
}

// s28EmptyData are servers whose keep-alive is an event with empty data.
func s28EmptyData() map[string]s28Noise {
	return map[string]s28Noise{
		"empty data lines": func(ctx context.Context, rw http.ResponseWriter, _ s28Call, tick <-chan time.Time) {
			s28Every(ctx, rw, tick, func() string { return "data:\n\n" })
		},
		"empty data with an event name and id": func(ctx context.Context, rw http.ResponseWriter, _ s28Call, tick <-chan time.Time) {
			n := 0
			s28Every(ctx, rw, tick, func() string { n++; return fmt.Sprintf("event: ping\nid: %d\nretry: 1000\ndata: \n\n", n) })
		},
	}
}

func s28Noises() map[string]s28Noise {
	stamp := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return map[string]s28Noise{
		"comments": func(ctx context.Context, rw http.ResponseWriter, _ s28Call, tick <-chan time.Time) {
			s28Every(ctx, rw, tick, func() string { return ": keep-alive\n\n" })
		},
		"the same status update again": func(ctx context.Context, rw http.ResponseWriter, c s28Call, tick <-chan time.Time) {
			u := &a2a.StatusUpdate{TaskID: "t-28", ContextID: "c-28", Status: a2a.TaskStatus{State: a2a.StateWorking, Timestamp: stamp}}
			s28Every(ctx, rw, tick, func() string { return c.frame(u) })
		},
		"the same task again": func(ctx context.Context, rw http.ResponseWriter, c s28Call, tick <-chan time.Time) {
			tk := s28Task(a2a.StateWorking)
			tk.Status.Timestamp = stamp
			s28Every(ctx, rw, tick, func() string { return c.frame(tk) })
		},
		"the same artifact again": func(ctx context.Context, rw http.ResponseWriter, c s28Call, tick <-chan time.Time) {
			u := &a2a.ArtifactUpdate{TaskID: "t-28", ContextID: "c-28", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("same")}}}
			s28Every(ctx, rw, tick, func() string { return c.frame(u) })
		},
		"a byte a second of an event that never ends": func(ctx context.Context, rw http.ResponseWriter, _ s28Call, tick <-chan time.Time) {
			first := true
			s28Every(ctx, rw, tick, func() string {
				if first {
					first = false
					return "data: {"
				}
				return " "
			})
		},
		"a byte a second of a comment that never ends": func(ctx context.Context, rw http.ResponseWriter, _ s28Call, tick <-chan time.Time) {
			s28Every(ctx, rw, tick, func() string { return "x" }) // no newline: one endless line
		},
	}
}

// s28StallAgent answers every streaming call with the task, working, and
// then noise; get-task with the task, working.
func s28StallAgent(w s28Wire, noise s28Noise, calls *[]string, mu *sync.Mutex) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := s28Read(w, r)
		mu.Lock()
		*calls = append(*calls, c.kind)
		mu.Unlock()
		switch c.kind {
		case "stream", "subscribe":
			s28SSE(rw)
			tk := s28Task(a2a.StateWorking)
			tk.Status.Timestamp = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			s28Write(rw, c.frame(tk))
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			noise(r.Context(), rw, c, tick.C)
		case "get":
			tk := s28Task(a2a.StateWorking)
			tk.Status.Timestamp = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			c.task(rw, tk)
		default:
			http.Error(rw, "no", http.StatusNotImplemented)
		}
	})
}

func TestStranger28NoNewsStallsAtTheStallLimit(t *testing.T) {
	for _, w := range s28Wires() {
		for name, noise := range s28Noises() {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var mu sync.Mutex
					var calls []string
					c := w.client(t, s28StallAgent(w, noise, &calls, &mu),
						stream.WithIdleTimeout(s28Idle), stream.WithStallTimeout(s28Stall))
					ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
					defer cancel()
					start := time.Now()
					e := s28Drain(c.Send(ctx, s28Msg()))
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
					require.Equal(t, lastNews+s28Stall, took, "the stall limit after the last news")
				})
			})
		}
	}
}

// An event with empty data ("data:" alone, or with an event name such as
// "ping") carries no news: the brief asks that such a server stall at the
// stall limit, as one sending comments does.
func TestStranger28EmptyDataKeepAlivesStallAtTheStallLimit(t *testing.T) {
	for _, w := range s28Wires() {
		for name, noise := range s28EmptyData() {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var mu sync.Mutex
					var calls []string
					c := w.client(t, s28StallAgent(w, noise, &calls, &mu),
						stream.WithIdleTimeout(s28Idle), stream.WithStallTimeout(s28Stall))
					ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
					defer cancel()
					start := time.Now()
					e := s28Drain(c.Send(ctx, s28Msg()))
					var se *stream.StalledError
					require.ErrorAs(t, e.Err, &se, "%v", e.Err)
					require.Equal(t, s28Stall, time.Since(start))
				})
			})
		}
	}
}

// A task that is slow but sends news every 20 s (under the 30 s limit),
// with comments in between, is never stalled.
func TestStranger28ASlowTaskWithNewsDoesNotStall(t *testing.T) {
	for _, w := range s28Wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					c := s28Read(w, r)
					if c.kind != "stream" {
						http.Error(rw, "unexpected", http.StatusInternalServerError)
						return
					}
					s28SSE(rw)
					s28Write(rw, c.frame(s28Task(a2a.StateWorking)))
					for i := range 12 {
						for range 20 {
							select {
							case <-r.Context().Done():
								return
							case <-time.After(time.Second):
							}
							s28Write(rw, ": thinking\n\n")
						}
						s28Write(rw, c.frame(&a2a.ArtifactUpdate{TaskID: "t-28", ContextID: "c-28", Append: i > 0,
							Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart(fmt.Sprintf("w%d ", i))}}}))
					}
					done := &a2a.StatusUpdate{TaskID: "t-28", ContextID: "c-28", Status: a2a.TaskStatus{State: a2a.StateCompleted}, Final: true}
					s28Write(rw, c.frame(done))
				})
				c := w.client(t, h, stream.WithIdleTimeout(s28Idle), stream.WithStallTimeout(s28Stall))
				start := time.Now()
				e := s28Drain(c.Send(t.Context(), s28Msg()))
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
func TestStranger28TheCallersOwnTimeIsNotAStall(t *testing.T) {
	for _, w := range s28Wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					c := s28Read(w, r)
					s28SSE(rw)
					s28Write(rw, c.frame(s28Task(a2a.StateWorking)))
					s28Write(rw, c.frame(&a2a.StatusUpdate{TaskID: "t-28", ContextID: "c-28", Status: a2a.TaskStatus{State: a2a.StateCompleted}, Final: true}))
				})
				c := w.client(t, h, stream.WithIdleTimeout(s28Idle), stream.WithStallTimeout(s28Stall))
				s := c.Send(t.Context(), s28Msg())
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
