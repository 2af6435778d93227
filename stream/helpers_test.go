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
	events    []a2a.Event
	artifacts []a2a.Artifact
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
		switch e := ev.(type) {
		case *a2a.ArtifactUpdate:
			i := c.find(e.Artifact.ID)
			switch {
			case i < 0:
				require.False(t, e.Append, "append to unknown artifact %s", e.Artifact.ID)
				c.artifacts = append(c.artifacts, e.Artifact.Clone())
			case e.Append:
				c.artifacts[i].Parts = append(c.artifacts[i].Parts, e.Artifact.Clone().Parts...)
			default:
				c.artifacts[i] = e.Artifact.Clone()
			}
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
			c.requireArtifacts(t, task.Artifacts, "after each event")
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

// requireArtifacts asserts that the application's artifacts equal want, part
// for part.
func (c *collected) requireArtifacts(t *testing.T, want []a2a.Artifact, msg string) {
	t.Helper()
	require.Equal(t, len(want), len(c.artifacts), "%s: artifact count", msg)
	for i := range want {
		j := c.find(want[i].ID)
		require.GreaterOrEqual(t, j, 0, "%s: artifact %s missing", msg, want[i].ID)
		require.Equal(t, want[i].Parts, c.artifacts[j].Parts, "%s: parts of %s", msg, want[i].ID)
	}
}

func hello() *a2a.Message { return a2a.NewTextMessage(a2a.RoleUser, "hello") }

func background() context.Context { return context.Background() }
