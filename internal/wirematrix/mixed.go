package wirematrix

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// MixedSeeds is how many seeds StylesMixedPerReconnect runs on a wire
// unless told otherwise (Scenarios' run; stream's -styles.seeds default).
const MixedSeeds = 150

// StylesMixedPerReconnect: mixed server styles on each reconnect. A
// hand-written server (not an a2atest agent) holds a seeded random task
// timeline (artifacts added, appended, replaced, restored; agent messages;
// status messages) and answers each resubscribe in a style chosen per leg
// (a load balancer over live-only, snapshot-first and full-replay servers),
// after the agent went on for a few events while the client was away, and
// cuts each leg after a few events; for seeds seeds. The stream ends
// completed with the server's artifacts; behind a full-replay server it
// delivers every part exactly once; with snapshot-first and replaying
// servers (no live-only leg after a gap, no artifact shrunk in a gap) no
// part twice. The server speaks JSON-RPC: w reaches it with
// w.HandlerClient, which a wire must have to run this.
func StylesMixedPerReconnect(t *testing.T, w Wire, seeds int) {
	if w.HandlerClient == nil {
		t.Fatalf("wirematrix: wire %s reaches no hand-written server (no HandlerClient)", w)
	}
	t.Run(w.Name, func(t *testing.T) {
		failures := 0
		for seed := range seeds {
			if !mixedSeed(t, w, seed) {
				failures++
				if failures > 3 {
					t.Fatalf("stopping after %d failing seeds", failures)
				}
			}
		}
	})
}

// mixedSeed runs StylesMixedPerReconnect's seed on w as a subtest of t
// and reports whether it passed.
func mixedSeed(t *testing.T, w Wire, seed int) bool {
	v := w.Version
	allStyles := []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay}
	r := rand.New(rand.NewPCG(uint64(seed), 7))
	evs := mixTimeline(r, v)
	legs := []mixLeg{{send: 1 + r.IntN(len(evs)-1)}}
	onlyReplay, anyGapLive := r.IntN(2) == 0, false
	replayOnly := r.IntN(3) == 0
	for range 1 + r.IntN(3) {
		st := allStyles[r.IntN(3)]
		if onlyReplay {
			st = allStyles[1+r.IntN(2)]
		}
		if replayOnly {
			st = a2atest.FullReplay
		}
		l := mixLeg{style: st, away: r.IntN(3), send: r.IntN(4)}
		if st == a2atest.LiveOnly && l.away > 0 {
			anyGapLive = true
		}
		legs = append(legs, l)
	}
	srv := &mixServer{v: v, events: evs, legs: legs, tail: a2atest.SnapshotFirst}
	if replayOnly {
		srv.tail = a2atest.FullReplay
	}
	name := fmt.Sprintf("seed %d legs %+v", seed, legs)
	return t.Run(fmt.Sprint(seed), func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := w.HandlerClient(t, srv, stream.WithReconnect(reconnect.Policy{MaxAttempts: 8, Backoff: time.Second})).
				Send(bounded(t), hello())
			got, err := Drain(t, s)
			require.NoError(t, err, name)
			server := srv.fold(len(evs))
			got.RequireArtifactsAnyOrder(t, server.Artifacts, name)
			require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
			want, total := emittedParts(evs)
			if replayOnly {
				require.Equal(t, want, DeliveredParts(got.Events), "%s: a full-replay server lets the client deliver every part exactly once", name)
			}
			if !anyGapLive && !shrunkInAGap(srv) {
				require.LessOrEqual(t, PartsDelivered(got.Events), total,
					"%s: with snapshot-first and replaying servers no part is ever delivered twice", name)
			}
		})
	})
}

// DeliveredParts returns, per artifact, the texts of the parts events
// carry, in order.
func DeliveredParts(events []a2a.Event) map[string][]string {
	out := map[string][]string{}
	for _, ev := range events {
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			for _, p := range u.Artifact.Parts {
				out[u.Artifact.ID] = append(out[u.Artifact.ID], p.Text)
			}
		}
	}
	return out
}

type mixLeg struct {
	style a2atest.ResubscribeStyle
	away  int // events the agent produces before this leg arrives
	send  int // events this leg sends live before it is cut (-1: to the end)
}

type mixServer struct {
	v      a2a.Version
	events []a2a.Event // events[0] is the initial Task
	legs   []mixLeg
	tail   a2atest.ResubscribeStyle // the style of legs past legs

	mu       sync.Mutex
	progress int // events produced so far
	leg      int
}

// fold is the server's task after the first n events.
func (m *mixServer) fold(n int) *a2a.Task {
	t := m.events[0].(*a2a.Task).Clone()
	for _, ev := range m.events[1:n] {
		switch e := ev.(type) {
		case *a2a.StatusUpdate:
			t.Status = e.Status
			if e.Status.Message != nil {
				t.History = append(t.History, *e.Status.Message)
			}
		case *a2a.Message:
			t.History = append(t.History, *e)
		case *a2a.ArtifactUpdate:
			i := -1
			for j := range t.Artifacts {
				if t.Artifacts[j].ID == e.Artifact.ID {
					i = j
				}
			}
			switch {
			case i < 0:
				t.Artifacts = append(t.Artifacts, e.Artifact.Clone())
			case e.Append:
				t.Artifacts[i].Parts = append(t.Artifacts[i].Parts, e.Artifact.Clone().Parts...)
			default:
				t.Artifacts[i] = e.Artifact.Clone()
			}
		}
	}
	return t
}

func (m *mixServer) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.NewDecoder(hr.Body).Decode(&req)
	m.mu.Lock()
	defer m.mu.Unlock()
	if req.Method == "tasks/get" || req.Method == "GetTask" {
		m.result(w, req.ID, m.fold(m.progress))
		return
	}
	k := m.leg
	m.leg++
	if k >= len(m.legs) {
		// Past the scripted legs: a snapshot-first (or full-replay) server
		// that sends the rest.
		m.progress = len(m.events)
		m.startEvents(w)
		if m.tail == a2atest.FullReplay {
			for _, ev := range m.events {
				m.event(w, req.ID, ev)
			}
			return
		}
		m.event(w, req.ID, m.fold(m.progress))
		return
	}
	l := m.legs[k]
	m.progress = min(m.progress+l.away, len(m.events))
	if k == 0 {
		m.progress = 0
	}
	settled := m.progress == len(m.events)
	m.startEvents(w)
	if k > 0 {
		switch l.style {
		case a2atest.LiveOnly:
			if settled {
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32001,\"message\":\"task not found\"}}\n\n", req.ID)
				return
			}
		case a2atest.SnapshotFirst:
			m.event(w, req.ID, m.fold(m.progress))
			if settled {
				return
			}
		case a2atest.FullReplay:
			for _, ev := range m.events[:m.progress] {
				m.event(w, req.ID, ev)
			}
			if settled {
				return
			}
		}
	}
	end := len(m.events)
	if l.send >= 0 {
		end = min(m.progress+l.send, end)
	}
	for m.progress < end {
		m.event(w, req.ID, m.events[m.progress])
		m.progress++
	}
	if m.progress < len(m.events) {
		panic(http.ErrAbortHandler) // a dropped connection
	}
}

// mixTimeline builds a random task timeline: artifacts added, appended,
// replaced with new content, restored to an earlier version, cumulative
// replacements; agent messages; status messages with increasing timestamps.
func mixTimeline(r *rand.Rand, v a2a.Version) []a2a.Event {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	evs := []a2a.Event{&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted, Timestamp: t0}}}
	arts := map[string][][]string{} // versions seen of each artifact, the last is current
	ids := []string{"a", "b", "c"}
	word := 0
	next := func() string { word++; return fmt.Sprintf("w%d", word) }
	n := 4 + r.IntN(14)
	for i := range n {
		at := t0.Add(time.Duration(i+1) * time.Second)
		switch k := r.IntN(10); {
		case k < 2:
			evs = append(evs, &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1",
				Status: a2a.TaskStatus{State: a2a.StateWorking, Message: mixMessage(fmt.Sprintf("s-%d", i), next()), Timestamp: at}})
		case k < 3:
			evs = append(evs, mixMessage(fmt.Sprintf("m-%d", i), next()))
		default:
			id := ids[r.IntN(len(ids))]
			vers := arts[id]
			var cur []string
			if len(vers) > 0 {
				cur = vers[len(vers)-1]
			}
			switch op := r.IntN(4); {
			case len(cur) == 0 || op == 0: // a new version with new content
				p := []string{next()}
				arts[id] = append(vers, p)
				evs = append(evs, mixArtifact(id, false, p...))
			case op == 1: // append
				p := next()
				nv := append(append([]string(nil), cur...), p)
				arts[id][len(vers)-1] = nv
				evs = append(evs, mixArtifact(id, true, p))
			case op == 2: // cumulative replacement: the current text and more
				nv := append(append([]string(nil), cur...), next())
				arts[id] = append(vers, nv)
				evs = append(evs, mixArtifact(id, false, nv...))
			default: // restore an earlier version (or its first part)
				old := vers[r.IntN(len(vers))]
				nv := old[:1+r.IntN(len(old))]
				nv = append([]string(nil), nv...)
				arts[id] = append(vers, nv)
				evs = append(evs, mixArtifact(id, false, nv...))
			}
		}
	}
	return append(evs, &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Final: v == a2a.V03,
		Status: a2a.TaskStatus{State: a2a.StateCompleted, Timestamp: t0.Add(time.Duration(n+1) * time.Second)}})
}

// emittedParts is every part each artifact's events carry, in order, leaving
// out replacements identical to the artifact as it stands (no-ops).
func emittedParts(evs []a2a.Event) (map[string][]string, int) {
	out := map[string][]string{}
	cur := map[string][]string{}
	total := 0
	for _, ev := range evs {
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			var texts []string
			for _, p := range u.Artifact.Parts {
				texts = append(texts, p.Text)
			}
			_, known := cur[u.Artifact.ID]
			if known && !u.Append && strings.Join(texts, "\x00") == strings.Join(cur[u.Artifact.ID], "\x00") {
				continue
			}
			if u.Append {
				cur[u.Artifact.ID] = append(cur[u.Artifact.ID], texts...)
			} else {
				cur[u.Artifact.ID] = texts
			}
			for _, p := range u.Artifact.Parts {
				out[u.Artifact.ID] = append(out[u.Artifact.ID], p.Text)
				total++
			}
		}
	}
	return out, total
}

// shrunkInAGap reports whether the agent truncated an artifact, or restored
// one of its earlier versions, while the client was away before a
// snapshot-first leg (or the snapshot-first tail): at the gap's end the
// artifact holds no part that is new since the gap's start, and does not
// extend what it held then. Such a snapshot cannot be told from one that
// lags what was delivered, so the stream delivers the truncation when it
// closes the gap, by a replacement that carries parts again.
func shrunkInAGap(m *mixServer) bool {
	shrunk := func(from, to int) bool {
		seen := map[string]bool{}
		for _, ev := range m.events[:from] {
			if u, ok := ev.(*a2a.ArtifactUpdate); ok {
				for _, p := range u.Artifact.Parts {
					seen[p.Text] = true
				}
			}
		}
		before := m.fold(from)
		for _, a := range m.fold(to).Artifacts {
			b := before.Artifact(a.ID)
			if b == nil || len(b.Parts) <= len(a.Parts) && slices.EqualFunc(b.Parts, a.Parts[:len(b.Parts)], func(p, q a2a.Part) bool { return p.Text == q.Text }) {
				continue
			}
			old := true
			for _, p := range a.Parts {
				old = old && seen[p.Text]
			}
			if old {
				return true
			}
		}
		return false
	}
	n := len(m.events)
	p := min(m.legs[0].send, n)
	for _, l := range m.legs[1:] {
		from := p
		p = min(p+l.away, n)
		if l.style == a2atest.SnapshotFirst && shrunk(from, p) {
			return true
		}
		if p = n; l.send >= 0 {
			p = min(min(from+l.away, n)+l.send, n)
		}
	}
	return m.tail == a2atest.SnapshotFirst && shrunk(p, n)
}

// startEvents starts an SSE answer.
func (m *mixServer) startEvents(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
}

// event writes ev as a JSON-RPC result in an SSE event, in the server's
// version, and flushes it. An event that does not encode cuts the stream
// (the test then fails on what it lost).
func (m *mixServer) event(w http.ResponseWriter, id json.RawMessage, ev a2a.Event) {
	raw, err := a2a.Codec{Version: m.v}.EncodeEvent(ev)
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_, _ = fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, raw)
	w.(http.Flusher).Flush()
}

// result writes t as the JSON-RPC result of a unary call (a get-task), in
// the server's version.
func (m *mixServer) result(w http.ResponseWriter, id json.RawMessage, t *a2a.Task) {
	raw, err := a2a.Codec{Version: m.v}.EncodeTask(t)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, raw)
}

// mixMessage is an agent message of task t-1 with one text part.
func mixMessage(id, text string) *a2a.Message {
	return &a2a.Message{ID: id, TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}
}

// mixArtifact is an update of artifact id of task t-1 with a text part
// for each of texts.
func mixArtifact(id string, appendChunk bool, texts ...string) *a2a.ArtifactUpdate {
	parts := make([]a2a.Part, len(texts))
	for i, s := range texts {
		parts[i] = a2a.Part{Text: s}
	}
	return &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: appendChunk,
		Artifact: a2a.Artifact{ID: id, Parts: parts}}
}
