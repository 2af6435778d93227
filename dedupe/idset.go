package dedupe

// DefaultMaxIDs is the default capacity of the message-ID set of a Ledger.
const DefaultMaxIDs = 4096

// IDSet is a set of strings with a fixed capacity. When it is full, adding a
// new ID evicts the oldest one. An IDSet is not safe for concurrent use.
type IDSet struct {
	ring []string // grows to max, then wraps around
	max  int
	next int // the oldest ID, once ring is full
	m    map[string]struct{}
}

// NewIDSet returns an empty set that holds at most capacity IDs (at least 1).
func NewIDSet(capacity int) *IDSet {
	// The ring and the map grow with the IDs actually added, so an idle or
	// short stream does not pay for the full capacity up front.
	return &IDSet{max: max(capacity, 1), m: map[string]struct{}{}}
}

// Has reports whether id is in the set.
func (s *IDSet) Has(id string) bool {
	_, ok := s.m[id]
	return ok
}

// Add inserts id and reports whether it was new.
func (s *IDSet) Add(id string) bool {
	if _, ok := s.m[id]; ok {
		return false
	}
	s.m[id] = struct{}{}
	if len(s.ring) < s.max {
		s.ring = append(s.ring, id)
		return true
	}
	delete(s.m, s.ring[s.next])
	s.ring[s.next] = id
	s.next++
	if s.next == s.max {
		s.next = 0
	}
	return true
}

// Len returns the number of IDs held.
func (s *IDSet) Len() int { return len(s.m) }

// Cap returns the capacity.
func (s *IDSet) Cap() int { return s.max }
