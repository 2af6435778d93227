// Package several marks an error that reports the outcomes of several
// calls, each with an ending of its own, so that a reader of one task's
// ending (stream.EndingOf) can tell it from one call's error without
// importing the package that defines it: fanout, whose *QuorumError is
// such an error, composes above stream, and stream may not import it.
//
// It imports nothing of the module.
package several

import "errors"

// Mark, embedded in an error type, marks its errors as reports on several
// calls. It has no state; its only method is unexported, so that no other
// type can claim the mark by declaring a method of the same name.
type Mark struct{}

func (Mark) severalCalls() {}

// marked is an error type that embeds Mark.
type marked interface{ severalCalls() }

// Calls reports whether err, or an error it wraps, is marked: a report on
// several calls, none of whose endings is the whole's.
func Calls(err error) bool {
	var m marked
	return errors.As(err, &m)
}
