package relay

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/a2astream/a2astream/internal/clip"
)

// ErrBadID is the cause of ParseID's error for text that is not an event
// ID. Match it with errors.Is.
var ErrBadID = errors.New("relay: not an event ID")

// ID is the ID of one SSE event of a relayed stream: the epoch of its log
// and the Seq of its entry. Its text, the SSE "id:" field, is
// "<epoch>-<seq>"; the browser sends it back as Last-Event-ID.
type ID struct {
	Epoch string // the log's epoch (Log.Epoch); never empty in a valid ID
	Seq   uint64 // the entry's Seq; 0 before the first entry
}

// String returns "<epoch>-<seq>", as ParseID reads it.
func (id ID) String() string {
	return id.Epoch + "-" + strconv.FormatUint(id.Seq, 10)
}

// ParseID reads an ID written by String. The epoch is everything before the
// last '-' (it may contain dashes itself) and must not be empty; the seq is
// a decimal number without sign. Any other text fails with an error that
// wraps ErrBadID.
func ParseID(s string) (ID, error) {
	i := strings.LastIndexByte(s, '-')
	if i <= 0 || i == len(s)-1 {
		return ID{}, fmt.Errorf("%w: %q", ErrBadID, clip.Text(s, clip.Field))
	}
	digits := s[i+1:]
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return ID{}, fmt.Errorf("%w: %q", ErrBadID, clip.Text(s, clip.Field))
		}
	}
	seq, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return ID{}, fmt.Errorf("%w: %q", ErrBadID, clip.Text(s, clip.Field))
	}
	return ID{Epoch: s[:i], Seq: seq}, nil
}
