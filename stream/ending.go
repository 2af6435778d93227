package stream

import (
	"errors"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/clip"
	"github.com/a2astream/a2astream/internal/several"
	"github.com/a2astream/a2astream/terminal"
)

// Ending is how a stream ended, read in one call: the state its task ended
// in, the final task, the message answer, the structured failure and the
// error. [Stream.Ending] gives it; [EndingOf] reads one from an error alone.
// It is the one place to read how a stream ended; [Stream.Err] gives the
// same error, for errors.As and errors.Is.
//
// A UI prints one line about any ending with its String method, or
// switches on State for a line of its own:
//
//	e := s.Ending()
//	fmt.Println("agent:", e) // "completed", "failed: quota exceeded", ...
//	if e.Err != nil && e.State == "" { … the connection, the agent's HTTP or RPC error, ctx … }
type Ending struct {
	// State is the state the task ended in: completed, failed, rejected,
	// canceled, auth-required (the credentials hook was absent or gave up),
	// or input-required (the human-input hook was absent, failed or timed
	// out). It is empty when the stream ended without its task ending: a
	// message answer (Answer is set), or an ending of the transport, the
	// protocol, the caller's context (Err says which), or Close (Err is
	// nil); Task is the task as last known, if any.
	State a2a.TaskState
	// Task is the final task, or the task as last known when the task did
	// not end; nil for a message answer and when no task was known.
	Task *a2a.Task
	// Answer is the agent's message answer, when it answered with a
	// message and no task.
	Answer *a2a.Message
	// Failure is the structured failure the task carries (error type, code
	// and message), read by the stream's failure reader
	// ([WithFailureReader]); nil when it carries none or the task did not
	// end in an error state.
	Failure *terminal.Failure
	// Err is the error that ended the stream, as Stream.Err returns it: nil
	// for a completed task, a message answer, and a stream closed by
	// [Stream.Close] before its task ended (String reads "closed"). Match
	// it with errors.As and errors.Is for the details State does not give.
	Err error
}

// EndingOf returns the ending err reports: its State, its Task (the final
// task of a terminal.Error, or the last known task that a
// *reconnect.Error, *hitl.Error, *transport.ProtocolError or
// *StalledError carries, or that the stream attached to any other ending
// once it knew its task, wherever it is in err's chain), its Failure and
// err itself. Use it on an error whose stream is gone, such as Wait's or
// one fan-out call's (fanout.Result's Err); a nil err says nothing about
// the task, and gives the zero Ending with no State (String reads "not
// ended"). A *fanout.QuorumError (fanout.Quorum's own error) is no
// single task's ending: it gives an Ending with Err alone, and its calls'
// endings are read one by one from its Errs. With the stream at hand,
// [Stream.Ending] also knows a completed task and a message answer.
func EndingOf(err error) Ending {
	if several.Calls(err) { // a *fanout.QuorumError, which this package may not import
		return Ending{Err: err}
	}
	e := Ending{Err: err, Task: taskOf(err)}
	var te terminal.Error
	if errors.As(err, &te) {
		e.State = te.State()
		if f, ok := te.Failure(); ok {
			e.Failure = &f
		}
	} else if he := (*hitl.Error)(nil); errors.As(err, &he) {
		e.State = a2a.StateInputRequired
	}
	return e
}

// String returns one line about the ending, for a person: "completed",
// "answered", the state and its reason ("failed: QUOTA: quota exceeded",
// the failure's code and message or the status message's text, as
// terminal errors read), "input-required: " and why no answer came, or
// "ended: " and the error's text when the task did not end. A stream
// closed by its caller before its task ended reads "closed", and the zero
// Ending "not ended". Every line break (CR, LF, CRLF, VT, FF, NEL, U+2028,
// U+2029), every other control character and every bidirectional control
// in the reason reads as a space, invalid UTF-8 as U+FFFD, and the line is
// cut at 512 bytes, its ellipsis included, on a character boundary:
// the line is valid UTF-8 that a terminal or a log shows as one line.
func (e Ending) String() string {
	return clip.Line(e.line(), clip.EndingLine)
}

// line is String's line before it is made one bounded line.
func (e Ending) line() string {
	switch {
	case e.Err == nil && e.Answer != nil:
		return "answered"
	case e.Err == nil && e.State == a2a.StateCompleted:
		return "completed"
	case e.Err == nil && e.Task != nil:
		return "closed"
	case e.Err == nil:
		return "not ended"
	case e.State == a2a.StateInputRequired:
		var he *hitl.Error
		if errors.As(e.Err, &he) && he.Err != nil {
			return "input-required: no answer: " + he.Err.Error()
		}
		return "input-required: no answer"
	case e.State != "":
		if why := e.reason(); why != "" {
			return string(e.State) + ": " + why
		}
		return string(e.State)
	}
	return "ended: " + e.Err.Error()
}

// reason is why the task ended: the failure's code and message, or the
// status message's text.
func (e Ending) reason() string {
	if f := e.Failure; f != nil && (f.Code != "" || f.Message != "") {
		if f.Code == "" {
			return f.Message
		}
		if f.Message == "" {
			return f.Code
		}
		return f.Code + ": " + f.Message
	}
	if e.Task != nil && e.Task.Status.Message != nil {
		return e.Task.Status.Message.Text()
	}
	return ""
}
