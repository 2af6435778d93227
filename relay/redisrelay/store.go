package redisrelay

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/a2astream/a2astream/relay"
)

// store is the [relay.Store] that New returns.
type store struct {
	client  redis.UniversalClient
	cfg     config
	scripts scripts
	hub     *hub    // the waits' shared Pub/Sub connection (wake.go)
	looks   *looker // the waits' looks, in batches (looks.go)
}

// New returns a [relay.Store] that keeps its logs in the Redis that client
// reaches (one server, a Sentinel group or a Cluster). Every replica that
// serves the same streams makes its own with the same [WithPrefix]; they
// share the logs through Redis. The store is safe for concurrent use and
// holds nothing but the client, which the caller keeps and closes, and,
// while waits are under way, one Pub/Sub connection of that client, which
// it closes itself (see "Waiting" in the package's doc). New does not
// reach Redis. It refuses a nil client, a nil option and an
// option's bad value with an error that wraps [relay.ErrInvalidOption],
// and returns no store then. The store is also a push.Share, for the
// replicas' push.Receivers (see push.go): push.WithShare(st.(push.Share)).
func New(client redis.UniversalClient, opts ...Option) (relay.Store, error) {
	var errs []error
	if client == nil {
		errs = append(errs, invalidOption("New: a nil client"))
	}
	cfg := defaultConfig()
	for _, o := range opts {
		if o == nil {
			errs = append(errs, invalidOption("a nil Option"))
			continue
		}
		if err := o.apply(&cfg); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &store{client: client, cfg: cfg, scripts: newScripts(), hub: newHub(client, cfg.wake),
		looks: &looker{client: client}}, nil
}

// keys names the Redis keys of one log; they share the hash tag
// "{<prefix>:<key>}", so they live in one Cluster slot and one script
// may touch them all.
type keys struct {
	epoch, log, trim, snapshot, term, lease, fence, checkpoint, answers, cancel, notes string
}

func keysOf(prefix, key string) keys {
	tag := "{" + prefix + ":" + key + "}:"
	return keys{
		epoch: tag + "epoch", log: tag + "log", trim: tag + "trimmed", snapshot: tag + "snapshot",
		term: tag + "term", lease: tag + "lease", fence: tag + "fence", checkpoint: tag + "checkpoint",
		answers: tag + "answers", cancel: tag + "cancel", notes: tag + "notes",
	}
}

// Open returns the log of key, creating its epoch when Redis holds none.
// It fails only when Redis cannot be reached.
func (s *store) Open(ctx context.Context, key string) (relay.Log, error) {
	k := keysOf(s.cfg.prefix, key)
	v, err := s.scripts.open.Run(ctx, s.client, []string{
		k.epoch, k.log, k.trim, k.snapshot, k.term, k.lease, k.fence, k.checkpoint, k.answers, k.cancel, k.notes,
	}, uuid.NewString()).Text()
	if err != nil {
		return nil, fmt.Errorf("redisrelay: open %q: %w", key, err)
	}
	return &log{store: s, keys: k, epoch: v}, nil
}
