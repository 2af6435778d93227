// Package callmark holds the marks a call's error carries to say how far
// its request got: it never left ([Unsent]), it could not connect
// ([Connect], inside an Unsent), or the agent answered before the call
// failed ([Responded]). Package transport makes them for the bindings of
// other modules (NotSent, CouldNotConnect, Responded); stream's HTTP
// bindings make them directly, and stream's driver reads them.
package callmark

import "errors"

// Unsent marks the error of a call whose request never reached the agent:
// it may be made again, whatever it carried.
type Unsent struct{ Err error }

func (e *Unsent) Error() string { return e.Err.Error() }
func (e *Unsent) Unwrap() error { return e.Err }

// Connect is the error of a call that could not connect to the agent at
// Addr, a name for a person (a host and port, a gRPC target).
type Connect struct {
	Addr string
	Err  error
}

func (e *Connect) Error() string { return e.Err.Error() }
func (e *Connect) Unwrap() error { return e.Err }

// Responded marks the error of a call the agent answered before it failed:
// its request reached the agent, which may have acted on it.
type Responded struct{ Err error }

func (e *Responded) Error() string { return e.Err.Error() }
func (e *Responded) Unwrap() error { return e.Err }

// IsUnsent reports an error whose request never left: marked Unsent at any
// depth, and not marked Responded (a response proves the request left).
func IsUnsent(err error) bool {
	var u *Unsent
	return errors.As(err, &u) && !IsResponded(err)
}

// IsResponded reports an error marked Responded at any depth.
func IsResponded(err error) bool {
	var r *Responded
	return errors.As(err, &r)
}

// Addr returns the address of the Connect mark at any depth of err.
func Addr(err error) (string, bool) {
	var c *Connect
	if errors.As(err, &c) {
		return c.Addr, true
	}
	return "", false
}

// UnwrapResponded returns err without its outer Responded mark, and whether
// it had one.
func UnwrapResponded(err error) (error, bool) {
	if r, ok := err.(*Responded); ok {
		return r.Err, true
	}
	return err, false
}
