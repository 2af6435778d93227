package dedupe

// DefaultMaxIDs is the default capacity of the message-ID set of a Ledger.
const DefaultMaxIDs = 4096

// IDSet is a set of strings with a fixed capacity. When it is full, adding a
// new ID evicts the oldest one. An IDSet is not safe for concurrent use.
type IDSet struct {
	ring []string
	next int
	full bool
	m    map[string]struct{}
}

// NewIDSet returns an empty set that holds at most capacity IDs (at least 1).
func NewIDSet(capacity int) *IDSet {
	capacity = max(capacity, 1)
	return &IDSet{ring: make([]string, capacity), m: make(map[string]struct{}, min(capacity, 256))}
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
	if s.full {
		delete(s.m, s.ring[s.next])
	}
	s.ring[s.next] = id
	s.m[id] = struct{}{}
	s.next++
	if s.next == len(s.ring) {
		s.next, s.full = 0, true
	}
	return true
}

// Len returns the number of IDs held.
func (s *IDSet) Len() int { return len(s.m) }

// Cap returns the capacity.
func (s *IDSet) Cap() int { return len(s.ring) }
