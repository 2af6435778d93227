package stream_test

// Stranger round 28b, keep-alives: SSE events with empty data are skipped
// on all four wires, and a real event after them arrives exactly once.

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

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
func s28bKeepAliveAgent(w s28Wire, noise string, calls *s28bCalls) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := s28Read(w, r)
		calls.add(c.kind)
		if c.kind != "stream" {
			http.Error(rw, "unexpected", http.StatusInternalServerError)
			return
		}
		s28SSE(rw)
		s28Write(rw, c.frame(s28Task(a2a.StateWorking)))
		s28Write(rw, noise)
		s28Write(rw, c.frame(&a2a.ArtifactUpdate{TaskID: "t-28", ContextID: "c-28", LastChunk: true,
			Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("real")}}}))
		s28Write(rw, noise)
		s28Write(rw, c.frame(&a2a.StatusUpdate{TaskID: "t-28", ContextID: "c-28",
			Status: a2a.TaskStatus{State: a2a.StateCompleted}, Final: true}))
	})
}

func s28bRunKeepAlive(t *testing.T, w s28Wire, noise string) {
	synctest.Test(t, func(t *testing.T) {
		calls := &s28bCalls{}
		c := w.client(t, s28bKeepAliveAgent(w, noise, calls))
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		s := c.Send(ctx, s28Msg())
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

func TestStranger28bEmptyDataIsAKeepAliveOnEveryWire(t *testing.T) {
	for _, w := range s28Wires() {
		for name, noise := range s28bKeepAlives() {
			t.Run(w.String()+"/"+name, func(t *testing.T) { s28bRunKeepAlive(t, w, noise) })
		}
	}
}

func TestStranger28bWhitespaceDataIsAKeepAliveOnEveryWire(t *testing.T) {
	for _, w := range s28Wires() {
		for name, noise := range s28bWhitespace() {
			t.Run(w.String()+"/"+name, func(t *testing.T) { s28bRunKeepAlive(t, w, noise) })
		}
	}
}

// An "error" event is not a keep-alive, even with empty data: the stream
// ends in an error, not in the completion that follows.
func TestStranger28bErrorEventWithEmptyDataIsNotSkipped(t *testing.T) {
	for _, w := range s28Wires() {
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
					e := s28Drain(c.Send(ctx, s28Msg()))
					t.Logf("ended: %T %v; calls %v", e.Err, e.Err, calls.get())
					require.Error(t, e.Err)
					require.NotErrorIs(t, e.Err, context.DeadlineExceeded, "ended by the bound, not by the error event")
					var pe *stream.ProtocolError
					var rpc *a2a.RPCError
					var he *stream.HTTPError
					require.True(t, errors.As(e.Err, &pe) || errors.As(e.Err, &rpc) || errors.As(e.Err, &he),
						"a typed error: %T %v", e.Err, e.Err)
				})
			})
		}
	}
}
