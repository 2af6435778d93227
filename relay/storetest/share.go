package storetest

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2astream/a2astream/push"
)

// RunShare runs the conformance suite of [push.Share] against the shares
// that open returns: two views of one fresh share for each subtest (as
// two replicas, each with its own connection, see it), made inside the
// subtest (inside its synctest bubble, unless [Expiry] is given) and
// closed with t.Cleanup. With Expiry, the subtests run outside any bubble,
// records are put with its ttl, and the suite polls GetRegistration until
// the record is gone (its wait is not used). A nil open, a nil option or a
// bad option value fails t before any subtest runs.
func RunShare(t *testing.T, open func(t *testing.T) (a, b push.Share), opts ...Option) {
	t.Helper()
	cfg, err := newConfig(opts)
	if err == nil && open == nil {
		err = errors.New("storetest: open is nil")
	}
	if err != nil {
		t.Fatal(err)
	}
	s := shareSuite{cfg: cfg}
	for _, c := range []struct {
		name string
		run  func(t *testing.T, a, b push.Share)
	}{
		{"PutIsSeenByAnotherView", s.putGet},
		{"PutReplacesTheRecord", s.putReplaces},
		{"DeleteForgets", s.deleteForgets},
		{"RecordExpiresAfterItsTTL", s.expires},
		{"RefreshExtendsOnlyWhatIsStored", s.refresh},
		{"PutOfAnotherHolderChangesNothing", s.putOfAnotherHolder},
		{"AdoptMakesANewHolder", s.adopt},
		{"AdoptFindsNoExpiredRecord", s.adoptExpired},
		{"DeleteOfAnotherHolderChangesNothing", s.deleteOfAnotherHolder},
		{"AdoptChecksTheTask", s.adoptChecksTheTask},
		{"DeletedStaysDeleted", s.deletedStaysDeleted},
		{"LaterGenerationWins", s.laterGenerationWins},
		{"RefreshOfAFormerHolderChangesNothing", s.zombieRefresh},
		{"RingReachesEveryListener", s.ringReachesListeners},
		{"CloseEndsAWaitingNext", s.closeEndsNext},
		{"NextEndsWithItsContext", s.nextEndsWithContext},
		{"ReceiverBRingsTheHolder", s.ringsTheHolder},
		{"ReceiverBRefusesAsTheHolder", s.refusedAsOnTheHolder},
		{"ReceiverBRefusesAnExpiredRecord", s.expiredRefused},
		{"ReceiverBRingsNoReplay", s.replayRingsNoMore},
		{"ReceiverStopsListeningAtItsLastClose", s.lastCloseStopsListening},
		{"ReceiverBAdoptsAndAKeepsOff", s.receiverAdopts},
		{"ReceiverBAdoptsWhatALeft", s.adoptsWhatWasLeft},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !cfg.bubble {
				a, b := open(t)
				c.run(t, a, b)
				return
			}
			synctest.Test(t, func(t *testing.T) {
				a, b := open(t)
				c.run(t, a, b)
			})
		})
	}
}

// shareSuite holds the subtests of RunShare.
type shareSuite struct{ cfg config }

// record returns the record of a registration whose token is token, held
// by holderA.
func record(token, taskID string) push.SharedRegistration {
	return push.SharedRegistration{TokenDigest: sha256.Sum256([]byte(token)), TaskID: taskID, Holder: holderA}
}

// The holders of the records the suite puts: two Receivers' names.
const (
	holderA = "7d1f3c2a-5b6e-4f80-9a1b-c2d3e4f5a6b7"
	holderB = "7d1f3c2a-5b6e-4f80-9a1b-c2d3e4f5a6b8"
)

// put puts rec as the record of id on s, with ttl, and fails t unless it
// was stored.
func put(t *testing.T, s push.Share, id string, rec push.SharedRegistration, ttl time.Duration, what string) {
	t.Helper()
	stored, err := s.PutRegistration(t.Context(), id, rec, ttl)
	noError(t, err, "%s", what)
	equal(t, stored, true, "%s: stored", what)
}

// Registration IDs as a Receiver makes them.
const (
	regID1 = "0b7e6a3e-8d0c-4c51-9f64-2f3f4b2a1c01"
	regID2 = "0b7e6a3e-8d0c-4c51-9f64-2f3f4b2a1c02"
)

// get returns what s holds of id.
func get(t *testing.T, s push.Share, id string) (push.SharedRegistration, bool) {
	t.Helper()
	rec, ok, err := s.GetRegistration(t.Context(), id)
	noError(t, err, "GetRegistration(%q)", id)
	return rec, ok
}

// putGet: a record put on one view is got, equal, on the other; an ID
// never put is not found.
func (shareSuite) putGet(t *testing.T, a, b push.Share) {
	want := record("token-1", "task-1")
	put(t, a, regID1, want, longTTL, "PutRegistration")
	got, ok := get(t, b, regID1)
	equal(t, ok, true, "record found on the other view")
	equal(t, got, want, "record got")
	_, ok = get(t, b, regID2)
	equal(t, ok, false, "record of an ID never put found")
}

// putReplaces: a second put (the Bind after the Register) replaces the
// record, task and digest.
func (shareSuite) putReplaces(t *testing.T, a, b push.Share) {
	put(t, a, regID1, record("token-1", ""), longTTL, "PutRegistration unbound")
	got, ok := get(t, b, regID1)
	equal(t, ok, true, "unbound record found")
	equal(t, got, record("token-1", ""), "unbound record")
	put(t, a, regID1, record("token-1", "task-1"), longTTL, "PutRegistration bound")
	got, _ = get(t, b, regID1)
	equal(t, got, record("token-1", "task-1"), "record after the second put")
}

// deleteForgets: a record deleted on one view is not found on the other;
// deleting an ID with no record is not an error; another ID's record is
// kept.
func (shareSuite) deleteForgets(t *testing.T, a, b push.Share) {
	put(t, a, regID1, record("token-1", "task-1"), longTTL, "PutRegistration 1")
	put(t, a, regID2, record("token-2", "task-2"), longTTL, "PutRegistration 2")
	noError(t, b.DeleteRegistration(t.Context(), regID1, holderA), "DeleteRegistration")
	_, ok := get(t, a, regID1)
	equal(t, ok, false, "deleted record found")
	noError(t, b.DeleteRegistration(t.Context(), regID1, holderA), "DeleteRegistration again")
	got, ok := get(t, a, regID2)
	equal(t, ok, true, "the other record found")
	equal(t, got, record("token-2", "task-2"), "the other record")
}

// expires: a record not refreshed is not found once its ttl has passed.
func (s shareSuite) expires(t *testing.T, a, b push.Share) {
	put(t, a, regID1, record("token-1", "task-1"), s.cfg.ttl, "PutRegistration")
	waitGone(t, s, b, regID1)
	_, ok := get(t, a, regID1)
	equal(t, ok, false, "expired record found")
}

// refresh: a refresh with a long ttl keeps a record past its first ttl; a
// refresh never stores a record that was not stored, nor one deleted, and
// returns their ids.
func (s shareSuite) refresh(t *testing.T, a, b push.Share) {
	put(t, a, regID1, record("token-1", "task-1"), s.cfg.ttl, "PutRegistration")
	missing, err := b.RefreshRegistrations(t.Context(), holderA, longTTL, regID1, regID2)
	noError(t, err, "RefreshRegistrations")
	equal(t, strings.Join(missing, ","), regID2, "the ids a refresh found no record of")
	put(t, a, "0b7e6a3e-8d0c-4c51-9f64-2f3f4b2a1c03", record("token-3", ""), s.cfg.ttl, "PutRegistration 3")
	// Wait past the first ttl: the record put with it, not refreshed, is gone.
	waitGone(t, s, a, "0b7e6a3e-8d0c-4c51-9f64-2f3f4b2a1c03")
	got, ok := get(t, a, regID1)
	equal(t, ok, true, "refreshed record found past its first ttl")
	equal(t, got, record("token-1", "task-1"), "refreshed record")
	_, ok = get(t, a, regID2)
	equal(t, ok, false, "a refresh stored a record never put")
	noError(t, a.DeleteRegistration(t.Context(), regID1, holderA), "DeleteRegistration")
	missing, err = b.RefreshRegistrations(t.Context(), holderA, longTTL, regID1)
	noError(t, err, "RefreshRegistrations after the delete")
	equal(t, strings.Join(missing, ","), regID1, "a deleted record is missing")
	_, ok = get(t, a, regID1)
	equal(t, ok, false, "a refresh stored again a deleted record")
	missing, err = b.RefreshRegistrations(t.Context(), holderA, longTTL)
	noError(t, err, "RefreshRegistrations of no ID")
	equal(t, len(missing), 0, "no id, none missing")
}

// waitGone waits until sh no longer holds id: past the suite's ttl in a
// bubble, or by polling the store for at most 10 s.
func waitGone(t *testing.T, s shareSuite, sh push.Share, id string) {
	t.Helper()
	if s.cfg.bubble {
		time.Sleep(s.cfg.ttl + time.Millisecond)
		return
	}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		if _, ok := get(t, sh, id); !ok {
			return
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("the record of %s did not expire within 10 s of its ttl %v", id, s.cfg.ttl)
		}
	}
}

// next returns the next ID rung on r, failing t after 10 s.
func next(t *testing.T, r push.Rings) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	id, err := r.Next(ctx)
	noError(t, err, "Rings.Next")
	return id
}

// listen returns a listener of sh, closed when the test ends.
func listen(t *testing.T, sh push.Share) push.Rings {
	t.Helper()
	r, err := sh.ListenRings(t.Context())
	noError(t, err, "ListenRings")
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// ringReachesListeners: a ring made on one view reaches every listener of
// both views, in order; a ring with no listener is not an error.
func (shareSuite) ringReachesListeners(t *testing.T, a, b push.Share) {
	noError(t, a.RingRegistration(t.Context(), regID2), "RingRegistration with no listener")
	ra, rb := listen(t, a), listen(t, b)
	noError(t, b.RingRegistration(t.Context(), regID1), "RingRegistration 1")
	noError(t, a.RingRegistration(t.Context(), regID2), "RingRegistration 2")
	for _, r := range []push.Rings{ra, rb} {
		equal(t, next(t, r), regID1, "first ring")
		equal(t, next(t, r), regID2, "second ring")
	}
}

// closeEndsNext: Close makes a Next that waits return an error, and is
// idempotent.
func (shareSuite) closeEndsNext(t *testing.T, a, _ push.Share) {
	r, err := a.ListenRings(t.Context())
	noError(t, err, "ListenRings")
	done := make(chan error, 1)
	go func() {
		_, err := r.Next(t.Context())
		done <- err
	}()
	noError(t, r.Close(), "Close")
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case err := <-done:
		if err == nil {
			t.Fatalf("Next on closed Rings returned no error")
		}
	case <-timer.C:
		t.Fatalf("Next did not return within 10 s of Close")
	}
	_ = r.Close() // idempotent: no panic; its error, if any, is the implementation's
}

// nextEndsWithContext: a Next that waits returns its context's error.
func (shareSuite) nextEndsWithContext(t *testing.T, a, _ push.Share) {
	r := listen(t, a)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := r.Next(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next after its context ended: got %v; want %v", err, context.DeadlineExceeded)
	}
}
