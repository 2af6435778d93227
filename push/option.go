package push

import (
	"errors"
	"io"
	"log/slog"
	"time"
)

// Defaults of the options.
const (
	// DefaultMaxBodySize is the largest notification body a Receiver reads
	// unless WithMaxBodySize says otherwise: 1 MiB.
	DefaultMaxBodySize = 1 << 20
	// DefaultQueueEntries and DefaultQueueBytes bound what one Registration
	// holds until it is taken, unless WithQueueLimit says otherwise: 64
	// notifications, and 4 MiB of their bodies.
	DefaultQueueEntries = 64
	DefaultQueueBytes   = 4 << 20
)

// Option configures a Receiver. Bad values, and a nil Option, are refused by
// NewReceiver with an error that wraps ErrInvalidOption; no value is
// clamped. Given twice, the last one wins.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(cfg *config) { f(cfg) }

type config struct {
	maxBody      int64
	queueEntries int
	queueBytes   int64
	logger       *slog.Logger
	share        Share         // nil: registrations are not shared
	shareTTL     time.Duration // how long a shared record outlives its last refresh
	// refusals are the options refused as they were applied; validate
	// reports them.
	refusals []error
}

func defaultConfig() config {
	return config{
		maxBody:      DefaultMaxBodySize,
		queueEntries: DefaultQueueEntries,
		queueBytes:   DefaultQueueBytes,
		logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		shareTTL:     DefaultShareTTL,
	}
}

// WithMaxBodySize sets the largest notification body, in bytes, that the
// Receiver reads; a longer one is refused (413) without being read past
// the limit. It must be positive and at most the byte bound of the queue
// (WithQueueLimit), or no notification of that size could be queued. The
// default is DefaultMaxBodySize.
func WithMaxBodySize(bytes int) Option {
	return optionFunc(func(cfg *config) {
		if bytes <= 0 {
			cfg.refuse(invalidOption("WithMaxBodySize: %d bytes; it must be positive", bytes))
			return
		}
		cfg.maxBody = int64(bytes)
	})
}

// WithQueueLimit bounds what each Registration holds until
// Registration.Take takes it: at most entries notifications, whose bodies
// add up to at most bytes. A notification beyond either bound is dropped
// (the agent is still answered 2xx, so that it never waits on the
// application) and the next Take reports it lost. Both must be positive,
// and bytes at least the body limit (WithMaxBodySize, 1 MiB by default).
// The bytes are those of the bodies: the decoded events take a multiple of
// them in memory, about 10 to 15 times for bodies made of many small
// parts (a full default queue of such bodies, some 40 to 60 MiB), and only
// an agent that holds the registration's token can send them. The
// defaults are DefaultQueueEntries and DefaultQueueBytes.
func WithQueueLimit(entries, bytes int) Option {
	return optionFunc(func(cfg *config) {
		if entries <= 0 || bytes <= 0 {
			cfg.refuse(invalidOption("WithQueueLimit: %d entries, %d bytes; both must be positive", entries, bytes))
			return
		}
		cfg.queueEntries, cfg.queueBytes = entries, int64(bytes)
	})
}

// WithLogger sets the logger of the Receiver. It gets only what is safe to
// keep: a registration's ID, a body's size, the version of its shape, and
// the class of a refusal ("method", "content-type", "unauthorized",
// "too-large", "unread", "undecodable", "shape", "foreign-task") or of a drop
// ("replay", "overflow"); never a token, an Authorization value, a path
// that names no registration, or anything a body holds. With a Share, it
// also gets a notification rung through the Share (at Debug, with the
// registration's ID) and the Share's errors (at Warn). Refusals made
// before the token is checked are logged at Debug (anyone can make them),
// the others at Warn, accepted notifications at Debug. The default
// discards everything; a nil logger is refused.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(cfg *config) {
		if l == nil {
			cfg.refuse(invalidOption("WithLogger: the logger is nil"))
			return
		}
		cfg.logger = l
	})
}

// refuse notes an option refused as it was applied, for validate to report.
func (cfg *config) refuse(err error) { cfg.refusals = append(cfg.refusals, err) }

// apply applies opts in order and reports every refusal, joined.
func (cfg *config) applyAll(opts []Option) error {
	for _, o := range opts {
		if o == nil {
			cfg.refuse(invalidOption("a nil Option"))
			continue
		}
		o.apply(cfg)
	}
	if cfg.maxBody > cfg.queueBytes {
		cfg.refuse(invalidOption("WithMaxBodySize: %d bytes is more than the queue's bound of %d bytes (WithQueueLimit)", cfg.maxBody, cfg.queueBytes))
	}
	return errors.Join(cfg.refusals...)
}
