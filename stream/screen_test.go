package stream_test

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chatview"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
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
	t.Parallel()
	for _, w := range wires() {
		for _, style := range wirematrix.ResubscribeStyles() {
			for cut := 1; cut <= 12; cut++ {
				t.Run(fmt.Sprintf("%s/%s/cut-after-%d", w, style, cut), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(textScript()...),
							a2atest.WithStyle(style), a2atest.WithFaults(a2atest.CutAfterEvents(cut), a2atest.CutAfterEvents(cut/2+1)))
						s := reconnectingClient(t, w, agent).Send(background(), hello())
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
		for _, style := range wirematrix.ResubscribeStyles() {
			for cut := 1; cut <= 6; cut++ {
				t.Run(fmt.Sprintf("%s/%s/cut-after-%d", w, style, cut), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(
							a2atest.Working("Hel"), a2atest.Pause(time.Second), a2atest.Working("lo, "), a2atest.Pause(time.Second),
							a2atest.Working("wor"), a2atest.Pause(time.Second), a2atest.Finish(a2a.StateCompleted, "ld.")),
							a2atest.WithCumulativeMessage(), a2atest.WithStyle(style), a2atest.WithFaults(a2atest.CutAfterEvents(cut)))
						s := reconnectingClient(t, w, agent).Send(background(), hello())
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
// only extend. Data and file parts add no text. A row printer starts a line
// for a pane opened or replaced, and for a text of another pane than the
// last text's.
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
			chatview.Text{Pane: status("s1"), Role: a2a.RoleAgent, Opens: true, Content: "thinking", NewLine: true}},
		{"the first chunk of an artifact, not appended", &a2a.ArtifactUpdate{Artifact: art("a1", text("Hello"))},
			chatview.Text{Pane: artifact("a1"), Opens: true, Content: "Hello", NewLine: true}},
		{"an appended chunk", &a2a.ArtifactUpdate{Artifact: art("a1", text(", "), data, text("world")), Append: true},
			chatview.Text{Pane: artifact("a1"), Content: ", world"}},
		{"a chunk of data only", &a2a.ArtifactUpdate{Artifact: art("a1", data), Append: true},
			chatview.Text{Pane: artifact("a1")}},
		{"a chunk that replaces the artifact", &a2a.ArtifactUpdate{Artifact: art("a1", text("Hi"))},
			chatview.Text{Pane: artifact("a1"), Replace: true, Content: "Hi", NewLine: true}},
		{"a replacement without text", &a2a.ArtifactUpdate{Artifact: art("a1", data)},
			chatview.Text{Pane: artifact("a1"), Replace: true, NewLine: true}},
		{"another artifact's first chunk", &a2a.ArtifactUpdate{Artifact: art("a2", text("x"))},
			chatview.Text{Pane: artifact("a2"), Opens: true, Content: "x", NewLine: true}},
		{"a chunk of the artifact before starts a line again: the agent interleaves them", &a2a.ArtifactUpdate{Artifact: art("a1", text("!")), Append: true},
			chatview.Text{Pane: artifact("a1"), Content: "!", NewLine: true}},
		{"a status without a message in between leaves the line alone", &a2a.StatusUpdate{Status: a2a.TaskStatus{State: a2a.StateWorking}}, chatview.Text{}},
		{"the next chunk of the same artifact continues its line", &a2a.ArtifactUpdate{Artifact: art("a1", text("!")), Append: true},
			chatview.Text{Pane: artifact("a1"), Content: "!"}},
		{"and the other artifact's next one starts a line", &a2a.ArtifactUpdate{Artifact: art("a2", text("y")), Append: true},
			chatview.Text{Pane: artifact("a2"), Content: "y", NewLine: true}},
		{"a message", agentMsg("m1", "a note"), chatview.Text{Pane: message("m1"), Role: a2a.RoleAgent, Opens: true, Content: "a note", NewLine: true}},
		{"a message without an ID", agentMsg("", "anon"), chatview.Text{Pane: message(""), Role: a2a.RoleAgent, Opens: true, Content: "anon", NewLine: true}},
		{"another message without an ID", agentMsg("", "anon"), chatview.Text{Pane: message(""), Role: a2a.RoleAgent, Opens: true, Content: "anon", NewLine: true}},
		{"a revision that extends a message", &a2a.MessageRevision{Message: agentMsg("m1", "a note, longer"), Extends: true, Added: []a2a.Part{text(", longer")}},
			chatview.Text{Pane: message("m1"), Role: a2a.RoleAgent, Content: ", longer", NewLine: true}},
		{"a revision that rewrites a message", &a2a.MessageRevision{Message: agentMsg("m1", "other")},
			chatview.Text{Pane: message("m1"), Role: a2a.RoleAgent, Replace: true, Content: "other", NewLine: true}},
		{"a revision of the status message stays in its pane", &a2a.MessageRevision{Message: agentMsg("s1", "thinking hard"), Extends: true, Added: []a2a.Part{text(" hard")}},
			chatview.Text{Pane: status("s1"), Role: a2a.RoleAgent, Content: " hard", NewLine: true}},
		{"a status message missed in a gap comes back as a message", agentMsg("s2", "missed"),
			chatview.Text{Pane: message("s2"), Role: a2a.RoleAgent, Opens: true, Content: "missed", NewLine: true}},
		{"a user's message", &a2a.Message{ID: "u1", Role: a2a.RoleUser, Parts: []a2a.Part{text("hi")}},
			chatview.Text{Pane: message("u1"), Role: a2a.RoleUser, Opens: true, Content: "hi", NewLine: true}},
		{"a revision of a message never met opens its pane, with nothing to clear", &a2a.MessageRevision{Message: agentMsg("m9", "late")},
			chatview.Text{Pane: message("m9"), Role: a2a.RoleAgent, Opens: true, Content: "late", NewLine: true}},
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

// Screen at the edges: a UI that applies only what Screen.Add returns
// (clearing a pane on Replace, appending Content to its pane) ends with
// exactly the task's text in every pane, on every wire, when the agent
// replaces an artifact on purpose, revises a message (shorter, rewritten,
// longer), repeats a message without an ID, puts data between text parts,
// is polled, is followed by Client.Subscribe, or interleaves many artifacts;
// across cuts and the three server styles.

// strictUI is a UI that shows only what Screen.Add returns, and checks the
// promises of Text on each event: Opens exactly on a pane's first event,
// never with Replace, and no text outside a pane; NewLine exactly when a
// row printer must start a line, so that no line holds two panes' text.
// Messages without an ID get a pane of their own each time.
type strictUI struct {
	screen   chatview.Screen
	panes    map[chatview.Pane]string
	anon     []string // the panes of messages without an ID, in order
	replaces int
	line     chatview.Pane // the pane of the row printer's current line
}

func (u *strictUI) show(t *testing.T, ev a2a.Event) {
	t.Helper()
	if u.panes == nil {
		u.panes = map[chatview.Pane]string{}
	}
	tx := u.screen.Add(ev)
	require.False(t, tx.Replace && tx.Opens, "Replace with Opens on %+v", tx)
	if tx.Pane == (chatview.Pane{}) {
		require.Equal(t, chatview.Text{}, tx, "text outside any pane for %T", ev)
		return
	}
	if tx.Pane != u.line || tx.Opens || tx.Replace {
		require.True(t, tx.NewLine, "a row printer would put %q (%v) on the line of %v", tx.Content, tx.Pane, u.line)
	} else {
		require.False(t, tx.NewLine, "a line broken within pane %v", tx.Pane)
	}
	u.line = tx.Pane
	if tx.Pane.ID == "" && tx.Pane.Kind != chatview.PaneArtifact {
		require.True(t, tx.Opens, "a message without an ID opens a pane of its own")
		u.anon = append(u.anon, tx.Content)
		return
	}
	_, had := u.panes[tx.Pane]
	require.Equal(t, !had, tx.Opens, "Opens exactly on the first event of pane %v (%T)", tx.Pane, ev)
	if tx.Replace {
		u.replaces++
		u.panes[tx.Pane] = ""
	}
	u.panes[tx.Pane] += tx.Content
}

// requireShows asserts that the panes hold exactly the task's text: each
// artifact's, each agent message's (status messages included, each in one
// pane only), and the messages without an ID, each in a pane of its own.
// Panes and artifacts without text are left out on both sides.
func (u *strictUI) requireShows(t *testing.T, task *a2a.Task) {
	t.Helper()
	require.NotNil(t, task)
	want := map[chatview.Pane]string{}
	var wantAnon []string
	for i := range task.Artifacts {
		if text := task.Artifacts[i].Text(); text != "" {
			want[chatview.Pane{Kind: chatview.PaneArtifact, ID: task.Artifacts[i].ID}] = text
		}
	}
	for i := range task.History {
		m := &task.History[i]
		if m.Role == a2a.RoleUser || m.Text() == "" {
			continue
		}
		if m.ID == "" {
			wantAnon = append(wantAnon, m.Text())
			continue
		}
		want[chatview.Pane{Kind: chatview.PaneMessage, ID: m.ID}] = m.Text()
	}
	got := map[chatview.Pane]string{}
	for p, text := range u.panes {
		if text == "" {
			continue
		}
		if p.Kind == chatview.PaneStatus {
			p.Kind = chatview.PaneMessage // a message is a message, wherever it came
		}
		_, twice := got[p]
		require.False(t, twice, "message %s shown in a status pane and a message pane", p.ID)
		got[p] = text
	}
	require.Equal(t, want, got, "the panes hold the task's text")
	var gotAnon []string
	for _, s := range u.anon {
		if s != "" {
			gotAnon = append(gotAnon, s)
		}
	}
	slices.Sort(wantAnon)
	slices.Sort(gotAnon)
	require.Equal(t, wantAnon, gotAnon, "each message without an ID in a pane of its own, once")
}

// The README's first program prints every text in a row, starting a line
// on NewLine. After a gap on a live-only server (a2a-go's style), the part
// of an artifact missed in the gap comes after another artifact's text; it
// starts a line of its own instead of being glued to the other pane (seen
// against a2a-go v0.3.3 by a new user, helper BE), on every wire.
func TestARowPrinterKeepsEachLineToOnePaneAfterAGap(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithStyle(a2atest.LiveOnly),
					a2atest.WithScript(
						a2atest.Working(""),
						a2atest.Chunk("story", "Once upon a time, ", false, false),
						a2atest.Pause(time.Second),
						a2atest.Chunk("story", "a gopher met a node.", true, true), // sent in the gap
						a2atest.Pause(time.Second),
						a2atest.Chunk("summary", "A short story.", false, true),
						a2atest.Pause(time.Second),
						a2atest.Finish(a2a.StateCompleted, "")),
					a2atest.WithFaults(a2atest.CutAfterEvents(3))) // the task, working, "Once upon a time, "
				s := reconnectingClient(t, w, agent, stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 1500 * time.Millisecond})).
					Send(background(), hello())
				defer s.Close()
				var out []byte // the README's first program
				var screen chatview.Screen
				for s.Next() {
					tx := screen.Add(s.Event())
					if tx.NewLine {
						out = append(out, '\n')
					}
					out = append(out, tx.Content...)
				}
				require.NoError(t, s.Err())
				require.Equal(t, "\nOnce upon a time, \nA short story.\na gopher met a node.", string(out))
			})
		})
	}
}

// screenRun drains s into a strictUI and returns it.
func screenRun(t *testing.T, s *stream.Stream) *strictUI {
	t.Helper()
	defer s.Close()
	var ui strictUI
	for s.Next() {
		ui.show(t, s.Event())
	}
	require.NoError(t, s.Err())
	return &ui
}

// screenScripts are the a2atest scripts of the sweep, each with the number
// of events it yields (for the cuts).
func screenScripts() map[string][]a2atest.Step {
	mixed := a2a.Artifact{ID: "m1", Parts: []a2a.Part{a2a.TextPart("left "), {Data: []byte(`{"k":1}`)}, a2a.TextPart("right")}}
	more := a2a.Artifact{ID: "m1", Parts: []a2a.Part{{Data: []byte(`{"k":2}`)}, a2a.TextPart(" tail"), {URL: "https://x.example/f.png"}}}
	return map[string][]a2atest.Step{
		// The agent replaces its own artifact in the middle of the stream.
		"artifact replaced on purpose": {
			a2atest.Working("drafting"),
			a2atest.Chunk("a1", "draft ", false, false), a2atest.Pause(time.Second),
			a2atest.Chunk("a1", "one", true, false), a2atest.Pause(time.Second),
			a2atest.Chunk("a1", "final ", false, false), a2atest.Pause(time.Second),
			a2atest.Chunk("a1", "answer", true, true), a2atest.Pause(time.Second),
			a2atest.Finish(a2a.StateCompleted, "done"),
		},
		// Data and file parts between text parts.
		"data between text parts": {
			a2atest.Working("mixing"),
			a2atest.ArtifactChunk(mixed, false, false), a2atest.Pause(time.Second),
			a2atest.ArtifactChunk(more, true, false), a2atest.Pause(time.Second),
			a2atest.Chunk("m1", " end", true, true),
			a2atest.Finish(a2a.StateCompleted, "done"),
		},
		// Many artifacts, interleaved, with status messages and messages.
		"many artifacts interleaved": {
			a2atest.Working("step 1"),
			a2atest.Chunk("a1", "a1-0 ", false, false), a2atest.Chunk("a2", "a2-0 ", false, false),
			a2atest.Pause(time.Second),
			a2atest.Chunk("a3", "a3-0 ", false, false), a2atest.Chunk("a1", "a1-1 ", true, false),
			a2atest.Working("step 2"), a2atest.Say("note"),
			a2atest.Pause(time.Second),
			a2atest.Chunk("a4", "a4-0 ", false, false), a2atest.Chunk("a2", "a2-1", true, true),
			a2atest.Chunk("a3", "a3-1", true, true), a2atest.Pause(time.Second),
			a2atest.Working("step 3"),
			a2atest.Chunk("a1", "a1-2", true, true), a2atest.Chunk("a4", "a4-1", true, true),
			a2atest.Finish(a2a.StateCompleted, "all done"),
		},
	}
}

// A UI fed by Screen ends with the task's text, each word once, on every
// wire and server style, with cuts at every event: an artifact the agent
// replaces on purpose, data parts between text parts, many artifacts
// interleaved (status messages a cut hides are recovered from the gap).
func TestScreenEndsWithTheTaskTextAcrossCuts(t *testing.T) {
	t.Parallel()
	for name, script := range screenScripts() {
		for _, w := range wires() {
			for _, style := range wirematrix.ResubscribeStyles() {
				for cut := 1; cut <= 14; cut++ {
					t.Run(fmt.Sprintf("%s/%s/%s/cut-%d", name, w, style, cut), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(script...),
								a2atest.WithStyle(style), a2atest.WithFaults(a2atest.CutAfterEvents(cut), a2atest.CutAfterEvents(cut/2+1)))
							s := reconnectingClient(t, w, agent).Send(background(), hello())
							ui := screenRun(t, s)
							ui.requireShows(t, s.Task())
						})
					})
				}
			}
		}
	}
}

// An agent that cannot stream is polled: the UI ends with the task's text.
func TestScreenEndsWithTheTaskTextWhenPolled(t *testing.T) {
	t.Parallel()
	scripts := screenScripts()
	scripts["text"] = textScript()
	for name, script := range scripts {
		for _, w := range wires() {
			t.Run(name+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(script...),
						a2atest.WithoutStreaming())
					s := reconnectingClient(t, w, agent).Send(background(), hello())
					ui := screenRun(t, s)
					ui.requireShows(t, s.Task())
				})
			})
		}
	}
}

// Client.Subscribe to a task that is running, with a Screen of its own:
// the UI ends with the task's whole text, what came before the subscribe
// included, across a cut of the subscription.
func TestScreenOfASubscribeToARunningTask(t *testing.T) {
	t.Parallel()
	for name, script := range screenScripts() {
		for _, w := range wires() {
			for _, style := range wirematrix.ResubscribeStyles() {
				for _, after := range []int{1, 3} {
					t.Run(fmt.Sprintf("%s/%s/%s/after-%d", name, w, style, after), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(script...),
								a2atest.WithStyle(style), a2atest.WithFaults(a2atest.Fault{}, a2atest.CutAfterEvents(2)))
							c := reconnectingClient(t, w, agent)
							first := c.Send(background(), hello())
							for range after {
								require.True(t, first.Next())
							}
							id := first.Task().ID
							require.NoError(t, first.Close())
							s := c.Subscribe(background(), id)
							ui := screenRun(t, s)
							ui.requireShows(t, s.Task())
							require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
						})
					})
				}
			}
		}
	}
}

// timelineAgent plays a fixed timeline of a task's events on a wire: the
// streaming send gets the first cut events, then the connection ends
// cleanly (a drop); a subscribe gets, after a gap of skip events, the
// rest, led by the task as it stood (snapshot) or not (live only); a
// get-task gets the task as the whole timeline leaves it.
type timelineAgent struct {
	events []a2a.Event
	cut    int
	skip   int
	style  a2atest.ResubscribeStyle // LiveOnly, SnapshotFirst, or FullReplay (from the first event, skip ignored)
}

func (a timelineAgent) fold(n int) *a2a.Task {
	var t a2a.Task
	for _, ev := range a.events[:n] {
		t.Apply(ev)
	}
	return &t
}

func (a timelineAgent) on() map[callKind]func(w *wireWriter, c wireCall) {
	return map[callKind]func(w *wireWriter, c wireCall){
		kindStream: func(w *wireWriter, c wireCall) {
			w.sse()
			for _, ev := range a.events[:a.cut] {
				w.event(ev)
			}
		},
		kindSubscribe: func(w *wireWriter, c wireCall) {
			from := min(a.cut+a.skip, len(a.events))
			if a.style == a2atest.FullReplay {
				from = 0
			}
			w.sse()
			if a.style == a2atest.SnapshotFirst {
				w.event(a.fold(from))
			}
			for _, ev := range a.events[from:] {
				w.event(ev)
			}
		},
		kindGet: func(w *wireWriter, c wireCall) { w.task(a.fold(len(a.events))) },
	}
}

// revisedTimeline: one status message revised again and again: longer,
// shorter, rewritten, longer; an ID-less message said twice with the same
// text (unless idless is false); the final status carries the last
// version.
func revisedTimeline(idless bool) []a2a.Event {
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	n := 0
	msg := func(id, text string) *a2a.Message {
		return &a2a.Message{ID: id, TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(text)}}
	}
	status := func(state a2a.TaskState, m *a2a.Message) *a2a.StatusUpdate {
		n++
		return &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Final: state.Terminal(),
			Status: a2a.TaskStatus{State: state, Message: m, Timestamp: at.Add(time.Duration(n) * time.Second)}}
	}
	user := hello()
	user.ID, user.TaskID, user.ContextID = "u-1", "t-1", "c-1"
	events := []a2a.Event{
		&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted, Timestamp: at}, History: []a2a.Message{*user}},
		status(a2a.StateWorking, msg("m1", "Hello")),
		status(a2a.StateWorking, msg("m1", "Hello world, a long first answer")),
		msg("", "ok"),
		status(a2a.StateWorking, msg("m1", "Hi")),
		status(a2a.StateWorking, msg("m1", "Goodbye")),
		msg("", "ok"),
		status(a2a.StateWorking, msg("m1", "Goodbye, friend")),
		status(a2a.StateCompleted, msg("m1", "Goodbye, friend.")),
	}
	if idless {
		return events
	}
	return slices.DeleteFunc(events, func(ev a2a.Event) bool {
		m, ok := ev.(*a2a.Message)
		return ok && m.ID == ""
	})
}

// A status message the agent revises (longer, shorter, rewritten) and an
// ID-less message said twice, across a cut at every event and a gap of
// zero to two events, from a live-only, a snapshot-first and a replaying
// server (the statuses carry timestamps): the
// UI ends with the last version in the message's one pane, and each
// ID-less message in a pane of its own (not from the replaying server).
func TestScreenOfRevisedAndIDlessMessagesAcrossCuts(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, style := range wirematrix.ResubscribeStyles() {
			// A replaying server's ID-less messages come twice: see
			// TestIDlessMessagesReplayedFromTheStartAreDeliveredOnce.
			idless := style != a2atest.FullReplay
			events := revisedTimeline(idless)
			for cut := 1; cut < len(events); cut++ {
				for skip := 0; skip <= 2 && cut+skip < len(events) && (skip == 0 || style != a2atest.FullReplay); skip++ {
					t.Run(fmt.Sprintf("%s/%s/cut-%d/skip-%d", w, style, cut, skip), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							tl := timelineAgent{events: events, cut: cut, skip: skip, style: style}
							agent := newWireAgent(w, tl.on())
							s := agent.client(t, stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond})).Send(background(), hello())
							ui := screenRun(t, s)
							ui.requireShows(t, s.Task())
							require.Equal(t, "Goodbye, friend.", ui.panes[chatview.Pane{Kind: chatview.PaneStatus, ID: "m1"}])
							if idless {
								require.Equal(t, []string{"ok", "ok"}, ui.anon)
							}
						})
					})
				}
			}
		}
	}
}

// idlessTimeline: messages without an ID, two of the same text and one of
// another, with status updates between them.
func idlessTimeline(same bool) []a2a.Event {
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	msg := func(text string) *a2a.Message {
		return &a2a.Message{TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(text)}}
	}
	status := func(state a2a.TaskState, sec int) *a2a.StatusUpdate {
		return &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Final: state.Terminal(),
			Status: a2a.TaskStatus{State: state, Timestamp: at.Add(time.Duration(sec) * time.Second)}}
	}
	second := "ok"
	if !same {
		second = "fine"
	}
	user := hello()
	user.ID, user.TaskID, user.ContextID = "u-1", "t-1", "c-1"
	return []a2a.Event{
		&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted, Timestamp: at}, History: []a2a.Message{*user}},
		status(a2a.StateWorking, 1),
		msg("ok"),
		status(a2a.StateWorking, 2),
		msg(second),
		msg("third"),
		status(a2a.StateCompleted, 3),
	}
}

// A server that replays every event from the start after a cut sends
// again the messages without an ID it sent before: each is delivered once,
// and Task() holds the server's history, whether two of them say the same
// thing or not. A live-only or snapshot-first server's new message that
// says what an earlier one said is still delivered.
func TestIDlessMessagesReplayedFromTheStartAreDeliveredOnce(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, same := range []bool{false, true} {
			events := idlessTimeline(same)
			for cut := 1; cut < len(events); cut++ {
				for _, style := range []a2atest.ResubscribeStyle{a2atest.FullReplay, a2atest.SnapshotFirst, a2atest.LiveOnly} {
					t.Run(fmt.Sprintf("%s/%s/same-text-%t/cut-%d", w, style, same, cut), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							tl := timelineAgent{events: events, cut: cut, style: style}
							agent := newWireAgent(w, tl.on())
							s := agent.client(t, stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond})).Send(background(), hello())
							var texts []string
							for s.Next() {
								if m, ok := s.Event().(*a2a.Message); ok {
									texts = append(texts, m.Text())
								}
							}
							require.NoError(t, s.Err())
							want := []string{"ok", "fine", "third"}
							if same {
								want[1] = "ok"
							}
							require.Equal(t, want, texts, "each message delivered once, in order")
							var held []string
							for _, m := range s.Task().History {
								if m.Role == a2a.RoleAgent {
									held = append(held, m.Text())
								}
							}
							require.Equal(t, want, held, "Task() holds each message once")
						})
					})
				}
			}
		}
	}
}
