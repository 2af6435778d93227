package relay

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/a2astream/a2astream/push"
)

// A MemoryStore is also a push.Share, for the push.Receivers of one
// process (tests, or an application that runs several Receivers in one
// process): give it to each with push.WithShare. Its records expire by the
// store's clock (WithClock).
var _ push.Share = (*MemoryStore)(nil)

// memoryShare is the push.Share of a MemoryStore. Its zero value is ready.
type memoryShare struct {
	mu        sync.Mutex
	records   map[string]memoryRecord
	listeners map[*memoryRings]struct{}
}

// memoryRecord is one shared registration, with when it expires. A
// deleted one keeps its generation, with no holder, until it expires.
type memoryRecord struct {
	rec     push.SharedRegistration
	expires time.Time
}

// deleted reports whether r is what a delete left.
func (r memoryRecord) deleted() bool { return r.rec.Holder == "" }

// errRingsClosed is the error of Next on closed Rings.
var errRingsClosed = errors.New("relay: the rings listener is closed")

// live returns the record of id unless none is stored or it expired (an
// expired one is dropped); s.mu is held.
func (m *MemoryStore) live(id string) (memoryRecord, bool) {
	s := &m.push
	r, ok := s.records[id]
	if ok && !m.cfg.now().Before(r.expires) {
		delete(s.records, id)
		ok = false
	}
	return r, ok
}

// PutRegistration stores rec as the record of the push registration id,
// to expire after ttl by the store's clock, unless a record of id is held
// by another holder (see push.Share).
func (m *MemoryStore) PutRegistration(ctx context.Context, id string, rec push.SharedRegistration, ttl time.Duration) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s := &m.push
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := m.live(id); ok && (r.rec.Generation > rec.Generation || r.rec.Generation == rec.Generation && r.rec.Holder != rec.Holder) {
		return false, nil
	}
	if s.records == nil {
		s.records = map[string]memoryRecord{}
	}
	s.records[id] = memoryRecord{rec: rec, expires: m.cfg.now().Add(ttl)}
	return true, nil
}

// GetRegistration returns the record of the push registration id, unless
// none is stored or it expired (see push.Share).
func (m *MemoryStore) GetRegistration(ctx context.Context, id string) (push.SharedRegistration, bool, error) {
	if err := ctx.Err(); err != nil {
		return push.SharedRegistration{}, false, err
	}
	s := &m.push
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := m.live(id)
	if !ok || r.deleted() {
		return push.SharedRegistration{}, false, nil
	}
	return r.rec, true, nil
}

// AdoptRegistration makes holder the holder of the record of the push
// registration id, one generation later, to expire after ttl, binding it
// to taskID when it is unbound, unless none is stored or it is bound to
// another task (see push.Share).
func (m *MemoryStore) AdoptRegistration(ctx context.Context, id, taskID, holder string, ttl time.Duration) (push.SharedRegistration, bool, error) {
	if err := ctx.Err(); err != nil {
		return push.SharedRegistration{}, false, err
	}
	s := &m.push
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := m.live(id)
	switch {
	case !ok || r.deleted():
		return push.SharedRegistration{}, false, nil
	case taskID != "" && r.rec.TaskID != "" && r.rec.TaskID != taskID:
		return r.rec, true, nil
	}
	if r.rec.TaskID == "" {
		r.rec.TaskID = taskID
	}
	r.rec.Holder, r.rec.Generation, r.expires = holder, r.rec.Generation+1, m.cfg.now().Add(ttl)
	s.records[id] = r
	return r.rec, true, nil
}

// DeleteRegistration deletes the record of the push registration id when
// holder holds it (see push.Share).
func (m *MemoryStore) DeleteRegistration(ctx context.Context, id, holder string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s := &m.push
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := m.live(id); ok && r.rec.Holder == holder && holder != "" {
		// What stays until the record would have expired: its
		// generation, which refuses a former holder's put.
		s.records[id] = memoryRecord{rec: push.SharedRegistration{Generation: r.rec.Generation}, expires: r.expires}
	}
	return nil
}

// RefreshRegistrations makes the records of ids that are stored, not
// expired and held by holder expire after ttl from now, and returns the
// others (see push.Share).
func (m *MemoryStore) RefreshRegistrations(ctx context.Context, holder string, ttl time.Duration, ids ...string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var gone []string
	s := &m.push
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		r, ok := m.live(id)
		if !ok || r.deleted() || r.rec.Holder != holder {
			gone = append(gone, id)
			continue
		}
		r.expires = m.cfg.now().Add(ttl)
		s.records[id] = r
	}
	return gone, nil
}

// RingRegistration rings id on every listener of the store (see
// push.Share).
func (m *MemoryStore) RingRegistration(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s := &m.push
	s.mu.Lock()
	defer s.mu.Unlock()
	for l := range s.listeners {
		l.ring(id)
	}
	return nil
}

// ListenRings returns a listener of the store's rings (see push.Share).
// Each listener holds the IDs rung and not yet taken, each once however
// often it was rung.
func (m *MemoryStore) ListenRings(ctx context.Context) (push.Rings, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := &memoryRings{share: &m.push, pending: map[string]struct{}{}, wake: make(chan struct{}, 1)}
	s := &m.push
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listeners == nil {
		s.listeners = map[*memoryRings]struct{}{}
	}
	s.listeners[l] = struct{}{}
	return l, nil
}

// memoryRings is a listener of a MemoryStore's rings.
type memoryRings struct {
	share *memoryShare
	wake  chan struct{} // holds a value when pending is not empty, or closed

	mu      sync.Mutex
	pending map[string]struct{}
	order   []string // pending's IDs, oldest first
	closed  bool
}

// ring adds id to the pending IDs.
func (l *memoryRings) ring(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if _, ok := l.pending[id]; !ok {
		l.pending[id] = struct{}{}
		l.order = append(l.order, id)
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Next returns the oldest ID pending, waiting for one.
func (l *memoryRings) Next(ctx context.Context) (string, error) {
	for {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return "", errRingsClosed
		}
		if len(l.order) > 0 {
			id := l.order[0]
			l.order = l.order[1:]
			delete(l.pending, id)
			l.mu.Unlock()
			return id, nil
		}
		l.mu.Unlock()
		select {
		case <-l.wake:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// Close stops the listener; a Next waiting returns.
func (l *memoryRings) Close() error {
	l.share.mu.Lock()
	delete(l.share.listeners, l)
	l.share.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		close(l.wake)
	}
	return nil
}
