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
//	{p:k}:notes       stream   one note per answer and cancel, for the waits of the version before (about 64 kept)
//
// Besides the keys, two Pub/Sub channels of the same names wake the waits
// (see Waiting below): "{p:k}:log", on which each Commit of entries
// publishes "<epoch>:<last Seq>", and "{p:k}:notes", on which a first answer to a
// prompt and a first cancel publish a note.
//
// The store's push share (it is a push.Share, see package push) keeps a
// hash "p:push:<registration id>" (fields digest, task, holder and
// generation, with PEXPIRE, refreshed by the holder; a delete leaves the
// generation until it expires) and publishes rings on the channel
// "p:push-rings"; these are not under a log's hash tag.
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
// AwaitEntry, AwaitAnswer and AwaitCancel never hold one of the client's
// pooled connections while they block, and do not poll: a wait looks at
// its log when a note wakes it, and otherwise once a wake interval (as the
// version before did when its XREAD BLOCK ran out). The scripts that
// append entries, post an answer or request a cancel PUBLISH a tiny note,
// in the same script, on a channel named as the stream they wrote
// ("{p:k}:log" for entries, "{p:k}:notes" for answers and cancels). All
// the waits of a store, of every log, share one Pub/Sub connection,
// subscribed to the channels they follow: a wait looks (one short script
// on the pool: the tail, or the answer, or the cancel mark, and the
// epoch), and blocks until a note of its channel wakes it, then looks
// again (a wait for an entry does not: a Commit's note names the log's
// epoch and the last Seq it appended). The looks of all the store's waits
// go in batches, one pipeline at a time, so they hold at most one of the
// pool's connections however many streams are followed: the browsers of
// a thousand streams that come back at once, or a Pub/Sub reconnection
// that wakes every wait, cost one connection and a few round trips. The
// pool serves the writes and these looks only; the Pub/Sub connection is
// go-redis's own, outside the pool (its PoolStats counts it under
// PubSubStats), so the driver's writes
// never queue behind waiters however many there are: a process that serves
// a thousand streams waits on one connection, not a thousand. A
// relay.Handler's readers of one stream make one AwaitEntry between them.
//
// No note is lost to a wait: it takes its channel's wake before it looks,
// and looks at once, again when Redis confirms the channel's subscription,
// and at every note after that (or ends on it), so what comes while it
// looks wakes it again. A wait for an entry ends on its note even while
// its look is under way: a look stuck on a slow pooled connection does not
// hold it back, and a look whose wait has gone is not sent. Notes that
// Pub/Sub drops (the connection broke; go-redis dials again and subscribes
// again, and the confirmations wake every wait to look again), a log that
// Redis lost (which sends no note) and a writer that sends none (a replica
// of the version before) are caught by the wake interval ([WithWake],
// default 1 s): a wait looks again after it at the latest (at a random
// time in the second half of it, so that the looks of waits begun together
// are spread), and ends with [ErrLost] once its log is lost. The notes
// streams are still written, for the waits of replicas of the version
// before (XREAD BLOCK on them), during a rolling upgrade.
//
// The store dials its Pub/Sub connection at the first wait, and closes it
// when no wait has been under way for one to two wake intervals, or when
// the client is closed; it unsubscribes a channel that long without a
// wait. It runs two goroutines while the connection is open. A Redis user
// (ACL) needs the right to PUBLISH and SUBSCRIBE on the channels
// "{<prefix>:*" (&{a2astream:* for the default prefix); without it the
// writes go on (the scripts' PUBLISH is a pcall, whose failure they
// ignore), and the waits are woken by the wake interval alone. The push
// share needs the keys "<prefix>:push:*" (~a2astream:push:*) and the
// channel "<prefix>:push-rings" (&a2astream:push-rings) besides: without
// them, Register with the share fails.
//
// # Connections
//
// A process's connections to one Redis server are the client's pool
// (go-redis's PoolSize, 10 per GOMAXPROCS by default), which serves every
// write and read, and the waits' looks on one connection at a time, plus
// the Pub/Sub connections, which go-redis keeps outside the pool and
// PoolSize does not bound: the store's one for its
// waits while any is under way, and the push share's ring listener
// (ListenRings) when push.WithShare uses it. To hold a process to a budget
// of n connections per server, give the client PoolSize n-1, or n-2 with
// the push share, and count the Pub/Sub connections of your own code too:
// PoolSize 19 keeps a relay.Handler's readers, its driver and its waits
// within 20, however many browsers watch (a relay.Handler's readers of
// one stream share one wait, and read from its window in memory). A
// write that finds the pool busy waits for a connection (PoolTimeout), as
// do the reads of readers behind the window, which are the ones to use
// many.
//
// On a Redis Cluster, the notes are classic Pub/Sub: Redis sends each to
// every node over the cluster bus, and the connection, to any one node,
// hears them all. That costs the bus a message per note and node; sharded
// Pub/Sub (SPUBLISH, Redis 7) would keep a note in its slot's shard but
// needs a connection per shard, and is not used. On a Ring client the
// connection reaches one shard only: the waits of logs on other shards are
// woken by the wake interval alone.
package redisrelay
