package a2atest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
)

func newGet(ctx context.Context, t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	return req
}

// readChunk reads once and returns what arrived.
func readChunk(t *testing.T, r io.Reader) string {
	t.Helper()
	buf := make([]byte, 1024)
	n, err := r.Read(buf)
	require.NoError(t, err)
	return string(buf[:n])
}

func TestTransportStreamsEachWrite(t *testing.T) {
	next := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		<-next // the client must have the response before any body exists
		_, _ = io.WriteString(w, "one")
		<-next
		_, _ = io.WriteString(w, "two")
	})
	resp, err := a2atest.NewClient(h).Do(newGet(t.Context(), t, agentURL))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "200 OK", resp.Status)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	require.Equal(t, int64(-1), resp.ContentLength)

	next <- struct{}{}
	require.Equal(t, "one", readChunk(t, resp.Body))
	next <- struct{}{}
	require.Equal(t, "two", readChunk(t, resp.Body))
	n, err := resp.Body.Read(make([]byte, 8))
	require.Zero(t, n)
	require.ErrorIs(t, err, io.EOF)
}

func TestTransportServerRequest(t *testing.T) {
	var got *http.Request
	var body string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		b, err := io.ReadAll(r.Body)
		if err == nil {
			body = string(b)
		}
		w.WriteHeader(http.StatusNoContent)
	})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://agent.test:8080/a%2Fb/rpc?x=1&y=2", strings.NewReader("payload"))
	require.NoError(t, err)
	req.Header.Set("X-Test", "yes")
	resp, err := a2atest.NewClient(h).Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusNoContent, resp.StatusCode)

	require.Equal(t, http.MethodPost, got.Method)
	require.Empty(t, got.URL.Scheme)
	require.Empty(t, got.URL.Host)
	require.Equal(t, "/a/b/rpc", got.URL.Path)
	require.Equal(t, "/a%2Fb/rpc", got.URL.RawPath)
	require.Equal(t, "x=1&y=2", got.URL.RawQuery)
	require.Equal(t, "HTTP/1.1", got.Proto)
	require.Equal(t, 1, got.ProtoMajor)
	require.Equal(t, 1, got.ProtoMinor)
	require.Equal(t, "agent.test:8080", got.Host)
	require.Equal(t, "/a%2Fb/rpc?x=1&y=2", got.RequestURI)
	require.Equal(t, "192.0.2.1:49152", got.RemoteAddr)
	require.Equal(t, "yes", got.Header.Get("X-Test"))
	require.Equal(t, int64(len("payload")), got.ContentLength)
	require.Equal(t, "payload", body)

	// The header is a copy, and an explicit Host wins over the URL's.
	req2 := newGet(t.Context(), t, agentURL)
	req2.Host = "virtual.example"
	resp, err = a2atest.NewClient(h).Do(req2)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, "virtual.example", got.Host)
	require.Equal(t, "/", got.RequestURI)
	require.Equal(t, http.NoBody, got.Body)
	got.Header.Set("X-Mutated", "1")
	require.Empty(t, req2.Header.Get("X-Mutated"))
}

func TestTransportContentType(t *testing.T) {
	tests := []struct {
		name   string
		h      http.HandlerFunc
		status int
		ct     string
		body   string
	}{
		{"sniff json as text", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0"}`)
		}, 200, "text/plain; charset=utf-8", `{"jsonrpc":"2.0"}`},
		{"sniff html after WriteHeader", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html><body>bad</body></html>")
		}, 502, "text/html; charset=utf-8", "<html><body>bad</body></html>"},
		{"explicit type kept", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, "plain words")
		}, 200, "application/json", "plain words"},
		{"empty response", func(w http.ResponseWriter, r *http.Request) {}, 200, "", ""},
		{"flush without body", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusAccepted)
			w.(http.Flusher).Flush()
		}, 202, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := a2atest.NewClient(tt.h).Do(newGet(t.Context(), t, agentURL))
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, tt.status, resp.StatusCode)
			require.Equal(t, tt.ct, resp.Header.Get("Content-Type"))
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, tt.body, string(b))
		})
	}
}

func TestTransportContextCancelDuringBody(t *testing.T) {
	handlerErr := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "first")
		<-r.Context().Done()
		handlerErr <- r.Context().Err()
	})
	ctx, cancel := context.WithCancel(t.Context())
	resp, err := a2atest.NewClient(h).Do(newGet(ctx, t, agentURL))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "first", readChunk(t, resp.Body))

	cancel()
	_, err = io.ReadAll(resp.Body)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, err, ctx.Err())
	require.ErrorIs(t, <-handlerErr, context.Canceled)
}

func TestTransportContextCancelBeforeHeaders(t *testing.T) {
	var returned atomic.Bool
	entered := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-r.Context().Done()
		returned.Store(true)
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-entered
		cancel()
	}()
	resp, err := a2atest.NewClient(h).Do(newGet(ctx, t, agentURL))
	require.Nil(t, resp)
	require.ErrorIs(t, err, context.Canceled)
	require.True(t, returned.Load(), "RoundTrip returned before the handler")
}

func TestTransportCloseWaitsForHandler(t *testing.T) {
	var returned atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "data")
		// Writes block until read; once the client closes, they fail.
		for {
			if _, err := io.WriteString(w, "more"); err != nil {
				break
			}
		}
		<-r.Context().Done()
		returned.Store(true)
	})
	resp, err := a2atest.NewClient(h).Do(newGet(t.Context(), t, agentURL))
	require.NoError(t, err)
	require.Equal(t, "data", readChunk(t, resp.Body))
	require.NoError(t, resp.Body.Close())
	require.True(t, returned.Load(), "Close returned before the handler")
	require.NoError(t, resp.Body.Close(), "second Close")
	_, err = resp.Body.Read(make([]byte, 4))
	require.Error(t, err)
}

func TestTransportHandlerPanics(t *testing.T) {
	t.Run("before response", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("boom") })
		resp, err := a2atest.NewClient(h).Do(newGet(t.Context(), t, agentURL))
		require.Nil(t, resp)
		require.ErrorContains(t, err, "boom")
	})
	t.Run("after response", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "partial")
			panic("boom")
		})
		resp, err := a2atest.NewClient(h).Do(newGet(t.Context(), t, agentURL))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.Equal(t, "partial", string(b))
		require.ErrorContains(t, err, "boom")
	})
	t.Run("abort mid-stream", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: {}\n\ndata: {")
			panic(http.ErrAbortHandler)
		})
		resp, err := a2atest.NewClient(h).Do(newGet(t.Context(), t, agentURL))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.Equal(t, "data: {}\n\ndata: {", string(b))
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	})
	t.Run("abort before response", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) })
		resp, err := a2atest.NewClient(h).Do(newGet(t.Context(), t, agentURL))
		require.Nil(t, resp)
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	})
}

func TestTransportInSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "tick")
			tm := time.NewTimer(5 * time.Second)
			defer tm.Stop()
			select {
			case <-tm.C:
				_, _ = io.WriteString(w, "tock")
			case <-r.Context().Done():
			}
		})
		client := a2atest.NewClient(h)
		start := time.Now()

		resp, err := client.Do(newGet(t.Context(), t, agentURL))
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, "ticktock", string(b))
		require.Equal(t, 5*time.Second, time.Since(start))
		require.NoError(t, resp.Body.Close())

		// A deadline ends the read at exactly its fake time.
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		start = time.Now()
		resp, err = client.Do(newGet(ctx, t, agentURL))
		require.NoError(t, err)
		b, err = io.ReadAll(resp.Body)
		require.Equal(t, "tick", string(b))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.True(t, errors.Is(err, ctx.Err()))
		require.Equal(t, 2*time.Second, time.Since(start))
		require.NoError(t, resp.Body.Close())
		synctest.Wait()
	})
}
