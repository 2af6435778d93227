package stream_test

import (
	"encoding/json"
	"flag"
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

// Mixed server styles on each reconnect: a seeded sweep of hand-written
// servers that answer each resubscribe in a style chosen per leg.

// stylesSeeds is how many seeds TestResubscribeStylesMixedPerReconnect
// runs per version; CI passes the full size (.ci/run).
var stylesSeeds = flag.Int("styles.seeds", 150, "how many seeds TestResubscribeStylesMixedPerReconnect runs per version (CI: 3,000)")

// Mixed server styles on each reconnect: a hand-written server that holds a
// task timeline and answers each resubscribe in a style chosen per leg, for
// -styles.seeds seeds per version.
func TestResubscribeStylesMixedPerReconnect(t *testing.T) {
	t.Parallel()
	seeds := *stylesSeeds
	allStyles := []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay}
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			failures := 0
			for seed := range seeds {
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
				ok := t.Run(fmt.Sprint(seed), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						s := handlerClient(t, srv, v, stream.WithReconnect(reconnect.Policy{MaxAttempts: 8, Backoff: time.Second})).
							Send(bounded(t), hello())
						got, err := drain(t, s)
						require.NoError(t, err, name)
						server := srv.fold(len(evs))
						got.requireArtifacts(t, server.Artifacts, name)
						require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
						want, total := emittedParts(evs)
						if replayOnly {
							require.Equal(t, want, deliveredParts(got), "%s: a full-replay server lets the client deliver every part exactly once", name)
						}
						if !anyGapLive && !shrunkInAGap(srv) {
							require.LessOrEqual(t, partsDelivered(got), total,
								"%s: with snapshot-first and replaying servers no part is ever delivered twice", name)
						}
					})
				})
				if !ok {
					failures++
					if failures > 3 {
						t.Fatalf("stopping after %d failing seeds", failures)
					}
				}
			}
		})
	}
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
		unaryTask(w, req.ID, m.v, m.fold(m.progress))
		return
	}
	k := m.leg
	m.leg++
	if k >= len(m.legs) {
		// Past the scripted legs: a snapshot-first (or full-replay) server
		// that sends the rest.
		m.progress = len(m.events)
		sseHeaders(w)
		if m.tail == a2atest.FullReplay {
			for _, ev := range m.events {
				sseEvent(w, req.ID, m.v, ev)
			}
			return
		}
		sseEvent(w, req.ID, m.v, m.fold(m.progress))
		return
	}
	l := m.legs[k]
	m.progress = min(m.progress+l.away, len(m.events))
	if k == 0 {
		m.progress = 0
	}
	settled := m.progress == len(m.events)
	sseHeaders(w)
	if k > 0 {
		switch l.style {
		case a2atest.LiveOnly:
			if settled {
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32001,\"message\":\"task not found\"}}\n\n", req.ID)
				return
			}
		case a2atest.SnapshotFirst:
			sseEvent(w, req.ID, m.v, m.fold(m.progress))
			if settled {
				return
			}
		case a2atest.FullReplay:
			for _, ev := range m.events[:m.progress] {
				sseEvent(w, req.ID, m.v, ev)
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
		sseEvent(w, req.ID, m.v, m.events[m.progress])
		m.progress++
	}
	if m.progress < len(m.events) {
		cutHere()
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
				Status: a2a.TaskStatus{State: a2a.StateWorking, Message: agentMessage(fmt.Sprintf("s-%d", i), next()), Timestamp: at}})
		case k < 3:
			evs = append(evs, agentMessage(fmt.Sprintf("m-%d", i), next()))
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
				evs = append(evs, artEvent(id, false, p...))
			case op == 1: // append
				p := next()
				nv := append(append([]string(nil), cur...), p)
				arts[id][len(vers)-1] = nv
				evs = append(evs, artEvent(id, true, p))
			case op == 2: // cumulative replacement: the current text and more
				nv := append(append([]string(nil), cur...), next())
				arts[id] = append(vers, nv)
				evs = append(evs, artEvent(id, false, nv...))
			default: // restore an earlier version (or its first part)
				old := vers[r.IntN(len(vers))]
				nv := old[:1+r.IntN(len(old))]
				nv = append([]string(nil), nv...)
				arts[id] = append(vers, nv)
				evs = append(evs, artEvent(id, false, nv...))
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
