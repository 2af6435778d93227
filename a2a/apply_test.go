package a2a_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

func textArtifact(id string, texts ...string) a2a.Artifact {
	a := a2a.Artifact{ID: id}
	for _, s := range texts {
		a.Parts = append(a.Parts, a2a.TextPart(s))
	}
	return a
}

func TestArtifactApply(t *testing.T) {
	t.Parallel()
	held := func() a2a.Artifact {
		a := textArtifact("a1", "x")
		a.Name, a.Description = "plan", "the plan"
		a.Metadata = map[string]any{"k": "old", "keep": 1.0}
		return a
	}
	tests := []struct {
		name string
		u    a2a.ArtifactUpdate
		want a2a.Artifact
	}{{
		name: "a replacement takes everything from the update",
		u:    a2a.ArtifactUpdate{Artifact: textArtifact("a1", "y")},
		want: textArtifact("a1", "y"),
	}, {
		name: "an append adds parts and keeps what it does not carry",
		u:    a2a.ArtifactUpdate{Append: true, Artifact: textArtifact("a1", "y", "z")},
		want: func() a2a.Artifact {
			a := held()
			a.Parts = append(a.Parts, a2a.TextPart("y"), a2a.TextPart("z"))
			return a
		}(),
	}, {
		name: "an append's name, description and metadata keys win",
		u: a2a.ArtifactUpdate{Append: true, Artifact: a2a.Artifact{ID: "a1", Name: "plan v2", Description: "longer",
			Parts: []a2a.Part{a2a.TextPart("y")}, Metadata: map[string]any{"k": "new", "more": true}}},
		want: a2a.Artifact{ID: "a1", Name: "plan v2", Description: "longer",
			Parts:    []a2a.Part{a2a.TextPart("x"), a2a.TextPart("y")},
			Metadata: map[string]any{"k": "new", "keep": 1.0, "more": true}},
	}, {
		name: "an empty append changes nothing",
		u:    a2a.ArtifactUpdate{Append: true, Artifact: a2a.Artifact{ID: "a1"}},
		want: held(),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := held()
			a.Apply(&tc.u)
			require.Equal(t, tc.want, a)
		})
	}
}

func TestArtifactApplyMergesIntoNilMetadata(t *testing.T) {
	t.Parallel()
	a := textArtifact("a1", "x")
	a.Apply(&a2a.ArtifactUpdate{Append: true, Artifact: a2a.Artifact{ID: "a1", Metadata: map[string]any{"k": "v"}}})
	require.Equal(t, map[string]any{"k": "v"}, a.Metadata)
}

// Apply keeps copies: changing the update afterwards, as a decoder that
// reuses its buffers would, changes nothing held.
// TestArtifactApplyAppendCopiesPartsInPlace: an appended chunk's parts are
// copied straight into the artifact's list, with no list of copies made
// first: appending a text part where the list has room allocates nothing
// (a stream appends one per event).
func TestArtifactApplyAppendCopiesPartsInPlace(t *testing.T) {
	a := textArtifact("a1", "x")
	a.Parts = append(make([]a2a.Part, 0, 8), a.Parts...)
	u := &a2a.ArtifactUpdate{Append: true, Artifact: textArtifact("a1", "y")}
	allocs := testing.AllocsPerRun(100, func() {
		a.Parts = a.Parts[:1]
		a.Apply(u)
	})
	require.Equal(t, 0.0, allocs)
	require.Equal(t, "xy", a.Text())
}

func TestApplyKeepsCopies(t *testing.T) {
	t.Parallel()
	var task a2a.Task
	first := &a2a.ArtifactUpdate{Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: "x", Metadata: map[string]any{"n": []any{1.0}}}},
		Metadata: map[string]any{"k": map[string]any{"deep": "v"}}}}
	task.Apply(first)
	more := &a2a.ArtifactUpdate{Append: true, Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: "y"}},
		Metadata: map[string]any{"j": []any{"w"}}}}
	task.Apply(more)
	msg := &a2a.Message{ID: "m1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "hi"}}}
	task.Apply(msg)
	st := &a2a.StatusUpdate{Status: a2a.TaskStatus{State: a2a.StateWorking, Message: &a2a.Message{ID: "m2", Parts: []a2a.Part{{Text: "on it"}}}}}
	task.Apply(st)
	want := task.Clone()

	first.Artifact.Parts[0].Text = "changed"
	first.Artifact.Parts[0].Metadata["n"].([]any)[0] = 2.0
	first.Artifact.Metadata["k"].(map[string]any)["deep"] = "changed"
	more.Artifact.Parts[0].Text = "changed"
	more.Artifact.Metadata["j"].([]any)[0] = "changed"
	msg.Parts[0].Text = "changed"
	st.Status.Message.Parts[0].Text = "changed"
	require.Equal(t, want, &task)
}

func TestTaskApply(t *testing.T) {
	t.Parallel()
	agent := func(id, text string) *a2a.Message {
		return &a2a.Message{ID: id, Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(text)}}
	}
	var task a2a.Task
	task.Apply(&a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.StateSubmitted},
		History: []a2a.Message{*a2a.NewTextMessage(a2a.RoleUser, "hello")}})
	require.Equal(t, "t1", task.ID)
	require.Len(t, task.History, 1)

	// An append to an artifact the task does not hold adds it: its parts
	// are the first the client has.
	task.Apply(&a2a.ArtifactUpdate{Append: true, Artifact: textArtifact("a1", "x")})
	task.Apply(&a2a.ArtifactUpdate{Artifact: textArtifact("a2", "p")})
	task.Apply(&a2a.ArtifactUpdate{Append: true, Artifact: textArtifact("a1", "y")})
	task.Apply(&a2a.ArtifactUpdate{Artifact: textArtifact("a2", "q")})
	require.Equal(t, []a2a.Artifact{textArtifact("a1", "x", "y"), textArtifact("a2", "q")}, task.Artifacts)

	task.Apply(&a2a.StatusUpdate{Status: a2a.TaskStatus{State: a2a.StateWorking, Message: agent("s1", "Day")}})
	require.Equal(t, a2a.StateWorking, task.Status.State)
	task.Apply(agent("m1", "note"))
	task.Apply(&a2a.Message{Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("no ID")}})
	task.Apply(&a2a.Message{Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("no ID")}})
	// A revision, and a message sent again under a known ID, replace the
	// entry in place.
	task.Apply(&a2a.MessageRevision{Message: agent("s1", "Day one")})
	task.Apply(agent("m1", "note, longer"))
	task.Apply(&a2a.StatusUpdate{Status: a2a.TaskStatus{State: a2a.StateCompleted, Message: agent("s1", "Day one: rest")}})

	var texts []string
	for i := range task.History {
		texts = append(texts, task.History[i].Text())
	}
	require.Equal(t, []string{"hello", "Day one: rest", "note, longer", "no ID", "no ID"}, texts)
	require.Equal(t, a2a.StateCompleted, task.Status.State)
	require.Equal(t, "Day one: rest", task.Status.Message.Text())

	// A whole task replaces everything.
	task.Apply(&a2a.Task{ID: "t1", Status: a2a.TaskStatus{State: a2a.StateFailed}})
	require.Equal(t, a2a.Task{ID: "t1", Status: a2a.TaskStatus{State: a2a.StateFailed}}, task)
}

// ExampleTask_Apply folds a stream's events into the application's copy of
// the task, as a chat UI keeps what it shows.
func ExampleTask_Apply() {
	events := []a2a.Event{
		&a2a.ArtifactUpdate{Artifact: a2a.Artifact{ID: "a1", Name: "plan", Parts: []a2a.Part{a2a.TextPart("Day one: ")}}},
		&a2a.ArtifactUpdate{Append: true, Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("museums.")}}},
		&a2a.StatusUpdate{Status: a2a.TaskStatus{State: a2a.StateCompleted}},
	}
	var shown a2a.Task
	for _, ev := range events {
		shown.Apply(ev)
	}
	fmt.Printf("%s: %q (%s)\n", shown.Artifacts[0].Name, shown.Artifacts[0].Text(), shown.Status.State)
	// Output: plan: "Day one: museums." (completed)
}

func TestTaskApplyFoldsStatusMetadata(t *testing.T) {
	t.Parallel()
	var task a2a.Task
	task.Apply(&a2a.Task{ID: "t1", Metadata: map[string]any{"session": "s-1", "step": "0"}})
	md := map[string]any{"step": "1", "error_code": "E1"}
	task.Apply(&a2a.StatusUpdate{TaskID: "t1", Status: a2a.TaskStatus{State: a2a.StateWorking}, Metadata: md})
	task.Apply(&a2a.StatusUpdate{TaskID: "t1", Status: a2a.TaskStatus{State: a2a.StateFailed}, Metadata: map[string]any{"step": "2"}})
	require.Equal(t, map[string]any{"session": "s-1", "step": "2", "error_code": "E1"}, task.Metadata, "a later key wins, none is taken away")
	md["step"] = "changed"
	require.Equal(t, "2", task.Metadata["step"], "the task keeps its own map")
}
