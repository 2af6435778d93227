package redisrelay

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/a2astream/a2astream/relay"
)

// The append and trim scripts as they were before the tail was read from
// the trimmed-through mark and the stream's length: the tail came from
// XINFO STREAM's last-generated-id. The tests write logs with them, as a
// replica of that version would, and the benchmark measures Commit
// against them.
const v1Prelude = `
local function lost()
	return redis.call('GET', KEYS[1]) ~= ARGV[1]
end
local function tailof(stream)
	if redis.call('EXISTS', stream) == 0 then return 0 end
	local info = redis.call('XINFO', 'STREAM', stream)
	for i = 1, #info, 2 do
		if info[i] == 'last-generated-id' then
			return tonumber(string.match(info[i + 1], '^0%-(%d+)$')) or 0
		end
	end
	return 0
end
`

// v1AppendSrc: KEYS epoch, fence, log, checkpoint; ARGV as appendSrc's.
const v1AppendSrc = v1Prelude + `
if lost() then return {1} end
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return {2} end
local tail = tailof(KEYS[3])
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
return {0}
`

// v1TrimSrc: KEYS and ARGV as trimSrc's.
const v1TrimSrc = v1Prelude + `
if lost() then return {1} end
local through = math.min(tonumber(ARGV[2]), tonumber(redis.call('HGET', KEYS[2], 'seq') or '0'), tailof(KEYS[4]))
local trimmed = tonumber(redis.call('GET', KEYS[3]) or '0')
if through <= trimmed then return {0} end
redis.call('SET', KEYS[3], string.format('%d', through))
redis.call('XTRIM', KEYS[4], 'MINID', '0-' .. string.format('%d', through + 1))
return {0}
`

// v1 writes to a log as a replica running the XINFO scripts would.
type v1 struct {
	l            *log
	append, trim *redis.Script
}

func newV1(l *log) v1 {
	return v1{l: l, append: redis.NewScript(v1AppendSrc), trim: redis.NewScript(v1TrimSrc)}
}

// Commit is log.Commit with v1AppendSrc.
func (o v1) Commit(ctx context.Context, fence relay.Fence, cp []byte, entries ...relay.Entry) error {
	_, err := run(ctx, o.l.store.client, o.append, relay.ErrStale,
		[]string{o.l.keys.epoch, o.l.keys.fence, o.l.keys.log, o.l.keys.checkpoint}, commitArgs(o.l.epoch, fence, cp, entries)...)
	return err
}

// Trim is log.Trim with v1TrimSrc.
func (o v1) Trim(ctx context.Context, through uint64) error {
	_, err := run(ctx, o.l.store.client, o.trim, nil,
		[]string{o.l.keys.epoch, o.l.keys.snapshot, o.l.keys.trim, o.l.keys.log}, o.l.epoch, strconv.FormatUint(through, 10))
	return err
}
