package a2a_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// linearHistory is the history as Task.Apply built it before it kept an
// index: a message whose ID the history holds replaces the newest entry of
// that ID, found by a scan from the newest; any other message is appended.
func linearHistory(h []a2a.Message, m *a2a.Message) []a2a.Message {
	if m.ID != "" {
		for i := len(h) - 1; i >= 0; i-- {
			if h[i].ID == m.ID {
				h[i] = *m.Clone()
				return h
			}
		}
	}
	return append(h, *m.Clone())
}

// historyOp is a change of a task's history: through Apply (a message, a
// status update with a message, a revision) or made by hand, as an
// application may (the slice replaced, cut, appended to, rewritten in
// place, decoded into, the task copied by value or cloned).
type historyOp struct {
	name  string
	apply func(task *a2a.Task, want []a2a.Message, m *a2a.Message) (*a2a.Task, []a2a.Message)
}

func historyOps() []historyOp {
	viaApply := func(ev func(m *a2a.Message) a2a.Event) func(task *a2a.Task, want []a2a.Message, m *a2a.Message) (*a2a.Task, []a2a.Message) {
		return func(task *a2a.Task, want []a2a.Message, m *a2a.Message) (*a2a.Task, []a2a.Message) {
			task.Apply(ev(m))
			return task, linearHistory(want, m)
		}
	}
	return []historyOp{
		{"message", viaApply(func(m *a2a.Message) a2a.Event { return m })},
		{"status", viaApply(func(m *a2a.Message) a2a.Event {
			return &a2a.StatusUpdate{Status: a2a.TaskStatus{State: a2a.StateWorking, Message: m}}
		})},
		{"revision", viaApply(func(m *a2a.Message) a2a.Event { return &a2a.MessageRevision{Message: m} })},
		{"replaced by a copy", func(task *a2a.Task, want []a2a.Message, _ *a2a.Message) (*a2a.Task, []a2a.Message) {
			task.History = slices.Clone(task.History)
			return task, want
		}},
		{"cut", func(task *a2a.Task, want []a2a.Message, _ *a2a.Message) (*a2a.Task, []a2a.Message) {
			n := len(task.History) * 2 / 3
			task.History = task.History[:n]
			return task, want[:n]
		}},
		{"appended by hand", func(task *a2a.Task, want []a2a.Message, m *a2a.Message) (*a2a.Task, []a2a.Message) {
			task.History = append(task.History, *m.Clone())
			return task, append(want, *m.Clone())
		}},
		{"first and last rewritten in place", func(task *a2a.Task, want []a2a.Message, m *a2a.Message) (*a2a.Task, []a2a.Message) {
			if len(task.History) == 0 {
				return task, want
			}
			for _, i := range []int{0, len(task.History) - 1} {
				task.History[i] = *m.Clone()
				want[i] = *m.Clone()
			}
			return task, want
		}},
		{"an entry between them renamed in place", func(task *a2a.Task, want []a2a.Message, m *a2a.Message) (*a2a.Task, []a2a.Message) {
			// Its old ID, looked up later, is found no more (a new ID given
			// in place is not looked for: Apply's doc says so).
			if len(task.History) < 3 {
				return task, want
			}
			i := len(task.History) / 2
			task.History[i].ID = "renamed-" + m.Text()
			want[i].ID = "renamed-" + m.Text()
			return task, want
		}},
		{"decoded into", func(task *a2a.Task, want []a2a.Message, _ *a2a.Message) (*a2a.Task, []a2a.Message) {
			// encoding/json reuses the slice's array: the same place, other
			// messages.
			other := slices.Clone(want)
			slices.Reverse(other)
			raw, err := json.Marshal(struct{ History []a2a.Message }{other})
			if err != nil {
				panic(err)
			}
			if err := json.Unmarshal(raw, task); err != nil {
				panic(err)
			}
			decoded := make([]a2a.Message, len(task.History))
			for i := range task.History {
				decoded[i] = *task.History[i].Clone()
			}
			return task, decoded
		}},
		{"copied by value", func(task *a2a.Task, want []a2a.Message, m *a2a.Message) (*a2a.Task, []a2a.Message) {
			// The copy shares the array and the original's index; the
			// original moves on with a message of its own (appended to an
			// array of its own).
			c := *task
			c.History = slices.Clip(c.History)
			task.Apply(&a2a.Message{ID: "only-" + m.Text(), Role: a2a.RoleAgent})
			return &c, want
		}},
		{"cloned", func(task *a2a.Task, want []a2a.Message, m *a2a.Message) (*a2a.Task, []a2a.Message) {
			c := task.Clone()
			task.Apply(m) // the original moves on; the clone does not see it
			return c, want
		}},
	}
}

// Apply with its index gives exactly the history the linear Apply gave,
// over long random runs of new messages, duplicates, replays, messages
// without an ID and changes made by hand, on both sides of the length from
// which the index is used.
func TestTaskApplyIndexGivesTheLinearHistory(t *testing.T) {
	ops := historyOps()
	for _, pool := range []int{8, 40, 400} { // the history stays short, crosses the length indexed, or goes far past it
		for seed := range uint64(8) {
			t.Run(fmt.Sprintf("ids=%d/seed=%d", pool, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, uint64(pool)))
				task, want := &a2a.Task{}, []a2a.Message(nil)
				var trail []string
				for step := range 600 {
					m := &a2a.Message{Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(fmt.Sprint("v", step))}}
					if r.IntN(8) > 0 { // one in eight has no ID
						m.ID = fmt.Sprint("m-", r.IntN(pool))
					}
					op := ops[0]
					if r.IntN(4) == 0 {
						op = ops[r.IntN(len(ops))]
					}
					trail = append(trail, op.name+" "+m.ID)
					task, want = op.apply(task, want, m)
					if !sameEntries(want, task.History) {
						require.Equal(t, entries(want), entries(task.History), "after %v", trail[max(0, len(trail)-5):])
					}
				}
			})
		}
	}
}

// entries is each message of h as its ID and text.
func entries(h []a2a.Message) []string {
	out := make([]string, len(h))
	for i := range h {
		out[i] = h[i].ID + ":" + h[i].Text()
	}
	return out
}

// sameEntries reports whether a and b hold the same messages, by ID and text.
func sameEntries(a, b []a2a.Message) bool {
	return slices.EqualFunc(a, b, func(x, y a2a.Message) bool { return x.ID == y.ID && x.Text() == y.Text() })
}

// The cases by name: a replay of an old message, a revision, messages
// without an ID, and a zero task, past the length from which Apply indexes.
func TestTaskApplyFindsMessagesOfALongHistory(t *testing.T) {
	msg := func(id, text string) *a2a.Message {
		return &a2a.Message{ID: id, Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(text)}}
	}
	var task a2a.Task
	for i := range 1000 {
		task.Apply(msg(fmt.Sprint("m-", i), "first"))
		task.Apply(msg("", "no ID"))
	}
	require.Len(t, task.History, 2000)
	task.Apply(msg("m-3", "again"))   // a replay of an old one replaces it
	task.Apply(msg("m-999", "again")) // and of the newest
	task.Apply(&a2a.StatusUpdate{Status: a2a.TaskStatus{State: a2a.StateWorking, Message: msg("m-500", "in a status")}})
	task.Apply(&a2a.MessageRevision{Message: msg("m-0", "revised")})
	task.Apply(msg("", "no ID")) // always added
	require.Len(t, task.History, 2001)
	require.Equal(t, "again", task.History[6].Text())
	require.Equal(t, "again", task.History[1998].Text())
	require.Equal(t, "in a status", task.History[1000].Text())
	require.Equal(t, "revised", task.History[0].Text())
	require.Equal(t, "no ID", task.History[2000].Text())

	// An entry renamed in place: its old ID is found no more.
	task.History[200].ID = "renamed"
	task.Apply(msg("m-100", "back"))
	require.Len(t, task.History, 2002)
	require.Equal(t, "renamed", task.History[200].ID)
	require.Equal(t, "back", task.History[2001].Text())
	task.History = task.History[:2001]

	var decoded a2a.Task
	raw, err := json.Marshal(task)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &decoded))
	decoded.Apply(msg("m-7", "after decoding"))
	require.Len(t, decoded.History, 2001)
	require.Equal(t, "after decoding", decoded.History[14].Text())

	clone := task.Clone()
	clone.Apply(msg("m-new", "only in the clone"))
	task.Apply(msg("m-new", "only in the task"))
	require.Len(t, clone.History, 2002)
	require.Len(t, task.History, 2002)
	require.Equal(t, "only in the clone", clone.History[2001].Text())
	require.Equal(t, "only in the task", task.History[2001].Text())
}

// json.Unmarshal into a task whose long history Apply indexed reuses the
// history's array: Apply then finds the messages decoded, not those the
// array held before.
func TestTaskApplyFindsMessagesDecodedIntoTheTask(t *testing.T) {
	const n = 500
	var task a2a.Task
	decoded := make([]a2a.Message, n)
	for i := range n {
		task.Apply(&a2a.Message{ID: fmt.Sprint("m-", i), Role: a2a.RoleAgent})
		decoded[i] = a2a.Message{ID: fmt.Sprint("d-", i), Role: a2a.RoleAgent}
	}
	raw, err := json.Marshal(struct{ History []a2a.Message }{decoded})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &task))
	task.Apply(&a2a.Message{ID: "d-250", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("new version")}})
	require.Len(t, task.History, n, "a message decoded is replaced, not added")
	require.Equal(t, "new version", task.History[250].Text())
}

// A task copied by value and the original, each folding messages in a
// goroutine of its own, share no index (under -race, a shared map is a data
// race).
func TestTaskCopiedByValueAppliesOnItsOwn(t *testing.T) {
	var task a2a.Task
	for i := range 300 { // long enough to be indexed
		task.Apply(&a2a.Message{ID: fmt.Sprint("m-", i), Role: a2a.RoleAgent})
	}
	c := task
	c.History = slices.Clip(c.History)
	task.History = slices.Clip(task.History)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 100 {
			c.Apply(&a2a.Message{ID: fmt.Sprint("c-", i), Role: a2a.RoleAgent})
			c.Apply(&a2a.Message{ID: fmt.Sprint("m-", i), Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("c")}})
		}
	}()
	for i := range 100 {
		task.Apply(&a2a.Message{ID: fmt.Sprint("t-", i), Role: a2a.RoleAgent})
	}
	<-done
	require.Len(t, task.History, 400)
	require.Len(t, c.History, 400)
	require.Equal(t, "t-99", task.History[399].ID)
	require.Equal(t, "c-99", c.History[399].ID)
	require.Equal(t, "c", c.History[42].Text())
	require.Empty(t, task.History[42].Text())
}

// Folding 20,000 messages and a revision of each: linear in the messages
// (the history was scanned per message, 5 to 11 s under -race for a test of
// the ledger); BenchmarkTaskApplyMessages has the figures.
func TestTaskApplyFoldsTwentyThousandMessages(t *testing.T) {
	var task a2a.Task
	const n = 20000
	for i := range n {
		task.Apply(&a2a.Message{ID: fmt.Sprint("m-", i), Role: a2a.RoleAgent})
	}
	for i := range n {
		task.Apply(&a2a.MessageRevision{Message: &a2a.Message{ID: fmt.Sprint("m-", i), Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("r")}}})
	}
	require.Len(t, task.History, n)
	for i := range task.History {
		require.Equal(t, fmt.Sprint("m-", i), task.History[i].ID)
		require.Equal(t, "r", task.History[i].Text())
	}
}
