package ledger_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/ledger"
)

func revisions(evs []a2a.Event) []*a2a.MessageRevision {
	var out []*a2a.MessageRevision
	for _, ev := range evs {
		if r, ok := ev.(*a2a.MessageRevision); ok {
			out = append(out, r)
		}
	}
	return out
}

// The habit of a server that streams its answer as one status message,
// resent longer each time under the same ID.
func TestRevisionCumulativeStatusMessage(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	evs := l.Apply(nil, status(a2a.StateWorking, "m-1", "Hel"))
	require.Len(t, evs, 1)
	require.Equal(t, "Hel", evs[0].(*a2a.StatusUpdate).Status.Message.Text())
	a.apply(t, evs)

	evs = l.Apply(nil, status(a2a.StateWorking, "m-1", "Hello"))
	require.Len(t, evs, 1, "a longer version in the same state is a revision and nothing else")
	r := evs[0].(*a2a.MessageRevision)
	require.True(t, r.Extends)
	require.Equal(t, []a2a.Part{{Text: "lo"}}, r.Added)
	require.Equal(t, "Hello", r.Message.Text())
	require.Equal(t, "t-1", r.TaskID)
	a.apply(t, evs)

	require.Empty(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "Hello")), "the same version again")

	evs = l.Apply(nil, status(a2a.StateCompleted, "m-1", "Hello world"))
	require.Len(t, evs, 2, "the revision, then the new state without the message")
	require.Equal(t, []a2a.Part{{Text: " world"}}, evs[0].(*a2a.MessageRevision).Added)
	su := evs[1].(*a2a.StatusUpdate)
	require.Equal(t, a2a.StateCompleted, su.Status.State)
	require.Nil(t, su.Status.Message)
	a.apply(t, evs)
	a.check(t, l)

	require.Equal(t, "Hello world", a.Shown["m-1"])
	require.Equal(t, "Hello world", l.Task().Status.Message.Text())
	var inHistory []string
	for _, m := range l.Task().History {
		if m.ID == "m-1" {
			inHistory = append(inHistory, m.Text())
		}
	}
	require.Equal(t, []string{"Hello world"}, inHistory, "the history holds the message once, as its last version")
}

func TestRevisionThatRewrites(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	a.apply(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "draft")))
	evs := l.Apply(nil, status(a2a.StateWorking, "m-1", "final"))
	require.Len(t, evs, 1)
	r := evs[0].(*a2a.MessageRevision)
	require.False(t, r.Extends)
	require.Nil(t, r.Added)
	a.apply(t, evs)

	// Outside a replay window the agent may also shorten its message.
	evs = l.Apply(nil, status(a2a.StateWorking, "m-1", "fin"))
	require.Len(t, evs, 1)
	require.False(t, evs[0].(*a2a.MessageRevision).Extends)
	a.apply(t, evs)
	require.Equal(t, "fin", a.Shown["m-1"])
	require.Equal(t, "fin", l.Task().Status.Message.Text())
}

func TestRevisionOfMessageEventsAndHistory(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	a.apply(t, l.Apply(nil, textMsg("m-2", "a")))
	evs := l.Apply(nil, textMsg("m-2", "ab"))
	require.Len(t, revisions(evs), 1)
	a.apply(t, evs)

	snap := task(a2a.StateWorking, nil)
	snap.History = []a2a.Message{*textMsg("m-2", "abc"), *textMsg("m-3", "new")}
	evs = l.Apply(nil, snap)
	require.Len(t, evs, 3, "the revision of m-2, the new m-3, the status")
	require.Equal(t, "abc", evs[0].(*a2a.MessageRevision).Message.Text())
	require.Equal(t, "m-3", evs[1].(*a2a.Message).ID)
	a.apply(t, evs)
	a.check(t, l)

	// A user's message the server echoes with other content is never a
	// revision delivered to the application.
	l.RecordSent(&a2a.Message{ID: "u-9", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "hi"}}})
	snap.History = append(snap.History, a2a.Message{ID: "u-9", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "hi, trimmed"}}})
	require.Empty(t, revisions(l.Apply(nil, snap)))
}

func TestRevisionReplayedInsideTheWindowIsNotDeliveredAgain(t *testing.T) {
	versions := []string{"H", "He", "Hello", "Hello wor", "Hello world"}
	for _, stamped := range []bool{false, true} {
		t.Run(fmt.Sprintf("timestamps=%v", stamped), func(t *testing.T) {
			base := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
			ev := func(i int) *a2a.StatusUpdate {
				u := status(a2a.StateWorking, "m-1", versions[i])
				if stamped {
					u.Status.Timestamp = base.Add(time.Duration(i) * time.Second)
				}
				return u
			}
			l := ledger.New()
			var a app
			a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
			for i := range 3 {
				a.apply(t, l.Apply(nil, ev(i)))
			}
			// A cut, and a server that replays from the start.
			l.OpenReplayWindow()
			for i := range 3 {
				require.Empty(t, l.Apply(nil, ev(i)), "replayed version %q", versions[i])
			}
			for i := 3; i < len(versions); i++ {
				evs := l.Apply(nil, ev(i))
				require.Len(t, revisions(evs), 1, "version %q is news", versions[i])
				a.apply(t, evs)
			}
			require.Equal(t, "Hello world", a.Shown["m-1"])

			// A snapshot that holds an older version, inside the next window.
			l.OpenReplayWindow()
			snap := task(a2a.StateWorking, nil)
			snap.Status = ev(2).Status
			require.Empty(t, l.ReconcileSnapshot(nil, snap))
			require.Equal(t, "Hello world", l.Task().Status.Message.Text(), "an older version does not undo the one held")
		})
	}
}

func TestRewrittenVersionReplayedIsOld(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	a.apply(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "draft A")))
	a.apply(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "final B")))
	l.OpenReplayWindow()
	require.Empty(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "draft A")), "a version the agent replaced, replayed")
	require.Empty(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "final B")))
	require.Equal(t, "final B", l.Task().Status.Message.Text())
}

func TestAuthoritativeTaskRevisesEvenBackwards(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	a.apply(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "Hello wor")))
	l.OpenReplayWindow()
	got := task(a2a.StateCompleted, nil)
	got.Status.Message = textMsg("m-1", "Hello")
	evs := l.Reconcile(nil, got, true)
	require.Len(t, evs, 2)
	require.Equal(t, "Hello", evs[0].(*a2a.MessageRevision).Message.Text(), "the server's task is the truth")
	require.Equal(t, a2a.StateCompleted, evs[1].(*a2a.StatusUpdate).Status.State)
	a.apply(t, evs)
	require.Equal(t, "Hello", a.Shown["m-1"])
}

// A server that keeps one message across states sends it again, unchanged,
// in the new state: inside a replay window that is still news.
func TestSameMessageInANewStateInsideTheWindow(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	a.apply(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "all of it")))
	l.OpenReplayWindow()
	snap := task(a2a.StateCompleted, nil)
	snap.Status.Message = textMsg("m-1", "all of it")
	evs := l.ReconcileSnapshot(nil, snap)
	require.Len(t, evs, 1)
	require.Equal(t, a2a.StateCompleted, evs[0].(*a2a.StatusUpdate).Status.State)
	require.True(t, l.ChangesStatus(&a2a.StatusUpdate{Status: a2a.TaskStatus{State: a2a.StateFailed, Message: textMsg("m-1", "all of it")}}))
}

// A message the application saw only in a history, never in a status, that
// comes back as the message of an old status is a replay (the defect-6
// guard still holds with revisions).
func TestHistoryOnlyMessageInAReplayedStatus(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	snap := task(a2a.StateWorking, nil)
	snap.History = []a2a.Message{*textMsg("m-2", "what now?")}
	snap.Status.Message = textMsg("m-3", "going on")
	a.apply(t, l.Apply(nil, snap))
	l.OpenReplayWindow()
	require.Empty(t, l.Apply(nil, status(a2a.StateInputRequired, "m-2", "what now?")))
	require.Equal(t, a2a.StateWorking, l.Task().Status.State)
}

// revServer is an agent that revises one status message per turn at
// random: it grows, is rewritten, or shrinks, and sometimes a new turn
// starts a message of its own. Its statuses carry timestamps when stamped.
type revServer struct {
	events  []*a2a.StatusUpdate
	final   map[string]string // each message's last text
	stamped bool
}

func newRevServer(c *choices) *revServer {
	s := &revServer{final: map[string]string{}, stamped: c.intn(2) == 1}
	base := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	id, text := "m-0", ""
	n := 1 + c.intn(30)
	for i := range n {
		switch k := c.intn(10); {
		case k < 6 || text == "": // grow
			text += fuzzTexts[c.intn(len(fuzzTexts))]
		case k < 8: // rewrite
			text = strings.Repeat("r", 1+c.intn(3)) + fmt.Sprint(i)
		case k < 9 && s.stamped: // shrink (stamped only: see README)
			text = text[:len(text)/2]
			if text == "" {
				text = "s"
			}
		default: // a new turn
			id, text = fmt.Sprintf("m-%d", i+1), "n"
		}
		state := a2a.StateWorking
		if i == n-1 {
			state = a2a.StateCompleted
		}
		u := status(state, id, text)
		if s.stamped {
			u.Status.Timestamp = base.Add(time.Duration(i) * time.Millisecond)
		}
		s.events = append(s.events, u)
		s.final[id] = text
	}
	return s
}

// task is the server's task after its first k events.
func (s *revServer) task(k int) *a2a.Task {
	t := task(a2a.StateSubmitted, nil)
	var order []string
	texts := map[string]string{}
	for _, u := range s.events[:k] {
		id := u.Status.Message.ID
		if _, ok := texts[id]; !ok {
			order = append(order, id)
		}
		texts[id] = u.Status.Message.Text()
		t.Status = u.Status
	}
	for _, id := range order {
		t.History = append(t.History, *textMsg(id, texts[id]))
	}
	t.Status.Message = t.Status.Message.Clone()
	return t
}

func cloneStatus(u *a2a.StatusUpdate) *a2a.StatusUpdate {
	c := *u
	c.Status.Message = u.Status.Message.Clone()
	return &c
}

// checkRevisions runs one fuzzed revision history through a client that is
// cut and resubscribes in the server styles the ledger promises revisions
// for, and checks the contract: every version shown is news (app.apply
// fails on a revision that shows the text shown already, and on an Added
// that does not continue it), and at the end the application shows each
// message as the server last sent it.
func checkRevisions(t *testing.T, data []byte) {
	c := &choices{b: data}
	s := newRevServer(c)
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	pos := 0
	for pos < len(s.events) {
		stop := pos + 1 + c.intn(len(s.events)-pos)
		for ; pos < stop; pos++ {
			a.apply(t, l.Apply(nil, cloneStatus(s.events[pos])))
		}
		if pos == len(s.events) {
			break
		}
		// A cut. The server moves on during the gap, then the client
		// resubscribes.
		gap := c.intn(len(s.events) - pos + 1)
		l.OpenReplayWindow()
		switch style := c.intn(4); {
		case style == 0: // live-only: the gap is lost until a get-task
			pos += gap
			a.apply(t, l.Reconcile(nil, s.task(pos), true))
		case style == 1: // snapshot first, then live
			pos += gap
			a.apply(t, l.ReconcileSnapshot(nil, s.task(pos)))
		case style == 2 && s.stamped: // a replay from the start (stamped only: see README)
			pos += gap
			for i := range pos {
				a.apply(t, l.Apply(nil, cloneStatus(s.events[i])))
			}
		default: // polling: every poll is authoritative
			pos += gap
			a.apply(t, l.Reconcile(nil, s.task(pos), true))
			l.CloseReplayWindow()
		}
	}
	a.check(t, l)
	for id, text := range s.final {
		require.Equal(t, text, a.Shown[id], "message %s as the application shows it", id)
	}
	require.Equal(t, s.events[len(s.events)-1].Status.Message.Text(), l.Task().Status.Message.Text())
	require.Equal(t, a2a.StateCompleted, l.Task().Status.State)
}

func FuzzRevisions(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 9, 3, 7, 7, 0, 1, 5, 2, 2, 8, 1, 0, 4, 3, 3})
	f.Add([]byte{0, 20, 1, 2, 6, 6, 6, 9, 0, 0, 3, 2, 2, 2, 1, 1})
	f.Fuzz(checkRevisions)
}

// TestRevisionsProperty runs checkRevisions on 3,000 seeded inputs in every
// ordinary test run.
func TestRevisionsProperty(t *testing.T) {
	t.Parallel()
	for seed := range 3000 {
		b := make([]byte, 64)
		x := uint64(seed)*0x9E3779B97F4A7C15 + 1
		for i := range b {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			b[i] = byte(x)
		}
		t.Run("", func(t *testing.T) { checkRevisions(t, b) })
		if t.Failed() {
			t.Fatalf("seed %d (input %x)", seed, b)
		}
	}
}
