package wirematrix

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/foldcheck"
	"github.com/a2astream/a2astream/stream"
)

// Drain runs the stream to its end, applying every event the way an
// application would, and checks the stream's invariant on the way (every
// check of foldcheck's Strict mode, and after each event that Task's
// artifacts are the fold of the events, order included). It returns the
// fold and the stream's error.
func Drain(t *testing.T, s *stream.Stream) (*foldcheck.Fold, error) {
	t.Helper()
	return DrainEach(t, s, foldcheck.Strict, nil)
}

// DrainEach is Drain with the checks of mode, handing each event to each
// (if not nil) too, before it is folded.
func DrainEach(t *testing.T, s *stream.Stream, mode foldcheck.Mode, each func(a2a.Event)) (*foldcheck.Fold, error) {
	t.Helper()
	f := &foldcheck.Fold{Mode: mode}
	defer s.Close()
	for s.Next() {
		if each != nil {
			each(s.Event())
		}
		f.Apply(t, s.Event())
		if task := s.Task(); task != nil {
			// The deltas rebuild Task().Artifacts exactly, order included.
			f.RequireArtifacts(t, task.Artifacts, "after each event")
		}
	}
	f.RequireMessagesOnce(t)
	return f, s.Err()
}

// RequireSameAsServer checks the no-loss guarantee: the application's
// artifacts (got, in any order) equal the server's final ones and the
// final state matches. It returns the server's task.
func RequireSameAsServer(t *testing.T, agent *a2atest.Agent, s *stream.Stream, got *foldcheck.Fold) *a2a.Task {
	t.Helper()
	require.NotNil(t, got, "against the server's final task: no fold (a record built by hand holds none)")
	require.NotNil(t, s.Task())
	server := agent.Task(s.Task().ID)
	require.NotNil(t, server)
	got.RequireArtifactsAnyOrder(t, server.Artifacts, "against the server's final task")
	require.Equal(t, server.Status.State, s.Task().Status.State)
	return server
}

// PartsDelivered counts the artifact parts that events carry.
func PartsDelivered(events []a2a.Event) int {
	n := 0
	for _, ev := range events {
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			n += len(u.Artifact.Parts)
		}
	}
	return n
}

// ServerParts counts the parts of t's artifacts.
func ServerParts(t *a2a.Task) int {
	n := 0
	for _, a := range t.Artifacts {
		n += len(a.Parts)
	}
	return n
}
