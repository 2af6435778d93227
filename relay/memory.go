package relay

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
)

// MemoryStore is the in-memory Store: the embedded default, for one
// process, that needs nothing installed. Its logs live as long as the
// store; a process that restarts loses them, and a log opened again after
// that has a new epoch.
//
// A MemoryStore keeps every entry appended until it is trimmed: by
// Log.Trim, or by the byte bound set with WithRetention, never past the
// log's snapshot. It never forgets a log it opened (see Delete).
//
// The entries its logs' Read returns share their Data with the store, as
// the snapshot LoadSnapshot returns does: callers must not modify them.
// What callers pass in (entries, snapshots, checkpoints) is copied.
//
// It is also a push.Share (PutRegistration and the methods after it), for
// the push.Receivers of one process: see push.WithShare.
//
// It is safe for concurrent use. The zero MemoryStore is not ready for
// use: call NewMemoryStore.
type MemoryStore struct {
	cfg storeConfig

	mu   sync.Mutex
	logs map[string]*memoryLog

	push memoryShare // the push.Share it is (memorypush.go)
}

// StoreOption configures a MemoryStore. NewMemoryStore refuses a bad
// value, and a nil StoreOption, with an error that wraps ErrInvalidOption.
// When an option is given twice, the last one wins.
type StoreOption interface{ applyStore(*storeConfig) error }

type storeOptionFunc func(*storeConfig) error

func (f storeOptionFunc) applyStore(c *storeConfig) error { return f(c) }

type storeConfig struct {
	now       func() time.Time
	retention int // 0: every entry is kept until Trim
}

func defaultStoreConfig() storeConfig {
	return storeConfig{now: time.Now}
}

// WithClock sets the clock the store's leases read; time.Now by default.
// A nil clock is refused.
func WithClock(now func() time.Time) StoreOption {
	return storeOptionFunc(func(c *storeConfig) error {
		if now == nil {
			return invalidOption("WithClock: the clock is nil")
		}
		c.now = now
		return nil
	})
}

// WithRetention bounds the bytes (the Name and Data of each entry) that
// each log keeps: past the bound, the oldest entries are dropped as Trim
// drops them, but never past the log's snapshot, so a log may hold more
// than the bound until its driver saves a newer snapshot. Without it,
// every entry is kept until Trim. A bound of 0 or less is refused.
func WithRetention(bytes int) StoreOption {
	return storeOptionFunc(func(c *storeConfig) error {
		if bytes <= 0 {
			return invalidOption("WithRetention: the bound must be positive, not %d", bytes)
		}
		c.retention = bytes
		return nil
	})
}

// NewMemoryStore returns an empty MemoryStore. It refuses a nil option and
// an option's bad value with an error that wraps ErrInvalidOption, and
// returns no store then.
func NewMemoryStore(opts ...StoreOption) (*MemoryStore, error) {
	cfg := defaultStoreConfig()
	if err := applyOptions("StoreOption", opts, func(o StoreOption) error { return o.applyStore(&cfg) }); err != nil {
		return nil, err
	}
	return &MemoryStore{cfg: cfg, logs: map[string]*memoryLog{}}, nil
}

// Open returns the log of the stream with this key, creating an empty one,
// with a new epoch, when the store holds none.
func (m *MemoryStore) Open(ctx context.Context, key string) (Log, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.logs[key]
	if !ok {
		l = newMemoryLog(m.cfg)
		m.logs[key] = l
	}
	return l, nil
}

// Delete forgets the log of the stream with this key, if any, and what the
// store keeps about it. A Log of it that is still in use keeps working on
// its own; the next Open makes a new log, with a new epoch.
func (m *MemoryStore) Delete(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.logs, key)
}

// memoryLog is one log of a MemoryStore.
type memoryLog struct {
	epoch string
	cfg   storeConfig

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change waiters wait for
	entries []Entry       // the entries kept: entries[i].Seq == first+i
	first   uint64        // Seq of entries[0], or tail+1 when none is kept
	tail    uint64
	bytes   int // Name and Data of the entries kept
	snap    Snapshot

	owner   string    // the lease's owner; "" for none yet
	term    uint64    // the newest term handed out
	expires time.Time // when the lease ends, by cfg.now

	checkpoint []byte
	answers    map[uint64]Answer
	canceled   bool
}

func newMemoryLog(cfg storeConfig) *memoryLog {
	return &memoryLog{
		epoch:   uuid.NewString(),
		cfg:     cfg,
		changed: make(chan struct{}),
		first:   1,
		answers: map[uint64]Answer{},
	}
}

func (l *memoryLog) Epoch() string { return l.epoch }

// broadcast wakes every waiter. l.mu is held.
func (l *memoryLog) broadcast() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// await waits until ready, called with l.mu held, reports true, or ctx
// ends.
func (l *memoryLog) await(ctx context.Context, ready func() bool) error {
	for {
		l.mu.Lock()
		ok, ch := ready(), l.changed
		l.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// fenced reports whether f is the newest fence. l.mu is held.
func (l *memoryLog) fenced(f Fence) bool {
	return l.term > 0 && f.Term == l.term && f.Owner == l.owner
}

// fencedWrite runs write under l.mu when ctx is live and fence is the
// newest fence (ErrStale otherwise): the prologue of every fenced write.
func (l *memoryLog) fencedWrite(ctx context.Context, fence Fence, write func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.fenced(fence) {
		return ErrStale
	}
	return write()
}

func (l *memoryLog) Commit(ctx context.Context, fence Fence, cp []byte, entries ...Entry) error {
	return l.fencedWrite(ctx, fence, func() error { return l.commit(cp, entries) })
}

// commit is Commit under l.mu, with the fence checked.
func (l *memoryLog) commit(cp []byte, entries []Entry) error {
	for i, e := range entries {
		want := l.tail + 1 + uint64(i)
		switch {
		case e.Seq < want:
			return ErrDuplicate
		case e.Seq > want:
			return ErrGap
		}
	}
	if cp != nil {
		l.checkpoint = append([]byte(nil), cp...)
	}
	if len(entries) == 0 {
		return nil
	}
	for _, e := range entries {
		e.Data = append([]byte(nil), e.Data...)
		l.entries = append(l.entries, e)
		l.bytes += len(e.Name) + len(e.Data)
	}
	l.tail += uint64(len(entries))
	l.retain()
	l.broadcast()
	return nil
}

func (l *memoryLog) Read(ctx context.Context, after uint64, max int) ([]Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.read(after, max)
}

// read is Read under l.mu.
func (l *memoryLog) read(after uint64, max int) ([]Entry, error) {
	if after < l.first-1 { // first is at least 1; after+1 would overflow
		return nil, ErrGone
	}
	if after >= l.tail || max <= 0 {
		return nil, nil
	}
	from := after + 1 - l.first
	n := min(uint64(max), l.tail-after)
	return append([]Entry(nil), l.entries[from:from+n]...), nil
}

func (l *memoryLog) AwaitEntry(ctx context.Context, after uint64) error {
	return l.await(ctx, func() bool { return l.tail > after })
}

func (l *memoryLog) Tail(ctx context.Context) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tail, nil
}

func (l *memoryLog) Trim(ctx context.Context, through uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.trim(min(through, l.snap.Seq))
	return nil
}

// trim drops the entries through Seq through. l.mu is held.
func (l *memoryLog) trim(through uint64) {
	through = min(through, l.tail)
	if through < l.first {
		return
	}
	n := through + 1 - l.first
	for _, e := range l.entries[:n] {
		l.bytes -= len(e.Name) + len(e.Data)
	}
	clear(l.entries[:n]) // let the trimmed data go
	l.entries = l.entries[n:]
	if len(l.entries) == 0 {
		l.entries = nil
	}
	l.first = through + 1
}

// retain trims the oldest entries past the retention bound, up to the
// snapshot. l.mu is held.
func (l *memoryLog) retain() {
	if l.cfg.retention <= 0 || l.bytes <= l.cfg.retention {
		return
	}
	through, bytes := l.first-1, l.bytes
	for _, e := range l.entries {
		if bytes <= l.cfg.retention || e.Seq > l.snap.Seq {
			break
		}
		bytes -= len(e.Name) + len(e.Data)
		through = e.Seq
	}
	l.trim(through)
}

func (l *memoryLog) SaveSnapshot(ctx context.Context, fence Fence, s Snapshot) error {
	return l.fencedWrite(ctx, fence, func() error {
		s.Data = append([]byte(nil), s.Data...)
		l.snap = s
		l.retain()
		return nil
	})
}

func (l *memoryLog) LoadSnapshot(ctx context.Context) (Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return Snapshot{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.snap, nil
}

func (l *memoryLog) Attach(ctx context.Context, max int) (Snapshot, []Entry, error) {
	if err := ctx.Err(); err != nil {
		return Snapshot{}, nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	es, err := l.read(l.snap.Seq, max)
	if err != nil {
		return Snapshot{}, nil, err
	}
	return l.snap, es, nil
}

func (l *memoryLog) Acquire(ctx context.Context, owner string, ttl time.Duration) (Fence, error) {
	if err := ctx.Err(); err != nil {
		return Fence{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.cfg.now()
	if l.owner != "" && l.owner != owner && now.Before(l.expires) {
		return Fence{}, ErrHeld
	}
	l.term++
	l.owner, l.expires = owner, now.Add(ttl)
	return Fence{Owner: owner, Term: l.term}, nil
}

func (l *memoryLog) Renew(ctx context.Context, fence Fence, ttl time.Duration) error {
	return l.fencedWrite(ctx, fence, func() error {
		l.expires = l.cfg.now().Add(ttl)
		return nil
	})
}

func (l *memoryLog) Release(ctx context.Context, fence Fence) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fenced(fence) {
		l.expires = time.Time{}
	}
	return nil
}

func (l *memoryLog) LoadCheckpoint(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.checkpoint == nil {
		return nil, nil
	}
	return append([]byte(nil), l.checkpoint...), nil
}

func (l *memoryLog) PostAnswer(ctx context.Context, a Answer) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if held, ok := l.answers[a.Prompt]; ok {
		return held, nil
	}
	l.answers[a.Prompt] = a
	l.broadcast()
	return a, nil
}

func (l *memoryLog) AwaitAnswer(ctx context.Context, prompt uint64) (Answer, error) {
	var a Answer
	err := l.await(ctx, func() bool {
		held, ok := l.answers[prompt]
		a = held
		return ok
	})
	return a, err
}

func (l *memoryLog) LoadAnswer(ctx context.Context, prompt uint64) (Answer, bool, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	a, ok := l.answers[prompt]
	return a, ok, nil
}

func (l *memoryLog) RequestCancel(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.canceled {
		l.canceled = true
		l.broadcast()
	}
	return nil
}

func (l *memoryLog) AwaitCancel(ctx context.Context) error {
	return l.await(ctx, func() bool { return l.canceled })
}
