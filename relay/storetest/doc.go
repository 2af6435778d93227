// Package storetest is the conformance suite of [relay.Store]: the rules
// that relay/store.go documents, as subtests that any store must pass.
// It is a test helper, imported by tests only, as a2atest is:
//
//	func TestMemoryStoreConforms(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) relay.Store {
//			st, err := relay.NewMemoryStore()
//			require.NoError(t, err)
//			return st
//		})
//	}
//
// Run calls open once for each subtest and expects a store that holds no
// log yet (or none under the keys the subtest uses). A store shared by
// replicas is tested as its replicas see it: two Open calls of the same
// key on one store are two replicas' views of one log.
//
// By default every subtest runs inside a [testing/synctest] bubble, and
// the suite lets a lease expire by sleeping past its ttl there, which takes
// no wall time: right for a store whose clock is the process's (time.Now),
// opened by open inside the bubble. A store with a clock of its own, such
// as Redis, passes [Expiry]: its subtests then run outside any bubble, with
// a short real ttl whose end the store's test waits for. The check that
// Attach is atomic races a writer against readers: 10,000 writes in a
// bubble, where a store's steps leave narrow windows, and 500 with
// Expiry, where every call is a round trip.
//
// [RunShare] is the conformance suite of [push.Share], for a store that
// also shares push registrations (package relay's MemoryStore and the Redis
// store are): records, their expiry and refresh, their holder (only the
// holder puts, refreshes or deletes a record; an adoption makes another
// Receiver its holder), rings, and two push.Receivers on two views of one
// share, the second ringing the first's registrations, refusing what the
// first refuses, and adopting one while the first still runs.
package storetest
