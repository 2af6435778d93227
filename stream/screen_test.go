package stream_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chatview"
)

// screenUI is a UI that shows only what Screen.Add returns: one pane per
// Pane, cleared on Replace.
type screenUI struct {
	screen   chatview.Screen
	panes    map[chatview.Pane]string
	replaces int
}

func (u *screenUI) show(t *testing.T, ev a2a.Event) {
	t.Helper()
	if u.panes == nil {
		u.panes = map[chatview.Pane]string{}
	}
	tx := u.screen.Add(ev)
	if tx.Pane.Kind == 0 {
		require.Empty(t, tx.Content, "text outside any pane")
		return
	}
	if _, had := u.panes[tx.Pane]; tx.Pane.ID != "" || tx.Pane.Kind == chatview.PaneArtifact {
		require.Equal(t, !had, tx.Opens, "Opens on the first event of a pane only")
	}
	if tx.Replace {
		u.replaces++
		u.panes[tx.Pane] = ""
	}
	u.panes[tx.Pane] += tx.Content
}

// requireShows asserts that the panes hold the task's text exactly: each
// artifact's, and each agent message's, the status messages included, and
// nothing else.
func (u *screenUI) requireShows(t *testing.T, task *a2a.Task) {
	t.Helper()
	require.NotNil(t, task)
	want := map[chatview.Pane]string{}
	for i := range task.Artifacts {
		want[chatview.Pane{Kind: chatview.PaneArtifact, ID: task.Artifacts[i].ID}] = task.Artifacts[i].Text()
	}
	got := map[chatview.Pane]string{}
	for p, text := range u.panes {
		if p.Kind == chatview.PaneStatus {
			p.Kind = chatview.PaneMessage // a message is a message, wherever it came
		}
		got[p] = text
	}
	for i := range task.History {
		if m := &task.History[i]; m.Role != a2a.RoleUser {
			want[chatview.Pane{Kind: chatview.PaneMessage, ID: m.ID}] = m.Text()
		}
	}
	require.Equal(t, want, got)
}

// textScript streams two artifacts in chunks, with status messages and a
// message between them.
func textScript() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("on it"),
		a2atest.Chunk("a1", "one ", false, false),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "two ", true, false),
		a2atest.Say("a side note"),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a2", "alpha ", false, false),
		a2atest.Chunk("a1", "three", true, true),
		a2atest.Pause(time.Second),
		a2atest.Working("nearly there"),
		a2atest.Chunk("a2", "beta", true, true),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

// A UI that shows only what Screen.Add returns shows every word once, on
// every wire, whatever the server replays when the stream resubscribes
// after a cut at any event: the panes end with the final task's text. As
// the agent only appends, no pane is ever cleared, unless the server
// replays nothing and the chunks sent during the cut come back with the
// task fetched after it.
func TestScreenShowsEachWordOnceAcrossCutsAndReplays(t *testing.T) {
	for _, w := range wires() {
		for _, style := range sgStyles {
			for cut := 1; cut <= 12; cut++ {
				t.Run(fmt.Sprintf("%s/%s/cut-after-%d", w, style, cut), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(textScript()...),
							a2atest.WithStyle(style), a2atest.WithFaults(a2atest.CutAfterEvents(cut), a2atest.CutAfterEvents(cut/2+1)))
						s := sgNewClient(t, w, agent).Send(background(), hello())
						defer s.Close()
						var ui screenUI
						for s.Next() {
							ui.show(t, s.Event())
						}
						require.NoError(t, s.Err())
						ui.requireShows(t, s.Task())
						if style == a2atest.LiveOnly {
							// A server that replays nothing loses the chunks sent
							// during the cut: the stream yields what comes next as
							// the artifact, then the task it fetches replaces it.
							require.LessOrEqual(t, ui.replaces, 2, "at most one redraw per artifact")
						} else {
							require.Zero(t, ui.replaces, "a pane cleared although the agent only appends and the server replays")
						}
						require.Equal(t, "one two three", ui.panes[chatview.Pane{Kind: chatview.PaneArtifact, ID: "a1"}])
					})
				})
			}
		}
	}
}

// An agent that streams its answer as one status message, resent longer
// each time (revisions), is shown word by word in one status pane, across
// cuts: the first version, then what each revision adds.
func TestScreenShowsRevisionsOnceAcrossCuts(t *testing.T) {
	for _, w := range wires() {
		for _, style := range sgStyles {
			for cut := 1; cut <= 6; cut++ {
				t.Run(fmt.Sprintf("%s/%s/cut-after-%d", w, style, cut), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(
							a2atest.Working("Hel"), a2atest.Pause(time.Second), a2atest.Working("lo, "), a2atest.Pause(time.Second),
							a2atest.Working("wor"), a2atest.Pause(time.Second), a2atest.Finish(a2a.StateCompleted, "ld.")),
							a2atest.WithCumulativeMessage(), a2atest.WithStyle(style), a2atest.WithFaults(a2atest.CutAfterEvents(cut)))
						s := sgNewClient(t, w, agent).Send(background(), hello())
						defer s.Close()
						var ui screenUI
						for s.Next() {
							ui.show(t, s.Event())
						}
						require.NoError(t, s.Err())
						ui.requireShows(t, s.Task())
						require.Equal(t, "Hello, world.", s.Task().Status.Message.Text())
						require.Zero(t, ui.replaces, "a pane cleared although the message only grew")
						require.Equal(t, "Hello, world.", ui.panes[chatview.Pane{Kind: chatview.PaneStatus, ID: s.Task().Status.Message.ID}])
					})
				})
			}
		}
	}
}

// What each kind of event adds, and when the pane must be cleared: a chunk
// that replaces an artifact opened before, and a revision that does not
// only extend. Data and file parts add no text.
func TestScreenAdd(t *testing.T) {
	agentMsg := func(id, text string) *a2a.Message {
		return &a2a.Message{ID: id, Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(text)}}
	}
	art := func(id string, parts ...a2a.Part) a2a.Artifact { return a2a.Artifact{ID: id, Parts: parts} }
	text, data := a2a.TextPart, a2a.Part{Data: []byte(`{"k":1}`)}
	artifact := func(id string) chatview.Pane { return chatview.Pane{Kind: chatview.PaneArtifact, ID: id} }
	message := func(id string) chatview.Pane { return chatview.Pane{Kind: chatview.PaneMessage, ID: id} }
	status := func(id string) chatview.Pane { return chatview.Pane{Kind: chatview.PaneStatus, ID: id} }

	var sc chatview.Screen
	steps := []struct {
		name string
		ev   a2a.Event
		want chatview.Text
	}{
		{"a status without a message adds nothing", &a2a.StatusUpdate{Status: a2a.TaskStatus{State: a2a.StateWorking}}, chatview.Text{}},
		{"a status message", &a2a.StatusUpdate{Status: a2a.TaskStatus{State: a2a.StateWorking, Message: agentMsg("s1", "thinking")}},
			chatview.Text{Pane: status("s1"), Role: a2a.RoleAgent, Opens: true, Content: "thinking"}},
		{"the first chunk of an artifact, not appended", &a2a.ArtifactUpdate{Artifact: art("a1", text("Hello"))},
			chatview.Text{Pane: artifact("a1"), Opens: true, Content: "Hello"}},
		{"an appended chunk", &a2a.ArtifactUpdate{Artifact: art("a1", text(", "), data, text("world")), Append: true},
			chatview.Text{Pane: artifact("a1"), Content: ", world"}},
		{"a chunk of data only", &a2a.ArtifactUpdate{Artifact: art("a1", data), Append: true},
			chatview.Text{Pane: artifact("a1")}},
		{"a chunk that replaces the artifact", &a2a.ArtifactUpdate{Artifact: art("a1", text("Hi"))},
			chatview.Text{Pane: artifact("a1"), Replace: true, Content: "Hi"}},
		{"a replacement without text", &a2a.ArtifactUpdate{Artifact: art("a1", data)},
			chatview.Text{Pane: artifact("a1"), Replace: true}},
		{"another artifact's first chunk", &a2a.ArtifactUpdate{Artifact: art("a2", text("x"))},
			chatview.Text{Pane: artifact("a2"), Opens: true, Content: "x"}},
		{"a message", agentMsg("m1", "a note"), chatview.Text{Pane: message("m1"), Role: a2a.RoleAgent, Opens: true, Content: "a note"}},
		{"a message without an ID", agentMsg("", "anon"), chatview.Text{Pane: message(""), Role: a2a.RoleAgent, Opens: true, Content: "anon"}},
		{"another message without an ID", agentMsg("", "anon"), chatview.Text{Pane: message(""), Role: a2a.RoleAgent, Opens: true, Content: "anon"}},
		{"a revision that extends a message", &a2a.MessageRevision{Message: agentMsg("m1", "a note, longer"), Extends: true, Added: []a2a.Part{text(", longer")}},
			chatview.Text{Pane: message("m1"), Role: a2a.RoleAgent, Content: ", longer"}},
		{"a revision that rewrites a message", &a2a.MessageRevision{Message: agentMsg("m1", "other")},
			chatview.Text{Pane: message("m1"), Role: a2a.RoleAgent, Replace: true, Content: "other"}},
		{"a revision of the status message stays in its pane", &a2a.MessageRevision{Message: agentMsg("s1", "thinking hard"), Extends: true, Added: []a2a.Part{text(" hard")}},
			chatview.Text{Pane: status("s1"), Role: a2a.RoleAgent, Content: " hard"}},
		{"a status message missed in a gap comes back as a message", agentMsg("s2", "missed"),
			chatview.Text{Pane: message("s2"), Role: a2a.RoleAgent, Opens: true, Content: "missed"}},
		{"a user's message", &a2a.Message{ID: "u1", Role: a2a.RoleUser, Parts: []a2a.Part{text("hi")}},
			chatview.Text{Pane: message("u1"), Role: a2a.RoleUser, Opens: true, Content: "hi"}},
		{"a revision of a message never met opens its pane, with nothing to clear", &a2a.MessageRevision{Message: agentMsg("m9", "late")},
			chatview.Text{Pane: message("m9"), Role: a2a.RoleAgent, Opens: true, Content: "late"}},
		{"a task snapshot adds nothing", &a2a.Task{ID: "t"}, chatview.Text{}},
		{"nil adds nothing", nil, chatview.Text{}},
	}
	for _, st := range steps {
		require.Equal(t, st.want, sc.Add(st.ev), st.name)
	}
	require.Equal(t, "artifact", chatview.PaneArtifact.String())
	require.Equal(t, "status", chatview.PaneStatus.String())
	require.Equal(t, "message", chatview.PaneMessage.String())
	require.Equal(t, "none", chatview.PaneKind(0).String())
}
