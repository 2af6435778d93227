package push_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/push"
)

// TestReadyBesideTimer drives a registration as the stream's driver will:
// a select on Ready beside a timer. With nothing pushed the timer wins, at
// exactly its time; a notification pushed 10 s into the next wait wakes
// the consumer then, not at the timer, and Take gives it; Ready is then
// empty until the next notification.
func TestReadyBesideTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReceiver(t)
		g := register(t, r)
		start := time.Now()
		timer := time.NewTimer(time.Minute)
		select {
		case <-g.Ready():
			t.Fatal("ready with nothing pushed")
		case <-timer.C:
		}
		require.Equal(t, time.Minute, time.Since(start))

		pushed := make(chan int)
		go func() {
			agent := time.NewTimer(10 * time.Second)
			<-agent.C
			pushed <- serve(r, pushTo(g, status1)).Code
		}()
		timer.Reset(time.Minute)
		select {
		case <-g.Ready():
		case <-timer.C:
			t.Fatal("the timer fired first")
		}
		require.Equal(t, http.StatusNoContent, <-pushed)
		require.Equal(t, 70*time.Second, time.Since(start))
		ns, lost := g.Take()
		require.Len(t, ns, 1)
		require.False(t, lost)
		require.False(t, ready(g))
		timer.Stop()
	})
}

// TestReadyOnLossAlone: a loss with nothing queued (a body the agent sent
// with the token, too large to read) makes the registration ready, and
// Take reports it with no notification.
func TestReadyOnLossAlone(t *testing.T) {
	r := newReceiver(t, push.WithMaxBodySize(64))
	g := register(t, r)
	status, _ := send(t, r, pushTo(g, artifact1))
	require.Equal(t, http.StatusRequestEntityTooLarge, status)
	require.True(t, ready(g))
	ns, lost := g.Take()
	require.Empty(t, ns)
	require.True(t, lost)
	require.False(t, ready(g))
}

// TestLossOfBodyOfUnknownLength: a body sent without a Content-Length
// (chunked) is read up to the limit and no further; past it, it is refused
// as too large and reported lost.
func TestLossOfBodyOfUnknownLength(t *testing.T) {
	r := newReceiver(t, push.WithMaxBodySize(64))
	g := register(t, r)
	req := httptest.NewRequest(http.MethodPost, g.URL(), io.NopCloser(strings.NewReader(artifact1)))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/a2a+json")
	req.Header.Set(push.TokenHeader, g.Token())
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	require.Empty(t, rec.Body.String())
	ns, lost := g.Take()
	require.Empty(t, ns)
	require.True(t, lost)
}

// TestLossOfBodyCutShort: a body whose reading fails (the agent's
// connection dropped) is refused (400) and reported lost: something was
// pushed with the token, and what it was is unknown.
func TestLossOfBodyCutShort(t *testing.T) {
	r := newReceiver(t)
	g := register(t, r)
	body := io.MultiReader(strings.NewReader(`{"statusUpdate":`), iotest.ErrReader(errors.New("connection reset")))
	req := httptest.NewRequest(http.MethodPost, g.URL(), io.NopCloser(body))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/a2a+json")
	req.Header.Set(push.TokenHeader, g.Token())
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Empty(t, rec.Body.String())
	ns, lost := g.Take()
	require.Empty(t, ns)
	require.True(t, lost)
}
