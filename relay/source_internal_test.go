package relay

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// How Drive opens a stream: a checkpoint that names a task is resumed,
// whatever the source; else a source of Send starts the stream, and one
// of Resume has nothing to open; a checkpoint that does not parse is
// neither.
func TestDecideOpening(t *testing.T) {
	junk := errors.New("the checkpoint does not parse")
	for _, c := range []struct {
		name     string
		parseErr error
		taskID   string
		sends    bool
		want     opening
	}{
		{"no checkpoint, or one that names no task, Send", nil, "", true, openStart},
		{"no checkpoint, or one that names no task, Resume", nil, "", false, openNotStarted},
		{"a checkpoint of a task, Send", nil, "task-1", true, openResume},
		{"a checkpoint of a task, Resume", nil, "task-1", false, openResume},
		{"a checkpoint that does not parse, Send", junk, "", true, openForeign},
		{"a checkpoint that does not parse, Resume", junk, "", false, openForeign},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, decideOpening(c.parseErr, c.taskID, c.sends))
		})
	}
}
