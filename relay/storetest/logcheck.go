package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2astream/a2astream/relay"
)

// commitContinuesTheTail: an empty log has tail 0; entries from 1 on, one
// Commit or several, extend it, and Read returns them as appended.
func (suite) commitContinuesTheTail(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	tail(t, l, 0, "of an empty log")
	got, err := l.Read(t.Context(), 0, 10)
	noError(t, err, "Read of an empty log")
	equal(t, len(got), 0, "entries of an empty log")

	noError(t, l.Commit(t.Context(), f, nil), "Commit of no entry")
	tail(t, l, 0, "after a Commit of no entry")
	noError(t, l.Commit(t.Context(), f, nil, entry(1)), "Commit 1")
	tail(t, l, 1, "after 1")
	noError(t, l.Commit(t.Context(), f, nil, entries(2, 5)...), "Commit 2..5")
	tail(t, l, 5, "after 2..5")
	sameEntries(t, all(t, l, 0), entries(1, 5), "Read after 0")
	// Another Open of the key sees the same log.
	tail(t, open(t, st, "task-1"), 5, "seen by another Open")
	sameEntries(t, all(t, open(t, st, "task-1"), 0), entries(1, 5), "Read by another Open")
}

// commitDuplicate: an entry at or before the tail fails with ErrDuplicate.
func (suite) commitDuplicate(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	isError(t, l.Commit(t.Context(), f, nil, relay.Entry{Seq: 0, Name: "delta", Data: []byte(`{}`)}), relay.ErrDuplicate, "Commit 0 to an empty log")
	noError(t, l.Commit(t.Context(), f, nil, entries(1, 3)...), "Commit 1..3")
	for _, seq := range []uint64{1, 2, 3} {
		isError(t, l.Commit(t.Context(), f, nil, entry(seq)), relay.ErrDuplicate, "Commit %d again", seq)
	}
	isError(t, l.Commit(t.Context(), f, nil, entries(3, 4)...), relay.ErrDuplicate, "Commit 3..4 on tail 3")
	tail(t, l, 3, "after the duplicates")
	sameEntries(t, all(t, l, 0), entries(1, 3), "entries after the duplicates")
}

// commitGap: an entry past the tail plus one fails with ErrGap.
func (suite) commitGap(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	isError(t, l.Commit(t.Context(), f, nil, entry(2)), relay.ErrGap, "Commit 2 to an empty log")
	noError(t, l.Commit(t.Context(), f, nil, entries(1, 3)...), "Commit 1..3")
	isError(t, l.Commit(t.Context(), f, nil, entry(5)), relay.ErrGap, "Commit 5 on tail 3")
	tail(t, l, 3, "after the gaps")
	sameEntries(t, all(t, l, 0), entries(1, 3), "entries after the gaps")
}

// failedBatchAppendsNothing: a batch fails whole, whichever of its entries
// breaks the rule, and appends none of the others.
func (suite) failedBatchAppendsNothing(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	noError(t, l.Commit(t.Context(), f, nil, entries(1, 3)...), "Commit 1..3")
	for _, c := range []struct {
		name  string
		batch []relay.Entry
		want  error
	}{
		{"a gap inside", []relay.Entry{entry(4), entry(5), entry(7)}, relay.ErrGap},
		{"a repeat inside", []relay.Entry{entry(4), entry(5), entry(5)}, relay.ErrDuplicate},
		{"going back inside", []relay.Entry{entry(4), entry(5), entry(2)}, relay.ErrDuplicate},
		{"a gap first", []relay.Entry{entry(5), entry(6)}, relay.ErrGap},
	} {
		isError(t, l.Commit(t.Context(), f, nil, c.batch...), c.want, "Commit of %s", c.name)
		tail(t, l, 3, "after a batch with "+c.name)
		sameEntries(t, all(t, l, 0), entries(1, 3), "entries after a batch with %s", c.name)
	}
	noError(t, l.Commit(t.Context(), f, nil, entries(4, 6)...), "Commit 4..6 after the failures")
	sameEntries(t, all(t, l, 0), entries(1, 6), "entries after the failures")
}

// concurrentCommits: two replicas' views of one log appending the same
// entries with one fence at once: each Seq is appended once.
func (s suite) concurrentCommits(t *testing.T, st relay.Store) {
	l1, f := driven(t, st, "task-1")
	l2 := open(t, st, "task-1")
	var wg sync.WaitGroup
	errs := make([][]error, 2)
	for i, l := range []relay.Log{l1, l2} {
		wg.Go(func() {
			for seq := uint64(1); seq <= 20; seq++ {
				errs[i] = append(errs[i], l.Commit(t.Context(), f, nil, entry(seq)))
			}
		})
	}
	wg.Wait()
	won := 0
	for i := range errs {
		for _, err := range errs[i] {
			switch {
			case err == nil:
				won++
			case errors.Is(err, relay.ErrDuplicate), errors.Is(err, relay.ErrGap):
			default:
				t.Fatalf("a concurrent Commit failed with %v; want nil, ErrDuplicate or ErrGap", err)
			}
		}
	}
	equal(t, won, 20, "Commits that succeeded, of 20 entries appended by two replicas each")
	tail(t, l1, 20, "after the concurrent appends")
	sameEntries(t, all(t, l1, 0), entries(1, 20), "entries after the concurrent appends")
}

// readPages: Read returns up to max entries after after, in order, and
// none after the tail.
func (suite) readPages(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	noError(t, l.Commit(t.Context(), f, nil, entries(1, 10)...), "Commit 1..10")
	for _, c := range []struct {
		after    uint64
		max      int
		from, to uint64
	}{
		{0, 3, 1, 3}, {3, 3, 4, 6}, {6, 3, 7, 9}, {9, 3, 10, 10}, {0, 100, 1, 10}, {4, 1, 5, 5},
	} {
		got, err := l.Read(t.Context(), c.after, c.max)
		noError(t, err, "Read(%d, %d)", c.after, c.max)
		sameEntries(t, got, entries(c.from, c.to), "Read(%d, %d)", c.after, c.max)
	}
	for _, after := range []uint64{10, 11, 1 << 40, math.MaxUint64} {
		got, err := l.Read(t.Context(), after, 3)
		noError(t, err, "Read after %d, the tail 10", after)
		equal(t, len(got), 0, "entries read after %d, the tail 10", after)
	}
}

// readTrimmedIsGone: after Trim, a Read after a Seq before the trimmed
// ones' end fails with ErrGone; a Read from the trim point on works.
func (suite) readTrimmedIsGone(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	noError(t, l.Commit(t.Context(), f, nil, entries(1, 10)...), "Commit 1..10")
	noError(t, l.SaveSnapshot(t.Context(), f, relay.Snapshot{Seq: 6, Data: []byte(`{"text":"six"}`)}), "SaveSnapshot at 6")
	noError(t, l.Trim(t.Context(), 4), "Trim through 4")
	for _, after := range []uint64{0, 1, 3} {
		_, err := l.Read(t.Context(), after, 5)
		isError(t, err, relay.ErrGone, "Read after %d, trimmed through 4", after)
	}
	sameEntries(t, all(t, l, 4), entries(5, 10), "Read after 4, trimmed through 4")
	// Another replica sees the trim too.
	_, err := open(t, st, "task-1").Read(t.Context(), 2, 5)
	isError(t, err, relay.ErrGone, "Read after 2 by another Open")
	// Appending goes on from the tail.
	noError(t, l.Commit(t.Context(), f, nil, entry(11)), "Commit 11 after the trim")
	tail(t, l, 11, "after the trim and 11")
}

// trimStopsAtSnapshot: Trim never drops entries past the snapshot's Seq,
// so a reader sent away with ErrGone starts again from the snapshot; nor
// entries not appended yet.
func (suite) trimStopsAtSnapshot(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	noError(t, l.Commit(t.Context(), f, nil, entries(1, 10)...), "Commit 1..10")
	noError(t, l.Trim(t.Context(), 8), "Trim through 8 without a snapshot")
	sameEntries(t, all(t, l, 0), entries(1, 10), "entries after a Trim without a snapshot")

	noError(t, l.SaveSnapshot(t.Context(), f, relay.Snapshot{Seq: 3, Data: []byte(`{"text":"three"}`)}), "SaveSnapshot at 3")
	noError(t, l.Trim(t.Context(), 8), "Trim through 8 with the snapshot at 3")
	sameEntries(t, all(t, l, 3), entries(4, 10), "Read after the snapshot's Seq")
	_, err := l.Read(t.Context(), 2, 5)
	isError(t, err, relay.ErrGone, "Read after 2, the snapshot at 3")
	snap, err := l.LoadSnapshot(t.Context())
	noError(t, err, "LoadSnapshot")
	equal(t, snap.Seq, 3, "snapshot Seq")
	equal(t, string(snap.Data), `{"text":"three"}`, "snapshot Data")

	// Nor past the tail: with a snapshot ahead of it, a Trim drops the
	// entries the log holds, and those appended after it are read.
	noError(t, l.SaveSnapshot(t.Context(), f, relay.Snapshot{Seq: 15, Data: []byte(`{"text":"fifteen"}`)}), "SaveSnapshot at 15, the tail 10")
	noError(t, l.Trim(t.Context(), 15), "Trim through 15, the tail 10")
	noError(t, l.Commit(t.Context(), f, nil, entries(11, 16)...), "Commit 11..16 after the trim")
	sameEntries(t, all(t, l, 10), entries(11, 16), "Read after 10, trimmed through 15 when the tail was 10")
}

// awaitEntryWakesOnCommit: AwaitEntry returns at once when the log holds an entry
// after after, and otherwise when one is appended, from another Open too.
func (s suite) awaitEntryWakesOnCommit(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	noError(t, l.Commit(t.Context(), f, nil, entries(1, 2)...), "Commit 1..2")
	noError(t, l.AwaitEntry(t.Context(), 1), "AwaitEntry after 1 with 2 in the log")
	noError(t, l.AwaitEntry(t.Context(), 0), "AwaitEntry after 0 with 2 in the log")

	reader := open(t, st, "task-1")
	done := make(chan error, 1)
	go func() { done <- reader.AwaitEntry(t.Context(), 2) }()
	if s.cfg.bubble {
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("AwaitEntry after the tail returned %v before an append", err)
		default:
		}
	}
	noError(t, l.Commit(t.Context(), f, nil, entry(3)), "Commit 3")
	noError(t, <-done, "AwaitEntry after 2, woken by the append of 3")
}

// awaitEntryEndsWithContext: an AwaitEntry with nothing to wait for ends with its
// context's error.
func (s suite) awaitEntryEndsWithContext(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	noError(t, l.Commit(t.Context(), f, nil, entry(1)), "Commit 1")

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- l.AwaitEntry(ctx, 1) }()
	if s.cfg.bubble {
		synctest.Wait()
	}
	cancel()
	isError(t, <-done, context.Canceled, "AwaitEntry canceled")

	start := time.Now()
	ctx, cancel = context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	isError(t, l.AwaitEntry(ctx, 1), context.DeadlineExceeded, "AwaitEntry past its deadline")
	if s.cfg.bubble {
		equal(t, time.Since(start), 50*time.Millisecond, "time AwaitEntry took with a 50 ms deadline")
	}

	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	isError(t, l.AwaitEntry(ctx, 1), context.Canceled, "AwaitEntry with a canceled context")
}

// epoch: two Opens of a key share an epoch; another key's log and a log
// made afresh in a new store have another.
func (s suite) epoch(t *testing.T, st relay.Store) {
	a1 := open(t, st, "task-1")
	a2 := open(t, st, "task-1")
	b := open(t, st, "task-2")
	if a1.Epoch() == "" {
		t.Fatalf("Epoch is empty")
	}
	equal(t, a2.Epoch(), a1.Epoch(), "Epoch of a second Open of the key")
	if b.Epoch() == a1.Epoch() {
		t.Fatalf("two keys' logs have one epoch %q", b.Epoch())
	}
	// After appends, a third Open still has the epoch.
	f, err := a1.Acquire(t.Context(), "driver", longTTL)
	noError(t, err, "Acquire")
	noError(t, a1.Commit(t.Context(), f, nil, entries(1, 3)...), "Commit 1..3")
	equal(t, open(t, st, "task-1").Epoch(), a1.Epoch(), "Epoch of an Open after appends")
	if fresh := open(t, s.open(t), "task-1"); fresh.Epoch() == a1.Epoch() {
		t.Fatalf("the key's log in a fresh store has the old log's epoch %q", fresh.Epoch())
	}
}

// attach: Attach returns the snapshot and the entries after it, up to max,
// whatever was trimmed before the snapshot; with no snapshot, the entries
// from the first.
func (suite) attach(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	snap, got, err := l.Attach(t.Context(), 3)
	noError(t, err, "Attach to an empty log")
	equal(t, snap.Seq, 0, "snapshot Seq of an empty log")
	equal(t, len(snap.Data), 0, "snapshot Data length of an empty log")
	equal(t, len(got), 0, "entries of an empty log")

	noError(t, l.Commit(t.Context(), f, nil, entries(1, 10)...), "Commit 1..10")
	snap, got, err = l.Attach(t.Context(), 3)
	noError(t, err, "Attach with no snapshot")
	equal(t, snap.Seq, 0, "snapshot Seq with none saved")
	sameEntries(t, got, entries(1, 3), "entries attached with no snapshot")

	// The entries follow the snapshot, not the trim point before it.
	noError(t, l.SaveSnapshot(t.Context(), f, relay.Snapshot{Seq: 6, Data: []byte(`{"text":"six"}`)}), "SaveSnapshot at 6")
	noError(t, l.Trim(t.Context(), 4), "Trim through 4")
	for _, r := range []relay.Log{l, open(t, st, "task-1")} {
		snap, got, err = r.Attach(t.Context(), 3)
		noError(t, err, "Attach after the trim through 4")
		equal(t, snap.Seq, 6, "snapshot Seq attached")
		equal(t, string(snap.Data), `{"text":"six"}`, "snapshot Data attached")
		sameEntries(t, got, entries(7, 9), "entries attached after the snapshot")
	}
	snap, got, err = l.Attach(t.Context(), 100)
	noError(t, err, "Attach of more than the log holds")
	equal(t, snap.Seq, 6, "snapshot Seq attached")
	sameEntries(t, got, entries(7, 10), "entries attached up to the tail")
	_, got, err = l.Attach(t.Context(), 0)
	noError(t, err, "Attach of no entry")
	equal(t, len(got), 0, "entries attached with max 0")
}

// attachIsAtomic: while a driver appends, saves a snapshot and trims
// through it, again and again, every Attach returns a snapshot and the
// entries right after it: never ErrGone, never a gap. A store that loads
// the snapshot and then reads (or reads, then loads) in two steps fails
// it. How often it does depends on the width of the window between the
// steps: an in-process store (run in a bubble) leaves a narrow one, hit
// in one run of 10,000 writes most of the time; a store reached over the
// network leaves a round trip open, hit in the first few hundred.
func (s suite) attachIsAtomic(t *testing.T, st relay.Store) {
	last := uint64(10_000)
	if !s.cfg.bubble {
		last = 500
	}
	l, f := driven(t, st, "task-1")
	ctx := t.Context()
	done := make(chan struct{})
	var wg sync.WaitGroup
	var writeErr error
	wg.Go(func() {
		defer close(done)
		for seq := uint64(1); seq <= last && writeErr == nil; seq++ {
			writeErr = l.Commit(ctx, f, nil, entry(seq))
			if writeErr == nil {
				writeErr = l.SaveSnapshot(ctx, f, snapshotAt(seq))
			}
			if writeErr == nil {
				writeErr = l.Trim(ctx, seq)
			}
		}
	})
	attaches := make([]int, 4)
	readErrs := make([]error, 4)
	for i := range readErrs {
		r := open(t, st, "task-1")
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				attaches[i]++
				snap, got, err := r.Attach(ctx, 2)
				if err == nil {
					err = attached(snap, got)
				}
				if err != nil {
					readErrs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	noError(t, writeErr, "the driver's writes")
	for i, err := range readErrs {
		noError(t, err, "Attach by reader %d, after %d Attaches", i, attaches[i])
	}
	snap, got, err := l.Attach(ctx, 2)
	noError(t, err, "Attach after the writes")
	equal(t, snap.Seq, last, "snapshot Seq after the writes")
	equal(t, len(got), 0, "entries after the last snapshot")
}

// snapshotAt is the snapshot the atomicity check saves at seq.
func snapshotAt(seq uint64) relay.Snapshot {
	return relay.Snapshot{Seq: seq, Data: fmt.Appendf(nil, `{"seq":%d}`, seq)}
}

// attached returns an error unless snap is one snapshotAt saved, or none,
// and got the entries right after it.
func attached(snap relay.Snapshot, got []relay.Entry) error {
	if snap.Seq > 0 && string(snap.Data) != string(snapshotAt(snap.Seq).Data) {
		return fmt.Errorf("the snapshot at %d holds %s", snap.Seq, snap.Data)
	}
	for i, e := range got {
		if want := snap.Seq + 1 + uint64(i); e.Seq != want {
			return fmt.Errorf("with the snapshot at %d, the entries %s: a gap (want %d first)", snap.Seq, seqs(got), snap.Seq+1)
		}
	}
	return nil
}
