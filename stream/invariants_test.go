package stream_test

// Checkers of what must hold whatever the scenario: the fold of what was
// yielded equals the task (drain, drainLoose, requireArtifactsFold), the
// application saw what the server has (wirematrix.RequireSameAsServer, with
// the other checkers the wire matrix shares), nothing was
// sent twice (sendCounts, firstSends), no secret left its origin
// (requireNoCredentialsOutside, requireNoSecret), and the counts and
// extractors they use.

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/foldcheck"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// collected is what a test application saw: the record of a
// foldcheck.Fold, under the names the stream tests read.
type collected struct {
	fold   *foldcheck.Fold // nil in a record a test builds by hand
	events []a2a.Event
	// task is the events folded by a2a.Task.Apply, as an application folds
	// them; its artifacts must equal the stream's Task().Artifacts.
	task      a2a.Task
	artifacts []a2a.Artifact // task.Artifacts
	messages  []string
	states    []a2a.TaskState
	shown     map[string]string // each message's text as the application shows it
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
// each with the same parts, name, description and metadata, in any order
// (foldcheck's RequireArtifactsAnyOrder).
func (c *collected) requireArtifacts(t *testing.T, want []a2a.Artifact, msg string) {
	t.Helper()
	require.NotNil(t, c.fold, "%s: a record built by hand holds no fold", msg)
	c.fold.RequireArtifactsAnyOrder(t, want, msg)
}

// drain runs the stream to its end, applying every event the way an
// application would, and checks the stream's invariant on the way (every
// check of foldcheck's Strict mode).
func drain(t *testing.T, s *stream.Stream) (*collected, error) {
	t.Helper()
	return drainFold(t, s, foldcheck.Strict)
}

// drainLoose runs the stream to its end as drain does (checking after each
// event that Task().Artifacts is the fold of the events), without drain's
// checks on messages, which messages without an ID or with data parts only
// do not fit (foldcheck's Loose mode).
func drainLoose(t *testing.T, s *stream.Stream) (*collected, error) {
	t.Helper()
	return drainFold(t, s, foldcheck.Loose)
}

// drainFold is drain with the checks of mode (wirematrix.DrainEach), under
// the names the stream tests read.
func drainFold(t *testing.T, s *stream.Stream, mode foldcheck.Mode) (*collected, error) {
	t.Helper()
	f, err := wirematrix.DrainEach(t, s, mode, nil)
	return &collected{
		fold:      f,
		events:    f.Events,
		task:      f.Task,
		artifacts: f.Task.Artifacts,
		messages:  f.Messages,
		states:    f.States,
		shown:     f.Shown,
	}, err
}

// drainEnding runs s to its end and returns its ending.
func drainEnding(s *stream.Stream) stream.Ending {
	defer s.Close()
	for s.Next() {
	}
	return s.Ending()
}

// describeEvents is a short account of events, for failure messages.
func describeEvents(evs []a2a.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		switch e := ev.(type) {
		case *a2a.StatusUpdate:
			fmt.Fprintf(&b, "[status %s", e.Status.State)
			if e.Status.Message != nil {
				fmt.Fprintf(&b, " %q", e.Status.Message.Text())
			}
			b.WriteString("] ")
		case *a2a.ArtifactUpdate:
			fmt.Fprintf(&b, "[artifact %s append=%v parts=%d %q] ", e.Artifact.ID, e.Append, len(e.Artifact.Parts), e.Artifact.Text())
		case *a2a.Message:
			fmt.Fprintf(&b, "[message %s %q] ", e.ID, e.Text())
		case *a2a.MessageRevision:
			fmt.Fprintf(&b, "[revision %s %q] ", e.Message.ID, e.Message.Text())
		}
	}
	return b.String()
}

// deliveredParts returns, per artifact, the texts of the parts the stream
// delivered, in order.
func deliveredParts(c *collected) map[string][]string {
	return wirematrix.DeliveredParts(c.events)
}

// requireMessagesAsServer checks that the application shows, for every
// agent message of the server's task, the server's last version, and that
// the stream's Task holds each message once, in its last version.
func requireMessagesAsServer(t *testing.T, server *a2a.Task, s *stream.Stream, got *collected) {
	t.Helper()
	n := 0
	for _, m := range server.History {
		if m.Role != a2a.RoleAgent {
			continue
		}
		n++
		shown, ok := got.shown[m.ID]
		require.True(t, ok, "agent message %s (%q) never shown", m.ID, m.Text())
		require.Equal(t, m.Text(), shown, "the application shows the server's last version of %s", m.ID)
	}
	require.NotZero(t, n, "the server's task has agent messages")
	if sm := server.Status.Message; sm != nil {
		require.Equal(t, sm.Text(), got.shown[sm.ID], "status message as the server's")
		require.NotNil(t, s.Task().Status.Message)
		require.Equal(t, sm.Text(), s.Task().Status.Message.Text(), "Task().Status.Message is the last version")
	}
	ids := map[string]int{}
	for _, m := range s.Task().History {
		ids[m.ID]++
		require.Equal(t, 1, ids[m.ID], "message %s held twice in Task().History", m.ID)
		if m.Role == a2a.RoleAgent {
			require.Equal(t, m.Text(), got.shown[m.ID], "Task().History holds the version shown")
		}
	}
}

// requireArtifactsFold asserts that Task().Artifacts is the fold of the events
// yielded so far.
func requireArtifactsFold(t *testing.T, fold *a2a.Task, got *a2a.Task, when string) {
	t.Helper()
	if got == nil {
		require.Empty(t, fold.Artifacts, when)
		return
	}
	require.Equal(t, len(fold.Artifacts), len(got.Artifacts), "%s: artifact count of Task() against the fold of the events yielded", when)
	for i := range fold.Artifacts {
		require.Equal(t, fold.Artifacts[i], got.Artifacts[i], "%s: artifact %d", when, i)
	}
}

// requireNoCredentialsOutside asserts that no hop to an origin other than
// named carried any of the secret headers, and returns how many hops went
// to named (so that a test can check it is not vacuous).
func requireNoCredentialsOutside(t *testing.T, m *originRouter, named string) (inside, outside int) {
	t.Helper()
	nu, err := url.Parse(named)
	require.NoError(t, err)
	own := originOf(nu)
	for _, h := range m.recorded() {
		if h.origin() == own {
			inside++
			continue
		}
		outside++
		for k, vs := range h.header {
			for _, v := range vs {
				require.NotContains(t, v, "secret", "%s %s (origin %s) carried %s, though the caller named %s", h.method, h.url, h.origin(), k, own)
			}
		}
		require.NotContains(t, h.url.String(), "secret", "%s %s (origin %s): a secret in the URL", h.method, h.url, h.origin())
	}
	return inside, outside
}

// requireNoSecret asserts that neither err's text (nor that of any error
// in its chain) nor the log holds a secret.
func requireNoSecret(t *testing.T, err error, log *logCapture, what string) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		require.NotContains(t, e.Error(), "secret", "%s: error text", what)
	}
	require.NotContains(t, log.String(), "secret", "%s: log", what)
}

func requireProtocolError(t *testing.T, err error, reason string) *transport.ProtocolError {
	t.Helper()
	var pe *transport.ProtocolError
	require.ErrorAs(t, err, &pe, "got %T: %v", err, err)
	require.Contains(t, pe.Reason, reason)
	var re *reconnect.Error
	require.False(t, errors.As(err, &re), "a protocol error is never retried")
	return pe
}

// requireKept checks that a protocol error carries the task as last known.
func requireKept(t *testing.T, pe *transport.ProtocolError) {
	t.Helper()
	require.NotNil(t, pe.Task, "the last task is carried")
	require.Equal(t, "t-1", pe.Task.ID)
	require.Equal(t, "kept", pe.Task.Artifact("a1").Text())
}

// firstSends counts the sends of a new message (not follow-ups).
func firstSends(agent *a2atest.Agent) int {
	n := 0
	for _, r := range agent.Requests() {
		if r.Message != nil && r.Message.TaskID == "" {
			n++
		}
	}
	return n
}

// sendCounts counts the sends the agent received of a new message (first) and
// of follow-ups (replies), refused ones included: what went on the wire.
func sendCounts(agent *a2atest.Agent) (first, replies int) {
	return wirematrix.SendCountsOf(agent, false)
}

func indexOfState(states []a2a.TaskState, st a2a.TaskState) int {
	for i := range states {
		if states[i] == st {
			return i
		}
	}
	return -1
}

// nextUntilWorking advances s to its first working status update.
func nextUntilWorking(t *testing.T, s *stream.Stream) {
	t.Helper()
	for s.Next() {
		if u, ok := s.Event().(*a2a.StatusUpdate); ok && u.Status.State == a2a.StateWorking {
			return
		}
	}
	t.Fatalf("the stream ended before working: %v", s.Err())
}

func gets(agent *a2atest.Agent) int { return wirematrix.CountMethod(agent, "tasks/get", "GetTask") }

// unarySends counts the unary sends an a2atest agent received.
func unarySends(agent *a2atest.Agent) int {
	return wirematrix.CountMethod(agent, "message/send", "SendMessage")
}
