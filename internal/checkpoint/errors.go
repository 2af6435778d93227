package checkpoint

import "errors"

// The reasons Parse refuses bytes, which an *Error wraps.
var (
	// ErrCorrupt: the bytes are not a whole checkpoint (cut short,
	// changed, or their checksum fails), or its fields contradict each
	// other.
	ErrCorrupt = errors.New("checkpoint: corrupt")
	// ErrForeign: the bytes do not start as a checkpoint does.
	ErrForeign = errors.New("checkpoint: foreign")
	// ErrNewer: the checkpoint is in a newer format than this package
	// reads.
	ErrNewer = errors.New("checkpoint: newer format")
)

// Error refuses bytes: Err is ErrCorrupt, ErrForeign or ErrNewer, and
// Reason says what is wrong, in words package stream shows its users.
type Error struct {
	Err    error
	Reason string
}

// Error reads like "checkpoint: corrupt: checksum mismatch".
func (e *Error) Error() string { return e.Err.Error() + ": " + e.Reason }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }
