package stream

import (
	"context"
	"time"

	"github.com/a2astream/a2astream/internal/clip"
)

// WithSleep replaces the function a stream waits with (backoff, polls), for
// tests that record the waits. The runtime's clock is injectable this way
// only in tests; synctest bubbles make the real timer fast.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return option{"WithSleep", streams, func(cfg *config) { cfg.sleep = sleep }}
}

// Sleep is the stream's own sleep function, for tests that wrap it.
var Sleep = sleep

// TaskError is the error that attaches the last known task to an ending
// that carries none, for tests that check it is there.
type TaskError = taskError

// The defaults and limits of the runtime, which its docs give in words,
// for tests that check them.
const (
	DefaultPollInterval   = defaultPollInterval
	DefaultStallTimeout   = defaultStallTimeout
	DefaultConnectTimeout = defaultConnectTimeout
	DefaultMaxEventSize   = defaultMaxEventSize
	MaxCredentialsCalls   = maxCredentialsCalls
	MaxEndingLine         = clip.EndingLine
)

// PollsRepeated returns how many of s's polls found the task of the poll
// before, byte for byte, and were neither decoded nor folded.
func PollsRepeated(s *Stream) int { return s.lastPoll.repeats }

// SameHostPort is sameHostPort: whether a gRPC target is on base's host
// and port, to which alone Resolve's headers go.
var SameHostPort = sameHostPort

// WithPushConfig is withPushConfig: the push config a stream's send carries
// in its configuration, for tests until the public WithPush comes.
var WithPushConfig = withPushConfig

// LegReadsUnderStreamContext reports whether s's open leg reads under the
// stream's own context rather than one made for the leg.
func LegReadsUnderStreamContext(s *Stream) bool { return s.leg.ctx == s.ctx }
