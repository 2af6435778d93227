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
// A registration's record is the hash "<prefix>:push:<id>" (fields digest
// and task), which expires by PEXPIRE (in Redis's clock). It has no hash
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

// PutRegistration stores rec in the registration's hash, with its expiry,
// in one MULTI.
func (s *store) PutRegistration(ctx context.Context, id string, rec push.SharedRegistration, ttl time.Duration) error {
	key := s.pushKey(id)
	_, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, "digest", rec.TokenDigest[:], "task", rec.TaskID)
		p.PExpire(ctx, key, ttl)
		return nil
	})
	if err != nil {
		return fmt.Errorf("redisrelay: put push registration: %w", err)
	}
	return nil
}

// GetRegistration reads the registration's hash.
func (s *store) GetRegistration(ctx context.Context, id string) (push.SharedRegistration, bool, error) {
	vs, err := s.client.HMGet(ctx, s.pushKey(id), "digest", "task").Result()
	if err != nil {
		return push.SharedRegistration{}, false, fmt.Errorf("redisrelay: get push registration: %w", err)
	}
	if len(vs) != 2 || vs[0] == nil {
		return push.SharedRegistration{}, false, nil
	}
	digest, _ := vs[0].(string)
	task, _ := vs[1].(string)
	var rec push.SharedRegistration
	if len(digest) != sha256.Size {
		return rec, false, fmt.Errorf("redisrelay: a push registration whose digest has %d bytes", len(digest))
	}
	copy(rec.TokenDigest[:], digest)
	rec.TaskID = task
	return rec, true, nil
}

// DeleteRegistration deletes the registration's hash.
func (s *store) DeleteRegistration(ctx context.Context, id string) error {
	if err := s.client.Del(ctx, s.pushKey(id)).Err(); err != nil {
		return fmt.Errorf("redisrelay: delete push registration: %w", err)
	}
	return nil
}

// RefreshRegistrations sets the expiry of each hash that exists, in one
// pipeline (PEXPIRE leaves a missing key missing).
func (s *store) RefreshRegistrations(ctx context.Context, ttl time.Duration, ids ...string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	cmds := make([]*redis.BoolCmd, len(ids))
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.PExpire(ctx, s.pushKey(id), ttl)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("redisrelay: refresh push registrations: %w", err)
	}
	var missing []string
	for i, c := range cmds {
		if !c.Val() { // PEXPIRE of a missing key: 0
			missing = append(missing, ids[i])
		}
	}
	return missing, nil
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
