package storetest

import (
	"bytes"
	"testing"
	"time"

	"github.com/a2astream/a2astream/relay"
)

// leaseHeld: the first Acquire of a log gets term 1; another owner gets
// ErrHeld while the lease is held, but the holder itself acquires again
// with the next term ("no other owner holds" it); after Release the next
// owner gets a higher term, and the released fence is stale.
func (suite) leaseHeld(t *testing.T, st relay.Store) {
	a := open(t, st, "task-1")
	b := open(t, st, "task-1")
	fa, err := a.Acquire(t.Context(), "replica-a", longTTL)
	noError(t, err, "Acquire by a")
	equal(t, fa, relay.Fence{Owner: "replica-a", Term: 1}, "the first fence")
	_, err = b.Acquire(t.Context(), "replica-b", longTTL)
	isError(t, err, relay.ErrHeld, "Acquire by b while a holds the lease")
	noError(t, a.Renew(t.Context(), fa, longTTL), "Renew by a")
	_, err = b.Acquire(t.Context(), "replica-b", longTTL)
	isError(t, err, relay.ErrHeld, "Acquire by b after a renewed")

	// The holder acquiring again (a restarted replica with the same name)
	// gets a new term, and its old fence is stale.
	fa2, err := b.Acquire(t.Context(), "replica-a", longTTL)
	noError(t, err, "Acquire by a while a holds the lease")
	equal(t, fa2, relay.Fence{Owner: "replica-a", Term: 2}, "the fence of a's second Acquire")
	isError(t, a.Commit(t.Context(), fa, nil, entry(1)), relay.ErrStale, "Commit with a's first fence after a acquired again")
	isError(t, a.Renew(t.Context(), fa, longTTL), relay.ErrStale, "Renew of a's first fence after a acquired again")
	fa = fa2

	noError(t, a.Release(t.Context(), fa), "Release by a")
	fb, err := b.Acquire(t.Context(), "replica-b", longTTL)
	noError(t, err, "Acquire by b after a released")
	equal(t, fb.Owner, "replica-b", "owner of b's fence")
	if fb.Term <= fa.Term {
		t.Fatalf("b's term %d after a's %d; want a higher one", fb.Term, fa.Term)
	}
	isError(t, a.Renew(t.Context(), fa, longTTL), relay.ErrStale, "Renew of a's released fence")
	isError(t, a.Commit(t.Context(), fa, nil, entry(1)), relay.ErrStale, "Commit with a's released fence")
	isError(t, a.Commit(t.Context(), fa, nil), relay.ErrStale, "Commit of no entry with a's released fence")
	noError(t, b.Commit(t.Context(), fb, nil, entry(1)), "Commit with b's fence")
	// A fence that was never handed out is stale too.
	for _, f := range []relay.Fence{{}, {Owner: "replica-a", Term: fb.Term}, {Owner: "replica-b", Term: fb.Term + 1}} {
		isError(t, a.Commit(t.Context(), f, nil, entry(2)), relay.ErrStale, "Commit with the fence %+v, b holding %+v", f, fb)
	}
	tail(t, a, 1, "after the stale appends")

	// The first owner acquiring again gets a new term; its old fence,
	// though its owner's, is stale.
	noError(t, b.Release(t.Context(), fb), "Release by b")
	fa3, err := a.Acquire(t.Context(), "replica-a", longTTL)
	noError(t, err, "Acquire by a again")
	if fa3.Term <= fb.Term {
		t.Fatalf("a's new term %d after b's %d; want a higher one", fa3.Term, fb.Term)
	}
	isError(t, a.Commit(t.Context(), fa, nil, entry(2)), relay.ErrStale, "Commit with a's first fence after a acquired again")
	isError(t, a.Commit(t.Context(), fa, []byte("old")), relay.ErrStale, "Commit of a checkpoint with a's first fence after a acquired again")
	noError(t, a.Commit(t.Context(), fa3, nil, entry(2)), "Commit with a's new fence")
}

// leaseExpires: a lease ends after its ttl in the store's clock; then
// another owner acquires it with a higher term, and the first one's fence
// is stale for everything it fences.
func (s suite) leaseExpires(t *testing.T, st relay.Store) {
	a := open(t, st, "task-1")
	b := open(t, st, "task-1")
	fa, err := a.Acquire(t.Context(), "replica-a", s.cfg.ttl)
	noError(t, err, "Acquire by a")
	noError(t, a.Commit(t.Context(), fa, nil, entries(1, 2)...), "Commit 1..2 by a")
	if s.cfg.bubble {
		time.Sleep(s.cfg.ttl - time.Millisecond)
		_, err = b.Acquire(t.Context(), "replica-b", longTTL)
		isError(t, err, relay.ErrHeld, "Acquire by b 1 ms before a's lease ends")
	}
	s.expire(t, a)
	fb, err := b.Acquire(t.Context(), "replica-b", longTTL)
	noError(t, err, "Acquire by b after a's lease expired")
	if fb.Term <= fa.Term {
		t.Fatalf("b's term %d after a's %d; want a higher one", fb.Term, fa.Term)
	}
	isError(t, a.Renew(t.Context(), fa, longTTL), relay.ErrStale, "Renew by a after b acquired")
	noError(t, b.Commit(t.Context(), fb, nil, entry(3)), "Commit 3 by b")
	isError(t, a.Commit(t.Context(), fa, nil, entry(4)), relay.ErrStale, "Commit 4 by a after b acquired")
	tail(t, b, 3, "after a's stale Commit")
}

// leaseRenews: Renew moves the lease's end to ttl from the renewal.
func (s suite) leaseRenews(t *testing.T, st relay.Store) {
	if !s.cfg.bubble {
		t.Skip("storetest: Renew's extension is timed in a synctest bubble only; the store's own tests time it with its clock")
	}
	a := open(t, st, "task-1")
	b := open(t, st, "task-1")
	fa, err := a.Acquire(t.Context(), "replica-a", s.cfg.ttl)
	noError(t, err, "Acquire by a")
	time.Sleep(s.cfg.ttl / 2)
	noError(t, a.Renew(t.Context(), fa, s.cfg.ttl), "Renew by a halfway")
	time.Sleep(s.cfg.ttl * 3 / 4)
	_, err = b.Acquire(t.Context(), "replica-b", longTTL)
	isError(t, err, relay.ErrHeld, "Acquire by b past the first lease's end, before the renewed one's")
	time.Sleep(s.cfg.ttl/4 + time.Millisecond)
	fb, err := b.Acquire(t.Context(), "replica-b", longTTL)
	noError(t, err, "Acquire by b past the renewed lease's end")
	if fb.Term <= fa.Term {
		t.Fatalf("b's term %d after a's %d; want a higher one", fb.Term, fa.Term)
	}
}

// staleWritesNothing: the zombie: a driver whose lease expired and was
// taken over writes nothing with its fence: no entry, no checkpoint, no
// snapshot.
func (s suite) staleWritesNothing(t *testing.T, st relay.Store) {
	a := open(t, st, "task-1")
	b := open(t, st, "task-1")
	fa, err := a.Acquire(t.Context(), "replica-a", s.cfg.ttl)
	noError(t, err, "Acquire by a")
	noError(t, a.Commit(t.Context(), fa, nil, entries(1, 4)...), "Commit 1..4 by a")
	noError(t, a.Commit(t.Context(), fa, []byte("cp-a")), "Commit of a checkpoint by a")
	noError(t, a.SaveSnapshot(t.Context(), fa, relay.Snapshot{Seq: 2, Data: []byte(`"a"`)}), "SaveSnapshot by a")
	s.expire(t, a)
	fb, err := b.Acquire(t.Context(), "replica-b", longTTL)
	noError(t, err, "Acquire by b after a's lease expired")

	isError(t, a.Commit(t.Context(), fa, nil, entries(5, 6)...), relay.ErrStale, "Commit by the zombie")
	isError(t, a.Commit(t.Context(), fa, []byte("cp-zombie")), relay.ErrStale, "Commit of a checkpoint by the zombie")
	isError(t, a.SaveSnapshot(t.Context(), fa, relay.Snapshot{Seq: 4, Data: []byte(`"zombie"`)}), relay.ErrStale, "SaveSnapshot by the zombie")
	tail(t, b, 4, "after the zombie's Commit")
	sameEntries(t, all(t, b, 0), entries(1, 4), "entries after the zombie's Commit")
	cp, err := b.LoadCheckpoint(t.Context())
	noError(t, err, "LoadCheckpoint")
	equal(t, string(cp), "cp-a", "checkpoint after the zombie's save")
	snap, err := b.LoadSnapshot(t.Context())
	noError(t, err, "LoadSnapshot")
	equal(t, snap.Seq, 2, "snapshot Seq after the zombie's save")

	// b, the new driver, goes on from the tail.
	noError(t, b.Commit(t.Context(), fb, nil, entries(5, 6)...), "Commit 5..6 by b")
	noError(t, b.Commit(t.Context(), fb, []byte("cp-b")), "Commit of a checkpoint by b")
	cp, err = a.LoadCheckpoint(t.Context())
	noError(t, err, "LoadCheckpoint by a")
	equal(t, string(cp), "cp-b", "checkpoint after b's save")
}

// staleRelease: a Release with a stale fence does not free the new
// owner's lease.
func (suite) staleRelease(t *testing.T, st relay.Store) {
	a := open(t, st, "task-1")
	fa, err := a.Acquire(t.Context(), "replica-a", longTTL)
	noError(t, err, "Acquire by a")
	noError(t, a.Release(t.Context(), fa), "Release by a")
	fb, err := a.Acquire(t.Context(), "replica-b", longTTL)
	noError(t, err, "Acquire by b")
	_ = a.Release(t.Context(), fa) // may fail with ErrStale; must not free b's lease
	_, err = a.Acquire(t.Context(), "replica-c", longTTL)
	isError(t, err, relay.ErrHeld, "Acquire by c after a's stale Release")
	noError(t, a.Commit(t.Context(), fb, nil, entry(1)), "Commit by b after a's stale Release")
	noError(t, a.Renew(t.Context(), fb, longTTL), "Renew by b after a's stale Release")
}

// checkpoint: nil before any; the last one saved after.
func (suite) checkpoint(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	cp, err := l.LoadCheckpoint(t.Context())
	noError(t, err, "LoadCheckpoint of a new log")
	if cp != nil {
		t.Fatalf("checkpoint of a new log: got %q; want nil", cp)
	}
	for _, want := range [][]byte{[]byte(`{"v":1,"cursor":3}`), {0, 1, 2, 0xff, '\n', 0}, []byte(`{"v":1,"cursor":9}`)} {
		noError(t, l.Commit(t.Context(), f, want), "Commit of the checkpoint %q", want)
		for _, r := range []relay.Log{l, open(t, st, "task-1")} {
			cp, err := r.LoadCheckpoint(t.Context())
			noError(t, err, "LoadCheckpoint")
			if !bytes.Equal(cp, want) {
				t.Fatalf("checkpoint: got %q; want %q", cp, want)
			}
		}
	}
}

// snapshot: Seq 0 and nil Data before any; the last one saved after.
func (suite) snapshot(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	snap, err := l.LoadSnapshot(t.Context())
	noError(t, err, "LoadSnapshot of a new log")
	if snap.Seq != 0 || snap.Data != nil {
		t.Fatalf("snapshot of a new log: got %d %q; want 0 and nil", snap.Seq, snap.Data)
	}
	noError(t, l.Commit(t.Context(), f, nil, entries(1, 7)...), "Commit 1..7")
	for _, want := range []relay.Snapshot{{Seq: 3, Data: []byte(`{"text":"a\nb"}`)}, {Seq: 7, Data: []byte(`{"text":"é"}`)}} {
		noError(t, l.SaveSnapshot(t.Context(), f, want), "SaveSnapshot at %d", want.Seq)
		for _, r := range []relay.Log{l, open(t, st, "task-1")} {
			snap, err := r.LoadSnapshot(t.Context())
			noError(t, err, "LoadSnapshot")
			if snap.Seq != want.Seq || !bytes.Equal(snap.Data, want.Data) {
				t.Fatalf("snapshot: got %d %q; want %d %q", snap.Seq, snap.Data, want.Seq, want.Data)
			}
		}
	}
}
