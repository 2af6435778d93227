package redisrelay

import (
	"errors"
	"fmt"

	"github.com/a2astream/a2astream/relay"
)

// ErrLost says that Redis no longer holds the log a [relay.Log] was opened
// on: its epoch key is gone (FLUSHALL, a restart without persistence, an
// eviction) or belongs to a log made afresh since. Every call of that Log
// fails with it from then on; nothing is renumbered under the old epoch. A
// new Open of the key gets a new, empty log with a new epoch, so event IDs
// of the lost one are recognised as foreign.
//
// A fenced write (Commit, SaveSnapshot, Renew, Release)
// that fails with ErrLost matches [relay.ErrStale] too, and a Read matches
// [relay.ErrGone], so code that knows only package relay stops driving or
// sends the reader away, as it must.
var ErrLost = errors.New("redisrelay: the log's data is lost from Redis")

// The replies of the scripts: the first element of each is one of these.
const (
	codeOK        = 0
	codeLost      = 1
	codeStale     = 2
	codeDuplicate = 3
	codeGap       = 4
	codeGone      = 5
	codeHeld      = 6
)

// errFromCode maps a script's code to its error; also is the relay error
// that a lost log matches in the calling method (nil for none).
func errFromCode(code int64, also error) error {
	switch code {
	case codeOK:
		return nil
	case codeLost:
		if also != nil {
			return fmt.Errorf("%w: %w", ErrLost, also)
		}
		return ErrLost
	case codeStale:
		return relay.ErrStale
	case codeDuplicate:
		return relay.ErrDuplicate
	case codeGap:
		return relay.ErrGap
	case codeGone:
		return relay.ErrGone
	case codeHeld:
		return relay.ErrHeld
	}
	return fmt.Errorf("redisrelay: a script answered with the unknown code %d", code)
}
