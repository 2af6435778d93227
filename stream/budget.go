package stream

import (
	"time"

	"github.com/a2astream/a2astream/reconnect"
)

// budget counts reconnect attempts against a policy, its zero fields read
// as the defaults (reconnect.Policy's rule). The zero budget allows no
// attempt.
type budget struct {
	max      int // 0: never reconnect
	backoff  time.Duration
	attempts int
}

func newBudget(p reconnect.Policy) budget {
	d := reconnect.Default()
	b := budget{max: p.MaxAttempts, backoff: p.Backoff}
	switch {
	case b.max == 0:
		b.max = d.MaxAttempts
	case b.max < 0:
		b.max = 0
	}
	if b.backoff == 0 {
		b.backoff = d.Backoff
	}
	return b
}

// next reports whether another attempt is allowed. If it is, it counts the
// attempt and returns the wait that must come before it.
func (b *budget) next() (time.Duration, bool) {
	if b.attempts >= b.max {
		return 0, false
	}
	b.attempts++
	return b.backoff, true
}

// progress resets the count: something new was delivered.
func (b *budget) progress() { b.attempts = 0 }
