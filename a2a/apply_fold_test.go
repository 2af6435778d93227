package a2a_test

// Stranger round 28b, Task.Apply with long histories: the result equals a
// plain fold written from Apply's documented rules ("A message whose ID the
// history already holds is a new version of it and replaces that entry; a
// message without an ID is always added"; "a *MessageRevision replaces the
// message of its ID in the history"; "a *StatusUpdate sets the status, its
// message joins the history").

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// applySeeds is how many seeds TestApplyCopiedByValueBothApplied,
// TestApplyCopiedByValueWithItsOwnSlice and each case of
// TestApplyAfterTheCallerChangesTheHistory run. Each seed checks
// every Apply against the plain fold of the whole history, so a seed costs
// about a second; the default suite runs one, CI runs 4.
var applySeeds = flag.Int("apply.seeds", 1, "how many seeds the TestApply* tests that check every step run (CI: 4)")

// applySteps is how many checked steps each seed of
// TestApplyCopiedByValueBothApplied and TestApplyCopiedByValueWithItsOwnSlice
// runs, and twice the checked steps of each round of
// TestApplyAfterTheCallerChangesTheHistory; the default suite runs 200, CI
// runs 600.
var applySteps = flag.Int("apply.steps", 200, "how many checked steps a seed of the TestApplyCopiedByValue* tests runs, twice those of a round of TestApplyAfterTheCallerChangesTheHistory (CI: 600)")

// s28bRefAdd is the plain fold of one message into a history: replace the
// entry of its ID, or add it. The doc does not say which entry of a
// history that holds an ID twice (only a caller's hand can make one):
// s28bNewest picks the newest, else the oldest.
var s28bNewest = true

func s28bRefAdd(h []a2a.Message, m *a2a.Message) []a2a.Message {
	c := *m.Clone()
	if c.ID != "" && s28bNewest {
		for i := len(h) - 1; i >= 0; i-- {
			if h[i].ID == c.ID {
				h[i] = c
				return h
			}
		}
	}
	if c.ID != "" && !s28bNewest {
		for i := range h {
			if h[i].ID == c.ID {
				h[i] = c
				return h
			}
		}
	}
	return append(h, c)
}

// s28bRefApply folds ev into a copy of h (the history as the task shows it
// before ev) and returns the history Apply must leave.
func s28bRefApply(h []a2a.Message, ev a2a.Event) []a2a.Message {
	out := make([]a2a.Message, len(h), len(h)+1)
	for i := range h {
		out[i] = *h[i].Clone()
	}
	switch e := ev.(type) {
	case *a2a.Message:
		return s28bRefAdd(out, e)
	case *a2a.MessageRevision:
		return s28bRefAdd(out, e.Message)
	case *a2a.StatusUpdate:
		if e.Status.Message != nil {
			return s28bRefAdd(out, e.Status.Message)
		}
	}
	return out
}

// s28bGen makes events: new messages, duplicates, revisions, messages
// without IDs, status updates with and without messages.
type s28bGen struct {
	r    *rand.Rand
	ids  []string
	step int
}

func (g *s28bGen) msg(id string) *a2a.Message {
	g.step++
	return &a2a.Message{ID: id, TaskID: "t", ContextID: "c", Role: a2a.RoleAgent,
		Parts: []a2a.Part{a2a.TextPart(fmt.Sprintf("v%d", g.step))}}
}

func (g *s28bGen) fresh() string {
	id := fmt.Sprintf("m-%d-%d", len(g.ids), g.r.IntN(1<<30))
	g.ids = append(g.ids, id)
	return id
}

func (g *s28bGen) old() string {
	if len(g.ids) == 0 {
		return g.fresh()
	}
	return g.ids[g.r.IntN(len(g.ids))]
}

func (g *s28bGen) next() a2a.Event {
	switch p := g.r.IntN(100); {
	case p < 40:
		return g.msg(g.fresh())
	case p < 55:
		return g.msg(g.old())
	case p < 70:
		m := g.msg(g.old())
		return &a2a.MessageRevision{TaskID: "t", ContextID: "c", Message: m}
	case p < 80:
		return g.msg("")
	case p < 90:
		id := g.fresh()
		if g.r.IntN(2) == 0 {
			id = g.old()
		}
		return &a2a.StatusUpdate{TaskID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.StateWorking, Message: g.msg(id)}}
	default:
		return &a2a.StatusUpdate{TaskID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.StateWorking}}
	}
}

// s28bApplyChecked applies ev to tk and checks the history against the
// plain fold of the history tk showed just before.
func s28bApplyChecked(t *testing.T, what string, tk *a2a.Task, ev a2a.Event) {
	t.Helper()
	want := s28bRefApply(tk.History, ev)
	tk.Apply(ev)
	if len(want) != len(tk.History) {
		tail := func(h []a2a.Message) (out []string) {
			for _, m := range h[max(0, len(h)-3):] {
				out = append(out, m.ID+"="+m.Text())
			}
			return out
		}
		t.Logf("%s: want tail %v, got tail %v", what, tail(want), tail(tk.History))
		require.Equal(t, len(want), len(tk.History), "%s: history length after %T", what, ev)
	}
	for i := range want {
		if want[i].ID != tk.History[i].ID || want[i].Text() != tk.History[i].Text() {
			require.Equal(t, want[i], tk.History[i], "%s: history[%d] after %T %+v", what, i, ev, ev)
		}
	}
}

func TestApplyLongHistoriesEqualThePlainFold(t *testing.T) {
	for _, n := range []int{1000, 20000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			seeds := uint64(3)
			if n > 1000 {
				seeds = 1
			}
			for seed := range seeds {
				g := &s28bGen{r: rand.New(rand.NewPCG(seed, 28))}
				tk := &a2a.Task{ID: "t"}
				var ref []a2a.Message
				for i := range n {
					ev := g.next()
					tk.Apply(ev)
					switch e := ev.(type) {
					case *a2a.Message:
						ref = s28bRefAdd(ref, e)
					case *a2a.MessageRevision:
						ref = s28bRefAdd(ref, e.Message)
					case *a2a.StatusUpdate:
						if e.Status.Message != nil {
							ref = s28bRefAdd(ref, e.Status.Message)
						}
					}
					if i%1009 == 0 || i == n-1 {
						require.Equal(t, ref, tk.History, "seed %d, after %d events", seed, i+1)
					}
				}
				require.Greater(t, len(tk.History), n/2)
			}
		})
	}
}

// A task copied by value midway, both copies applied to: each must fold
// as the plain fold of the history it shows.
func TestApplyCopiedByValueBothApplied(t *testing.T) {
	for seed := range uint64(*applySeeds) {
		g := &s28bGen{r: rand.New(rand.NewPCG(seed, 281))}
		tk := &a2a.Task{ID: "t"}
		for range 600 {
			tk.Apply(g.next())
		}
		u := *tk //nolint:govet // copied by value on purpose
		for i := range *applySteps {
			s28bApplyChecked(t, fmt.Sprintf("seed %d original, step %d", seed, i), tk, g.next())
			s28bApplyChecked(t, fmt.Sprintf("seed %d copy, step %d", seed, i), &u, g.next())
			if i%3 == 0 { // the same event to both
				ev := g.next()
				s28bApplyChecked(t, fmt.Sprintf("seed %d original, same, step %d", seed, i), tk, ev)
				s28bApplyChecked(t, fmt.Sprintf("seed %d copy, same, step %d", seed, i), &u, ev)
			}
		}
	}
}

// The same, with the copy given a slice of its own (so that the two never
// share a backing array): the copy's index is its own.
func TestApplyCopiedByValueWithItsOwnSlice(t *testing.T) {
	for seed := range uint64(*applySeeds) {
		g := &s28bGen{r: rand.New(rand.NewPCG(seed, 282))}
		tk := &a2a.Task{ID: "t"}
		for range 600 {
			tk.Apply(g.next())
		}
		u := *tk //nolint:govet // copied by value on purpose
		u.History = append([]a2a.Message(nil), tk.History...)
		for i := range *applySteps {
			s28bApplyChecked(t, fmt.Sprintf("seed %d original, step %d", seed, i), tk, g.next())
			s28bApplyChecked(t, fmt.Sprintf("seed %d copy, step %d", seed, i), &u, g.next())
		}
	}
}

// json.Unmarshal into a Task that had a long, indexed history: the decoded
// history is what Apply folds into, whatever the old one held. The decoded
// history has the old one's length and its first and last IDs, and other
// IDs between them.
func TestApplyAfterJSONDecodeIntoTheTask(t *testing.T) {
	for _, keepEnds := range []bool{true, false} {
		t.Run(fmt.Sprintf("same first and last IDs %v", keepEnds), func(t *testing.T) {
			g := &s28bGen{r: rand.New(rand.NewPCG(7, 283))}
			tk := &a2a.Task{ID: "t"}
			for range 500 {
				tk.Apply(g.msg(g.fresh()))
			}
			tk.Apply(g.msg(g.ids[250])) // the index is in use
			oldIDs := append([]string(nil), g.ids...)
			other := &a2a.Task{ID: "t"}
			for i := range len(tk.History) {
				id := fmt.Sprintf("new-%d", i)
				if keepEnds && (i == 0 || i == len(tk.History)-1) {
					id = tk.History[i].ID
				}
				other.History = append(other.History, *g.msg(id))
			}
			b, err := json.Marshal(other)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, tk))
			require.Equal(t, len(other.History), len(tk.History))
			require.Equal(t, other.History[100].ID, tk.History[100].ID, "decoded")
			for i := range 300 {
				var id string
				switch i % 3 {
				case 0:
					id = oldIDs[g.r.IntN(len(oldIDs))] // gone from the history: added
				case 1:
					id = fmt.Sprintf("new-%d", g.r.IntN(len(other.History))) // replaced
				default:
					id = ""
				}
				s28bApplyChecked(t, fmt.Sprintf("step %d, id %q", i, id), tk, g.msg(id))
			}
		})
	}
}

// History changed by the caller midway, in every way the doc names:
// reassigned (with duplicates and messages without IDs), cut, appended to,
// first or last entry rewritten.
func TestApplyAfterTheCallerChangesTheHistory(t *testing.T) {
	changes := map[string]func(tk *a2a.Task, g *s28bGen){
		"reassigned": func(tk *a2a.Task, g *s28bGen) {
			h := make([]a2a.Message, 0, 400)
			for i := range 400 {
				id := g.old()
				if i%7 == 0 {
					id = ""
				}
				h = append(h, *g.msg(id)) // old IDs, some twice
			}
			tk.History = h
		},
		"cut": func(tk *a2a.Task, g *s28bGen) { tk.History = tk.History[:len(tk.History)/2] },
		"cut from the front": func(tk *a2a.Task, g *s28bGen) {
			tk.History = tk.History[len(tk.History)/2:]
		},
		"appended to": func(tk *a2a.Task, g *s28bGen) {
			tk.History = append(tk.History, *g.msg(g.fresh()), *g.msg(g.old()))
		},
		"first rewritten": func(tk *a2a.Task, g *s28bGen) { tk.History[0] = *g.msg(g.fresh()) },
		"last rewritten":  func(tk *a2a.Task, g *s28bGen) { tk.History[len(tk.History)-1] = *g.msg(g.fresh()) },
		"emptied":         func(tk *a2a.Task, g *s28bGen) { tk.History = nil },
		"replaced by a new slice with IDs moved": func(tk *a2a.Task, g *s28bGen) {
			h := append([]a2a.Message(nil), tk.History...)
			g.r.Shuffle(len(h), func(i, j int) { h[i], h[j] = h[j], h[i] })
			tk.History = h
		},
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(*applySeeds) {
				g := &s28bGen{r: rand.New(rand.NewPCG(seed, 284))}
				tk := &a2a.Task{ID: "t"}
				for range 700 {
					tk.Apply(g.next())
				}
				for round := range 3 {
					change(tk, g)
					for i := range *applySteps / 2 {
						s28bApplyChecked(t, fmt.Sprintf("seed %d round %d step %d", seed, round, i), tk, g.next())
					}
				}
			}
		})
	}
}

// A *Task event replaces the task whole; Apply after it folds into the new
// history, not the old index.
func TestApplyAfterATaskEvent(t *testing.T) {
	g := &s28bGen{r: rand.New(rand.NewPCG(9, 285))}
	tk := &a2a.Task{ID: "t"}
	for range 600 {
		tk.Apply(g.next())
	}
	snap := &a2a.Task{ID: "t"}
	for range 300 {
		snap.History = append(snap.History, *g.msg(g.old()))
	}
	tk.Apply(snap)
	require.Equal(t, snap.History, tk.History)
	snap.History[0].ID = "changed after" // Apply keeps a copy
	require.NotEqual(t, "changed after", tk.History[0].ID)
	for i := range 600 {
		s28bApplyChecked(t, fmt.Sprintf("step %d", i), tk, g.next())
	}
}
