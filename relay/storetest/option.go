package storetest

import (
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
}

// longTTL is the lease of the subtests that do not let it expire: long
// enough that no slow machine sees it end.
const longTTL = time.Hour

func defaultConfig() config {
	return config{bubble: true, ttl: 10 * time.Second}
}

// Expiry is for a store whose lease clock is not the process's (Redis's is
// the server's): the subtests run outside any synctest bubble, the expiry
// subtests acquire leases of ttl (a few milliseconds is enough), and wait
// returns once the lease acquired on l has expired in the store's clock.
// wait polls the store, and fails t if that takes unreasonably long.
func Expiry(ttl time.Duration, wait func(t *testing.T, l relay.Log)) Option {
	return optionFunc(func(c *config) {
		c.bubble = false
		c.ttl = ttl
		c.expire = wait
	})
}
