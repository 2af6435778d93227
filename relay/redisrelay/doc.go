// Package redisrelay keeps the logs of package relay in Redis, so that any
// replica of a chat backend can serve any browser and take over driving a
// stream when the replica that drove it dies: [New] returns a
// [relay.Store] over a go-redis client. It is a module of its own, so that
// the library's module does not depend on go-redis. It needs Redis 6.2 or
// later (XTRIM MINID, exclusive XRANGE starts); its tests run on Debian's
// redis-server 7.0, alone and as a one-node Cluster.
//
// # Keys
//
// The keys of one log share the hash tag "{<prefix>:<key>}" (one Cluster
// slot), so that each call is one Lua script over them all:
//
//	{p:k}:epoch       string   the log's epoch, a UUID set once (SET NX)
//	{p:k}:log         stream   the entries, at IDs 0-<seq>, fields n (name) and d (data)
//	{p:k}:trimmed     string   the Seq the log was trimmed through
//	{p:k}:snapshot    hash     seq and data of the snapshot
//	{p:k}:term        string   the last term handed out (INCR)
//	{p:k}:lease       string   "<term>:<owner>" with PX: the lease, ended by Redis's clock
//	{p:k}:fence       string   "<term>:<owner>" of the newest fence, without expiry
//	{p:k}:checkpoint  string   the driver's checkpoint
//	{p:k}:answers     hash     prompt seq → {"key","text"}, set with HSETNX (first wins)
//	{p:k}:cancel      string   set once a cancel is requested
//	{p:k}:notes       stream   one note per answer and cancel, for the waits (about 64 kept)
//
// p is the prefix ([WithPrefix], default "a2astream") and k the key given to
// Open. Keys do not expire: delete a finished stream's keys yourself (they
// all match "{p:k}:*"). Run Redis with maxmemory-policy noeviction: an
// evicted key is lost data (below).
//
// # Writes, fences and the lease
//
// A Commit is one script that checks that the epoch key still holds the
// Log's epoch, that the fence is the newest one handed out, and that the
// entries continue the tail (the trimmed-through mark plus the stream's
// length: entries are removed only by Trim, which moves the mark in the
// same script), then adds them all and sets the checkpoint key; the
// entries' explicit IDs make Redis itself refuse a second entry at a Seq.
// Redis runs a script whole, so the entries and the checkpoint
// are stored together, or, when a check fails, neither is, and no replica
// ever reads a checkpoint that its log does not hold the entries of.
// SaveSnapshot is fenced the same way. Acquire sets the lease with PX
// under a new term, so a lease ends by Redis's clock, never the caller's:
// a driver paused past its lease (SIGSTOP, a long GC) whose lease another
// replica took appends nothing, and gets [relay.ErrStale].
//
// # Reads
//
// A Read is one script that checks the epoch and the trimmed-through mark,
// then reads the entries with XRANGE. Attach, where a browser sent away
// with gone starts again, reads the snapshot hash and the entries after
// its seq in one script, so no trim and no snapshot saved comes between
// them: the entries always start right after the snapshot. LoadAnswer
// reads the answers hash without waiting; answers are kept when the log
// is trimmed.
//
// # When Redis restarts
//
// With persistence (appendonly yes; appendfsync always loses no write that
// was acknowledged), a restart is a pause: calls fail with the client's
// error while Redis is down, and the same Log and fence go on after,
// appending from the tail with no duplicate and no gap. A Commit whose
// reply was lost may have been applied: sent again, it fails with
// [relay.ErrDuplicate] if it was. The scripts are loaded again by
// themselves.
//
// # When Redis loses the data
//
// When the epoch key is gone (FLUSHALL, a restart without persistence, an
// eviction), every call
// of a Log opened before fails with [ErrLost]; nothing is written again
// and nothing is numbered from 1 again under the old epoch. A new Open of
// the key starts an empty log under a new epoch (dropping whatever keys of
// the old one are left), so a browser's Last-Event-ID of the lost log is
// recognised as foreign and answered with the new log's snapshot, not
// misread. What the lost log held is not delivered again: the loss shows
// as an error, not as a re-delivery.
//
// The epoch catches the loss of a whole log, not of its last writes. A
// restart with appendfsync everysec (Redis's default when AOF is on) may
// lose up to a second of acknowledged writes, and a failover to a replica
// that lags may lose what it had not received (replication is
// asynchronous; this store does not call WAIT): the epoch survives, the
// tail goes back, and the lost entries' Seqs are appended again, with
// what the new driver produces, under the same event IDs a browser may
// already have seen. Use appendfsync always on a single server for the
// guarantee above.
//
// # Waiting
//
// AwaitEntry, AwaitAnswer and AwaitCancel block in XREAD BLOCK on the log's
// stream or its notes stream, never by polling in a loop; each holds one of
// the client's connections while it blocks, for at most the wake interval
// ([WithWake], default 1 s), after which it looks at its context and the
// epoch again. A relay.Handler's readers of one stream make one AwaitEntry
// between them, however many browsers follow it; a driver waits for
// answers and for a cancel besides. Size the client's pool for the streams
// a process serves and drives, not for its browsers.
package redisrelay
