package relay_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
)

// EventSource gives up for good on any answer but 200 with an event
// stream: while the store is down, it gets an event stream that holds
// only the time to wait before it reconnects, and ends, so it tries
// again. Others get 503 with Retry-After.
func TestEventSourceIsToldToRetryDuringAStoreOutage(t *testing.T) {
	key := func(*http.Request) (string, bool) { return "k", true }
	for name, st := range map[string]relay.Store{"Open fails": downStore{}, "Tail fails": downTailStore{newMemoryStore(t)}} {
		t.Run(name, func(t *testing.T) {
			for _, tt := range []struct {
				opts  []relay.HandlerOption
				retry string
				after string
			}{
				{nil, "retry: 2000\n", "2"},
				{[]relay.HandlerOption{relay.WithOutageRetry(7500 * time.Millisecond)}, "retry: 7500\n", "8"},
			} {
				h := newHandler(t, st, key, tt.opts...)
				for _, accept := range []string{"text/event-stream", "text/html, text/event-stream;q=0.9"} {
					resp, body := get(t, h, accept)
					require.Equal(t, http.StatusOK, resp.StatusCode, accept)
					require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
					require.Contains(t, body, tt.retry)
					require.NotContains(t, body, "event:", "no event")
					require.NotContains(t, body, "data:", "no event")
				}
				for _, accept := range []string{"", "application/json", "*/*"} {
					resp, body := get(t, h, accept)
					require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, accept)
					require.Equal(t, tt.after, resp.Header.Get("Retry-After"))
					require.True(t, strings.HasPrefix(body, `{"error":`), body)
				}
			}
		})
	}
}

func TestPostsGet503WithRetryAfterDuringAStoreOutage(t *testing.T) {
	p := newHandler(t, downStore{}, func(*http.Request) (string, bool) { return "k", true })
	for _, route := range []string{"answer", "cancel"} {
		req, err := http.NewRequest(http.MethodPost, "http://relay.test/s/k/"+route, strings.NewReader(`{"prompt":1,"text":"Paris"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "key-1")
		resp, err := a2atest.NewClient(p).Do(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, route)
		require.Equal(t, "2", resp.Header.Get("Retry-After"), route)
	}
}

// A store that fails once the event stream began: the response ends with
// the time to wait, and EventSource reconnects after it.
func TestAnEventStreamCutByTheStoreSaysWhenToRetry(t *testing.T) {
	h := newHandler(t, downReadStore{newMemoryStore(t)}, func(*http.Request) (string, bool) { return "k", true })
	resp, body := get(t, h, "text/event-stream")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, strings.HasSuffix(body, "retry: 2000\n\n"), body)
}

// downTailStore opens logs whose Tail fails.
type downTailStore struct{ *relay.MemoryStore }

func (s downTailStore) Open(ctx context.Context, key string) (relay.Log, error) {
	l, err := s.MemoryStore.Open(ctx, key)
	return downTailLog{l}, err
}

type downTailLog struct{ relay.Log }

func (downTailLog) Tail(context.Context) (uint64, error) { return 0, errOutage }

// downReadStore opens logs whose Read fails.
type downReadStore struct{ *relay.MemoryStore }

func (s downReadStore) Open(ctx context.Context, key string) (relay.Log, error) {
	l, err := s.MemoryStore.Open(ctx, key)
	return downReadLog{l}, err
}

type downReadLog struct{ relay.Log }

func (downReadLog) Read(context.Context, uint64, int) ([]relay.Entry, error) { return nil, errOutage }
