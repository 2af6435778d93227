package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/a2astream/a2astream/relay"
)

// Option configures [Run].
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	// bubble runs each subtest inside a synctest bubble.
	bubble bool
	// ttl is the lease the expiry subtests acquire, and let expire.
	ttl time.Duration
	// expire returns once the lease acquired on l with ttl has expired in
	// the store's clock; nil to sleep past ttl in the bubble.
	expire func(t *testing.T, l relay.Log)
	// err is the first bad value an option was given.
	err error
}

// longTTL is the lease of the subtests that do not let it expire: long
// enough that no slow machine sees it end.
const longTTL = time.Hour

func defaultConfig() config {
	return config{bubble: true, ttl: 10 * time.Second}
}

// newConfig applies opts over the defaults, and returns the first bad value
// given: a nil option, or an Expiry whose ttl is not positive or whose wait
// is nil.
func newConfig(opts []Option) (config, error) {
	cfg := defaultConfig()
	for i, o := range opts {
		if o == nil {
			return config{}, fmt.Errorf("storetest: option %d is nil", i)
		}
		o.apply(&cfg)
		if cfg.err != nil {
			return config{}, cfg.err
		}
	}
	return cfg, nil
}

// Expiry is for a store whose lease clock is not the process's (Redis's is
// the server's): the subtests run outside any synctest bubble, the expiry
// subtests acquire leases of ttl (a few milliseconds is enough), and wait
// returns once the lease acquired on l has expired in the store's clock.
// wait polls the store, and fails t if that takes unreasonably long. A ttl
// that is not positive, or a nil wait, fails the suite before it starts.
func Expiry(ttl time.Duration, wait func(t *testing.T, l relay.Log)) Option {
	return optionFunc(func(c *config) {
		switch {
		case ttl <= 0:
			c.err = fmt.Errorf("storetest: Expiry's ttl %v is not positive", ttl)
			return
		case wait == nil:
			c.err = errors.New("storetest: Expiry's wait is nil")
			return
		}
		c.bubble = false
		c.ttl = ttl
		c.expire = wait
	})
}
