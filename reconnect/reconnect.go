package reconnect

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// Policy is a constant-backoff retry policy. As in net/http, a zero field
// means its default: Policy{} is Default(), and Policy{Backoff: time.Second}
// makes Default().MaxAttempts attempts a second apart.
//
// MaxAttempts is the number of consecutive reconnect attempts without
// progress that a stream may make before it gives up; a negative value
// means never reconnect (see Never). Backoff is the wait before each
// attempt; it must not be negative.
type Policy struct {
	MaxAttempts int
	Backoff     time.Duration
}

// Default returns the policy streams use unless told otherwise: 3 attempts,
// 500 ms apart.
func Default() Policy { return Policy{MaxAttempts: 3, Backoff: 500 * time.Millisecond} }

// Never returns the policy that never reconnects: the first drop ends the
// stream in an *Error with no attempt.
func Never() Policy { return Policy{MaxAttempts: -1} }

// ErrNoTask matches, with errors.Is, the *Error of a stream whose connection
// dropped before any task ID was known: there was nothing to reconnect to,
// so the stream ended at once, whatever the policy. It does not match the
// *Error of a send made again until the budget was spent (its Attempts is
// not 0): that one read "gave up".
var ErrNoTask = errors.New("reconnect: connection lost before any task was known")

// ErrCouldNotConnect matches, with errors.Is, the *Error of a stream none of
// whose calls could connect to the agent (every dial was refused or timed
// out): the agent is down or unreachable, and its Unreachable field names
// the URL. Such an Error does not match ErrNoTask: no connection was lost.
var ErrCouldNotConnect = errors.New("reconnect: could not connect")

// Error ends a stream whose retry budget is spent, whose policy allows no
// reconnect, or whose connection dropped before any task ID was known
// (errors.Is(err, ErrNoTask) then holds, TaskID is empty and Attempts 0). Attempts
// counts the reconnects made since the last progress; Err is the last
// cause. TaskID is the task's ID whenever one was known, even when none of
// its state was (a Subscribe that never connected); Task is the last known
// state of the task, nil when none was seen. Unreachable is set when no
// call of the stream could connect at all (errors.Is(err,
// ErrCouldNotConnect) then holds): the URL of the agent, with its user name,
// password and query values redacted.
type Error struct {
	Attempts    int
	Err         error
	TaskID      string
	Task        *a2a.Task
	Unreachable string
}

// Error reads like "reconnect: task t-1: gave up after 3 attempts:
// unexpected EOF", "reconnect: task t-1: connection lost, and the policy
// allows no reconnect: unexpected EOF", "reconnect: connection lost
// before any task was known: unexpected EOF" or "reconnect: could not
// connect to http://agent.example/a2a, gave up after 3 attempts: dial tcp
// …: connect: connection refused": the URL once, without the request
// that net/http's *url.Error in Err names again ("Post "URL": ").
func (e *Error) Error() string {
	var s string
	switch id := e.taskID(); {
	case e.Unreachable != "":
		s = "reconnect: "
		if id != "" {
			s += "task " + id + ": "
		}
		s += "could not connect to " + e.Unreachable
		if e.Attempts > 0 {
			s += ", gave up after " + strconv.Itoa(e.Attempts) + " attempts"
		}
	case id == "" && e.Task == nil && e.Attempts == 0:
		s = ErrNoTask.Error()
	case id == "" && e.Task == nil:
		s = "reconnect: gave up after " + strconv.Itoa(e.Attempts) + " attempts, before any task was known"
	case e.Attempts == 0:
		s = "reconnect: task " + id + ": connection lost, and the policy allows no reconnect"
	default:
		s = "reconnect: task " + id + ": gave up after " + strconv.Itoa(e.Attempts) + " attempts"
	}
	if e.Err != nil && e.Unreachable != "" {
		s += ": " + withoutRequest(e.Err)
	} else if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// withoutRequest is err's text without the method and URL that a
// *url.Error in it names (`Post "https://agent.example/a2a": `), for a text
// that names the agent's URL already. A wrapper's own words around it stay.
func withoutRequest(err error) string {
	text := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		text = strings.Replace(text, ue.Op+" "+strconv.Quote(ue.URL)+": ", "", 1)
	}
	return text
}

// taskID is TaskID, or the ID of Task for an Error built without TaskID.
func (e *Error) taskID() string {
	if e.TaskID == "" && e.Task != nil {
		return e.Task.ID
	}
	return e.TaskID
}

// Is reports whether target is ErrCouldNotConnect and Unreachable is set,
// or target is ErrNoTask, a connection was made, the stream knew no task ID,
// and it ended at once (no attempt).
func (e *Error) Is(target error) bool {
	switch target {
	case ErrCouldNotConnect:
		return e.Unreachable != ""
	case ErrNoTask:
		return e.Unreachable == "" && e.TaskID == "" && e.Task == nil && e.Attempts == 0
	}
	return false
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }
