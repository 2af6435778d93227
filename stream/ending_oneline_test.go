package stream_test

// Ending.String is one line for a person whatever text the agent gives:
// every Unicode line break, control character and bidirectional control
// reads as a space, invalid UTF-8 as U+FFFD, and the line is cut at
// stream.MaxEndingLine bytes on a character boundary.

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// endingsOf returns the endings a reason reaches a person through: a
// failed task's status message, a structured failure's code and message,
// and the error of a stream whose task did not end.
func endingsOf(reason string) map[string]stream.Ending {
	failed := &a2a.Task{ID: "t-1", Status: a2a.TaskStatus{State: a2a.StateFailed,
		Message: a2a.NewTextMessage(a2a.RoleAgent, reason)}}
	structured := &a2a.Task{ID: "t-1", Status: a2a.TaskStatus{State: a2a.StateFailed}, Metadata: map[string]any{
		"error_type": "tool", "error_code": reason, "error_message": reason}}
	return map[string]stream.Ending{
		"status message":     stream.EndingOf(terminal.FromTask(failed)),
		"structured failure": stream.EndingOf(terminal.FromTask(structured)),
		"error":              stream.EndingOf(errors.New(reason)),
	}
}

func TestEndingStringReadsEveryLineBreakAndControlAsASpace(t *testing.T) {
	for _, c := range []struct {
		name, reason, want string
	}{
		{"LF", "a\nb", "a b"},
		{"CR", "a\rb", "a b"},
		{"CRLF is one break", "a\r\nb", "a b"},
		{"two LFs", "a\n\nb", "a  b"},
		{"vertical tab", "a\vb", "a b"},
		{"form feed", "a\fb", "a b"},
		{"NEL", "a\u0085b", "a b"},
		{"LINE SEPARATOR", "a\u2028b", "a b"},
		{"PARAGRAPH SEPARATOR", "a\u2029b", "a b"},
		{"tab", "a\tb", "a b"},
		{"NUL and BEL", "a\x00\x07b", "a  b"},
		{"an ANSI escape", "\x1b[31mred", " [31mred"},
		{"DEL", "a\x7fb", "a b"},
		{"C1 CSI", "a\u009b2Jb", "a 2Jb"},
		{"RIGHT-TO-LEFT OVERRIDE", "a\u202eb\u202c", "a b "},
		{"isolates", "\u2066a\u2067b\u2068c\u2069", " a b c "},
		{"marks", "a\u200eb\u200fc\u061cd", "a b c d"},
		{"invalid UTF-8", "a\xffb\xe2\x82c", "a\ufffdb\ufffd\ufffdc"},
		{"text of the world stays", "déjà vu — 東京 😀 \u200dx", "déjà vu — 東京 😀 \u200dx"},
	} {
		for how, e := range endingsOf(c.reason) {
			t.Run(c.name+"/"+how, func(t *testing.T) {
				line := e.String()
				requireOneBoundedLine(t, line)
				require.Contains(t, line, c.want)
			})
		}
	}
}

// A line of MaxEndingLine bytes is kept whole; one byte more is cut, with
// its ellipsis, to at most MaxEndingLine bytes, never inside a character,
// also when line breaks were read as spaces before the cut.
func TestEndingStringCutsAtItsBoundOnACharacter(t *testing.T) {
	prefix := "ended: "
	fits := strings.Repeat("x", stream.MaxEndingLine-len(prefix))
	require.Equal(t, prefix+fits, stream.EndingOf(errors.New(fits)).String())

	for _, reason := range []string{
		fits + "y",
		strings.Repeat("€", stream.MaxEndingLine),
		strings.Repeat("\u2028€", stream.MaxEndingLine),
		strings.Repeat("\xff", stream.MaxEndingLine),
		strings.Repeat("😀\n", stream.MaxEndingLine),
	} {
		line := stream.EndingOf(errors.New(reason)).String()
		requireOneBoundedLine(t, line)
		require.True(t, strings.HasSuffix(line, "…"), "%.80q…", line)
		require.Greater(t, len(line), stream.MaxEndingLine-8, "cut no shorter than a character needs")
	}
}

// FuzzEndingString: whatever the reason, in a status message, a structured
// failure or an error, Ending.String is valid UTF-8 of at most
// MaxEndingLine bytes with no control character, line or paragraph
// separator, or bidirectional control.
func FuzzEndingString(f *testing.F) {
	for _, seed := range []string{
		"", "quota exceeded", "a\r\nb\rc\nd", "a\vb\fc\u0085d\u2028e\u2029f", "\x1b[31mred\x7f\u009b",
		"\u202eevil\u202c", "a\xffb\xe2\x82", strings.Repeat("€\u2028", 300), strings.Repeat("x", 600),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, reason string) {
		for _, e := range endingsOf(reason) {
			requireOneBoundedLine(t, e.String())
		}
	})
}
