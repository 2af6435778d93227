package wirematrix

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/foldcheck"
	"github.com/a2astream/a2astream/stream"
)

// drain runs the stream to its end, applying every event the way an
// application would, and checks the stream's invariant on the way (every
// check of foldcheck's Strict mode, and after each event that Task's
// artifacts are the fold of the events).
func drain(t *testing.T, s *stream.Stream) (*foldcheck.Fold, error) {
	t.Helper()
	return drainEach(t, s, nil)
}

// drainEach is drain that hands each event to each (if not nil) too.
func drainEach(t *testing.T, s *stream.Stream, each func(a2a.Event)) (*foldcheck.Fold, error) {
	t.Helper()
	f := &foldcheck.Fold{Mode: foldcheck.Strict}
	defer s.Close()
	for s.Next() {
		if each != nil {
			each(s.Event())
		}
		f.Apply(t, s.Event())
		if task := s.Task(); task != nil {
			f.RequireArtifacts(t, task.Artifacts, "after each event")
		}
	}
	f.RequireMessagesOnce(t)
	return f, s.Err()
}

// requireSameAsServer checks the no-loss guarantee: the application's
// artifacts equal the server's final ones and the final state matches.
func requireSameAsServer(t *testing.T, agent *a2atest.Agent, s *stream.Stream, got *foldcheck.Fold) *a2a.Task {
	t.Helper()
	require.NotNil(t, s.Task())
	server := agent.Task(s.Task().ID)
	require.NotNil(t, server)
	got.RequireArtifactsAnyOrder(t, server.Artifacts, "against the server's final task")
	require.Equal(t, server.Status.State, s.Task().Status.State)
	return server
}

// partsDelivered counts the artifact parts the stream delivered.
func partsDelivered(f *foldcheck.Fold) int {
	n := 0
	for _, ev := range f.Events {
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			n += len(u.Artifact.Parts)
		}
	}
	return n
}

func serverParts(t *a2a.Task) int {
	n := 0
	for _, a := range t.Artifacts {
		n += len(a.Parts)
	}
	return n
}
