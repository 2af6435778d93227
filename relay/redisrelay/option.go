package redisrelay

import "time"

// Option configures [New].
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	prefix string
	wake   time.Duration
}

func defaultConfig() config {
	return config{prefix: "a2astream", wake: time.Second}
}

// WithPrefix sets the first part of every key's hash tag (default
// "a2astream"): a log's keys are "{<prefix>:<key>}:<part>". Use one prefix
// per application sharing a Redis; it should hold no braces, which would
// end the hash tag early. An empty prefix keeps the default.
func WithPrefix(prefix string) Option {
	return optionFunc(func(c *config) {
		if prefix != "" {
			c.prefix = prefix
		}
	})
}

// WithWake sets how long a blocked Wait, AwaitAnswer or AwaitCancel waits
// in one XREAD BLOCK before it looks at its context and the log's epoch
// again (default 1 s): a canceled context is noticed within d, and each
// waiter holds one of the client's connections while it blocks. A
// context's deadline shortens the last block to end with it. Values under
// a millisecond keep the default.
func WithWake(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d >= time.Millisecond {
			c.wake = d
		}
	})
}
