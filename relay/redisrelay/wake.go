package redisrelay

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// The waits of one store (AwaitEntry, AwaitAnswer, AwaitCancel, of every
// log) share one Pub/Sub connection: the scripts that append entries,
// post an answer or request a cancel PUBLISH a note on the channel named
// as the key they wrote ("{p:k}:log" or "{p:k}:notes"), and the store's
// hub, subscribed to the channels its waits follow, wakes them. A wait
// then looks again (a short script on the client's pool), and blocks
// again when what it waits for is not there yet: it holds no pooled
// connection while it blocks.
//
// No note is lost to a wait. A wait takes its channel's wake before it
// looks, and every note, every confirmation of a SUBSCRIBE (also the ones
// go-redis sends again after a reconnect), and every error of the
// connection closes it: an entry appended before the channel's
// subscription took effect is seen by the look that the confirmation
// starts, and one appended after it sends a note that closes the wake. A
// note lost on the way (Redis's Pub/Sub keeps none), a log lost from
// Redis (which sends none) and a writer that sends none (a replica of
// the version before) are caught by the wake interval: a wait looks again
// after it at the latest.
//
// The hub's connection comes from go-redis's Pub/Sub connections, which
// are not the pool's: the pool serves the writes and the short looks, and
// never waits for a connection a wait holds. The hub dials it when the
// first wait comes and closes it once no wait has followed any channel for
// a wake interval or two; it unsubscribes a channel that long unfollowed
// too, so that a relay.Handler's waiter, which awaits again at once after
// each wake, does not subscribe again each time.

// hub shares one Pub/Sub connection between the waits of a store.
type hub struct {
	client redis.UniversalClient
	wake   time.Duration
	hook   func(ctx context.Context, point string) // tests only: called at the points named in hub.at

	mu     sync.Mutex
	topics map[string]*topic // by channel
	sub    *subscription     // the connection's goroutines, nil when none runs
}

// topic is the waits on one channel. Its fields are guarded by hub.mu.
type topic struct {
	waits int           // waits under way
	idle  bool          // no wait was under way at the last sweep
	wake  chan struct{} // closed at a note, a confirmation or an error, then replaced
	note  string        // the last note's payload
}

// subscription is one run of the hub's connection: its sync goroutine,
// which subscribes and unsubscribes, and its receive goroutine.
type subscription struct {
	kick  chan struct{} // the topics changed; capacity 1
	stop  chan struct{} // closed, under hub.mu, when the run ends
	ended bool          // stop is closed; guarded by hub.mu
}

func newHub(client redis.UniversalClient, wake time.Duration) *hub {
	return &hub{client: client, wake: wake, topics: make(map[string]*topic)}
}

// at calls the test hook, if any, at a named point, with the context of
// the wait or the connection.
func (h *hub) at(ctx context.Context, point string) {
	if h.hook != nil {
		h.hook(ctx, point)
	}
}

// await returns once a look answers true or fails, or ctx is done. It
// looks at once, then again whenever a note or a confirmation of the
// channel comes, or the connection fails, and at least every wake
// interval: look queues a look (see looker) and judge reads its answer.
// When noted is not nil, a note whose payload it answers true for ends
// the wait without a look, also while a look is under way: a look stuck
// on a slow connection does not hold back a wait whose note came. A look
// left under way when the wait returns is not sent, or not waited for.
func (h *hub) await(ctx context.Context, channel string, look func(ctx context.Context) *lookReq,
	judge func(reply []any, err error) (bool, error), noted func(payload string) bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t := h.join(channel)
	defer h.leave(t)
	timer := time.NewTimer(h.wake)
	defer timer.Stop()
	for {
		h.mu.Lock()
		wake := t.wake // taken before the look: what comes after it closes it
		h.mu.Unlock()
		r := look(ctx)
		again := false // a wake came while the look was under way
		for r != nil {
			select {
			case <-r.done:
				done, err := judge(r.reply())
				if err != nil || done {
					return err
				}
				h.at(ctx, "looked")
				r = nil
			case <-wake:
				var note string
				note, wake = h.woken(t)
				if noted != nil && noted(note) {
					return nil
				}
				again = true // the look may have read too early: look again once it answers
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if again {
			continue
		}
		// Between half the wake interval and all of it, so that the looks
		// of waits that began together do not all come at once.
		timer.Reset(h.wake/2 + rand.N(h.wake/2+1))
		select {
		case <-wake:
			if note, _ := h.woken(t); noted != nil && noted(note) {
				return nil
			}
		case <-timer.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// woken returns, for a wait whose wake of t closed, the last note's
// payload and the wake that the next note, confirmation or error closes.
func (h *hub) woken(t *topic) (note string, next chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return t.note, t.wake
}

// join adds a wait to channel's topic, and starts the connection's
// goroutines when none runs.
func (h *hub) join(channel string) *topic {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[channel]
	added := t == nil
	if added {
		t = &topic{wake: make(chan struct{})}
		h.topics[channel] = t
	}
	t.waits++
	t.idle = false
	switch {
	case h.sub == nil:
		s := &subscription{kick: make(chan struct{}, 1), stop: make(chan struct{})}
		h.sub = s
		s.kick <- struct{}{}
		go h.sync(s)
	case added:
		select {
		case h.sub.kick <- struct{}{}:
		default:
		}
	}
	return t
}

// leave takes a wait off its topic; the sync goroutine unsubscribes the
// channel when it stays unfollowed.
func (h *hub) leave(t *topic) {
	h.mu.Lock()
	t.waits--
	h.mu.Unlock()
}

// notify wakes channel's waits; payload is a note's, "" for a
// confirmation.
func (h *hub) notify(channel, payload string) {
	h.mu.Lock()
	if t := h.topics[channel]; t != nil {
		if payload != "" {
			t.note = payload
		}
		close(t.wake)
		t.wake = make(chan struct{})
	}
	h.mu.Unlock()
}

// notifyAll wakes every wait.
func (h *hub) notifyAll() {
	h.mu.Lock()
	for _, t := range h.topics {
		close(t.wake)
		t.wake = make(chan struct{})
	}
	h.mu.Unlock()
}

// end ends s, under h.mu: its goroutines return and a later wait starts
// another run.
func (h *hub) end(s *subscription) {
	if h.sub == s {
		h.sub = nil
	}
	if !s.ended {
		s.ended = true
		close(s.stop)
	}
}

// sync keeps s's connection subscribed to the channels that waits follow:
// it subscribes the new ones when kicked, and, every wake interval, drops
// the topics that had no wait at two sweeps in a row and unsubscribes
// them. It closes the connection and returns when no topic is left, or
// when the receive goroutine ended s (the client was closed).
func (h *hub) sync(s *subscription) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		ps       *redis.PubSub
		received sync.WaitGroup
		sent     = make(map[string]bool)
	)
	defer func() {
		if ps != nil {
			_ = ps.Close()
			received.Wait()
		}
	}()
	tick := time.NewTicker(h.wake)
	defer tick.Stop()
	for {
		sweep := false
		select {
		case <-s.kick:
		case <-tick.C:
			sweep = true
		case <-s.stop:
			return
		}
		var add, drop []string
		h.mu.Lock()
		if sweep {
			for name, t := range h.topics {
				if t.waits > 0 {
					continue
				}
				if t.idle {
					delete(h.topics, name)
				} else {
					t.idle = true
				}
			}
		}
		if len(h.topics) == 0 {
			h.end(s)
			h.mu.Unlock()
			return
		}
		for name := range h.topics {
			if !sent[name] {
				add = append(add, name)
			}
		}
		for name := range sent {
			if h.topics[name] == nil {
				drop = append(drop, name)
			}
		}
		h.mu.Unlock()

		for _, name := range drop {
			delete(sent, name)
		}
		if len(drop) > 0 {
			_ = ps.Unsubscribe(ctx, drop...) // go-redis forgets them even when the write fails
		}
		if len(add) == 0 {
			continue
		}
		h.at(ctx, "subscribe")
		var err error
		if ps == nil {
			// Made with its first channels: a Ring's Subscribe refuses none.
			ps = h.client.Subscribe(ctx, add...)
			received.Add(1)
			go func() { defer received.Done(); h.receive(ctx, ps, s) }()
			err = ps.Ping(ctx) // written after the SUBSCRIBE: fails when it could not be sent
		} else {
			err = ps.Subscribe(ctx, add...)
		}
		if err != nil {
			// Not sent, or sent on a connection that failed: go-redis may
			// have dialed again before it recorded them. Sent again at the
			// next tick; meanwhile the waits look every wake interval.
			h.notifyAll()
			continue
		}
		for _, name := range add {
			sent[name] = true
		}
	}
}

// receive reads s's connection until s ends: it wakes a channel's waits
// at each note and each confirmation of its subscription, and every wait
// when the connection fails (go-redis dials again and subscribes again,
// and the confirmations wake them once more; while it cannot, the waits
// look every wake interval). It ends s when the client is closed.
func (h *hub) receive(ctx context.Context, ps *redis.PubSub, s *subscription) {
	failures := 0
	for {
		msg, err := ps.Receive(ctx)
		select {
		case <-s.stop:
			return
		default:
		}
		if err != nil {
			if failures == 0 {
				h.notifyAll() // once a streak: the confirmations wake them again
			}
			if errors.Is(err, redis.ErrClosed) {
				h.notifyAll()
				h.mu.Lock()
				h.end(s)
				h.mu.Unlock()
				return
			}
			// Redis is down or unreachable: try again after a pause that
			// doubles up to the wake interval.
			pause := min(h.wake, time.Millisecond<<min(failures, 20))
			failures++
			t := time.NewTimer(pause)
			select {
			case <-s.stop:
				t.Stop()
				return
			case <-t.C:
			}
			continue
		}
		failures = 0
		switch m := msg.(type) {
		case *redis.Message:
			h.notify(m.Channel, m.Payload)
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				h.notify(m.Channel, "")
				h.at(ctx, "confirmed")
			}
		}
	}
}
