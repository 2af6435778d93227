package redisrelay

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/a2astream/a2astream/push"
)

// The store New returns is also a [push.Share]: give it to each replica's
// push.Receiver with push.WithShare(st.(push.Share)), and a notification
// that reaches any replica rings the registration on the replica that
// holds it.
//
// A registration's record is the hash "<prefix>:push:<id>" (fields digest,
// task, holder and generation), which expires by PEXPIRE (in Redis's clock); a Lua
// script checks the holder and writes in one step (a put, an adoption, a
// refresh, a delete). It has no hash
// tag: records spread over a Cluster's slots, and no call touches two. A
// ring is a PUBLISH of the registration's ID on the channel
// "<prefix>:push-rings": every replica's listener (one subscription, on a
// connection of its own) receives every ring, and rings the registration
// if it holds it. A ring published while a replica's subscription is
// broken (a reconnect) does not reach it: that notification is then
// learned of by the replica's safety poll.
var _ push.Share = (*store)(nil)

// pushKey is the key of the record of the push registration id.
func (s *store) pushKey(id string) string { return s.cfg.prefix + ":push:" + id }

// ringChannel is the channel of the store's rings.
func (s *store) ringChannel() string { return s.cfg.prefix + ":push-rings" }

// The scripts of the registrations' records: each reads and writes one
// hash (KEYS[1]), so that a check of the holder and the write it guards
// are one step.

// putRegSrc: ARGV digest, task, holder, ttl in ms, generation. It answers
// 0, and writes nothing, when the hash (a record, or what a delete left)
// is of a later generation, or of the same one and another holder; else
// it replaces the hash, sets its expiry and answers 1.
const putRegSrc = `
if redis.call('EXISTS', KEYS[1]) == 1 then
  local h = redis.call('HMGET', KEYS[1], 'holder', 'gen')
  local gen, mine = tonumber(h[2] or '0'), tonumber(ARGV[5])
  if gen > mine or (gen == mine and h[1] ~= ARGV[3]) then return 0 end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'digest', ARGV[1], 'task', ARGV[2], 'holder', ARGV[3], 'gen', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`

// adoptRegSrc: ARGV holder, ttl in ms, task. It answers false when there
// is no record (no hash, or what a delete left); the record as it is, when
// it is bound to another task than a task that is not empty; else it sets
// its holder, its generation one later, its task when it had none, and its
// expiry, and answers the record: digest, task, holder, generation.
const adoptRegSrc = `
local h = redis.call('HMGET', KEYS[1], 'digest', 'task', 'holder', 'gen')
if not h[1] then return false end
local task, gen = h[2] or '', h[4] or '0'
if ARGV[3] ~= '' and task ~= '' and task ~= ARGV[3] then return {h[1], task, h[3] or '', gen} end
if task == '' then task = ARGV[3] end
gen = tostring(tonumber(gen) + 1)
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'gen', gen, 'task', task)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {h[1], task, ARGV[1], gen}
`

// deleteRegSrc: ARGV holder. When the hash names holder, it keeps only its
// generation, with an empty holder, until it expires: a former holder's
// put of that generation or an earlier one is refused meanwhile.
const deleteRegSrc = `
if redis.call('HGET', KEYS[1], 'holder') == ARGV[1] and ARGV[1] ~= '' then
  redis.call('HDEL', KEYS[1], 'digest', 'task')
  redis.call('HSET', KEYS[1], 'holder', '')
end
return 0
`

// refreshRegSrc: ARGV holder, ttl in ms. It sets the hash's expiry when it
// names holder, and answers 1; else 0 (a missing hash stays missing, and
// what a delete left, which names no holder, is not extended).
const refreshRegSrc = `
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`

// PutRegistration replaces the registration's hash (fields digest, task,
// holder and generation) and sets its expiry, in one script, unless it is
// of a later generation, or of the same one and another holder.
func (s *store) PutRegistration(ctx context.Context, id string, rec push.SharedRegistration, ttl time.Duration) (bool, error) {
	n, err := s.scripts.putReg.Run(ctx, s.client, []string{s.pushKey(id)},
		rec.TokenDigest[:], rec.TaskID, rec.Holder, ttl.Milliseconds(), rec.Generation).Int()
	if err != nil {
		return false, fmt.Errorf("redisrelay: put push registration: %w", err)
	}
	return n == 1, nil
}

// GetRegistration reads the registration's hash.
func (s *store) GetRegistration(ctx context.Context, id string) (push.SharedRegistration, bool, error) {
	vs, err := s.client.HMGet(ctx, s.pushKey(id), "digest", "task", "holder", "gen").Result()
	if err != nil {
		return push.SharedRegistration{}, false, fmt.Errorf("redisrelay: get push registration: %w", err)
	}
	if len(vs) != 4 || vs[0] == nil { // none, or what a delete left
		return push.SharedRegistration{}, false, nil
	}
	return registrationOf(vs)
}

// registrationOf decodes a hash's digest, task, holder and generation, as
// HMGET (or the adoption's script) answers them.
func registrationOf(vs []any) (push.SharedRegistration, bool, error) {
	var rec push.SharedRegistration
	d, _ := vs[0].(string)
	if len(d) != sha256.Size {
		return rec, false, fmt.Errorf("redisrelay: a push registration whose digest has %d bytes", len(d))
	}
	copy(rec.TokenDigest[:], d)
	rec.TaskID, _ = vs[1].(string)
	rec.Holder, _ = vs[2].(string)
	if g, _ := vs[3].(string); g != "" {
		n, err := strconv.ParseUint(g, 10, 64)
		if err != nil {
			return rec, false, fmt.Errorf("redisrelay: a push registration whose generation is %q", g)
		}
		rec.Generation = n
	}
	return rec, true, nil
}

// AdoptRegistration sets the hash's holder, generation, task (when it had
// none) and expiry, in one script, and returns the record; a record bound
// to another task is returned as it is.
func (s *store) AdoptRegistration(ctx context.Context, id, taskID, holder string, ttl time.Duration) (push.SharedRegistration, bool, error) {
	v, err := s.scripts.adoptReg.Run(ctx, s.client, []string{s.pushKey(id)}, holder, ttl.Milliseconds(), taskID).Result()
	if errors.Is(err, redis.Nil) {
		return push.SharedRegistration{}, false, nil
	}
	if err != nil {
		return push.SharedRegistration{}, false, fmt.Errorf("redisrelay: adopt push registration: %w", err)
	}
	vs, _ := v.([]any)
	if len(vs) != 4 {
		return push.SharedRegistration{}, false, fmt.Errorf("redisrelay: adopt push registration: a reply of %T", v)
	}
	return registrationOf(vs)
}

// DeleteRegistration deletes the registration's hash when it names
// holder, in one script.
func (s *store) DeleteRegistration(ctx context.Context, id, holder string) error {
	if err := s.scripts.deleteReg.Run(ctx, s.client, []string{s.pushKey(id)}, holder).Err(); err != nil {
		return fmt.Errorf("redisrelay: delete push registration: %w", err)
	}
	return nil
}

// RefreshRegistrations sets the expiry of each hash that names holder, one
// script per hash, in one pipeline (each hash may be on another slot of a
// Cluster).
func (s *store) RefreshRegistrations(ctx context.Context, holder string, ttl time.Duration, ids ...string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	// A script not yet in Redis's cache would fail every EVALSHA of the
	// pipeline: load it first (a no-op when it is there).
	if err := s.scripts.refreshReg.Load(ctx, s.client).Err(); err != nil {
		return nil, fmt.Errorf("redisrelay: refresh push registrations: %w", err)
	}
	cmds := make([]*redis.Cmd, len(ids))
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = s.scripts.refreshReg.EvalSha(ctx, p, []string{s.pushKey(id)}, holder, ttl.Milliseconds())
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("redisrelay: refresh push registrations: %w", err)
	}
	var gone []string
	for i, c := range cmds {
		if n, _ := c.Int(); n != 1 {
			gone = append(gone, ids[i])
		}
	}
	return gone, nil
}

// RingRegistration publishes id on the ring channel.
func (s *store) RingRegistration(ctx context.Context, id string) error {
	if err := s.client.Publish(ctx, s.ringChannel(), id).Err(); err != nil {
		return fmt.Errorf("redisrelay: ring push registration: %w", err)
	}
	return nil
}

// ListenRings subscribes to the ring channel, on a connection of its own,
// and returns once Redis confirmed the subscription.
func (s *store) ListenRings(ctx context.Context) (push.Rings, error) {
	ps := s.client.Subscribe(ctx, s.ringChannel())
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return nil, fmt.Errorf("redisrelay: listen for push rings: %w", err)
	}
	return &rings{ps: ps, wake: s.cfg.wake}, nil
}

// rings is a subscription to the ring channel.
type rings struct {
	ps   *redis.PubSub
	wake time.Duration // how long one read waits before it looks at its context again
}

// Next reads the next ring, in reads of at most wake (WithWake) so that a
// canceled context is seen within it.
func (r *rings) Next(ctx context.Context) (string, error) {
	for {
		msg, err := r.ps.ReceiveTimeout(ctx, r.wake)
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return "", fmt.Errorf("redisrelay: receive push rings: %w", err)
		}
		if m, ok := msg.(*redis.Message); ok {
			return m.Payload, nil
		}
		// A subscription's confirmation after a reconnect, or a pong.
	}
}

// Close unsubscribes and closes the subscription's connection; a Next
// waiting returns.
func (r *rings) Close() error {
	if err := r.ps.Close(); err != nil && !errors.Is(err, redis.ErrClosed) {
		return err
	}
	return nil
}
