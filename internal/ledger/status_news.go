package ledger

import (
	"slices"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// The sets of statuses seen (status_seen.go) tell a status seen before
// from one never seen, but not a replay of a status from the same status
// sent again: an agent that moves its message A -> B -> A within one
// instant, or says the same thing twice without a timestamp. A server
// replays only when a connection starts, and sends each event of its task
// once in a connection; so once a connection's status update was news,
// the same status later in that connection is a second one the agent
// sent, never a replay of the first. If the agent had sent it once before
// the cut too, the stream delivers it as often as the agent sent it, only
// in another order. The replay window remembers, for its connection, the
// statuses its status updates brought as news, and the replay rule asks
// it first (the row "again" of decideStatusReplay). A whole task's status
// is neither noted nor asked: a server may send a snapshot and then
// replay the statuses it shows.
//
// What this cannot tell is a status the agent sent again after a cut,
// when the connection that brings it also replays the first: the first
// is a replay, and the second is taken for one too.

// statusNews is the statuses a connection's status updates brought as
// news, by key (statusCursor.key): those at the newest instant, which a
// newer instant makes moot (a status older in time is a replay by its
// time), and those without a timestamp.
type statusNews struct {
	latestAt time.Time
	latest   []uint64
	untimed  map[uint64]struct{}
}

// note records the status st, of key k, as news.
func (n *statusNews) note(st *a2a.TaskStatus, k uint64) {
	switch ts := st.Timestamp; {
	case ts.IsZero():
		if n.untimed == nil {
			n.untimed = map[uint64]struct{}{}
		}
		n.untimed[k] = struct{}{}
	case ts.After(n.latestAt):
		n.latestAt, n.latest = ts, append(n.latest[:0], k)
	case ts.Equal(n.latestAt):
		n.latest = append(n.latest, k)
	}
}

// has reports whether the status st, of key k, was news.
func (n *statusNews) has(st *a2a.TaskStatus, k uint64) bool {
	if ts := st.Timestamp; !ts.IsZero() {
		return ts.Equal(n.latestAt) && slices.Contains(n.latest, k)
	}
	_, ok := n.untimed[k]
	return ok
}

// empty reports whether it holds no status.
func (n *statusNews) empty() bool { return len(n.latest) == 0 && len(n.untimed) == 0 }

// statusNewsHere reports whether st, a status update's, is one the replay
// window's connection brought as news before, and is not older in time
// than the newest status seen.
func (l *Ledger) statusNewsHere(st *a2a.TaskStatus) bool {
	n := &l.win.news
	return l.win.open && !n.empty() && l.statuses.when(st) != instantOlder && n.has(st, l.statuses.key(st))
}
