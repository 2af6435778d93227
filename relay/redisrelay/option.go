package redisrelay

import (
	"fmt"
	"strings"
	"time"

	"github.com/a2astream/a2astream/relay"
)

// Option configures [New]. New refuses a bad value, and a nil Option, with
// an error that wraps [relay.ErrInvalidOption]. When an option is given
// twice, the last one wins.
type Option interface{ apply(*config) error }

type optionFunc func(*config) error

func (f optionFunc) apply(c *config) error { return f(c) }

type config struct {
	prefix string
	wake   time.Duration
}

func defaultConfig() config {
	return config{prefix: "a2astream", wake: time.Second}
}

// invalidOption returns an error that wraps relay.ErrInvalidOption.
func invalidOption(format string, args ...any) error {
	return fmt.Errorf("%w: redisrelay: %s", relay.ErrInvalidOption, fmt.Sprintf(format, args...))
}

// WithPrefix sets the first part of every key's hash tag (default
// "a2astream"): a log's keys are "{<prefix>:<key>}:<part>". Use one prefix
// per application sharing a Redis. An empty prefix, and one that holds a
// brace (which would end the hash tag early), are refused.
func WithPrefix(prefix string) Option {
	return optionFunc(func(c *config) error {
		if prefix == "" || strings.ContainsAny(prefix, "{}") {
			return invalidOption("WithPrefix: the prefix must be non-empty and hold no brace, not %q", prefix)
		}
		c.prefix = prefix
		return nil
	})
}

// WithWake sets how long a blocked AwaitEntry, AwaitAnswer or AwaitCancel
// waits for a note before it looks at its log again (default 1 s): the
// longest a wait takes to see that its log is lost from Redis, or an
// entry whose note Pub/Sub dropped or a writer of the version before did
// not send; a canceled context ends a wait at once. The store also closes
// its Pub/Sub connection after one to two wake intervals without a wait.
// A duration below a millisecond is refused.
func WithWake(d time.Duration) Option {
	return optionFunc(func(c *config) error {
		if d < time.Millisecond {
			return invalidOption("WithWake: the duration must be at least 1ms, not %s", d)
		}
		c.wake = d
		return nil
	})
}
