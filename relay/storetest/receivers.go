package storetest

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2astream/a2astream/push"
)

// The subtests below run two push.Receivers, A and B, on the two views of
// one share (as two replicas do): a notification POSTed to B for a
// registration of A.

// Bodies of task "t1" (1.0 and 0.3 shapes), and one of another task.
const (
	bodyStatus  = `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`
	bodyTask03  = `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"working"}}`
	bodyForeign = `{"statusUpdate":{"taskId":"t2","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`
)

// receivers returns A and B, with WithShare(a) and WithShare(b), both
// logging at Debug into logs.
func receivers(t *testing.T, a, b push.Share) (*push.Receiver, *push.Receiver) {
	ra, rb, _ := loggingReceivers(t, a, b)
	return ra, rb
}

// loggingReceivers is receivers, and what they logged.
func loggingReceivers(t *testing.T, a, b push.Share) (*push.Receiver, *push.Receiver, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	logger := push.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	ra, err := push.NewReceiver("http://127.0.0.1:8080/hooks", push.WithShare(a), logger)
	noError(t, err, "NewReceiver A")
	rb, err := push.NewReceiver("http://127.0.0.1:8081/hooks", push.WithShare(b), logger)
	noError(t, err, "NewReceiver B")
	return ra, rb, logs
}

// logBuffer is a log's output, safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// registered returns a registration of r bound to taskID, closed when the
// test ends.
func registered(t *testing.T, r *push.Receiver, taskID string) *push.Registration {
	t.Helper()
	g, err := r.Register(t.Context())
	noError(t, err, "Register")
	t.Cleanup(g.Close)
	if taskID != "" {
		noError(t, g.Bind(t.Context(), taskID), "Bind")
	}
	return g
}

// post serves, with h, a notification for the registration id with token
// and body, and returns the response.
func post(h http.Handler, id, token, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/hooks/"+id, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/a2a+json")
	req.Header.Set(push.TokenHeader, token)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// rung waits, 10 s at most, until g is ready, and takes what it holds:
// a ring reports a loss and queues nothing.
func rung(t *testing.T, g *push.Registration) {
	t.Helper()
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case <-g.Ready():
	case <-timer.C:
		t.Fatalf("the registration was not rung within 10 s")
	}
	ns, lost := g.Take()
	equal(t, len(ns), 0, "notifications queued by a ring")
	equal(t, lost, true, "a ring reported as a loss")
}

// quiet fails t when g was rung: it rings barrier, a registration of the
// same Receiver, through h and waits for it, so that any ring made before
// (the listener takes them in order) has reached g.
func quiet(t *testing.T, h http.Handler, g, barrier *push.Registration) {
	t.Helper()
	rec := post(h, barrier.ID(), barrier.Token(), bodyStatus)
	equal(t, rec.Code, http.StatusNoContent, "status of the barrier's notification")
	rung(t, barrier)
	equal(t, len(g.Ready()), 0, "the registration was rung")
}

// ringsTheHolder: notifications of both shapes POSTed to B, which does not
// hold the registration, ring it on A: 204, and A's registration is
// ready, reports a loss and holds no notification (B carries no content).
func (shareSuite) ringsTheHolder(t *testing.T, a, b push.Share) {
	ra, rb := receivers(t, a, b)
	g := registered(t, ra, "t1")
	for _, body := range []string{bodyStatus, bodyTask03} {
		rec := post(rb, g.ID(), g.Token(), body)
		equal(t, rec.Code, http.StatusNoContent, "status of a notification to B")
		equal(t, rec.Body.Len(), 0, "bytes of B's answer")
		rung(t, g)
	}
	// An unbound registration is rung for any task's notification.
	u := registered(t, ra, "")
	equal(t, post(rb, u.ID(), u.Token(), bodyForeign).Code, http.StatusNoContent, "status to B for an unbound registration")
	rung(t, u)
}

// refusedAsOnTheHolder: a wrong token, no token, an unknown ID, another
// task and a closed registration get from B what they get from A (status
// and an empty body), and ring nothing.
func (shareSuite) refusedAsOnTheHolder(t *testing.T, a, b push.Share) {
	ra, rb, logs := loggingReceivers(t, a, b)
	g := registered(t, ra, "t1")
	other := registered(t, ra, "t1")
	barrier := registered(t, ra, "t1")
	closed := registered(t, ra, "t1")
	closed.Close()
	for _, c := range []struct {
		name, id, token, body string
		status                int
	}{
		{"wrong token", g.ID(), other.Token(), bodyStatus, http.StatusUnauthorized},
		{"no token", g.ID(), "", bodyStatus, http.StatusUnauthorized},
		{"unknown ID", "6f1c9a54-3f2e-4c59-9a55-0d1b7d0c2f11", g.Token(), bodyStatus, http.StatusUnauthorized},
		{"not an ID", "hooks", g.Token(), bodyStatus, http.StatusUnauthorized},
		{"closed registration", closed.ID(), closed.Token(), bodyStatus, http.StatusUnauthorized},
		{"foreign task", g.ID(), g.Token(), bodyForeign, http.StatusForbidden},
	} {
		onA, onB := post(ra, c.id, c.token, c.body), post(rb, c.id, c.token, c.body)
		equal(t, onA.Code, c.status, "%s: status on A", c.name)
		equal(t, onB.Code, onA.Code, "%s: status on B", c.name)
		equal(t, onB.Body.String(), onA.Body.String(), "%s: body on B", c.name)
		equal(t, onB.Body.Len(), 0, "%s: bytes of B's answer", c.name)
	}
	quiet(t, rb, g, barrier)
	// A's own refusal of the foreign task rang nothing either.
	ns, lost := g.Take()
	equal(t, len(ns), 0, "notifications queued")
	equal(t, lost, false, "loss reported")
	// Nothing of a token, or of a body, reached the logs.
	out := logs.String()
	equal(t, strings.Contains(out, "foreign-task"), true, "the refusals were logged (%s)", out)
	for _, secret := range []string{g.Token(), other.Token(), barrier.Token(), closed.Token(), "TASK_STATE", "statusUpdate"} {
		equal(t, strings.Contains(out, secret), false, "the logs hold %q", secret)
	}
}

// expiredRefused: a record whose holder stopped refreshing it (a replica
// that died) is refused by B once it expired, as an unknown one is.
func (s shareSuite) expiredRefused(t *testing.T, a, b push.Share) {
	_, rb := receivers(t, a, b)
	const token = "dead-holder-token"
	put(t, a, regID1, record(token, "t1"), s.cfg.ttl, "PutRegistration")
	equal(t, post(rb, regID1, token, bodyStatus).Code, http.StatusNoContent, "status before the record expired")
	waitGone(t, s, b, regID1)
	rec := post(rb, regID1, token, bodyStatus)
	equal(t, rec.Code, http.StatusUnauthorized, "status after the record expired")
	equal(t, rec.Body.Len(), 0, "bytes of the refusal")
}

// replayRingsNoMore: a body POSTed to B again is answered as a replay
// (2xx) and rings the holder no more (B remembers the notifications it
// rang), and queues nothing.
func (shareSuite) replayRingsNoMore(t *testing.T, a, b push.Share) {
	ra, rb := receivers(t, a, b)
	g := registered(t, ra, "t1")
	barrier := registered(t, ra, "t1")
	equal(t, post(rb, g.ID(), g.Token(), bodyStatus).Code, http.StatusNoContent, "status of the first")
	rung(t, g)
	equal(t, post(rb, g.ID(), g.Token(), bodyStatus).Code, http.StatusNoContent, "status of the replay")
	quiet(t, rb, g, barrier)
}

// lastCloseStopsListening: the holder's listener goroutine ends when its
// last registration closes (the suite's caller checks goroutines with
// goleak), and a Register after that listens again.
func (shareSuite) lastCloseStopsListening(t *testing.T, a, b push.Share) {
	ra, rb := receivers(t, a, b)
	for range 2 {
		g, err := ra.Register(t.Context())
		noError(t, err, "Register")
		noError(t, g.Bind(t.Context(), "t1"), "Bind")
		equal(t, post(rb, g.ID(), g.Token(), bodyStatus).Code, http.StatusNoContent, "status to B")
		rung(t, g)
		g.Close()
		equal(t, post(rb, g.ID(), g.Token(), bodyStatus).Code, http.StatusUnauthorized, "status to B after Close")
	}
}
