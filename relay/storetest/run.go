package storetest

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2astream/a2astream/relay"
)

// Run runs the conformance suite against the stores that open returns, one
// fresh store for each subtest. open is called inside the subtest (inside
// its synctest bubble, unless [Expiry] is given) and may use t.Cleanup.
// A nil open, a nil option or a bad option value fails t before any
// subtest runs.
func Run(t *testing.T, open func(t *testing.T) relay.Store, opts ...Option) {
	t.Helper()
	cfg, err := newConfig(opts)
	if err == nil && open == nil {
		err = errors.New("storetest: open is nil")
	}
	if err != nil {
		t.Fatal(err)
	}
	s := suite{cfg: cfg, open: open}
	for _, c := range []struct {
		name string
		run  func(t *testing.T, st relay.Store)
	}{
		{"CommitContinuesTheTail", s.commitContinuesTheTail},
		{"CommitAtOrBeforeTheTailIsDuplicate", s.commitDuplicate},
		{"CommitPastTheTailIsGap", s.commitGap},
		{"FailedBatchAppendsNothing", s.failedBatchAppendsNothing},
		{"ConcurrentCommitsOfOneSeqOneWins", s.concurrentCommits},
		{"ReadPagesInOrder", s.readPages},
		{"ReadAfterTrimmedSeqIsGone", s.readTrimmedIsGone},
		{"TrimStopsAtTheSnapshot", s.trimStopsAtSnapshot},
		{"AttachReadsTheSnapshotAndTheEntriesAfterIt", s.attach},
		{"AttachIsAtomicWhileTheLogTrims", s.attachIsAtomic},
		{"AwaitEntryWakesOnCommit", s.awaitEntryWakesOnCommit},
		{"AwaitEntryEndsWithItsContext", s.awaitEntryEndsWithContext},
		{"EpochStableAcrossOpensAndNewForFreshLogs", s.epoch},
		{"LeaseHeldUntilReleased", s.leaseHeld},
		{"LeaseExpiresAndNextOwnerFencesTheStale", s.leaseExpires},
		{"LeaseRenewExtends", s.leaseRenews},
		{"StaleFenceWritesNothing", s.staleWritesNothing},
		{"ReleaseOfStaleFenceLeavesNewOwner", s.staleRelease},
		{"CheckpointRoundTrip", s.checkpoint},
		{"CommitStoresEntriesAndCheckpoint", s.commitStoresBoth},
		{"FailedCommitWritesNeither", s.failedCommitWritesNeither},
		{"StaleCommitWritesNeither", s.staleCommitWritesNeither},
		{"SnapshotRoundTrip", s.snapshot},
		{"AnswerFirstWinsAndSameKeyIsIdempotent", s.answerFirstWins},
		{"LoadAnswerReturnsTheFirstWithoutWaiting", s.loadAnswer},
		{"AwaitAnswerSeesAnotherOpensPost", s.awaitAnswer},
		{"AwaitCancelSeesAnotherOpensRequest", s.awaitCancel},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !cfg.bubble {
				c.run(t, open(t))
				return
			}
			synctest.Test(t, func(t *testing.T) { c.run(t, open(t)) })
		})
	}
}

// suite holds the subtests of Run.
type suite struct {
	cfg  config
	open func(t *testing.T) relay.Store
}

// expire returns once the lease acquired on l with the suite's ttl has
// expired in the store's clock.
func (s suite) expire(t *testing.T, l relay.Log) {
	t.Helper()
	if s.cfg.expire != nil {
		s.cfg.expire(t, l)
		return
	}
	time.Sleep(s.cfg.ttl + time.Millisecond)
}

// open opens the log of key on st.
func open(t *testing.T, st relay.Store, key string) relay.Log {
	t.Helper()
	l, err := st.Open(t.Context(), key)
	noError(t, err, "Open(%q)", key)
	return l
}

// driven opens the log of key and acquires its lease for owner "driver".
func driven(t *testing.T, st relay.Store, key string) (relay.Log, relay.Fence) {
	t.Helper()
	l := open(t, st, key)
	f, err := l.Acquire(t.Context(), "driver", longTTL)
	noError(t, err, "Acquire")
	return l, f
}
