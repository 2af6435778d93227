package stream

import (
	"errors"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// taskError attaches the task as last known to an ending that carries no
// task of its own: an *a2a.RPCError, a *transport.HTTPError, a transport error,
// transport.ErrInvalidMessage or the context's error, met once the stream knew its
// task. Its text is Err's; errors.As and errors.Is see through it to Err.
// EndingOf reads its task.
type taskError struct {
	Err  error
	Task *a2a.Task
}

// Error returns Err's text.
func (e *taskError) Error() string {
	if e.Err == nil {
		return "stream: <nil>"
	}
	return e.Err.Error()
}

// Unwrap returns Err.
func (e *taskError) Unwrap() error { return e.Err }

// taskOf returns the task that an error of this module carries: the final
// task of a terminal.Error, the last known task of a *reconnect.Error,
// *hitl.Error, *transport.ProtocolError, *StalledError or *taskError, wherever it is
// in err's chain. It returns nil when err carries none, for example an
// ending before any task was known, or a nil err. EndingOf(err).Task is its
// public face.
func taskOf(err error) *a2a.Task {
	var (
		te *taskError
		fe terminal.Error
		he *hitl.Error
		re *reconnect.Error
		pe *transport.ProtocolError
		se *StalledError
	)
	switch {
	case errors.As(err, &te) && te.Task != nil:
		return te.Task
	case errors.As(err, &fe):
		return fe.FinalTask()
	case errors.As(err, &he):
		return he.Task
	case errors.As(err, &re):
		return re.Task
	case errors.As(err, &pe):
		return pe.Task
	case errors.As(err, &se):
		return se.Task
	}
	return nil
}
