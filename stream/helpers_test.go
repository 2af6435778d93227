package stream_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

var versions = []a2a.Version{a2a.V03, a2a.V10}

const endpoint = "http://agent.test/"

// newClient returns a client of agent fixed to version v.
func newClient(t *testing.T, agent *a2atest.Agent, v a2a.Version, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(agent.Client()), stream.WithVersion(v)}, opts...)
	c, err := stream.NewClient(endpoint, all...)
	require.NoError(t, err)
	return c
}

// collected is what a test application saw.
type collected struct {
	events []a2a.Event
	// task is the events folded by a2a.Task.Apply, as an application folds
	// them; its artifacts must equal the stream's Task().Artifacts.
	task      a2a.Task
	artifacts []a2a.Artifact // task.Artifacts
	messages  []string
	states    []a2a.TaskState
	shown     map[string]string // each message's text as the application shows it
}

// drain runs the stream to its end, applying every event the way an
// application would, and checks the stream's invariant on the way.
func drain(t *testing.T, s *stream.Stream) (*collected, error) {
	t.Helper()
	c := &collected{shown: map[string]string{}}
	defer s.Close()
	for s.Next() {
		ev := s.Event()
		c.events = append(c.events, ev)
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			require.False(t, u.Append && c.task.Artifact(u.Artifact.ID) == nil, "append to unknown artifact %s", u.Artifact.ID)
		}
		c.task.Apply(ev)
		c.artifacts = c.task.Artifacts
		switch e := ev.(type) {
		case *a2a.ArtifactUpdate:
		case *a2a.StatusUpdate:
			c.states = append(c.states, e.Status.State)
			if m := e.Status.Message; m != nil {
				c.messages = append(c.messages, m.ID)
				c.shown[m.ID] = m.Text()
			}
		case *a2a.Message:
			c.messages = append(c.messages, e.ID)
			c.shown[e.ID] = e.Text()
		case *a2a.MessageRevision:
			old, ok := c.shown[e.Message.ID]
			require.True(t, ok, "a revision of message %s, never delivered", e.Message.ID)
			require.NotEqual(t, old, e.Message.Text(), "a revision of %s that shows the same text again", e.Message.ID)
			if e.Extends {
				require.Equal(t, e.Message.Text(), old+(&a2a.Message{Parts: e.Added}).Text(), "Added continues the text shown")
			}
			c.shown[e.Message.ID] = e.Message.Text()
		default:
			t.Fatalf("stream yielded %T; it must yield deltas only", ev)
		}
		if task := s.Task(); task != nil {
			// The deltas rebuild Task().Artifacts exactly, order included.
			require.Equal(t, len(task.Artifacts), len(c.artifacts), "after each event: artifact count")
			for i := range task.Artifacts {
				require.Equal(t, task.Artifacts[i], c.artifacts[i], "after each event: artifact %d", i)
			}
		}
	}
	seen := map[string]bool{}
	for _, id := range c.messages {
		require.False(t, seen[id], "message %s delivered twice", id)
		seen[id] = true
	}
	return c, s.Err()
}

func (c *collected) find(id string) int {
	for i := range c.artifacts {
		if c.artifacts[i].ID == id {
			return i
		}
	}
	return -1
}

func (c *collected) text(id string) string {
	if i := c.find(id); i >= 0 {
		return c.artifacts[i].Text()
	}
	return ""
}

// requireArtifacts asserts that the application's artifacts equal want,
// each with the same parts, name, description and metadata. The order may
// differ: after a gap the application learns of artifacts in the order the
// stream reveals them.
func (c *collected) requireArtifacts(t *testing.T, want []a2a.Artifact, msg string) {
	t.Helper()
	require.Equal(t, len(want), len(c.artifacts), "%s: artifact count", msg)
	for i := range want {
		j := c.find(want[i].ID)
		require.GreaterOrEqual(t, j, 0, "%s: artifact %s missing", msg, want[i].ID)
		require.Equal(t, want[i], c.artifacts[j], "%s: artifact %s", msg, want[i].ID)
	}
}

func hello() *a2a.Message { return a2a.NewTextMessage(a2a.RoleUser, "hello") }

func background() context.Context { return context.Background() }

// deliveredParts returns, per artifact, the texts of the parts the stream
// delivered, in order.
func deliveredParts(c *collected) map[string][]string {
	out := map[string][]string{}
	for _, ev := range c.events {
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			for _, p := range u.Artifact.Parts {
				out[u.Artifact.ID] = append(out[u.Artifact.ID], p.Text)
			}
		}
	}
	return out
}

func textParts(texts ...string) []a2a.Part {
	ps := make([]a2a.Part, len(texts))
	for i, s := range texts {
		ps[i] = a2a.Part{Text: s}
	}
	return ps
}

func artEvent(id string, appendChunk bool, texts ...string) *a2a.ArtifactUpdate {
	return &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: appendChunk,
		Artifact: a2a.Artifact{ID: id, Parts: textParts(texts...)}}
}
