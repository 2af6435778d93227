package sse

import (
	"errors"
	"strconv"
)

// ErrTooLarge is the sentinel that every [*TooLargeError] matches with
// [errors.Is]. Use it when the limit itself does not matter.
var ErrTooLarge = errors.New("sse: event too large")

// TooLargeError reports that one event, counting the data collected so far
// plus the line being read, grew past the decoder's size limit. The decoder
// stops reading when it returns this error.
type TooLargeError struct {
	// Limit is the size limit, in bytes, that the event exceeded.
	Limit int
}

// Error returns "sse: event exceeds N bytes", N being the limit.
func (e *TooLargeError) Error() string {
	return "sse: event exceeds " + strconv.Itoa(e.Limit) + " bytes"
}

// Is reports whether target is [ErrTooLarge], so that
// errors.Is(err, ErrTooLarge) holds for every *TooLargeError.
func (e *TooLargeError) Is(target error) bool {
	return target == ErrTooLarge
}
