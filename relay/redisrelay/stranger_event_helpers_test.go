package redisrelay_test

// What the stranger tests wait on: not the wall clock, but what they watch
// (a proxy's traffic, a go-redis hook's view of the scripts, their own
// goroutines) telling them that something changed.

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// eventWait is how long a test waits for an event before it fails.
const eventWait = 10 * time.Second

// signal tells a test's waits that something they watch changed: fire
// closes the channel that next returned, and the next call to next gets a
// new one. The zero signal is ready to use.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

func (s *signal) fire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

func (s *signal) next() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// waitFor returns once cond holds, checking it now and after each fire of
// s, and fails t, saying what it waited for, when it does not hold within
// eventWait or once ctx is done.
func (s *signal) waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, eventWait)
	defer cancel()
	for {
		changed := s.next() // taken before cond: a change after the check closes it
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("waited %v for %s: %v", eventWait, what, context.Cause(ctx))
		}
	}
}

// names returns "s<from>" to "s<to-1>".
func names(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("s%d", i))
	}
	return out
}
