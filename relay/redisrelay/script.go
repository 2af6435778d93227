package redisrelay

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// The Lua scripts. Each takes the log's epoch key as KEYS[1] and the epoch
// the Log was opened on as ARGV[1], and answers {codeLost} when they
// differ, so that nothing is read from or written to a log made afresh
// under an old handle. Every reply is a table whose first element is a
// code (errors.go); a script never answers with an error of its own, so
// no error text is ever matched.
//
// Sequence numbers travel as decimal strings; Lua compares them as
// numbers, exact up to 2^53.

// luaPrelude is shared by the scripts: the epoch check and the tail. The
// tail is the trimmed-through mark plus the stream's length, two O(1)
// reads: the stream holds exactly the entries after the mark, since
// entries are appended only at the tail and removed only by the trim
// script, which moves the mark in the same script. (It was read from
// XINFO STREAM's last-generated-id before, a reply with the first and last
// entries and their data that the script took apart on every Commit: about
// a third of the append script's time in Redis at one entry a delta, see
// BenchmarkCommit.) A log written before has the same mark and stream, so
// it is read the same way.
const luaPrelude = `
local function lost()
	return redis.call('GET', KEYS[1]) ~= ARGV[1]
end
local function tailof(trimmed, stream)
	return tonumber(redis.call('GET', trimmed) or '0') + redis.call('XLEN', stream)
end
`

// openSrc: KEYS epoch, then every other key of the log; ARGV a new epoch.
// It creates the epoch when there is none; a log whose epoch key is gone
// while other keys of it remain (an eviction) is wiped first, so that a
// new epoch never names old entries.
const openSrc = `
local e = redis.call('GET', KEYS[1])
if e then return e end
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
`

// appendSrc: KEYS epoch, fence, log, checkpoint, trim; ARGV epoch, fence value,
// "1" and a checkpoint to store it or "0" and "" to leave it, then a (seq,
// name, data) triple per entry. All entries are checked before anything is
// written, so the entries and the checkpoint are stored together or not at
// all (Redis runs a script whole; a failed write command cannot happen
// after the checks, the keys' types being the script's own). When it
// appended entries, it publishes "<epoch>:<seq of the last one>" on the
// channel named as the log's stream, for the waits (wake.go).
const appendSrc = luaPrelude + `
if lost() then return {1} end
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return {2} end
local tail = tailof(KEYS[5], KEYS[3])
local n = (#ARGV - 4) / 3
for i = 0, n - 1 do
	local seq = tonumber(ARGV[5 + 3 * i])
	if seq < tail + 1 + i then return {3} end
	if seq > tail + 1 + i then return {4} end
end
for i = 0, n - 1 do
	redis.call('XADD', KEYS[3], '0-' .. ARGV[5 + 3 * i], 'n', ARGV[6 + 3 * i], 'd', ARGV[7 + 3 * i])
end
if ARGV[3] == '1' then redis.call('SET', KEYS[4], ARGV[4]) end
if n > 0 then redis.pcall('PUBLISH', KEYS[3], ARGV[1] .. ':' .. ARGV[5 + 3 * (n - 1)]) end
return {0}
`

// readSrc: KEYS epoch, trim, log; ARGV epoch, after, max.
const readSrc = luaPrelude + `
if lost() then return {1} end
local trimmed = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[2]) < trimmed then return {5} end
if tonumber(ARGV[3]) <= 0 then return {0, {}} end
return {0, redis.call('XRANGE', KEYS[3], '(0-' .. ARGV[2], '+', 'COUNT', ARGV[3])}
`

// attachSrc: KEYS epoch, snapshot, trim, log; ARGV epoch, max. It answers
// with the snapshot's seq and data (false for none) and the entries after
// its seq, read in the one script, so no trim and no snapshot saved comes
// between them. A snapshot older than the trim point (saved after a later
// one was trimmed through, which the relay never does) answers codeGone
// rather than a gap.
const attachSrc = luaPrelude + `
if lost() then return {1} end
local snap = redis.call('HMGET', KEYS[2], 'seq', 'data')
local seq = snap[1] or '0'
if tonumber(seq) < tonumber(redis.call('GET', KEYS[3]) or '0') then return {5} end
if tonumber(ARGV[2]) <= 0 then return {0, snap, {}} end
return {0, snap, redis.call('XRANGE', KEYS[4], '(0-' .. seq, '+', 'COUNT', ARGV[2])}
`

// tailSrc: KEYS epoch, trim, log; ARGV epoch.
const tailSrc = luaPrelude + `
if lost() then return {1} end
return {0, tailof(KEYS[2], KEYS[3])}
`

// trimSrc: KEYS epoch, snapshot, trim, log; ARGV epoch, through. It trims
// through neither past the snapshot's seq nor past the tail: a trim mark
// past the tail would take entries appended later as trimmed.
const trimSrc = luaPrelude + `
if lost() then return {1} end
local through = math.min(tonumber(ARGV[2]), tonumber(redis.call('HGET', KEYS[2], 'seq') or '0'), tailof(KEYS[3], KEYS[4]))
local trimmed = tonumber(redis.call('GET', KEYS[3]) or '0')
if through <= trimmed then return {0} end
redis.call('SET', KEYS[3], string.format('%d', through))
redis.call('XTRIM', KEYS[4], 'MINID', '0-' .. string.format('%d', through + 1))
return {0}
`

// acquireSrc: KEYS epoch, lease, term, fence; ARGV epoch, owner, ttl in ms.
// The lease's value is "<term>:<owner>"; the fence key keeps the newest
// one handed out, without expiry, for the fenced writes.
const acquireSrc = luaPrelude + `
if lost() then return {1} end
local held = redis.call('GET', KEYS[2])
if held and string.match(held, '^%d+:(.*)$') ~= ARGV[2] then return {6} end
local term = redis.call('INCR', KEYS[3])
local value = term .. ':' .. ARGV[2]
redis.call('SET', KEYS[2], value, 'PX', ARGV[3])
redis.call('SET', KEYS[4], value)
return {0, term}
`

// renewSrc: KEYS epoch, fence, lease; ARGV epoch, fence value, ttl in ms.
const renewSrc = luaPrelude + `
if lost() then return {1} end
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return {2} end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
return {0}
`

// releaseSrc: KEYS epoch, fence, lease; ARGV epoch, fence value.
const releaseSrc = luaPrelude + `
if lost() then return {1} end
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return {2} end
if redis.call('GET', KEYS[3]) == ARGV[2] then redis.call('DEL', KEYS[3]) end
return {0}
`

// setFencedSrc: KEYS epoch, fence, target; ARGV epoch, fence value, then
// field-value pairs for a hash target, or one value for a string target.
const setFencedSrc = luaPrelude + `
if lost() then return {1} end
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return {2} end
if #ARGV == 3 then
	redis.call('SET', KEYS[3], ARGV[3])
else
	redis.call('DEL', KEYS[3])
	redis.call('HSET', KEYS[3], unpack(ARGV, 3))
end
return {0}
`

// getSrc: KEYS epoch, target; ARGV epoch. A hash target answers with its
// seq and data fields, a string target with its value.
const getSrc = luaPrelude + `
if lost() then return {1} end
if redis.call('TYPE', KEYS[2]).ok == 'hash' then
	return {0, redis.call('HMGET', KEYS[2], 'seq', 'data')}
end
return {0, redis.call('GET', KEYS[2])}
`

// postAnswerSrc: KEYS epoch, answers, notes; ARGV epoch, prompt, answer.
// The first answer to a prompt is noted on the notes stream, for waits of
// the version before, which block on it in XREAD BLOCK, and published on
// the channel named as the notes stream, for the waits of this one (so is
// a cancel, below). Every PUBLISH is a pcall: a user whose ACL forbids
// it still writes, and its waits look every wake interval.
const postAnswerSrc = luaPrelude + `
if lost() then return {1} end
if redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[3]) == 1 then
	redis.call('XADD', KEYS[3], 'MAXLEN', '~', '64', '*', 'answer', ARGV[2])
	redis.pcall('PUBLISH', KEYS[3], 'answer:' .. ARGV[2])
end
return {0, redis.call('HGET', KEYS[2], ARGV[2])}
`

// loadAnswerSrc: KEYS epoch, answers; ARGV epoch, prompt. It answers with
// the prompt's field of the answers hash, false for none.
const loadAnswerSrc = luaPrelude + `
if lost() then return {1} end
return {0, redis.call('HGET', KEYS[2], ARGV[2])}
`

// cancelSrc: KEYS epoch, cancel, notes; ARGV epoch.
const cancelSrc = luaPrelude + `
if lost() then return {1} end
if redis.call('SET', KEYS[2], '1', 'NX') then
	redis.call('XADD', KEYS[3], 'MAXLEN', '~', '64', '*', 'cancel', '1')
	redis.pcall('PUBLISH', KEYS[3], 'cancel')
end
return {0}
`

// pollSrc: KEYS epoch, then an answers hash and a prompt, or a cancel
// key; ARGV epoch, the prompt when there is one. It answers with the
// answer, or the cancel mark, or false.
const pollSrc = luaPrelude + `
if lost() then return {1} end
local v
if #ARGV == 2 then v = redis.call('HGET', KEYS[2], ARGV[2]) else v = redis.call('GET', KEYS[2]) end
return {0, v}
`

// scripts holds the Lua scripts, hashed once per store.
type scripts struct {
	open, append, read, attach, tail, trim   *redis.Script
	acquire, renew, release                  *redis.Script
	setFenced, get, postAnswer, cancel, poll *redis.Script
	loadAnswer                               *redis.Script
	putReg, adoptReg, deleteReg, refreshReg  *redis.Script // push.go's
}

func newScripts() scripts {
	return scripts{
		open: redis.NewScript(openSrc), append: redis.NewScript(appendSrc),
		read: redis.NewScript(readSrc), attach: redis.NewScript(attachSrc), tail: redis.NewScript(tailSrc), trim: redis.NewScript(trimSrc),
		acquire: redis.NewScript(acquireSrc), renew: redis.NewScript(renewSrc),
		release: redis.NewScript(releaseSrc), setFenced: redis.NewScript(setFencedSrc),
		get: redis.NewScript(getSrc), postAnswer: redis.NewScript(postAnswerSrc),
		cancel: redis.NewScript(cancelSrc), poll: redis.NewScript(pollSrc),
		loadAnswer: redis.NewScript(loadAnswerSrc),
		putReg:     redis.NewScript(putRegSrc), adoptReg: redis.NewScript(adoptRegSrc),
		deleteReg: redis.NewScript(deleteRegSrc), refreshReg: redis.NewScript(refreshRegSrc),
	}
}

// run runs s (EVALSHA, then EVAL when Redis lost its script cache) and
// splits its reply into the code's error and the rest; also is the relay
// error a lost log matches here.
func run(ctx context.Context, c redis.UniversalClient, s *redis.Script, also error, keys []string, args ...any) ([]any, error) {
	v, err := s.Run(ctx, c, keys, args...).Result()
	return splitReply(v, err, also)
}

// splitReply splits a script's answer, v or err, into the code's error and
// the rest, as run does.
func splitReply(v any, err error, also error) ([]any, error) {
	if err != nil {
		return nil, fmt.Errorf("redisrelay: %w", err)
	}
	reply, ok := v.([]any)
	if !ok || len(reply) == 0 {
		return nil, fmt.Errorf("redisrelay: a script answered %T, not a table", v)
	}
	code, ok := reply[0].(int64)
	if !ok {
		return nil, fmt.Errorf("redisrelay: a script answered with the code %v", reply[0])
	}
	if err := errFromCode(code, also); err != nil {
		return nil, err
	}
	return reply[1:], nil
}
