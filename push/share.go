package push

import (
	"context"
	"crypto/sha256"
	"errors"
	"log/slog"
	"time"
)

// DefaultShareTTL is how long a Share keeps a registration's record unless
// WithShareTTL says otherwise: the Receiver that holds the registration
// refreshes it every third of that, so a record outlives its holder (a
// replica that died, a Close whose delete failed) by at most this long.
const DefaultShareTTL = time.Minute

// shareRetry is how long the ring listener waits before it listens again
// after its Share failed.
const shareRetry = time.Second

// SharedRegistration is what a Share keeps of a registration, for the
// Receivers that do not hold it: no token, only its digest.
type SharedRegistration struct {
	// TokenDigest is the SHA-256 digest of the registration's token.
	TokenDigest [sha256.Size]byte
	// TaskID is the task the registration is bound to; "" while unbound.
	TaskID string
	// Holder names the Receiver that holds the registration: a random ID
	// each Receiver draws when it is made. Only the holder refreshes,
	// replaces or deletes the record; Receiver.Adopt makes another
	// Receiver its holder.
	Holder string
	// Generation counts the adoptions of the registration: 0 for the
	// record Register made, one more at each AdoptRegistration. A record
	// put again after the Share lost it (a restart) keeps its holder's
	// generation, so that the holder of the latest adoption wins over one
	// that held the registration before (a replica that lost its lease
	// and still runs).
	Generation uint64
}

// Share is where the Receivers of several processes (the replicas of an
// application) share their registrations, so that a notification that
// reaches a Receiver that does not hold its registration still reaches the
// registration: that Receiver checks it against the record the holder put,
// and rings the registration's ID; the holder's Receiver, which listens for
// rings, then rings the Registration as for a lost notification (Ready
// fires, Take reports a loss, the consumer fetches the task). What a
// notification carries never travels: a ring is an ID only.
//
// Each record names its holder (SharedRegistration.Holder), and only the
// holder writes it: a Receiver that took a registration over
// (Receiver.Adopt) keeps it against the one that held it before (a replica
// that lost its lease but still runs), whose puts, refreshes and deletes
// then change nothing. Each call on one record is atomic.
//
// Package relay's MemoryStore (in one process) and package
// relay/redisrelay's share implement it; package relay/storetest's RunShare
// is its conformance suite. A Share is safe for concurrent use.
type Share interface {
	// PutRegistration stores rec as the record of the registration id,
	// to expire after ttl unless refreshed, and reports true, unless a
	// record of id is stored (or was deleted, until it would have
	// expired) that is of a later generation than rec, or of the same
	// generation and another holder: it then changes nothing and reports
	// false.
	PutRegistration(ctx context.Context, id string, rec SharedRegistration, ttl time.Duration) (stored bool, err error)
	// GetRegistration returns the record of id and true; false when none
	// is stored, it expired, or it was deleted.
	GetRegistration(ctx context.Context, id string) (SharedRegistration, bool, error)
	// AdoptRegistration makes holder the holder of the record of id, one
	// generation later, to expire after ttl from now, binding it to taskID
	// when it is unbound, and returns the record as it is then stored,
	// and true; false, and nothing stored, when there is no record of id
	// (never put, expired, or deleted). A record bound to another task
	// than a taskID that is not empty is left as it is, and returned with
	// true: its Holder says it was not adopted.
	AdoptRegistration(ctx context.Context, id, taskID, holder string, ttl time.Duration) (SharedRegistration, bool, error)
	// DeleteRegistration deletes the record of id when holder holds it;
	// a record of another holder, or none, is left as it is. What is
	// deleted is remembered until the record would have expired, so that
	// no PutRegistration of the same or an earlier generation stores it
	// again (a former holder that takes it for lost).
	DeleteRegistration(ctx context.Context, id, holder string) error
	// RefreshRegistrations makes the records of ids that are stored and
	// held by holder expire after ttl from now. It never stores a record,
	// nor extends one of another holder or a deleted one, and returns the
	// ids of those (gone: the store lost them, by a restart or an outage
	// longer than ttl, another Receiver adopted them, or the adopter
	// deleted them); the holder puts each again, and stops holding those
	// PutRegistration refuses.
	RefreshRegistrations(ctx context.Context, holder string, ttl time.Duration, ids ...string) (gone []string, err error)
	// RingRegistration tells the listeners (ListenRings) that a
	// notification for id came.
	RingRegistration(ctx context.Context, id string) error
	// ListenRings starts listening for rings: it returns once every ring
	// made after it returned reaches the Rings, until Rings.Close. A ring
	// may reach a listener twice, or, when the Share fails, not at all.
	ListenRings(ctx context.Context) (Rings, error)
}

// Rings is a listener of a Share's rings.
type Rings interface {
	// Next returns the ID of the next registration rung, waiting for one,
	// or fails with ctx's error, or when the listener is closed or fails.
	// After a failure, the Receiver calls Next again (once a second):
	// Rings must then listen anew (reconnect) rather than fail for good,
	// since the Receiver does not call ListenRings again while it holds
	// registrations.
	Next(ctx context.Context) (string, error)
	// Close stops the listener: a Next waiting returns. It is idempotent,
	// and safe beside a Next.
	Close() error
}

// WithShare makes the Receiver share its registrations through s, so that
// a notification that reaches a Receiver of another process (another
// replica) that shares s reaches the registration all the same, as a ring
// (see Share). With it, Register, Bind and Adopt write to s (they take a
// context for that), Registration.Close deletes the registration's record
// unless another Receiver adopted it (best effort: a record it failed to
// delete expires after WithShareTTL), and the Receiver runs one goroutine
// while it holds registrations, which listens for rings and refreshes its
// records. A nil s is refused.
func WithShare(s Share) Option {
	return optionFunc(func(cfg *config) {
		if s == nil {
			cfg.refuse(invalidOption("WithShare: the share is nil"))
			return
		}
		cfg.share = s
	})
}

// WithShareTTL sets how long a Share keeps the record of a registration
// whose holder stopped refreshing it (WithShare); the holder refreshes its
// records every third of d. It must be at least one second. The default is
// DefaultShareTTL.
func WithShareTTL(d time.Duration) Option {
	return optionFunc(func(cfg *config) {
		if d < time.Second {
			cfg.refuse(invalidOption("WithShareTTL: %s; it must be at least 1s", d))
			return
		}
		cfg.shareTTL = d
	})
}

// listener is the goroutine of a Receiver with a Share, while it holds
// registrations: it receives the rings of its registrations and refreshes
// their records.
type listener struct {
	cancel context.CancelFunc
	ready  chan struct{} // closed once rings is set, or err
	done   chan struct{} // closed when the goroutine returned
	rings  Rings         // set before ready is closed, nil on err
	err    error
}

// startListener starts the goroutine that listens for rings; r.mu is held.
func (r *Receiver) startListener() *listener {
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{cancel: cancel, ready: make(chan struct{}), done: make(chan struct{})}
	go r.listen(ctx, l)
	return l
}

// stop ends l's goroutine and waits for it.
func (l *listener) stop() {
	l.cancel()
	<-l.ready
	if l.rings != nil {
		_ = l.rings.Close()
	}
	<-l.done
}

// awaitListener waits until l listens, or ctx ends.
func awaitListener(ctx context.Context, l *listener) error {
	select {
	case <-l.ready:
		return l.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// listen is the listener's goroutine: it rings the registrations it holds
// when their IDs are rung, and refreshes their records every third of the
// TTL.
func (r *Receiver) listen(ctx context.Context, l *listener) {
	defer close(l.done)
	rings, err := r.cfg.share.ListenRings(ctx)
	if err != nil {
		l.err = err
		close(l.ready)
		r.listenerFailed(l)
		return
	}
	l.rings = rings
	close(l.ready)
	defer func() { _ = rings.Close() }()
	every := r.cfg.shareTTL / 3
	next := time.Now().Add(every)
	failing := false // the last Next failed: rings may have been lost
	for {
		// Refresh first: a steady flow of rings must not starve it.
		if !time.Now().Before(next) {
			if r.refresh(ctx, l) {
				// Every registration held was adopted elsewhere: the
				// Receiver no longer has this listener.
				l.cancel()
				return
			}
			next = time.Now().Add(every)
		}
		deadline := next
		if failing {
			// A Next that waits a second without failing shows the
			// Share answers again.
			if probe := time.Now().Add(shareRetry); probe.Before(next) {
				deadline = probe
			}
		}
		wait, cancel := context.WithDeadline(ctx, deadline)
		id, err := rings.Next(wait)
		waited := wait.Err() != nil
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err == nil || waited:
			if failing {
				failing = false
				r.listening(ctx)
			}
			if err != nil {
				continue // time to refresh, or the Share answers again
			}
			if g := r.lookup(id); g != nil {
				g.markLost()
			}
			continue
		}
		// Told once per outage: a Share down for minutes is one warning,
		// not one a second.
		level := slog.LevelDebug
		if !failing {
			level, failing = slog.LevelWarn, true
		}
		r.cfg.logger.LogAttrs(ctx, level, "push: listening for rings failed; trying again every second", slog.Any("err", err))
		t := time.NewTimer(shareRetry)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// listening is what the listener does when its Share answers again after
// a failure: the rings of that time may be lost, so it rings every
// registration it holds, whose consumers fetch their tasks, and says so.
func (r *Receiver) listening(ctx context.Context) {
	r.mu.RLock()
	held := make([]*Registration, 0, len(r.regs))
	for _, g := range r.regs {
		held = append(held, g)
	}
	r.mu.RUnlock()
	for _, g := range held {
		g.markLost()
	}
	r.cfg.logger.LogAttrs(ctx, slog.LevelInfo, "push: listening for rings again; the registrations held are rung, since rings may have been lost",
		slog.Int("registrations", len(held)))
}

// listenerFailed forgets l, which could not listen, so that the next
// Register starts another.
func (r *Receiver) listenerFailed(l *listener) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lis == l {
		r.lis = nil
	}
}

// refresh refreshes the records of the registrations the Receiver holds.
// It reports whether the listener l, which calls it, is to end: it
// released the last registration held (see release).
func (r *Receiver) refresh(ctx context.Context, l *listener) (end bool) {
	r.mu.RLock()
	ids := make([]string, 0, len(r.regs))
	for id := range r.regs {
		ids = append(ids, id)
	}
	r.mu.RUnlock()
	if len(ids) == 0 {
		return false
	}
	gone, err := r.cfg.share.RefreshRegistrations(ctx, r.holder, r.cfg.shareTTL, ids...)
	if err != nil {
		if ctx.Err() == nil {
			r.cfg.logger.LogAttrs(ctx, slog.LevelWarn, "push: refreshing shared registrations failed",
				slog.Int("registrations", len(ids)), slog.Any("err", err))
		}
		return false
	}
	for _, id := range gone {
		// The Share lost the record of a registration still held, or
		// another Receiver adopted it: put it again, as it is here,
		// unless it closed meanwhile; the put refuses an adopted one.
		g := r.lookup(id)
		if g == nil {
			continue
		}
		switch err := r.put(ctx, g, g.TaskID()); {
		case err == nil:
			r.cfg.logger.LogAttrs(ctx, slog.LevelInfo, "push: a registration the share had lost was shared again",
				slog.String("registration", id))
		case errors.Is(err, ErrAdopted):
			switch last := r.release(g); {
			case last == l:
				end = true
			case last != nil: // another listener's: this one was stopped meanwhile
				last.stop()
			}
		case ctx.Err() == nil:
			r.cfg.logger.LogAttrs(ctx, slog.LevelWarn, "push: sharing a registration again failed",
				slog.String("registration", id), slog.Any("err", err))
		}
	}
	return end
}

// put stores g's record, bound to taskID, in the Share, when there is one
// and g is still shared by this Receiver: ErrAdopted when another Receiver
// holds the record, or adopted it before.
func (r *Receiver) put(ctx context.Context, g *Registration, taskID string) error {
	switch {
	case r.cfg.share == nil:
		return nil
	case g.isReleased():
		return ErrAdopted
	}
	rec := SharedRegistration{TokenDigest: g.digest, TaskID: taskID, Holder: r.holder, Generation: g.generation}
	stored, err := r.cfg.share.PutRegistration(ctx, g.id, rec, r.cfg.shareTTL)
	switch {
	case err != nil:
		return err
	case !stored:
		return ErrAdopted
	}
	return nil
}

// release stops holding g, whose record another Receiver adopted: the
// Receiver forgets it (a notification for it that reaches this Receiver
// now rings its new holder, as for any registration held elsewhere), and
// g's consumer is rung once, as for a lost notification. g stays open, and
// writes nothing more to the Share, its Close included. It returns the
// listener when g was the last registration held, for the caller to stop
// (the listener itself, when it is the caller, returns instead).
func (r *Receiver) release(g *Registration) *listener {
	if !g.markReleased() {
		return nil
	}
	l := r.unhold(g)
	g.markLost()
	r.cfg.logger.LogAttrs(context.Background(), slog.LevelInfo, "push: another Receiver adopted a registration; it is no longer held here",
		slog.String("registration", g.id))
	return l
}

// shareDeleteTimeout bounds the delete of a closed registration's record.
const shareDeleteTimeout = 5 * time.Second

// deleteShared deletes the record of the registration id from the Share,
// if any and if this Receiver holds it, best effort: a failure is logged,
// and the record expires.
func (r *Receiver) deleteShared(id string) {
	if r.cfg.share == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), shareDeleteTimeout)
	defer cancel()
	if err := r.cfg.share.DeleteRegistration(ctx, id, r.holder); err != nil {
		r.cfg.logger.LogAttrs(ctx, slog.LevelWarn, "push: deleting a shared registration failed",
			slog.String("registration", id), slog.Any("err", err))
	}
}
