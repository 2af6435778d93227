package storetest_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRunPassesAStoreThatKeepsTheRules runs the suite against the smallest
// store that keeps store.go's rules, so that a failure of another store is
// the store's, not the suite's.
func TestRunPassesAStoreThatKeepsTheRules(t *testing.T) {
	storetest.Run(t, func(t *testing.T) relay.Store { return &refStore{logs: map[string]*refLog{}} })
}

// refStore is a store reduced to its rules: one mutex, and a channel closed
// and replaced on every change for the waits.
type refStore struct {
	mu   sync.Mutex
	logs map[string]*refLog
}

type refLog struct {
	st       *refStore
	epoch    string
	entries  []relay.Entry
	tail     uint64
	trimmed  uint64
	snap     relay.Snapshot
	cp       []byte
	owner    string
	term     uint64
	until    time.Time
	answers  map[uint64]relay.Answer
	canceled bool
	changed  chan struct{}
}

func (s *refStore) Open(_ context.Context, key string) (relay.Log, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.logs[key]
	if !ok {
		l = &refLog{st: s, epoch: uuid.NewString(), answers: map[uint64]relay.Answer{}, changed: make(chan struct{})}
		s.logs[key] = l
	}
	return l, nil
}

// change wakes the waits; the caller holds the lock.
func (l *refLog) change() { close(l.changed); l.changed = make(chan struct{}) }

// await waits under the lock until done says so, or ctx ends.
func (l *refLog) await(ctx context.Context, done func() bool) error {
	l.st.mu.Lock()
	for !done() {
		ch := l.changed
		l.st.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
		l.st.mu.Lock()
	}
	l.st.mu.Unlock()
	return nil
}

func (l *refLog) lock() func() { l.st.mu.Lock(); return l.st.mu.Unlock }

func (l *refLog) fenced(f relay.Fence) error {
	if f.Term == 0 || f.Term != l.term || f.Owner != l.owner {
		return relay.ErrStale
	}
	return nil
}

func (l *refLog) Epoch() string { return l.epoch }

func (l *refLog) Commit(_ context.Context, f relay.Fence, cp []byte, es ...relay.Entry) error {
	defer l.lock()()
	if err := l.fenced(f); err != nil {
		return err
	}
	for i, e := range es {
		switch want := l.tail + 1 + uint64(i); {
		case e.Seq < want:
			return relay.ErrDuplicate
		case e.Seq > want:
			return relay.ErrGap
		}
	}
	if cp != nil {
		l.cp = slices.Clone(cp)
	}
	for _, e := range es {
		l.entries = append(l.entries, relay.Entry{Seq: e.Seq, Name: e.Name, Data: slices.Clone(e.Data)})
	}
	if len(es) > 0 {
		l.tail = es[len(es)-1].Seq
		l.change()
	}
	return nil
}

func (l *refLog) Read(_ context.Context, after uint64, max int) ([]relay.Entry, error) {
	defer l.lock()()
	if after < l.trimmed {
		return nil, relay.ErrGone
	}
	var out []relay.Entry
	for _, e := range l.entries {
		if e.Seq > after && len(out) < max {
			out = append(out, e)
		}
	}
	return out, nil
}

func (l *refLog) AwaitEntry(ctx context.Context, after uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.await(ctx, func() bool { return l.tail > after })
}

func (l *refLog) Tail(context.Context) (uint64, error) {
	defer l.lock()()
	return l.tail, nil
}

func (l *refLog) Trim(_ context.Context, through uint64) error {
	defer l.lock()()
	through = min(through, l.snap.Seq, l.tail)
	if through > l.trimmed {
		l.trimmed = through
		l.entries = slices.DeleteFunc(l.entries, func(e relay.Entry) bool { return e.Seq <= through })
	}
	return nil
}

func (l *refLog) SaveSnapshot(_ context.Context, f relay.Fence, s relay.Snapshot) error {
	defer l.lock()()
	if err := l.fenced(f); err != nil {
		return err
	}
	l.snap = relay.Snapshot{Seq: s.Seq, Data: slices.Clone(s.Data)}
	return nil
}

func (l *refLog) LoadSnapshot(context.Context) (relay.Snapshot, error) {
	defer l.lock()()
	return l.snap, nil
}

func (l *refLog) Attach(_ context.Context, max int) (relay.Snapshot, []relay.Entry, error) {
	defer l.lock()()
	var out []relay.Entry
	for _, e := range l.entries {
		if e.Seq > l.snap.Seq && len(out) < max {
			out = append(out, e)
		}
	}
	return l.snap, out, nil
}

func (l *refLog) Acquire(_ context.Context, owner string, ttl time.Duration) (relay.Fence, error) {
	defer l.lock()()
	if l.owner != "" && l.owner != owner && time.Now().Before(l.until) {
		return relay.Fence{}, relay.ErrHeld
	}
	l.term++
	l.owner, l.until = owner, time.Now().Add(ttl)
	return relay.Fence{Owner: owner, Term: l.term}, nil
}

func (l *refLog) Renew(_ context.Context, f relay.Fence, ttl time.Duration) error {
	defer l.lock()()
	if err := l.fenced(f); err != nil {
		return err
	}
	l.until = time.Now().Add(ttl)
	return nil
}

func (l *refLog) Release(_ context.Context, f relay.Fence) error {
	defer l.lock()()
	if err := l.fenced(f); err != nil {
		return err
	}
	l.owner = ""
	return nil
}

func (l *refLog) LoadCheckpoint(context.Context) ([]byte, error) {
	defer l.lock()()
	return l.cp, nil
}

func (l *refLog) PostAnswer(_ context.Context, a relay.Answer) (relay.Answer, error) {
	defer l.lock()()
	if held, ok := l.answers[a.Prompt]; ok {
		return held, nil
	}
	l.answers[a.Prompt] = a
	l.change()
	return a, nil
}

func (l *refLog) AwaitAnswer(ctx context.Context, prompt uint64) (relay.Answer, error) {
	var a relay.Answer
	err := l.await(ctx, func() bool {
		var ok bool
		a, ok = l.answers[prompt]
		return ok
	})
	return a, err
}

func (l *refLog) LoadAnswer(_ context.Context, prompt uint64) (relay.Answer, bool, error) {
	defer l.lock()()
	a, ok := l.answers[prompt]
	return a, ok, nil
}

func (l *refLog) RequestCancel(context.Context) error {
	defer l.lock()()
	l.canceled = true
	l.change()
	return nil
}

func (l *refLog) AwaitCancel(ctx context.Context) error {
	return l.await(ctx, func() bool { return l.canceled })
}
