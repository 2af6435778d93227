package storetest

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2astream/a2astream/push"
)

// The subtests below pin the record's holder: only the holder puts,
// refreshes or deletes a record, and an adoption makes another Receiver
// its holder, against the former one (a replica that lost its lease and
// still runs: a zombie).

// adopted returns the record that b adopts for holderB, failing t unless
// there is one.
func adopted(t *testing.T, s push.Share, id string) push.SharedRegistration {
	t.Helper()
	rec, ok, err := s.AdoptRegistration(t.Context(), id, "", holderB, longTTL)
	noError(t, err, "AdoptRegistration(%q)", id)
	equal(t, ok, true, "AdoptRegistration(%q) found the record", id)
	return rec
}

// held returns rec held by holder.
func held(rec push.SharedRegistration, holder string) push.SharedRegistration {
	rec.Holder = holder
	return rec
}

// adoptedBy returns rec as holder's adoption stores it: held by holder,
// one generation later.
func adoptedBy(rec push.SharedRegistration, holder string) push.SharedRegistration {
	rec.Holder = holder
	rec.Generation++
	return rec
}

// putOfAnotherHolder: a put by another holder than the record's is
// refused (false) and changes nothing; the holder's own put replaces it.
func (shareSuite) putOfAnotherHolder(t *testing.T, a, b push.Share) {
	put(t, a, regID1, record("token-1", "task-1"), longTTL, "PutRegistration by A")
	stored, err := b.PutRegistration(t.Context(), regID1, held(record("token-2", "task-2"), holderB), longTTL)
	noError(t, err, "PutRegistration by B")
	equal(t, stored, false, "B's put over A's record stored")
	got, _ := get(t, a, regID1)
	equal(t, got, record("token-1", "task-1"), "the record after B's put")
	put(t, b, regID1, record("token-1", "task-2"), longTTL, "PutRegistration by A on the other view")
	got, _ = get(t, a, regID1)
	equal(t, got, record("token-1", "task-2"), "the record after A's second put")
}

// adopt: an adoption makes the new holder the record's, keeps its digest
// and task, and returns the record as stored; an ID never put is not
// found, and stores nothing.
func (shareSuite) adopt(t *testing.T, a, b push.Share) {
	want := record("token-1", "task-1")
	put(t, a, regID1, want, longTTL, "PutRegistration")
	equal(t, adopted(t, b, regID1), adoptedBy(want, holderB), "the record adopted")
	got, ok := get(t, a, regID1)
	equal(t, ok, true, "the adopted record found")
	equal(t, got, adoptedBy(want, holderB), "the adopted record on the other view")
	_, ok, err := b.AdoptRegistration(t.Context(), regID2, "", holderB, longTTL)
	noError(t, err, "AdoptRegistration of an ID never put")
	equal(t, ok, false, "an ID never put adopted")
	_, ok = get(t, a, regID2)
	equal(t, ok, false, "an adoption stored a record")
}

// adoptExpired: an expired record cannot be adopted.
func (s shareSuite) adoptExpired(t *testing.T, a, b push.Share) {
	put(t, a, regID1, record("token-1", "task-1"), s.cfg.ttl, "PutRegistration")
	waitGone(t, s, b, regID1)
	_, ok, err := b.AdoptRegistration(t.Context(), regID1, "", holderB, longTTL)
	noError(t, err, "AdoptRegistration of an expired record")
	equal(t, ok, false, "an expired record adopted")
}

// deleteOfAnotherHolder: once B adopted the record, A's delete (a zombie
// closing its registration) leaves it; B's deletes it.
func (shareSuite) deleteOfAnotherHolder(t *testing.T, a, b push.Share) {
	put(t, a, regID1, record("token-1", "task-1"), longTTL, "PutRegistration")
	adopted(t, b, regID1)
	noError(t, a.DeleteRegistration(t.Context(), regID1, holderA), "DeleteRegistration by the former holder")
	got, ok := get(t, b, regID1)
	equal(t, ok, true, "the adopter's record found after the former holder's delete")
	equal(t, got, adoptedBy(record("token-1", "task-1"), holderB), "the adopter's record")
	noError(t, b.DeleteRegistration(t.Context(), regID1, holderB), "DeleteRegistration by the holder")
	_, ok = get(t, a, regID1)
	equal(t, ok, false, "the holder's delete left the record")
}

// zombieRefresh: once B adopted the record, A's refresh (a zombie that
// still holds the registration) returns it as gone and extends nothing,
// and A's put again is refused; B's refresh extends it past its first
// ttl.
func (s shareSuite) zombieRefresh(t *testing.T, a, b push.Share) {
	put(t, a, regID1, record("token-1", "task-1"), longTTL, "PutRegistration")
	_, ok, err := b.AdoptRegistration(t.Context(), regID1, "", holderB, s.cfg.ttl)
	noError(t, err, "AdoptRegistration")
	equal(t, ok, true, "the record adopted")
	gone, err := a.RefreshRegistrations(t.Context(), holderA, longTTL, regID1)
	noError(t, err, "RefreshRegistrations by the former holder")
	equal(t, strings.Join(gone, ","), regID1, "the ids the former holder's refresh found gone")
	stored, err := a.PutRegistration(t.Context(), regID1, record("token-1", "task-1"), longTTL)
	noError(t, err, "PutRegistration by the former holder")
	equal(t, stored, false, "the former holder's put took the record back")
	// The former holder's refresh did not extend it: it expires at the
	// adoption's ttl.
	waitGone(t, s, a, regID1)

	put(t, a, regID2, held(record("token-2", "task-2"), holderB), s.cfg.ttl, "PutRegistration by B")
	gone, err = b.RefreshRegistrations(t.Context(), holderB, longTTL, regID2)
	noError(t, err, "RefreshRegistrations by the holder")
	equal(t, len(gone), 0, "the holder's refresh found its record gone")
	put(t, a, "0b7e6a3e-8d0c-4c51-9f64-2f3f4b2a1c03", record("token-3", ""), s.cfg.ttl, "PutRegistration 3")
	waitGone(t, s, a, "0b7e6a3e-8d0c-4c51-9f64-2f3f4b2a1c03")
	_, ok = get(t, a, regID2)
	equal(t, ok, true, "the record the holder refreshed found past its first ttl")
}

// receiverAdopts: B adopts a registration A made; it is bound to the
// record's task, has no token, reports a loss at once, and queues a
// notification POSTed to B. A, still running, finds the record adopted at
// its next refresh: its registration is rung once, and A no longer holds
// it (a notification POSTed to A rings B's). A's Close then leaves B's
// record; B's deletes it.
func (shareSuite) receiverAdopts(t *testing.T, a, b push.Share) {
	ra, err := push.NewReceiver("http://127.0.0.1:8080/hooks", push.WithShare(a), push.WithShareTTL(time.Second))
	noError(t, err, "NewReceiver A")
	rb, err := push.NewReceiver("http://127.0.0.1:8081/hooks", push.WithShare(b))
	noError(t, err, "NewReceiver B")
	g := registered(t, ra, "t1")
	h, err := rb.Adopt(t.Context(), g.ID(), "t1")
	noError(t, err, "Adopt")
	t.Cleanup(h.Close)
	equal(t, h.ID(), g.ID(), "the adopted registration's ID")
	equal(t, h.URL(), "http://127.0.0.1:8081/hooks/"+g.ID(), "the adopted registration's URL")
	equal(t, h.TaskID(), "t1", "the adopted registration's task")
	equal(t, h.Token(), "", "the adopted registration's token")
	rung(t, h) // a loss at once: notifications may have come while no one held it

	equal(t, post(rb, g.ID(), g.Token(), bodyStatus).Code, http.StatusNoContent, "status of a notification to B")
	ns, _ := h.Take()
	equal(t, len(ns), 1, "notifications queued on B")
	equal(t, post(rb, g.ID(), "wrong", bodyStatus).Code, http.StatusUnauthorized, "status of a wrong token to B")
	equal(t, post(rb, g.ID(), g.Token(), bodyForeign).Code, http.StatusForbidden, "status of another task's notification to B")

	rung(t, g) // A's refresh (every third of a second) found the record adopted
	equal(t, post(ra, g.ID(), g.Token(), bodyTask03).Code, http.StatusNoContent, "status of a notification to A")
	rung(t, h)
	g.Close()
	equal(t, post(ra, g.ID(), g.Token(), bodyStatus).Code, http.StatusNoContent, "status to A after A's Close")
	rung(t, h)
	h.Close()
	equal(t, post(ra, g.ID(), g.Token(), bodyStatus).Code, http.StatusUnauthorized, "status to A after B's Close")
}

// adoptsWhatWasLeft: a registration A left (Leave: its stream stopped with
// the task running) keeps its record, which B adopts and is rung by; one A
// closed (its task ended) has none to adopt.
func (shareSuite) adoptsWhatWasLeft(t *testing.T, a, b push.Share) {
	ra, err := push.NewReceiver("http://127.0.0.1:8080/hooks", push.WithShare(a))
	noError(t, err, "NewReceiver A")
	rb, err := push.NewReceiver("http://127.0.0.1:8081/hooks", push.WithShare(b))
	noError(t, err, "NewReceiver B")
	left, closed := registered(t, ra, "t1"), registered(t, ra, "t2")
	left.Leave()
	closed.Close()
	equal(t, post(ra, left.ID(), left.Token(), bodyStatus).Code, http.StatusNoContent, "status of a notification to A after A left")

	h, err := rb.Adopt(t.Context(), left.ID(), "t1")
	noError(t, err, "Adopt of the registration A left")
	t.Cleanup(h.Close)
	rung(t, h) // a loss at once
	equal(t, post(ra, left.ID(), left.Token(), bodyTask03).Code, http.StatusNoContent, "status of a notification to A after B adopted")
	rung(t, h)
	equal(t, post(rb, left.ID(), left.Token(), bodyStatus).Code, http.StatusNoContent, "status of a notification to B")
	ns, _ := h.Take()
	equal(t, len(ns), 1, "notifications queued on B")

	_, err = rb.Adopt(t.Context(), closed.ID(), "t2")
	equal(t, errors.Is(err, push.ErrUnknownRegistration), true, "Adopt of a registration A closed: %v", err)
}

// adoptChecksTheTask: an adoption for a task binds an unbound record to
// it, and leaves a record bound to another task as it is (returned with
// its holder, not the adopter); an empty task takes any.
func (shareSuite) adoptChecksTheTask(t *testing.T, a, b push.Share) {
	put(t, a, regID1, record("token-1", ""), longTTL, "PutRegistration of an unbound record")
	rec, ok, err := b.AdoptRegistration(t.Context(), regID1, "task-1", holderB, longTTL)
	noError(t, err, "AdoptRegistration of an unbound record")
	equal(t, ok, true, "the unbound record found")
	want := adoptedBy(record("token-1", "task-1"), holderB)
	equal(t, rec, want, "the unbound record adopted, bound to the task")
	got, _ := get(t, a, regID1)
	equal(t, got, want, "the record after the adoption")

	put(t, a, regID2, record("token-2", "task-2"), longTTL, "PutRegistration of a bound record")
	rec, ok, err = b.AdoptRegistration(t.Context(), regID2, "task-other", holderB, longTTL)
	noError(t, err, "AdoptRegistration for another task")
	equal(t, ok, true, "the record bound to another task found")
	equal(t, rec, record("token-2", "task-2"), "the record bound to another task, returned as it is")
	got, _ = get(t, a, regID2)
	equal(t, got, record("token-2", "task-2"), "the record bound to another task after the refused adoption")
}

// deletedStaysDeleted: once its holder deleted a record, no put of its
// generation or an earlier one stores it again (a former holder that took
// it for lost), it cannot be got, adopted or refreshed, and a put of a
// later generation (a holder adopted since, putting after a loss) is
// stored.
func (shareSuite) deletedStaysDeleted(t *testing.T, a, b push.Share) {
	put(t, a, regID1, record("token-1", "task-1"), longTTL, "PutRegistration by A")
	adopted(t, b, regID1)
	noError(t, b.DeleteRegistration(t.Context(), regID1, holderB), "DeleteRegistration by the adopter")
	stored, err := a.PutRegistration(t.Context(), regID1, record("token-1", "task-1"), longTTL)
	noError(t, err, "PutRegistration by the former holder")
	equal(t, stored, false, "the former holder's put after the adopter's delete stored")
	stored, err = b.PutRegistration(t.Context(), regID1, adoptedBy(record("token-1", "task-1"), holderB), longTTL)
	noError(t, err, "PutRegistration of the deleted generation by its holder")
	equal(t, stored, false, "a put of the deleted generation stored")
	_, ok := get(t, a, regID1)
	equal(t, ok, false, "a deleted record got")
	_, ok, err = a.AdoptRegistration(t.Context(), regID1, "", holderA, longTTL)
	noError(t, err, "AdoptRegistration of a deleted record")
	equal(t, ok, false, "a deleted record adopted")
	gone, err := b.RefreshRegistrations(t.Context(), holderB, longTTL, regID1)
	noError(t, err, "RefreshRegistrations of a deleted record")
	equal(t, strings.Join(gone, ","), regID1, "the ids a refresh of a deleted record found gone")

	later := adoptedBy(adoptedBy(record("token-1", "task-1"), holderB), holderA)
	put(t, a, regID1, later, longTTL, "PutRegistration of a later generation")
	got, _ := get(t, b, regID1)
	equal(t, got, later, "the record of a later generation")
}

// laterGenerationWins: after the share lost a record (a restart), the
// holder of the latest adoption and a former holder both put it again:
// whichever puts first, the latest adoption's record stands.
func (shareSuite) laterGenerationWins(t *testing.T, a, b push.Share) {
	former, latest := record("token-1", "task-1"), adoptedBy(record("token-1", "task-1"), holderB)
	put(t, a, regID1, former, longTTL, "PutRegistration by the former holder first")
	put(t, b, regID1, latest, longTTL, "PutRegistration by the latest holder second")
	stored, err := a.PutRegistration(t.Context(), regID1, former, longTTL)
	noError(t, err, "PutRegistration by the former holder again")
	equal(t, stored, false, "the former holder's put over a later generation stored")
	got, _ := get(t, a, regID1)
	equal(t, got, latest, "the record after both puts")

	put(t, b, regID2, held(latest, holderB), longTTL, "PutRegistration by the latest holder first")
	stored, err = a.PutRegistration(t.Context(), regID2, former, longTTL)
	noError(t, err, "PutRegistration by the former holder second")
	equal(t, stored, false, "the former holder's put over a later generation stored")
	got, _ = get(t, b, regID2)
	equal(t, got, latest, "the record after both puts, the other way round")
}
