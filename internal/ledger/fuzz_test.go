package ledger_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/ledger"
)

// The server styles a fuzzed client meets after each resubscribe.
const (
	liveOnly = iota
	snapshotFirst
	fullReplay
	// polling is not drawn: every fuzzed server is also polled (see
	// checkPolling).
	polling
)

var styleNames = [...]string{"live-only", "snapshot-first", "full-replay", "polling"}

// fuzzTexts is the alphabet of part texts: short and repetitive on purpose,
// so that identical parts at different positions are common.
var fuzzTexts = [...]string{"\n", "x", " ", "\n", "ab"}

// choices hands out the fuzz input one decision at a time; once the input is
// used up every decision is 0.
type choices struct {
	b []byte
}

func (c *choices) intn(n int) int {
	if n <= 1 || len(c.b) == 0 {
		return 0
	}
	v := int(c.b[0]) % n
	c.b = c.b[1:]
	return v
}

// fuzzServer is an agent's event history and the task each prefix of it
// folds into.
type fuzzServer struct {
	events   []a2a.Event
	rewrites bool // an append:false replaced an artifact that already existed
	log      []string
	tasks    int // tasks given out so far
}

// dataForm returns a data part holding value v (0 or 1), written in one of
// three forms: as events carry it, then as a server that keeps its tasks
// as JSON in a database gives it back (keys in another order, numbers and
// white space written otherwise).
func dataForm(v, form int) a2a.Part {
	raw := [...]string{
		`{"v":%d,"k":"x","n":[1,2.5]}`,
		`{"n":[1.0,25e-1],"k":"x","v":%d}`,
		`{ "k" : "x" , "v" : %de0 , "n" : [ 10E-1 , 2.50 ] }`,
	}[form%3]
	return a2a.Part{Data: json.RawMessage(fmt.Sprintf(raw, v))}
}

func newFuzzServer(c *choices) *fuzzServer {
	s := &fuzzServer{}
	user := a2a.Message{ID: "u-1", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "hi"}}}
	s.events = append(s.events, &a2a.Task{ID: "t-1", ContextID: "c-1",
		Status: a2a.TaskStatus{State: a2a.StateSubmitted}, History: []a2a.Message{user}})
	s.log = append(s.log, "task")
	arts := 1 + c.intn(3)
	exists := make([]bool, arts)
	n := 1 + c.intn(24)
	for i := range n {
		switch k := c.intn(8); {
		case k <= 4:
			a := c.intn(arts)
			u := &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: a2a.Artifact{ID: fmt.Sprint("a", a)}}
			for range 1 + c.intn(2) {
				u.Artifact.Parts = append(u.Artifact.Parts, a2a.Part{Text: fuzzTexts[c.intn(len(fuzzTexts))]})
			}
			if i%5 == 4 {
				// A data part, without drawing a choice: the server's
				// tasks give it back in another form each time (see
				// task).
				u.Artifact.Parts = append(u.Artifact.Parts, dataForm(i%2, 0))
			}
			if exists[a] {
				// Mostly appends; now and then a real replacement.
				u.Append = c.intn(6) != 0
				s.rewrites = s.rewrites || !u.Append
			} else {
				// Mostly a fresh artifact; now and then an append to an
				// artifact never announced.
				u.Append = c.intn(6) == 0
			}
			if u.Append && i%3 == 0 {
				// Labels on an append, without drawing a choice (the
				// corpus keeps its meaning): a new name, metadata, and
				// every seventh event no part at all.
				u.Artifact.Name = fmt.Sprint("n", i)
				u.Artifact.Metadata = map[string]any{"k": float64(i), fmt.Sprint("at", i): true}
				if i%7 == 6 {
					u.Artifact.Parts = nil
				}
			}
			exists[a] = true
			u.LastChunk = c.intn(2) == 1
			s.events = append(s.events, u)
			s.log = append(s.log, fmt.Sprintf("%s append=%v %q %s%v", u.Artifact.ID, u.Append, partTexts(u.Artifact.Parts), u.Artifact.Name, u.Artifact.Metadata))
		case k == 5:
			m := &a2a.Message{ID: fmt.Sprint("m-", i), TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent,
				Parts: []a2a.Part{{Text: "aside"}}}
			s.events = append(s.events, m)
			s.log = append(s.log, "message "+m.ID)
		case k == 6 && i%4 == 2:
			// A status message without an ID, without drawing a choice:
			// told apart by its content, which repeats across the
			// history ("step 0", "step 1", "step 0", ...).
			text := fmt.Sprint("step ", i/4%2)
			s.events = append(s.events, &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Metadata: stepMetadata(i),
				Status: a2a.TaskStatus{State: a2a.StateWorking,
					Message: &a2a.Message{TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}}})
			s.log = append(s.log, fmt.Sprintf("working %q", text))
		case k == 6:
			u := &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Metadata: stepMetadata(i), Status: a2a.TaskStatus{State: a2a.StateWorking,
				Message: &a2a.Message{ID: fmt.Sprint("s-", i), TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent,
					Parts: []a2a.Part{{Text: "working"}}}}}
			s.events = append(s.events, u)
			s.log = append(s.log, "working "+u.Status.Message.ID)
		default:
			s.events = append(s.events, &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Metadata: stepMetadata(i),
				Status: a2a.TaskStatus{State: a2a.StateWorking}})
			s.log = append(s.log, "working")
		}
	}
	s.events = append(s.events, &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Final: true, Metadata: stepMetadata(n),
		Status: a2a.TaskStatus{State: a2a.StateCompleted, Message: &a2a.Message{ID: "s-final", TaskID: "t-1",
			ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "done"}}}}})
	s.log = append(s.log, "completed s-final")
	return s
}

// stepMetadata is the metadata of the status update of event i: a step
// that each status update replaces, and a key of its own that stays.
func stepMetadata(i int) map[string]any {
	return map[string]any{"step": float64(i), fmt.Sprint("s", i): true}
}

// task folds the first k events, the way the agent keeps its task: its
// metadata is that of the status updates, merged key by key. Its data parts
// come in another form each time.
func (s *fuzzServer) task(k int) *a2a.Task {
	t := s.events[0].(*a2a.Task).Clone()
	for _, ev := range s.events[1:k] {
		t.Apply(ev)
		if u, ok := ev.(*a2a.StatusUpdate); ok {
			if t.Metadata == nil {
				t.Metadata = map[string]any{}
			}
			for key, v := range u.Metadata {
				t.Metadata[key] = v
			}
		}
	}
	s.tasks++
	for i := range t.Artifacts {
		for j, p := range t.Artifacts[i].Parts {
			if p.Data != nil {
				var d struct{ V int }
				if err := json.Unmarshal(p.Data, &d); err != nil {
					panic(err)
				}
				t.Artifacts[i].Parts[j] = dataForm(d.V, 1+s.tasks%2)
			}
		}
	}
	return t
}

// fresh returns a deep copy of ev, as a new connection decodes it: Apply
// takes ownership of the events it is given.
func fresh(ev a2a.Event) a2a.Event {
	switch e := ev.(type) {
	case *a2a.Task:
		return e.Clone()
	case *a2a.Message:
		return e.Clone()
	case *a2a.ArtifactUpdate:
		c := *e
		c.Artifact = e.Artifact.Clone()
		return &c
	case *a2a.StatusUpdate:
		c := *e
		c.Status.Message = e.Status.Message.Clone()
		return &c
	}
	panic(fmt.Sprintf("unexpected event %T", ev))
}

func partTexts(ps []a2a.Part) []string {
	out := make([]string, len(ps))
	for i := range ps {
		out[i] = ps[i].Text
		if ps[i].Data != nil {
			out[i] = string(ps[i].Data)
		}
	}
	return out
}

// fuzzClient is the application side: what it built from the deltas, and
// the accounting of parts delivered.
type fuzzClient struct {
	t         *testing.T
	l         *twin
	style     int
	app       app
	delivered int // artifact parts delivered, in every delta
	redone    int // parts the application held and a heal replaced
	heals     int
	log       []string
}

// step hands the deltas of one Apply or Reconcile call to the application
// and checks the invariant: the application's artifacts are the ledger's.
func (c *fuzzClient) step(what string, evs []a2a.Event, authoritative bool, strict bool) {
	t := c.t
	c.log = append(c.log, what)
	for _, ev := range evs {
		u, ok := ev.(*a2a.ArtifactUpdate)
		if !ok {
			continue
		}
		c.delivered += len(u.Artifact.Parts)
		i := c.app.Find(u.Artifact.ID)
		if i < 0 || u.Append {
			continue
		}
		// A replacement of an artifact the application holds. Unless the
		// server itself replaced an artifact, only the heal of an
		// authoritative task may do that, and never in a style that
		// resends what was missed.
		if strict && !authoritative {
			t.Fatalf("%s: append:false for held artifact %s outside an authoritative reconcile\n%s",
				what, u.Artifact.ID, c.trace())
		}
		if strict && c.style != liveOnly {
			t.Fatalf("%s: artifact %s replaced with a %s server\n%s", what, u.Artifact.ID, styleNames[c.style], c.trace())
		}
		c.heals++
		c.redone += len(c.app.Task.Artifacts[i].Parts)
	}
	c.app.apply(t, evs)
	want := c.l.Task().Artifacts
	if len(want) != len(c.app.Task.Artifacts) {
		t.Fatalf("%s: the application holds %d artifacts, the ledger %d\n%s", what, len(c.app.Task.Artifacts), len(want), c.trace())
	}
	for i := range want {
		if want[i].ID != c.app.Task.Artifacts[i].ID || !partsEq(want[i].Parts, c.app.Task.Artifacts[i].Parts) {
			t.Fatalf("%s: artifact %d: application %s %q, ledger %s %q\n%s", what, i,
				c.app.Task.Artifacts[i].ID, partTexts(c.app.Task.Artifacts[i].Parts), want[i].ID, partTexts(want[i].Parts), c.trace())
		}
	}
	seen := map[string]bool{}
	for _, id := range c.app.Messages {
		if id != "" && seen[id] {
			t.Fatalf("%s: message %s delivered twice\n%s", what, id, c.trace())
		}
		seen[id] = true
	}
}

// idlessTexts counts the agent messages without an ID of a history, by text.
func idlessTexts(history []a2a.Message) map[string]int {
	n := map[string]int{}
	for _, m := range history {
		if m.ID == "" && m.Role == a2a.RoleAgent {
			n[m.Text()]++
		}
	}
	return n
}

func (c *fuzzClient) trace() string { return "client: " + strings.Join(c.log, "; ") }

func partsEq(p, q []a2a.Part) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if !p[i].Equal(&q[i]) {
			return false
		}
	}
	return true
}

// FuzzLedger drives a ledger the way a stream does across drops: a server
// history of chunks for a few artifacts (with append, replacements and
// repeated texts), messages and statuses; a client that receives a prefix,
// then in one or more rounds resubscribes (OpenReplayWindow) and gets the
// live tail only, a snapshot (ReconcileSnapshot; now and then one that lags
// what was delivered) then the tail, or everything again from the start,
// sometimes with a get-task in between; and at last the server's final
// task, authoritatively.
//
// Some status messages have no ID, and their texts repeat. Every status
// update carries metadata (a step each replaces, a key of its own), which
// the server's tasks hold merged. Some chunks
// carry a data part, which the server's tasks (snapshots and get-task
// results) give back with its keys in another order each time.
//
// It checks that applying the deltas reproduces the ledger's artifacts after
// every call, that the end result is the server's, part for part, that no
// message is delivered twice and none is lost (messages without an ID: the
// ledger holds each text the server's history holds, never more often),
// that no part is delivered twice except through the heal of a live-only
// gap, that the task's metadata follows the live status updates and ends as
// the server's, and that polling the settled task again yields nothing.
func FuzzLedger(f *testing.F) {
	// style, artifacts, events, then per event its choices, then the client.
	f.Add([]byte{0, 0, 6, 0, 0, 1, 1, 0, 1, 0, 1, 0, 3, 0, 1, 0, 1, 2, 3, 1, 2, 1, 3, 2})
	f.Add([]byte{1, 1, 10, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 3, 1, 1, 5, 0, 1, 0, 3, 1, 1, 6, 7, 4, 1, 2, 2, 1, 5, 2, 1, 2, 3})
	f.Add([]byte{2, 2, 12, 0, 0, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 2, 0, 1, 2, 1, 0, 0, 0, 0, 1, 3, 1, 5, 6, 0, 1, 1, 0, 1, 0, 4, 2, 3, 1, 2, 1})
	f.Add([]byte(strings.Repeat("\x01\x02\x03\x00\x04\x05", 12)))
	f.Add([]byte(strings.Repeat("\x02\x00\x07\x03\x01", 15)))

	f.Fuzz(func(t *testing.T, data []byte) {
		in := &choices{b: data}
		style := in.intn(3)
		srv := newFuzzServer(in)
		n := len(srv.events)
		// strict: the server never replaced an artifact, so the only
		// replacements are heals of live-only gaps.
		strict := !srv.rewrites

		l := newTwin(t)
		c := &fuzzClient{t: t, l: l, style: style}
		c.log = append(c.log, "server: "+strings.Join(srv.log, "; "), "style "+styleNames[style])
		l.RecordSent(&a2a.Message{ID: "u-1", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "hi"}}})

		// The first connection delivers a prefix that holds at least the
		// initial task.
		pos := 1 + in.intn(n)
		for i := range pos {
			c.step(fmt.Sprintf("live %d", i), l.Apply(nil, fresh(srv.events[i])), false, strict)
			if u, ok := srv.events[i].(*a2a.StatusUpdate); ok && l.Task().Metadata["step"] != u.Metadata["step"] {
				t.Fatalf("live %d: the task's step is %v, the status update's %v\n%s", i, l.Task().Metadata["step"], u.Metadata["step"], c.trace())
			}
		}
		for round := range 1 + in.intn(3) {
			now := min(pos+in.intn(4), n) // the server went on while the client was away
			l.OpenReplayWindow()
			c.log = append(c.log, fmt.Sprintf("resubscribe %d at %d", round, now))
			end := min(now+in.intn(7), n)
			switch style {
			case liveOnly:
				for i := now; i < end; i++ {
					c.step(fmt.Sprintf("live %d", i), l.Apply(nil, fresh(srv.events[i])), false, strict)
				}
			case snapshotFirst:
				// Mostly a snapshot as of now; sometimes an older one (a
				// store that lags its event bus), with the events since
				// then replayed after it. The stream folds the first Task
				// of a subscription as the present, with ReconcileSnapshot.
				q := now
				if in.intn(4) == 0 {
					q = 1 + in.intn(now)
				}
				c.step(fmt.Sprintf("snapshot %d", q), l.ReconcileSnapshot(nil, srv.task(q)), false, strict)
				for i := q; i < end; i++ {
					c.step(fmt.Sprintf("tail %d", i), l.Apply(nil, fresh(srv.events[i])), false, strict)
				}
			case fullReplay:
				for i := range end {
					c.step(fmt.Sprintf("replay %d", i), l.Apply(nil, fresh(srv.events[i])), false, strict)
				}
			}
			pos = end
			if in.intn(4) == 0 {
				// A refused resubscribe or a silent one: get-task.
				c.step(fmt.Sprintf("get-task %d", pos), l.Reconcile(nil, srv.task(pos), true), true, strict)
			}
		}
		final := srv.task(n)
		c.step("final get-task", l.Reconcile(nil, final, true), true, strict)
		l.agree()

		// The server's artifacts, part for part (an artifact created in a
		// gap may come later in the list than on the server).
		if len(final.Artifacts) != len(c.app.Task.Artifacts) {
			t.Fatalf("the application holds %d artifacts, the server %d\n%s", len(c.app.Task.Artifacts), len(final.Artifacts), c.trace())
		}
		serverParts := 0
		for i := range final.Artifacts {
			sa := &final.Artifacts[i]
			serverParts += len(sa.Parts)
			j := c.app.Find(sa.ID)
			if j >= 0 && (sa.Name != c.app.Task.Artifacts[j].Name || !reflect.DeepEqual(sa.Metadata, c.app.Task.Artifacts[j].Metadata)) {
				t.Fatalf("artifact %s: application labels %q %v, server %q %v\n%s", sa.ID,
					c.app.Task.Artifacts[j].Name, c.app.Task.Artifacts[j].Metadata, sa.Name, sa.Metadata, c.trace())
			}
			if j < 0 || !partsEq(sa.Parts, c.app.Task.Artifacts[j].Parts) {
				got := []string(nil)
				if j >= 0 {
					got = partTexts(c.app.Task.Artifacts[j].Parts)
				}
				t.Fatalf("artifact %s: application %q, server %q\n%s", sa.ID, got, partTexts(sa.Parts), c.trace())
			}
		}
		if !reflect.DeepEqual(l.Task().Metadata, final.Metadata) {
			t.Fatalf("metadata %v, the server's %v\n%s", l.Task().Metadata, final.Metadata, c.trace())
		}
		if got := l.Task().Status.State; got != a2a.StateCompleted {
			t.Fatalf("final state %s, want completed\n%s", got, c.trace())
		}
		// Every agent message once, none lost.
		delivered := map[string]bool{}
		for _, id := range c.app.Messages {
			delivered[id] = true
		}
		for _, m := range final.History {
			if m.Role == a2a.RoleAgent && m.ID != "" && !delivered[m.ID] {
				t.Fatalf("message %s never delivered\n%s", m.ID, c.trace())
			}
		}
		// Messages without an ID: none is lost. (Without timestamps, a
		// status the client never saw cannot be told from a new one, so
		// one may be held twice; see checkPolling for the bound.)
		held := idlessTexts(l.Task().History)
		for text, n := range idlessTexts(final.History) {
			if held[text] == 0 {
				t.Fatalf("message %q: the server's history holds it %d times, the ledger never\n%s", text, n, c.trace())
			}
		}
		// Polling the settled task again (a stream that polls folds each
		// get-task as authoritative) is never news, and holds nothing
		// more.
		repoll(c, srv.task(n), "the settled task")
		checkPolling(t, srv, strict)
		if strict {
			// Every part once, apart from those a heal delivered again.
			if c.delivered-c.redone != serverParts {
				t.Fatalf("%s: %d parts delivered, %d of them again by %d heals; the server has %d\n%s",
					styleNames[style], c.delivered, c.redone, c.heals, serverParts, c.trace())
			}
		}
	})
}

// repoll folds task as a get-task result twice more, and fails if that
// delivers anything or changes the history held.
func repoll(c *fuzzClient, task *a2a.Task, what string) {
	kept := len(c.l.Task().History)
	for i := range 2 {
		if evs := c.l.Reconcile(nil, task.Clone(), true); len(evs) != 0 {
			c.t.Fatalf("poll %d more of %s delivered %q\n%s", i+1, what, deltas(evs), c.trace())
		}
		if got := len(c.l.Task().History); got != kept {
			c.t.Fatalf("poll %d more of %s: a history of %d messages, was %d\n%s", i+1, what, got, kept, c.trace())
		}
	}
}

// checkPolling follows the fuzzed server the way a stream follows an agent
// that cannot stream: a get-task after each event, each folded as
// authoritative and polled again. It checks that polling again never
// delivers anything, that the deltas rebuild the ledger's artifacts, that
// the end is the server's, and that the ledger holds each text of the
// server's messages without an ID at least once and never more often than
// the server's history does.
func checkPolling(t *testing.T, srv *fuzzServer, strict bool) {
	l := newTwin(t)
	c := &fuzzClient{t: t, l: l, style: polling}
	c.log = append(c.log, "server: "+strings.Join(srv.log, "; "), "style polling")
	l.RecordSent(&a2a.Message{ID: "u-1", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "hi"}}})
	for k := 1; k <= len(srv.events); k++ {
		task := srv.task(k)
		c.step(fmt.Sprintf("poll %d", k), l.Reconcile(nil, task.Clone(), true), true, strict)
		repoll(c, task, fmt.Sprint("poll ", k))
	}
	l.agree()
	final := srv.task(len(srv.events))
	for i := range final.Artifacts {
		sa := &final.Artifacts[i]
		if j := c.app.Find(sa.ID); j < 0 || !partsEq(sa.Parts, c.app.Task.Artifacts[j].Parts) {
			t.Fatalf("polling: artifact %s is not the server's\n%s", sa.ID, c.trace())
		}
	}
	server, held := idlessTexts(final.History), idlessTexts(l.Task().History)
	for text, n := range server {
		if held[text] == 0 || held[text] > n {
			t.Fatalf("polling: message %q held %d times, %d in the server's history\n%s", text, held[text], n, c.trace())
		}
	}
	for text, n := range held {
		if server[text] == 0 {
			t.Fatalf("polling: message %q held %d times, never in the server's history\n%s", text, n, c.trace())
		}
	}
}

// TestReplayOfArtifactStartedByAnAppend is the regression test of the first
// FuzzLedger finding (seeds full-replay-append-first and c00f13b0e174b5cd in
// testdata/fuzz/FuzzLedger). An agent that opens an artifact with
// append:true gives a replaying server no append:false to anchor the replay
// cursor on: the replayed first chunk must not be delivered again.
func TestReplayOfArtifactStartedByAnAppend(t *testing.T) {
	events := func() []a2a.Event {
		return []a2a.Event{task(a2a.StateSubmitted, nil), chunk("a1", true, false, "p1"), chunk("a1", true, true, "p2")}
	}
	t.Run("full replay", func(t *testing.T) {
		l := ledger.New()
		var a app
		for _, ev := range events()[:2] {
			a.apply(t, l.Apply(nil, ev))
		}
		l.OpenReplayWindow()
		for _, ev := range events() {
			a.apply(t, l.Apply(nil, ev))
		}
		a.check(t, l)
		require.Equal(t, "p1p2", a.Text("a1"), "p1 was replayed, not produced again")
	})
	t.Run("snapshot older than the artifact", func(t *testing.T) {
		l := ledger.New()
		var a app
		for _, ev := range events()[:2] {
			a.apply(t, l.Apply(nil, ev))
		}
		l.OpenReplayWindow()
		a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
		for _, ev := range events()[1:] {
			a.apply(t, l.Apply(nil, ev))
		}
		a.check(t, l)
		require.Equal(t, "p1p2", a.Text("a1"))
	})
}
