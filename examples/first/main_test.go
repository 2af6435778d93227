package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/examples/internal/demo"
	"github.com/a2astream/a2astream/stream"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// lockedBuffer is stdout for run, read by the test while run writes. When
// what is written holds want, seen is closed.
type lockedBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.seen != nil && b.want != "" && strings.Contains(b.buf.String(), b.want) {
		close(b.seen)
		b.want = ""
	}
	return n, err
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestFirstProgramPrintsEachWordOnceAcrossACut(t *testing.T) {
	agent := httptest.NewServer(demo.ServedAgent(demo.ModeCut, time.Millisecond))
	defer agent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out lockedBuffer
	require.NoError(t, run(ctx, agent.URL, "hi", "", strings.NewReader(""), &out))
	require.Equal(t, 1, strings.Count(out.String(), demo.PlanStart+demo.PlanEnd), out.String())
	require.True(t, strings.HasSuffix(out.String(), "\nended: completed\n"), out.String())
}

func TestFirstProgramEndsInOneLineWhenTheTaskFails(t *testing.T) {
	agent := httptest.NewServer(demo.ServedAgent(demo.ModeFail, time.Millisecond))
	defer agent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out lockedBuffer
	require.NoError(t, run(ctx, agent.URL, "hi", "", strings.NewReader(""), &out))
	require.Contains(t, out.String(), "\nended: failed: "+demo.FailCode+": "+demo.FailReason+"\n")
}

func TestFirstProgramWithoutAnAnswerSaysSo(t *testing.T) {
	agent := httptest.NewServer(demo.ServedAgent(demo.ModeAsk, time.Millisecond))
	defer agent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out lockedBuffer
	require.NoError(t, run(ctx, agent.URL, "hi", "", strings.NewReader(""), &out)) // stdin closed
	require.Contains(t, out.String(), "\nended: input-required")
}

// TestFirstProgramCancelsTheTaskOnInterrupt ends run's context (what Ctrl-C
// does) while the agent waits for an answer, and checks that the agent's
// task was canceled, not only abandoned.
func TestFirstProgramCancelsTheTaskOnInterrupt(t *testing.T) {
	served := demo.ServedAgent(demo.ModeAsk, time.Millisecond)
	agent := httptest.NewServer(served)
	defer agent.Close()
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	stdin, typing := newPipe()
	defer typing()
	out := lockedBuffer{want: "\n> ", seen: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- run(ctx, agent.URL, "hi", "", stdin, &out) }()

	// Interrupt once the program waits on the human.
	select {
	case <-out.seen:
	case err := <-done:
		t.Fatalf("the program ended (%v) without asking; it printed %q", err, out.String())
	}
	interrupt()
	require.NoError(t, <-done)

	ids := served.TaskIDs()
	require.Len(t, ids, 1)
	require.Equal(t, a2a.StateCanceled, served.Task(ids[0]).Status.State)
	require.Contains(t, out.String(), "\nended: ")
}

// newPipe is a stdin nobody types into until close is called.
func newPipe() (r *blockingReader, stop func()) {
	r = &blockingReader{closed: make(chan struct{})}
	return r, func() { r.once.Do(func() { close(r.closed) }) }
}

type blockingReader struct {
	once   sync.Once
	closed chan struct{}
}

func (r *blockingReader) Read([]byte) (int, error) {
	<-r.closed
	return 0, errors.New("closed")
}

func TestFirstProgramNamesTheURLsItTriedAtANonAgent(t *testing.T) {
	site := httptest.NewServer(http.NotFoundHandler())
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out lockedBuffer
	err := run(ctx, site.URL, "hi", "", strings.NewReader(""), &out)
	var invalid *stream.InvalidCardError
	require.ErrorAs(t, err, &invalid)
	require.NotEmpty(t, invalid.Tried)
	require.Contains(t, err.Error(), site.URL)
}

// TestFirstProgramSendsTheTokenWithItsCallOnly checks the per-call header:
// the token goes with the message and with the reply to the agent's
// question, and not with the card request, which the Client makes for
// every user.
func TestFirstProgramSendsTheTokenWithItsCallOnly(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{} // Authorization values by "METHOD path"
	served := demo.ServedAgent(demo.ModeAsk, time.Millisecond)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Method+" "+r.URL.Path] = append(seen[r.Method+" "+r.URL.Path], r.Header.Get("Authorization"))
		mu.Unlock()
		served.ServeHTTP(w, r)
	}))
	defer agent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out lockedBuffer
	require.NoError(t, run(ctx, agent.URL, "hi", "t-42", strings.NewReader("Lisbon\n"), &out))
	require.Contains(t, out.String(), "\nended: completed\n")

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{""}, seen["GET /.well-known/agent-card.json"], "no token on the card request")
	require.Equal(t, []string{"Bearer t-42", "Bearer t-42"}, seen["POST /"], "the message and the reply carry the token")
}
