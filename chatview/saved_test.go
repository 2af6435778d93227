package chatview_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chatview"
)

// shownEvents open an artifact, an agent message and a status message.
func shownEvents() []a2a.Event {
	status := &a2a.Message{ID: "s1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("Thinking.")}}
	return []a2a.Event{
		&a2a.StatusUpdate{TaskID: "t1", Status: a2a.TaskStatus{State: a2a.StateWorking, Message: status}},
		&a2a.ArtifactUpdate{TaskID: "t1", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("Day one: ")}}},
		&a2a.Message{ID: "m1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("Here is a plan.")}},
	}
}

// laterEvents continue each pane of shownEvents, and open one more.
func laterEvents() []a2a.Event {
	return []a2a.Event{
		&a2a.ArtifactUpdate{TaskID: "t1", Append: true, Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("the old town.")}}},
		&a2a.ArtifactUpdate{TaskID: "t1", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("Day one: the river.")}}},
		&a2a.MessageRevision{Message: &a2a.Message{ID: "s1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("Thinking. Done.")}},
			Extends: true, Added: []a2a.Part{a2a.TextPart(" Done.")}},
		&a2a.MessageRevision{Message: &a2a.Message{ID: "m1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("A new plan.")}}},
		&a2a.ArtifactUpdate{TaskID: "t1", Artifact: a2a.Artifact{ID: "a2", Parts: []a2a.Part{a2a.TextPart("Notes.")}}},
	}
}

// TestASavedScreenGoesOnAsTheScreenItWas: a Screen read back from its JSON
// says of every later event what the Screen it was saved from says: a pane
// the user saw is continued or replaced, not opened again.
func TestASavedScreenGoesOnAsTheScreenItWas(t *testing.T) {
	var before chatview.Screen
	for _, ev := range shownEvents() {
		before.Add(ev)
	}
	data, err := json.Marshal(before)
	require.NoError(t, err)
	var after chatview.Screen
	require.NoError(t, json.Unmarshal(data, &after))

	for i, ev := range laterEvents() {
		want := before.Add(ev)
		require.Equal(t, want, after.Add(ev), "event %d", i)
		if i < 4 {
			require.False(t, want.Opens, "event %d continues a pane the user saw", i)
			require.True(t, new(chatview.Screen).Add(ev).Opens, "event %d on a new Screen opens its pane again", i)
		}
	}
	require.True(t, after.Add(laterEvents()[4]).Replace, "a2 was opened after the save, by the restored Screen")
}

// TestARestoredScreenStartsALine: a program that restarts prints on a new
// line, so the first text of a Screen read back starts one, even where it
// continues the pane the saved Screen's last text went to; the next text of
// that pane continues the line.
func TestARestoredScreenStartsALine(t *testing.T) {
	var before chatview.Screen
	for _, ev := range shownEvents() {
		before.Add(ev)
	}
	more := &a2a.MessageRevision{Message: &a2a.Message{ID: "m1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("Here is a plan. More.")}},
		Extends: true, Added: []a2a.Part{a2a.TextPart(" More.")}}
	data, err := json.Marshal(before)
	require.NoError(t, err)
	var after chatview.Screen
	require.NoError(t, json.Unmarshal(data, &after))

	require.False(t, before.Add(more).NewLine, "m1 was the saved Screen's last line")
	first := after.Add(more)
	require.True(t, first.NewLine, "the restored Screen's first text starts a line")
	require.False(t, first.Opens, "and continues the pane the user saw")
	require.False(t, after.Add(more).NewLine, "its next text of m1 continues the line")
}

// TestASavedScreenIsItsPanesInOrder: the JSON names the panes opened and
// the status messages' IDs, sorted, and no text; the zero Screen is {}.
func TestASavedScreenIsItsPanesInOrder(t *testing.T) {
	data, err := json.Marshal(chatview.Screen{})
	require.NoError(t, err)
	require.JSONEq(t, `{}`, string(data))

	var sc chatview.Screen
	for _, ev := range shownEvents() {
		sc.Add(ev)
	}
	data, err = json.Marshal(&sc)
	require.NoError(t, err)
	require.JSONEq(t, `{"opened":[{"kind":"artifact","id":"a1"},{"kind":"message","id":"m1"},{"kind":"status","id":"s1"}],"status":["s1"]}`, string(data))
	again, err := json.Marshal(sc)
	require.NoError(t, err)
	require.Equal(t, data, again, "one Screen, one encoding")
	require.NotContains(t, string(data), "Day one")
}

// TestAScreenThatDoesNotParseIsRefusedWhole: bad JSON and an unknown pane
// kind are errors, and leave the Screen as it was.
func TestAScreenThatDoesNotParseIsRefusedWhole(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"not JSON", `{"opened":`, "chatview: reading a screen: unexpected end of JSON input"},
		{"an unknown kind", `{"opened":[{"kind":"artifact","id":"x"},{"kind":"window","id":"w"}]}`, `chatview: reading a screen: unknown pane kind "window"`},
		{"no kind", `{"opened":[{"id":"w"}]}`, `chatview: reading a screen: unknown pane kind ""`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var sc chatview.Screen
			sc.Add(shownEvents()[1])
			require.EqualError(t, sc.UnmarshalJSON([]byte(c.data)), c.want)
			require.False(t, sc.Add(laterEvents()[0]).Opens, "a1 is still opened")
			require.True(t, sc.Add(&a2a.ArtifactUpdate{Artifact: a2a.Artifact{ID: "x"}}).Opens, "x was not read in")
		})
	}
}
