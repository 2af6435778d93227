package a2aotel

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/hitl"
)

// wrapped is an unexported wrapper, as a library's own (a text withheld,
// the task attached) are.
type wrapped struct{ err error }

func (w *wrapped) Error() string { return "wrapped" }
func (w *wrapped) Unwrap() error { return w.err }

// error.type names the kind, not a library's unexported wrapper around it
// (a stranger round on tracing, F2): a human-input hook's failure is
// *hitl.Error whatever wraps it; an error of no known kind is named by the
// first exported type along its chain.
func TestErrorTypeNamesTheKindNotAWrapper(t *testing.T) {
	require.Equal(t, "*hitl.Error", errorType(&wrapped{&hitl.Error{Err: errors.New("no")}}))
	require.Equal(t, "*fmt.wrapError", errorType(fmt.Errorf("x: %w", errors.New("y"))), "no exported type on the chain: its own")
	require.Equal(t, "*errors.errorString", errorType(errors.New("plain")))
	type Exported struct{ wrapped }
	require.Equal(t, "*a2aotel.Exported", errorType(&wrapped{&Exported{}}))
}

// a2a.task.id is cut to 256 bytes, whole characters, whatever length the
// agent gave its task's ID (a stranger round on tracing, F3).
func TestTaskIDAttributeIsBounded(t *testing.T) {
	require.Equal(t, "t-1", taskIDAttr("t-1").Value.AsString())
	long := strings.Repeat("x", 255) + "é" + strings.Repeat("y", 64<<10)
	got := taskIDAttr(long).Value.AsString()
	require.Len(t, got, 255, "the cut does not split a character")
	require.Equal(t, strings.Repeat("x", 255), got)
	require.Len(t, taskIDAttr(strings.Repeat("z", 300)).Value.AsString(), 256)
}
