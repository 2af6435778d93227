package interop_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/interop/proxy"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/stream"
)

// pushPeers are the JS peers with push notifications (--push): @a2a-js/sdk
// 1.3.0 over JSON-RPC and HTTP+JSON (it pushes each event, a bare 1.0
// StreamResponse), with --legacy in 0.3 (a 0.3 Task per event, from the
// legacy-aware sender), and @a2a-js/sdk 0.3.14 over JSON-RPC (a 0.3 Task
// snapshot per event). args are more flags for each.
func pushPeers(args ...string) []peerDef {
	with := func(more ...string) []string { return append(append([]string{"--push"}, more...), args...) }
	return []peerDef{
		{name: "js-1.3.0-push", version: a2a.V10, command: nodePeer("js10", with()...)},
		{name: "js-1.3.0-rest-push", version: a2a.V10, binding: a2a.BindingHTTPJSON, command: nodePeer("js10", with("--rest")...)},
		{name: "js-1.3.0-legacy-push", version: a2a.V03, command: nodePeer("js10", with("--legacy")...)},
		{name: "js-0.3.14-push", version: a2a.V03, command: nodePeer("js03", with()...)},
	}
}

// noPushPeers are the JS peers without --push: their cards say
// pushNotifications: false.
var noPushPeers = []peerDef{
	{name: "js-1.3.0", version: a2a.V10, command: nodePeer("js10")},
	{name: "js-1.3.0-rest", version: a2a.V10, binding: a2a.BindingHTTPJSON, command: nodePeer("js10", "--rest")},
	{name: "js-0.3.14", version: a2a.V03, command: nodePeer("js03")},
}

// pushPollInterval is the push poll interval of the push tests' clients:
// long enough that a run which ends within a fraction of it was driven by
// the notifications, not by the safety polls.
const pushPollInterval = time.Minute

// hookLog counts the notifications that reached the receiver, by the
// status the receiver answered.
type hookLog struct {
	mu       sync.Mutex
	statuses []int
}

// wrap returns next, counting the answer to each request in h.
func (h *hookLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.statuses = append(h.statuses, sw.status)
	})
}

// accepted returns how many notifications the receiver answered 2xx, and
// all the statuses it answered, in order.
func (h *hookLog) accepted() (int, []int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, s := range h.statuses {
		if s >= 200 && s < 300 {
			n++
		}
	}
	return n, append([]int(nil), h.statuses...)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// newPushReceiver mounts a push.Receiver at /hooks/a2a on an httptest
// server on 127.0.0.1, behind a hookLog that counts what reaches it, and
// behind front (nil: none), which the agent's POSTs reach first.
func newPushReceiver(t *testing.T, front func(http.Handler) http.Handler) (*push.Receiver, *hookLog) {
	t.Helper()
	mux := http.NewServeMux()
	log := &hookLog{}
	h := log.wrap(mux)
	if front != nil {
		h = front(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	recv, err := push.NewReceiver(srv.URL + "/hooks/a2a")
	require.NoError(t, err)
	mux.Handle("POST /hooks/a2a/{id}", recv)
	return recv, log
}

// isPushSet reports whether r registers a push config: 0.3
// tasks/pushNotificationConfig/set, 1.0 CreateTaskPushNotificationConfig,
// or POST …/pushNotificationConfigs.
func isPushSet(r proxy.Request) bool {
	return r.RPC == "tasks/pushNotificationConfig/set" || r.RPC == "CreateTaskPushNotificationConfig" ||
		r.Method == http.MethodPost && strings.Contains(r.Path, "/pushNotificationConfigs")
}

// requestsOf counts px's requests that match.
func requestsOf(px *proxy.Proxy, match func(proxy.Request) bool) int {
	n := 0
	for _, r := range px.Requests() {
		if match(r) {
			n++
		}
	}
	return n
}

func ofKind(k proxy.Kind) func(proxy.Request) bool {
	return func(r proxy.Request) bool { return r.Kind == k }
}

// noticesOf counts the notices of kind k.
func noticesOf(ns []stream.Notice, k stream.NoticeKind) int {
	n := 0
	for _, x := range ns {
		if x.Kind == k {
			n++
		}
	}
	return n
}

// pushRun runs sc on p through a proxy that applies plan, with a client
// that follows its task by the notifications recv receives, and returns
// what the application saw and how long the run took.
func pushRun(t *testing.T, p *peer, sc scenario, plan []proxy.Fault, recv *push.Receiver) (outcome, *runLog, time.Duration) {
	t.Helper()
	start := time.Now()
	got, rl := run(t, p, sc, faults{plan: plan, client: []stream.Option{
		stream.WithPush(recv), stream.WithPushPollInterval(pushPollInterval),
	}})
	return got, rl, time.Since(start)
}

// checkFinishedByPush checks a run whose stream was cut after its first
// event and that finished by push alone: it ended as the uncut run and as
// the scenario wants, each message sent once; one Pushing notice, one push
// config registered, no resubscribe; the receiver took notifications, and
// every poll but the first (the catch-up poll once push is on) followed
// one (or a failed poll, polled again): the push poll interval, a minute,
// never passed. How long the run took is logged.
func checkFinishedByPush(t *testing.T, sc scenario, uncut, got outcome, rl *runLog, log *hookLog, took time.Duration) {
	t.Helper()
	px := rl.px
	recs := px.Records()
	require.True(t, len(recs) > 0 && recs[0].Fired, "the cut never fired: streams %+v", recs)
	require.Equal(t, uncut, got, "the cut run ends as the uncut run")
	require.Equal(t, withText(sc.want), got)
	checkSends(t, px, sc)
	require.Equal(t, 1, noticesOf(rl.notices, stream.Pushing), "one Pushing notice: %v", rl.notices)
	require.Zero(t, noticesOf(rl.notices, stream.PushUnavailable), "%v", rl.notices)
	require.Equal(t, 1, requestsOf(px, isPushSet), "one push config registered:\n%s", requestLog(px))
	require.Zero(t, requestsOf(px, ofKind(proxy.Subscribe)), "no resubscribe after the cut:\n%s", requestLog(px))
	accepted, statuses := log.accepted()
	require.Positive(t, accepted, "the receiver took notifications (statuses %v)", statuses)
	polls := requestsOf(px, ofKind(proxy.Poll))
	require.Positive(t, polls, "the stream followed the task by get-task:\n%s", requestLog(px))
	retries := noticesOf(rl.notices, stream.Reconnecting) // a failed poll (an idle timeout under load) is polled again
	require.LessOrEqual(t, polls, accepted+1+retries, "each poll after the first followed a notification or a failed poll (statuses %v):\n%s", statuses, requestLog(px))
	t.Logf("took %v; %d polls; receiver answered %v; notices %v; requests:\n%s", took, polls, statuses, rl.notices, requestLog(px))
}

// slowStory is the slow story scenario: its events are 5 peer delays
// apart, so that notifications come while the stream waits for them.
func slowStory(t *testing.T) scenario {
	for _, sc := range scenarios {
		if sc.name == "slow" {
			return sc
		}
	}
	t.Fatal("no slow scenario")
	return scenario{}
}

// TestPushFinishesACutStream runs the slow story on the push peers with a
// client given stream.WithPush, uncut and with the stream cut after its
// first event (the Task): the cut stream registers a push config instead
// of resubscribing, and finishes, completed with every part once, by the
// polls the agent's notifications cause (see checkFinishedByPush).
func TestPushFinishesACutStream(t *testing.T) {
	sc := slowStory(t)
	eachPeerOf(t, pushPeers(), func(peerDef) bool { return true }, func(t *testing.T, p *peer) {
		recv, _ := newPushReceiver(t, nil)
		uncut, rl := run(t, p, sc, faults{client: []stream.Option{stream.WithPush(recv), stream.WithPushPollInterval(pushPollInterval)}})
		require.Equal(t, withText(sc.want), uncut, "uncut run")
		require.Zero(t, noticesOf(rl.notices, stream.Pushing), "an uncut stream needs no push: %v", rl.notices)
		require.Zero(t, requestsOf(rl.px, isPushSet), "no push config for an uncut stream:\n%s", requestLog(rl.px))

		recv, log := newPushReceiver(t, nil)
		got, rl, took := pushRun(t, p, sc, []proxy.Fault{cut(1, 0)}, recv)
		checkFinishedByPush(t, sc, uncut, got, rl, log, took)
	})
}

// shuffler stands between the agent and the receiver: it answers the
// agent at once and forwards each notification to next: the second is
// held back until the third has been forwarded (neighbours swapped; or
// forwarded alone after holdFor when no third comes); of the others, in
// fours, the first is forwarded twice (byte for byte), the second and the
// fourth delayFor late (so that they may arrive after later ones), the
// third as it came. Only the second is held, so that the last (the ending)
// is not held back for long.
type shuffler struct {
	next http.Handler
	wg   sync.WaitGroup

	mu                       sync.Mutex
	n                        int
	held                     *heldNote
	twice, swapped, delayed  int
	lateHeld, forwardedTotal int
}

// heldNote is a notification held back, and the timer that forwards it
// if no neighbour comes.
type heldNote struct {
	note  note
	timer *time.Timer
}

// note is one notification as the agent sent it.
type note struct {
	path   string
	header http.Header
	body   []byte
}

const (
	holdFor  = 2 * time.Second
	delayFor = 250 * time.Millisecond
)

func (s *shuffler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	n := note{path: r.URL.Path, header: r.Header.Clone(), body: body}
	var now []note
	s.mu.Lock()
	i := s.n
	s.n++
	switch {
	case i%4 == 0:
		now = []note{n, n}
		s.twice++
	case i == 1:
		h := &heldNote{note: n}
		s.wg.Add(1)
		h.timer = time.AfterFunc(holdFor, func() {
			defer s.wg.Done()
			s.mu.Lock()
			mine := s.held == h
			if mine {
				s.held = nil
				s.lateHeld++
			}
			s.mu.Unlock()
			if mine {
				s.forward(h.note)
			}
		})
		s.held = h
	case i == 2:
		now = []note{n}
		if h := s.held; h != nil {
			s.held = nil
			if h.timer.Stop() {
				s.wg.Done()
			}
			now = append(now, h.note)
			s.swapped++
		}
	case i%4 == 1 || i%4 == 3:
		s.delayed++
		s.wg.Add(1)
		time.AfterFunc(delayFor, func() {
			defer s.wg.Done()
			s.forward(n)
		})
	default:
		now = []note{n}
	}
	s.mu.Unlock()
	for _, x := range now {
		s.forward(x)
	}
	w.WriteHeader(http.StatusOK)
}

// forward hands n to next, as the agent sent it.
func (s *shuffler) forward(n note) {
	req := httptest.NewRequest(http.MethodPost, n.path, bytes.NewReader(n.body))
	req.Header = n.header.Clone()
	s.next.ServeHTTP(httptest.NewRecorder(), req)
	s.mu.Lock()
	s.forwardedTotal++
	s.mu.Unlock()
}

// counts returns what s did: notifications sent twice, swapped with their
// neighbour, delayed, held and forwarded alone, and forwards in all.
func (s *shuffler) counts() (twice, swapped, delayed, lateHeld, forwarded int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.twice, s.swapped, s.delayed, s.lateHeld, s.forwardedTotal
}

// TestPushNotificationsShuffled is TestPushFinishesACutStream with the
// notifications duplicated, held back, swapped with their neighbours and
// delayed between the agent and the receiver (see shuffler): the run
// still ends completed with every part once.
func TestPushNotificationsShuffled(t *testing.T) {
	sc := slowStory(t)
	eachPeerOf(t, pushPeers(), func(peerDef) bool { return true }, func(t *testing.T, p *peer) {
		recv, _ := newPushReceiver(t, nil)
		uncut, _ := run(t, p, sc, faults{client: []stream.Option{stream.WithPush(recv), stream.WithPushPollInterval(pushPollInterval)}})
		require.Equal(t, withText(sc.want), uncut, "uncut run")

		var sh *shuffler
		recv, log := newPushReceiver(t, func(next http.Handler) http.Handler {
			sh = &shuffler{next: next}
			return sh
		})
		t.Cleanup(sh.wg.Wait) // before the receiver's server closes
		got, rl, took := pushRun(t, p, sc, []proxy.Fault{cut(1, 0)}, recv)
		twice, swapped, delayed, lateHeld, forwarded := sh.counts()
		t.Logf("shuffler: %d twice, %d swapped, %d delayed, %d held and forwarded alone, %d forwards", twice, swapped, delayed, lateHeld, forwarded)
		require.Positive(t, twice, "a notification was sent twice")
		require.Positive(t, swapped, "two neighbours were swapped")
		require.Positive(t, delayed, "a notification was delayed")
		checkFinishedByPush(t, sc, uncut, got, rl, log, took)
	})
}

// TestPushUnavailableWithoutPush runs the story on peers without push
// (their cards say pushNotifications: false) with a client given
// stream.WithPush, its stream cut after the first event: one
// PushUnavailable notice, no push-config call, and the stream resubscribes
// as without WithPush and ends as the uncut run.
func TestPushUnavailableWithoutPush(t *testing.T) {
	var sc scenario
	for _, s := range scenarios {
		if s.name == "stream" {
			sc = s
		}
	}
	eachPeerOf(t, noPushPeers, func(peerDef) bool { return true }, func(t *testing.T, p *peer) {
		recv, log := newPushReceiver(t, nil)
		c := resolve(t, newProxy(t, p, nil), p, stream.WithPush(recv))
		require.NotNil(t, c.Card())
		require.False(t, c.Card().Capabilities.PushNotifications, "the card says the agent has no push notifications")

		got, rl, _ := pushRun(t, p, sc, []proxy.Fault{cut(1, 0)}, recv)
		px := rl.px
		t.Logf("notices %v; requests:\n%s", rl.notices, requestLog(px))
		recs := px.Records()
		require.True(t, len(recs) > 0 && recs[0].Fired, "the cut never fired: streams %+v", recs)
		require.Equal(t, withText(sc.want), got)
		checkSends(t, px, sc)
		require.Equal(t, 1, noticesOf(rl.notices, stream.PushUnavailable), "%v", rl.notices)
		for _, n := range rl.notices {
			if n.Kind == stream.PushUnavailable {
				require.ErrorContains(t, n.Cause, "no push notifications", "the cause is the card")
			}
		}
		require.Zero(t, noticesOf(rl.notices, stream.Pushing), "%v", rl.notices)
		require.Positive(t, noticesOf(rl.notices, stream.Reconnecting), "%v", rl.notices)
		require.Zero(t, requestsOf(px, isPushSet), "no push-config call:\n%s", requestLog(px))
		require.Positive(t, requestsOf(px, ofKind(proxy.Subscribe)), "resubscribed as before:\n%s", requestLog(px))
		accepted, statuses := log.accepted()
		require.Zero(t, accepted, "nothing pushed (statuses %v)", statuses)
	})
}

// TestPushHumanInput runs the input-required scenario on the push peers
// slowed to 400 ms between events, its first stream cut after the Task:
// the stream registers a push config before the agent asks for input, so
// the prompt is reached by a poll a notification caused (with the push
// poll interval far longer than the run); the hook is asked once, the
// reply sent once, and the task completes as in the uncut run.
func TestPushHumanInput(t *testing.T) {
	var sc scenario
	for _, s := range scenarios {
		if s.name == "input-required" {
			sc = s
		}
	}
	eachPeerOf(t, pushPeers("--delay", "400"), func(peerDef) bool { return true }, func(t *testing.T, p *peer) {
		recv, log := newPushReceiver(t, nil)
		got, rl, took := pushRun(t, p, sc, []proxy.Fault{cut(1, 0)}, recv)
		px := rl.px
		t.Logf("took %v; receiver %v; notices %v; requests:\n%s", took, func() []int { _, s := log.accepted(); return s }(), rl.notices, requestLog(px))
		recs := px.Records()
		require.True(t, len(recs) > 0 && recs[0].Fired, "the cut never fired: streams %+v", recs)
		require.Equal(t, withText(sc.want), got, "prompted once, the reply sent once, completed")
		checkSends(t, px, sc)
		require.Equal(t, 1, requestsOf(px, isPushSet), "one push config registered:\n%s", requestLog(px))
		require.Positive(t, noticesOf(rl.notices, stream.Pushing), "%v", rl.notices)
		require.Zero(t, requestsOf(px, ofKind(proxy.Subscribe)), "no resubscribe:\n%s", requestLog(px))
		accepted, statuses := log.accepted()
		require.Positive(t, accepted, "the receiver took notifications (statuses %v)", statuses)

		// Between the push config and the reply: the catch-up poll, which
		// the agent answers before it asks for input, and at least one
		// poll after a notification, which found the prompt.
		reqs := px.Requests()
		set := -1
		for i, r := range reqs {
			if isPushSet(r) {
				set = i
				break
			}
		}
		polls := 0
		for _, r := range reqs[set+1:] {
			if r.Kind == proxy.Send {
				break
			}
			if r.Kind == proxy.Poll {
				polls++
			}
		}
		require.GreaterOrEqual(t, polls, 2, "the prompt came from a poll after the catch-up poll:\n%s", requestLog(px))
	})
}

// TestPushUnavailableOver03REST runs the story on js-0.3.14 over HTTP+JSON
// with --push: the card offers push notifications, but A2A 0.3 over
// HTTP+JSON has no push-config calls the Client makes (no server here
// shows their routes). The cut stream tells PushUnavailable, with a cause
// matching errors.ErrUnsupported, makes no push-config call, resubscribes
// and ends as the uncut run.
func TestPushUnavailableOver03REST(t *testing.T) {
	var sc scenario
	for _, s := range scenarios {
		if s.name == "stream" {
			sc = s
		}
	}
	defs := []peerDef{{name: "js-0.3.14-rest-push", version: a2a.V03, binding: a2a.BindingHTTPJSON, command: nodePeer("js03", "--rest", "--push")}}
	eachPeerOf(t, defs, func(peerDef) bool { return true }, func(t *testing.T, p *peer) {
		recv, log := newPushReceiver(t, nil)
		c := resolve(t, newProxy(t, p, nil), p, stream.WithPush(recv))
		require.True(t, c.Card().Capabilities.PushNotifications, "the card offers push notifications")

		got, rl, _ := pushRun(t, p, sc, []proxy.Fault{cut(1, 0)}, recv)
		px := rl.px
		t.Logf("notices %v; requests:\n%s", rl.notices, requestLog(px))
		recs := px.Records()
		require.True(t, len(recs) > 0 && recs[0].Fired, "the cut never fired: streams %+v", recs)
		require.Equal(t, withText(sc.want), got)
		checkSends(t, px, sc)
		require.Equal(t, 1, noticesOf(rl.notices, stream.PushUnavailable), "%v", rl.notices)
		for _, n := range rl.notices {
			if n.Kind == stream.PushUnavailable {
				require.ErrorIs(t, n.Cause, errors.ErrUnsupported)
			}
		}
		require.Zero(t, noticesOf(rl.notices, stream.Pushing), "%v", rl.notices)
		require.Zero(t, requestsOf(px, isPushSet), "no push-config call:\n%s", requestLog(px))
		require.Positive(t, requestsOf(px, ofKind(proxy.Subscribe)), "resubscribed as before:\n%s", requestLog(px))
		accepted, statuses := log.accepted()
		require.Zero(t, accepted, "nothing pushed (statuses %v)", statuses)
	})
}
