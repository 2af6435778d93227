package redisrelay

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
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
// task and holder), which expires by PEXPIRE (in Redis's clock); a Lua
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

// putRegSrc: ARGV digest, task, holder, ttl in ms. It answers 0, and
// writes nothing, when the hash names another holder; else it replaces
// the hash, sets its expiry and answers 1.
const putRegSrc = `
local h = redis.call('HGET', KEYS[1], 'holder')
if h and h ~= ARGV[3] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'digest', ARGV[1], 'task', ARGV[2], 'holder', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`

// adoptRegSrc: ARGV holder, ttl in ms. It answers false when there is no
// hash; else it sets its holder and expiry and answers its digest and task.
const adoptRegSrc = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 'holder', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('HMGET', KEYS[1], 'digest', 'task')
`

// deleteRegSrc: ARGV holder. It deletes the hash when it names holder.
const deleteRegSrc = `
if redis.call('HGET', KEYS[1], 'holder') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`

// refreshRegSrc: ARGV holder, ttl in ms. It sets the hash's expiry when it
// names holder, and answers 1; else 0 (a missing hash stays missing).
const refreshRegSrc = `
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`

// PutRegistration replaces the registration's hash (fields digest, task and
// holder) and sets its expiry, in one script, unless it names another
// holder.
func (s *store) PutRegistration(ctx context.Context, id string, rec push.SharedRegistration, ttl time.Duration) (bool, error) {
	n, err := s.scripts.putReg.Run(ctx, s.client, []string{s.pushKey(id)},
		rec.TokenDigest[:], rec.TaskID, rec.Holder, ttl.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("redisrelay: put push registration: %w", err)
	}
	return n == 1, nil
}

// GetRegistration reads the registration's hash.
func (s *store) GetRegistration(ctx context.Context, id string) (push.SharedRegistration, bool, error) {
	vs, err := s.client.HMGet(ctx, s.pushKey(id), "digest", "task", "holder").Result()
	if err != nil {
		return push.SharedRegistration{}, false, fmt.Errorf("redisrelay: get push registration: %w", err)
	}
	if len(vs) != 3 || vs[0] == nil {
		return push.SharedRegistration{}, false, nil
	}
	holder, _ := vs[2].(string)
	return registrationOf(vs[0], vs[1], holder)
}

// registrationOf decodes a hash's digest and task, as HMGET answers them.
func registrationOf(digest, task any, holder string) (push.SharedRegistration, bool, error) {
	d, _ := digest.(string)
	var rec push.SharedRegistration
	if len(d) != sha256.Size {
		return rec, false, fmt.Errorf("redisrelay: a push registration whose digest has %d bytes", len(d))
	}
	copy(rec.TokenDigest[:], d)
	rec.TaskID, _ = task.(string)
	rec.Holder = holder
	return rec, true, nil
}

// AdoptRegistration sets the hash's holder and expiry, in one script, and
// returns the record.
func (s *store) AdoptRegistration(ctx context.Context, id, holder string, ttl time.Duration) (push.SharedRegistration, bool, error) {
	v, err := s.scripts.adoptReg.Run(ctx, s.client, []string{s.pushKey(id)}, holder, ttl.Milliseconds()).Result()
	if errors.Is(err, redis.Nil) {
		return push.SharedRegistration{}, false, nil
	}
	if err != nil {
		return push.SharedRegistration{}, false, fmt.Errorf("redisrelay: adopt push registration: %w", err)
	}
	vs, _ := v.([]any)
	if len(vs) != 2 {
		return push.SharedRegistration{}, false, fmt.Errorf("redisrelay: adopt push registration: a reply of %T", v)
	}
	return registrationOf(vs[0], vs[1], holder)
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
