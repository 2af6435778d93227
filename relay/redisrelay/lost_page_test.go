package redisrelay

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
)

// pageEvent is one SSE event a page read.
type pageEvent struct{ id, name, data string }

// readPage GETs the events of stream "k" with lastID as Last-Event-ID, for
// at most 5 s, and returns the status, the events, and whether the
// response ended by itself.
func readPage(t *testing.T, client *http.Client, lastID string) (int, []pageEvent, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://relay.test/s/k/events", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", lastID)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	dec := sse.NewDecoder(resp.Body, 1<<20)
	var evs []pageEvent
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return resp.StatusCode, evs, true
		}
		if err != nil {
			require.Error(t, ctx.Err(), "the response failed: %v", err)
			return resp.StatusCode, evs, false
		}
		evs = append(evs, pageEvent{string(ev.ID), ev.Type, string(ev.Data)})
	}
}

// After Redis lost its data (FLUSHALL), a page that comes back with an ID
// of the lost log is sent away with gone (reason "lost") and told, in an
// failure event of kind "lost" that ends the response, that the stream was
// lost: nothing can resume it, as the checkpoint went with the log. It
// was served gone and keep-alives for ever. A reconnect with the lost
// event's ID gets 204.
func TestAPageOfALogRedisLostIsToldTheStreamWasLost(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t, nil)
	st := newStore(t, c, WithWake(testWake))
	l, f := driven(t, st, "k")
	ctx := t.Context()
	require.NoError(t, l.Commit(ctx, f, []byte("cp@2"), entriesFrom(1, 2)...))
	old := relay.ID{Epoch: l.Epoch(), Seq: 2}.String()
	require.NoError(t, c.FlushAll(ctx).Err())

	mux := http.NewServeMux()
	mux.Handle("/s/{key}/", newHandler(t, st, func(*http.Request) (string, bool) { return "k", true }, relay.WithKeepAlive(50*time.Millisecond)))
	client := a2atest.NewClient(mux)

	code, evs, ended := readPage(t, client, old)
	require.Equal(t, http.StatusOK, code)
	require.True(t, ended, "the response ends; it got %v", evs)
	require.Len(t, evs, 2)
	require.Equal(t, relay.EventGone, evs[0].name)
	var g relay.GoneData
	require.NoError(t, json.Unmarshal([]byte(evs[0].data), &g))
	require.Equal(t, "lost", g.Reason)
	require.Equal(t, relay.EventFailure, evs[1].name)
	var e relay.FailureData
	require.NoError(t, json.Unmarshal([]byte(evs[1].data), &e))
	require.Equal(t, "lost", e.Kind)

	code, _, _ = readPage(t, client, evs[1].id)
	require.Equal(t, http.StatusNoContent, code, "the lost event's ID is the last")
}

// While redis-server is down, EventSource is told to retry (an event
// stream that holds only retry: and ends), not given a 503, on which it
// gives up for good; once Redis is back, the page's reconnect gets its
// events.
func TestEventSourceRetriesWhileRedisIsDown(t *testing.T) {
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { _ = c.Close() })
	st := newStore(t, c, WithWake(testWake))
	l, f := driven(t, st, "k")
	require.NoError(t, l.Commit(t.Context(), f, nil, entriesFrom(1, 2)...))
	mux := http.NewServeMux()
	mux.Handle("/s/{key}/", newHandler(t, st, func(*http.Request) (string, bool) { return "k", true }, relay.WithKeepAlive(50*time.Millisecond)))
	client := a2atest.NewClient(mux)
	last := relay.ID{Epoch: l.Epoch(), Seq: 1}.String()

	srv.Kill()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://relay.test/s/k/events", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", last)
	resp, err := client.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	require.Contains(t, string(body), "retry: 2000\n")
	require.NotContains(t, string(body), "data:")

	srv.Restart() // no persistence: Redis comes back empty, and the page is told the stream was lost
	code, evs, ended := readPage(t, client, last)
	require.Equal(t, http.StatusOK, code)
	require.True(t, ended)
	require.Equal(t, relay.EventFailure, evs[len(evs)-1].name)
}
