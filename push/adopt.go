package push

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// The reasons Adopt refuses, each wrapped by its error: match them with
// errors.Is. Nothing is held after a refusal.
var (
	// ErrNoShare: the Receiver shares no registrations (no WithShare, or
	// the zero Receiver), so it cannot take one over.
	ErrNoShare = errors.New("push: the Receiver has no Share")
	// ErrUnknownRegistration: the Share holds no record of the
	// registration: never shared, deleted by its holder's Close, or
	// expired (its holder stopped refreshing it longer than WithShareTTL
	// ago). An ID not of the form Register makes is refused so too,
	// without asking the Share.
	ErrUnknownRegistration = errors.New("push: the share holds no record of the registration")
	// ErrHeld: this Receiver holds the registration already, by Register
	// or by an earlier Adopt.
	ErrHeld = errors.New("push: the Receiver holds the registration already")
)

// Adopt takes over the registration id, for the task taskID, which
// another Receiver that shares the same Share made (another replica, or a
// process that restarted), so that the push config the agent was given for it goes on
// reaching the application: a replica that resumes a stream from its
// checkpoint adopts the stream's registration rather than registering a
// new push config with the agent. Package stream does so on Resume (see
// stream.WithPush).
//
// With a Share, Adopt makes this Receiver the holder of the
// registration's record, binding it to taskID when it is unbound, in one
// atomic call of the Share, and returns a Registration that behaves as one
// Register made: it is bound to the record's task, checks each notification's token against the
// record's digest (in constant time), queues what it accepts, is rung
// through the Share, refreshes its record, and deletes it on Close. Its
// Token is "": the Share keeps only the token's digest. Its URL is this
// Receiver's base URL and the ID; the agent POSTs to the URL it was given,
// which may be another Receiver's (replicas behind one URL share it).
// Notifications may have come while no Receiver held the registration, so
// the Registration it returns reports a loss at once (Ready holds a value,
// Take reports lost): the consumer fetches the task.
//
// The Receiver that held the registration before (a replica that lost its
// lease but still runs) no longer writes its record: its Close deletes
// nothing, and at its next refresh (every third of WithShareTTL) it
// finds the record adopted, stops holding the registration (a notification
// that reaches it then rings the adopter) and rings its consumer once.
//
// Adopt refuses, with an error that wraps ErrNoShare, ErrUnknownRegistration,
// ErrHeld or ErrBound, a Receiver without a Share, a registration the
// Share holds no record of (never shared, deleted, expired), one this
// Receiver holds already, and one bound to another task than taskID (left
// to its holder; an empty taskID takes any); with the Share's error when
// the Share fails. ctx bounds the call to the Share. When the adoption
// was made but the Receiver cannot listen for rings, Adopt fails and
// leaves the record (as Registration.Leave does) for another Adopt.
func (r *Receiver) Adopt(ctx context.Context, id, taskID string) (*Registration, error) {
	if r == nil || r.regs == nil || r.cfg.share == nil {
		return nil, fmt.Errorf("push: Adopt: %w", ErrNoShare)
	}
	if u, err := uuid.Parse(id); err != nil || u.String() != id {
		return nil, fmt.Errorf("push: Adopt: %w", ErrUnknownRegistration)
	}
	if r.lookup(id) != nil {
		return nil, fmt.Errorf("push: Adopt: %w", ErrHeld)
	}
	// The adoption checks the task with the record, in one step: a record
	// bound to another task is left as it is (its holder unchanged), and
	// an unbound one is bound to taskID.
	rec, found, err := r.cfg.share.AdoptRegistration(ctx, id, taskID, r.holder, r.cfg.shareTTL)
	switch {
	case err != nil:
		return nil, fmt.Errorf("push: Adopt: %w", err)
	case !found:
		return nil, fmt.Errorf("push: Adopt: %w", ErrUnknownRegistration)
	case rec.Holder != r.holder:
		return nil, fmt.Errorf("push: Adopt: %w", ErrBound)
	}
	g := &Registration{
		id:         id,
		url:        r.base + "/" + id,
		digest:     rec.TokenDigest,
		generation: rec.Generation,
		recv:       r,
		ready:      make(chan struct{}, 1),
		taskID:     rec.TaskID,
		sharedTask: rec.TaskID,
		lost:       true,
	}
	g.signal()
	r.mu.Lock()
	if r.regs[id] != nil {
		// Another Adopt of the same ID won the race: it holds the
		// record, which this one must not delete.
		r.mu.Unlock()
		return nil, fmt.Errorf("push: Adopt: %w", ErrHeld)
	}
	r.regs[id] = g
	if r.lis == nil {
		r.lis = r.startListener()
	}
	l := r.lis
	r.mu.Unlock()
	if err := awaitListener(ctx, l); err != nil {
		// The record is adopted: leave it, rather than delete it, for
		// another Adopt to take.
		g.Leave()
		return nil, fmt.Errorf("push: Adopt: listening for rings: %w", err)
	}
	return g, nil
}
