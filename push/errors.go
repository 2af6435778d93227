package push

import (
	"errors"
	"fmt"
)

// ErrInvalidOption is wrapped by every error that refuses an argument of
// NewReceiver: a base URL the agent must not be given (not https, or http
// to a host that is not loopback; no host; a query, a fragment or a user
// name), a nil Option, or an option's bad value. The error names the
// option and the value refused (never a token); when several are refused,
// it joins one error for each. Match it with errors.Is.
var ErrInvalidOption = errors.New("push: invalid option")

// ErrClosed is returned by Registration.Bind after Registration.Close.
var ErrClosed = errors.New("push: the registration is closed")

// ErrBound is returned by Registration.Bind when the registration is
// already bound to another task: by an earlier Bind, or by the first
// notification it accepted; and by Receiver.Adopt for a registration
// bound to another task than the one given.
var ErrBound = errors.New("push: the registration is bound to another task")

// ErrAdopted is returned by Registration.Bind when another Receiver has
// adopted the registration (Receiver.Adopt, after a takeover): this
// Receiver no longer holds it, and notifications for it go to the adopter.
// Nothing was stored in the Share; the registration stays open here until
// Close.
var ErrAdopted = errors.New("push: another Receiver adopted the registration")

// invalidOption returns an error that wraps ErrInvalidOption.
func invalidOption(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidOption, fmt.Sprintf(format, args...))
}
