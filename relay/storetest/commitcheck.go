package storetest

import (
	"testing"

	"github.com/a2astream/a2astream/relay"
)

// commitStoresBoth: a Commit appends its entries and stores its
// checkpoint; a nil checkpoint keeps the one stored; a Commit of no entry
// with a checkpoint stores the checkpoint.
func (suite) commitStoresBoth(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	noError(t, l.Commit(t.Context(), f, []byte("cp-3"), entries(1, 3)...), "Commit 1..3 with cp-3")
	checkpointIs(t, l, "cp-3", "after Commit 1..3")
	sameEntries(t, all(t, l, 0), entries(1, 3), "entries after Commit 1..3")
	noError(t, l.Commit(t.Context(), f, nil, entries(4, 5)...), "Commit 4..5 without a checkpoint")
	checkpointIs(t, l, "cp-3", "after a Commit without a checkpoint")
	noError(t, l.Commit(t.Context(), f, []byte{0, 1, 0xff, '\n'}), "Commit of a checkpoint alone")
	checkpointIs(t, open(t, st, "task-1"), "\x00\x01\xff\n", "after a Commit of a checkpoint alone, read by another Open")
	tail(t, l, 5, "after the Commits")
	sameEntries(t, all(t, l, 0), entries(1, 5), "entries after the Commits")
}

// failedCommitWritesNeither: a Commit that fails for its entries (a gap, a
// repeat) stores neither its entries nor its checkpoint.
func (suite) failedCommitWritesNeither(t *testing.T, st relay.Store) {
	l, f := driven(t, st, "task-1")
	noError(t, l.Commit(t.Context(), f, []byte("cp-3"), entries(1, 3)...), "Commit 1..3")
	for _, c := range []struct {
		name  string
		batch []relay.Entry
		want  error
	}{
		{"a gap inside", []relay.Entry{entry(4), entry(6)}, relay.ErrGap},
		{"a gap first", []relay.Entry{entry(5)}, relay.ErrGap},
		{"a repeat of the tail", []relay.Entry{entry(3), entry(4)}, relay.ErrDuplicate},
		{"a repeat inside", []relay.Entry{entry(4), entry(4)}, relay.ErrDuplicate},
	} {
		isError(t, l.Commit(t.Context(), f, []byte("cp-bad"), c.batch...), c.want, "Commit of %s", c.name)
		checkpointIs(t, l, "cp-3", "after a Commit of "+c.name)
		tail(t, l, 3, "after a Commit of "+c.name)
		sameEntries(t, all(t, l, 0), entries(1, 3), "entries after a Commit of %s", c.name)
	}
}

// staleCommitWritesNeither: the zombie's Commit, with or without entries,
// fails with ErrStale and stores neither; the new owner's goes on.
func (s suite) staleCommitWritesNeither(t *testing.T, st relay.Store) {
	a := open(t, st, "task-1")
	b := open(t, st, "task-1")
	fa, err := a.Acquire(t.Context(), "replica-a", s.cfg.ttl)
	noError(t, err, "Acquire by a")
	noError(t, a.Commit(t.Context(), fa, []byte("cp-a"), entries(1, 2)...), "Commit 1..2 by a")
	s.expire(t, a)
	fb, err := b.Acquire(t.Context(), "replica-b", longTTL)
	noError(t, err, "Acquire by b after a's lease expired")

	isError(t, a.Commit(t.Context(), fa, []byte("cp-zombie"), entries(3, 4)...), relay.ErrStale, "Commit by the zombie")
	isError(t, a.Commit(t.Context(), fa, []byte("cp-zombie")), relay.ErrStale, "Commit of a checkpoint alone by the zombie")
	checkpointIs(t, b, "cp-a", "after the zombie's Commits")
	tail(t, b, 2, "after the zombie's Commits")

	noError(t, b.Commit(t.Context(), fb, []byte("cp-b"), entries(3, 4)...), "Commit 3..4 by b")
	checkpointIs(t, a, "cp-b", "after b's Commit")
	sameEntries(t, all(t, a, 0), entries(1, 4), "entries after b's Commit")
}

// checkpointIs fails t unless the log's checkpoint is want.
func checkpointIs(t *testing.T, l relay.Log, want, what string) {
	t.Helper()
	cp, err := l.LoadCheckpoint(t.Context())
	noError(t, err, "LoadCheckpoint %s", what)
	equal(t, string(cp), want, "checkpoint %s", what)
}
