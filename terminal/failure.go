package terminal

import (
	"strconv"

	"github.com/a2astream/a2astream/a2a"
)

// Failure is the structured account of why a task ended, as an agent gives
// it beside the status message's text: a kind of error and a code a program
// can branch on. Every field is empty when the agent did not say.
type Failure struct {
	// ObjectType is what the account is; "error" in the tRPC-Agent-Go
	// convention (object_type).
	ObjectType string
	// Type is the class of the error, such as "flow_error" (error_type).
	Type string
	// Code is the error's code, such as "REMOTE_VALIDATION_FAILED"
	// (error_code).
	Code string
	// Message is the error's text for a person (error_message), or the
	// status message's text when the agent gave no error_message.
	Message string
	// TaskState is the state the agent named in the account (task_state),
	// as it wrote it; Error.State gives the state the task ended in.
	TaskState string
}

// Reader reads the structured failure of a task that ended, reporting
// false when the task carries none. It must not modify the task.
// [ReadStructured] reads the tRPC-Agent-Go convention; a Reader of its own
// serves an agent of another one (see stream.WithFailureReader).
type Reader func(t *a2a.Task) (Failure, bool)

// The keys of the tRPC-Agent-Go convention.
const (
	keyObjectType   = "object_type"
	keyErrorType    = "error_type"
	keyErrorCode    = "error_code"
	keyErrorMessage = "error_message"
	keyTaskState    = "task_state"
)

// ReadStructured reads a failure in the tRPC-Agent-Go convention: the
// metadata keys object_type, error_type, error_code, error_message and
// task_state. Each is read from the task's metadata first (where a status
// update's metadata is folded), then from the status message's metadata
// (the mirror agents of that convention keep there too). A key whose value
// is not a string or a number counts as absent. Message falls back to the
// status message's text.
//
// It reports true when the task carries error_type, error_code or
// error_message, or an object_type of "error"; otherwise it returns the
// zero Failure and false, so that a task that ended with only a text has
// no structured failure.
func ReadStructured(t *a2a.Task) (Failure, bool) {
	if t == nil {
		return Failure{}, false
	}
	var mirror map[string]any
	if m := t.Status.Message; m != nil {
		mirror = m.Metadata
	}
	get := func(key string) string {
		if v, ok := metadataString(t.Metadata, key); ok {
			return v
		}
		v, _ := metadataString(mirror, key)
		return v
	}
	f := Failure{
		ObjectType: get(keyObjectType),
		Type:       get(keyErrorType),
		Code:       get(keyErrorCode),
		Message:    get(keyErrorMessage),
		TaskState:  get(keyTaskState),
	}
	if f.Type == "" && f.Code == "" && f.Message == "" && f.ObjectType != "error" {
		return Failure{}, false
	}
	if f.Message == "" {
		f.Message = t.Status.Message.Text()
	}
	return f, true
}

// metadataString returns md[key] as a string: a string as it is, a number
// (an error code such as 1003) written as JSON writes it. It reports false
// for a key absent, empty, or of another type.
func metadataString(md map[string]any, key string) (string, bool) {
	switch v := md[key].(type) {
	case string:
		return v, v != ""
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	}
	return "", false
}

// reading is the structured failure read when an error was built.
type reading struct {
	done    bool // read when built; an error built otherwise reads with ReadStructured
	ok      bool
	failure Failure
}

// read reads t's failure with r, or ReadStructured when r is nil.
func read(t *a2a.Task, r Reader) reading {
	if r == nil {
		r = ReadStructured
	}
	f, ok := r(t)
	if !ok {
		f = Failure{}
	}
	return reading{done: true, ok: ok, failure: f}
}

// of returns the failure read, or reads t's with ReadStructured.
func (r reading) of(t *a2a.Task) (Failure, bool) {
	if r.done {
		return r.failure, r.ok
	}
	return ReadStructured(t)
}
