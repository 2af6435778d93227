package stream_test

// Ending at the edges: one line whatever text the agent, the server or a
// hook puts in the reason (newlines, a megabyte of it), EndingOf of nil
// and of a fan-out's QuorumError, and Ending after Wait and before the end
// on every wire.

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/fanout"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

// requireOneLine asserts that line is one line (no line break of any kind,
// no control character), no longer than stream.MaxEndingLine, and starts
// with prefix.
func requireOneLine(t *testing.T, line, prefix string) {
	t.Helper()
	require.True(t, strings.HasPrefix(line, prefix), "got %.200q; want it to start with %q", line, prefix)
	requireOneBoundedLine(t, line)
}

// requireOneBoundedLine asserts that line is valid UTF-8 of at most
// stream.MaxEndingLine bytes, with no character that breaks a line or
// steers its display: no control character (C0, DEL, C1), no line or
// paragraph separator, no bidirectional control.
func requireOneBoundedLine(t *testing.T, line string) {
	t.Helper()
	require.True(t, utf8.ValidString(line), "valid UTF-8: %.200q", line)
	require.LessOrEqual(t, len(line), stream.MaxEndingLine, "a line for a person, not the server's whole text")
	for _, r := range line {
		require.False(t, unicode.IsControl(r), "a control character %U in %.200q", r, line)
		require.False(t, r == '\u2028' || r == '\u2029', "a line or paragraph separator %U in %.200q", r, line)
		require.False(t, r == '\u061c' || r == '\u200e' || r == '\u200f' || '\u202a' <= r && r <= '\u202e' || '\u2066' <= r && r <= '\u2069',
			"a bidirectional control %U in %.200q", r, line)
	}
}

// multilineReasons are reasons a server may give on several lines.
func multilineReasons() map[string]string {
	return map[string]string{
		"newlines":         "first line\nsecond line\n\nthird",
		"carriage returns": "first line\r\nsecond line\rthird",
		// Every other Unicode line break, C0 and C1 controls, and the
		// bidirectional controls that reorder what a terminal shows.
		"other line breaks": "first line\vsecond\fthird\u0085fourth\u2028fifth\u2029sixth",
		"controls":          "first line\x00\x07\x1b[31mred\x7f\u009b2J\ttab",
		"bidi controls":     "first line \u202eevil\u202c \u2066isolated\u2069 \u200fmark\u061c",
	}
}

// Ending.String is one line whatever reason the agent gives on several
// lines: in the status message of a failed task, in a structured failure,
// in a JSON-RPC error, in a human-input hook's error; on every wire.
func TestEndingStringIsOneLineWhateverTheReason(t *testing.T) {
	requireEndingLines(t, multilineReasons())
}

// Ending.String is a short line whatever the length of the agent's reason:
// a megabyte of it in a status message, a structured failure, a JSON-RPC
// error or a hook's error.
func TestEndingStringIsShortWhateverTheReason(t *testing.T) {
	t.Parallel()
	requireEndingLines(t, map[string]string{"huge": strings.Repeat("very long reason ", 64<<10)})
}

// requireEndingLines ends a stream in each way with each reason, on every
// wire, and requires one short line of Ending.String and EndingOf.
func requireEndingLines(t *testing.T, reasons map[string]string) {
	for name, reason := range reasons {
		head := reason[:10]
		cases := map[string]struct {
			run    func(t *testing.T, w wire) *stream.Stream
			prefix string
		}{
			"failed task's status message": {func(t *testing.T, w wire) *stream.Stream {
				return drained(t, scripted(t, w, []a2atest.Step{a2atest.Working("on it"), a2atest.Finish(a2a.StateFailed, reason)}, nil))
			}, "failed: " + head},
			"structured failure": {func(t *testing.T, w wire) *stream.Stream {
				fail := a2atest.Finish(a2a.StateFailed, "failed").WithMetadata(map[string]any{
					"error_type": "tool", "error_code": "E_TOOL", "error_message": reason})
				return drained(t, scripted(t, w, []a2atest.Step{a2atest.Working("on it"), fail}, nil))
			}, "failed: E_TOOL: " + head},
			"JSON-RPC error": {func(t *testing.T, w wire) *stream.Stream {
				return drained(t, scripted(t, w, a2atest.DefaultScript(), []a2atest.Option{a2atest.WithFaults(
					a2atest.RPCError(a2a.CodeInvalidParams, reason, a2atest.ErrorAsJSON))}))
			}, "ended: "},
			"human-input hook's error": {func(t *testing.T, w wire) *stream.Stream {
				ask := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
					return nil, errors.New(reason)
				})
				return drained(t, scripted(t, w, []a2atest.Step{a2atest.Working("on it"), a2atest.AskInput("Which city?")}, nil,
					stream.WithHumanInput(ask)))
			}, "input-required: "},
		}
		for cname, c := range cases {
			for _, w := range wires() {
				t.Run(name+"/"+cname+"/"+w.String(), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						s := c.run(t, w)
						e := s.Ending()
						require.Error(t, e.Err)
						requireOneLine(t, e.String(), c.prefix)
						requireOneLine(t, stream.EndingOf(e.Err).String(), c.prefix)
					})
				})
			}
		}
	}
}

// EndingOf(nil) is the zero Ending: no state, no task, "not ended".
func TestEndingOfNilIsTheZeroEnding(t *testing.T) {
	e := stream.EndingOf(nil)
	require.Equal(t, stream.Ending{}, e)
	require.Equal(t, "not ended", e.String())
}

// A fan-out short of its quorum returns a *QuorumError that joins every
// call's error; EndingOf of it is still one line, and names no single
// task's state as the whole fan-out's: no task ended the fan-out.
func TestEndingOfAQuorumErrorIsOneLineAndNoTasksState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		failing := a2atest.NewAgent(a2atest.WithScript(a2atest.Working("on it"), a2atest.Finish(a2a.StateFailed, "quota exceeded")))
		rejecting := a2atest.NewAgent(a2atest.WithScript(a2atest.Finish(a2a.StateRejected, "not my job")))
		busy := a2atest.NewAgent(a2atest.WithFaults(a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy")))
		call := func(agent *a2atest.Agent) func(context.Context) (*a2a.Task, error) {
			return func(ctx context.Context) (*a2a.Task, error) {
				c, err := stream.NewClient(endpoint, stream.WithHTTPClient(agent.Client()), stream.WithVersion(a2a.V10))
				if err != nil {
					return nil, err
				}
				return c.Send(ctx, hello()).Wait()
			}
		}
		_, err := fanout.Quorum(background(), 2, call(failing), call(rejecting), call(busy))
		var qe *fanout.QuorumError
		require.ErrorAs(t, err, &qe)
		e := stream.EndingOf(err)
		require.Equal(t, err, e.Err)
		require.Empty(t, e.State, "the fan-out ended short of its quorum, not in the state of its first failed call; String reads %q", e.String())
		require.Nil(t, e.Failure)
		require.Nil(t, e.Task)
		requireOneLine(t, e.String(), "ended: ")
		for _, callErr := range qe.Errs {
			requireOneLine(t, stream.EndingOf(callErr).String(), "")
		}
	})
}

// Wait drains the stream; Ending after it reads what a Next loop's would,
// on every wire: a completed task, a message answer, a failed task.
func TestEndingAfterWait(t *testing.T) {
	cases := map[string]struct {
		steps []a2atest.Step
		state a2a.TaskState
		line  string
	}{
		"completed": {[]a2atest.Step{a2atest.Working("on it"), a2atest.Finish(a2a.StateCompleted, "done")}, a2a.StateCompleted, "completed"},
		"answered":  {[]a2atest.Step{a2atest.Reply("hi")}, "", "answered"},
		"failed":    {[]a2atest.Step{a2atest.Working("on it"), a2atest.Finish(a2a.StateFailed, "broke")}, a2a.StateFailed, "failed: broke"},
	}
	for name, c := range cases {
		for _, w := range wires() {
			for _, polled := range []bool{false, true} {
				t.Run(name+"/"+w.String()+map[bool]string{true: "/polled", false: ""}[polled], func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						var aopts []a2atest.Option
						if polled {
							aopts = append(aopts, a2atest.WithoutStreaming())
						}
						s := scripted(t, w, c.steps, aopts)
						_, err := s.Wait()
						e := s.Ending()
						require.Equal(t, err, e.Err)
						require.Equal(t, c.state, e.State)
						require.Equal(t, c.line, e.String())
						if name == "answered" {
							require.NotNil(t, e.Answer)
							require.Nil(t, e.Task)
						} else {
							require.NotNil(t, e.Task)
							require.Equal(t, c.state, e.Task.Status.State)
						}
						if name == "failed" {
							state, ok := terminalState(err)
							require.True(t, ok)
							require.Equal(t, a2a.StateFailed, state)
						}
					})
				})
			}
		}
	}
}

// Between events, Ending says the task has not ended, on every wire: no
// state, no error, the task so far; Close before the end reads "closed".
func TestEndingBeforeTheEndOnEveryWire(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := scripted(t, w, []a2atest.Step{a2atest.Working("on it"), a2atest.Chunk("a1", "x", false, false),
					a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")}, nil)
				for range 2 {
					require.True(t, s.Next())
					e := s.Ending()
					require.Empty(t, e.State)
					require.NoError(t, e.Err)
					require.Nil(t, e.Answer)
					require.NotNil(t, e.Task)
					require.NotEqual(t, "completed", e.String())
				}
				require.NoError(t, s.Close())
				e := s.Ending()
				require.Equal(t, "closed", e.String())
				require.Empty(t, e.State)
				require.NotNil(t, e.Task, "the task as last known")
			})
		})
	}
}

// A fan-out whose calls all failed without a task (busy agents) ends in a
// *QuorumError; Ending.String of it is one line.
func TestEndingOfAQuorumOfBusyAgentsIsOneLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		call := func(context.Context) (*a2a.Task, error) { return nil, nil }
		busy := func(ctx context.Context) (*a2a.Task, error) {
			agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy")))
			c, err := stream.NewClient(endpoint, stream.WithHTTPClient(agent.Client()), stream.WithVersion(a2a.V10))
			if err != nil {
				return nil, err
			}
			return c.Send(ctx, hello()).Wait()
		}
		_, err := fanout.Quorum(background(), 2, busy, busy, call)
		var qe *fanout.QuorumError
		require.ErrorAs(t, err, &qe)
		e := stream.EndingOf(err)
		require.Empty(t, e.State)
		requireOneLine(t, e.String(), "ended: ")
	})
}
