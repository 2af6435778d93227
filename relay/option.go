package relay

import (
	"errors"
	"fmt"
)

// ErrInvalidOption is wrapped by every error that refuses an option's
// value, a nil option, or an argument a constructor cannot work with (a
// nil Store, Log or function, an empty owner): NewHandler, NewMemoryStore,
// Drive and Run refuse them before they do anything, and so does
// redisrelay.New. The error names the option and the value refused; when
// several are refused, it joins one error for each. Match it with
// errors.Is.
var ErrInvalidOption = errors.New("relay: invalid option")

// invalidOption returns an error that wraps ErrInvalidOption.
func invalidOption(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidOption, fmt.Sprintf(format, args...))
}

// applyOptions applies opts in order with apply, and returns every
// refusal, joined; a nil option is refused as "a nil <kind>".
func applyOptions[O any](kind string, opts []O, apply func(O) error) error {
	var errs []error
	for _, o := range opts {
		if any(o) == nil {
			errs = append(errs, invalidOption("a nil %s", kind))
			continue
		}
		if err := apply(o); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
