package relay

// A few readers woken at a time. When a log grows, its waiter wakes every
// reader of the log; were they all made runnable at once (a channel
// closed), ten thousand goroutines would queue for the process's few Ps,
// and so would everything else the process does meanwhile: the driver's
// Commit, ready again when Redis answers, would wait behind the whole
// fan-out, tens of milliseconds on two cores, at every wake. Instead the
// sleepers move, in order, to the Handler's queue of turns, and at most
// waiters.turns of them hold a turn at once: a reader is made runnable
// when it gets one, takes its page from the window, and passes the turn
// on before it writes (read does), so the next reader is woken while it
// writes. A reader's write never holds a turn, so a browser that stops
// reading holds no other back. Every reader still gets every entry: one
// woken late reads everything new in one page.

// turnState is where a follower is in the wakes.
type turnState uint8

const (
	turnIdle   turnState = iota // running, or gone
	turnAsleep                  // in its waiter's sleepers
	turnQueued                  // in the Handler's queue of turns
	turnHeld                    // given a turn, which read or settle passes on
)

// ticket is a follower's place in a list; it is void once the follower
// has slept again (gen) or left the state the list stands for.
type ticket struct {
	f   *follower
	gen uint64
}

func (t ticket) valid(s turnState) bool { return t.f.gen == t.gen && t.f.state == s }

// tickets are the sleepers of a waiter, some perhaps void.
type tickets struct {
	list []ticket
	live int // the valid ones
}

// turnQueue is the Handler's queue of readers woken, in order, waiting
// for a turn.
type turnQueue struct {
	list []ticket
	head int
	busy int // turns held
}

// sleep puts f, which knows of nothing new yet, to sleep on its waiter,
// passing on the turn it holds, if any. Under waiters.mu.
func (f *follower) sleep() {
	f.settle()
	f.gen++
	f.state = turnAsleep
	s := &f.w.sleepers
	if len(s.list) >= 64 && len(s.list) >= 2*s.live {
		// Readers that woke at a keep-alive left void tickets behind.
		s.list = compact(s.list, turnAsleep)
	}
	s.list = append(s.list, ticket{f: f, gen: f.gen})
	s.live++
}

// compact keeps the tickets of list still valid in state s.
func compact(list []ticket, s turnState) []ticket {
	kept := list[:0]
	for _, t := range list {
		if t.valid(s) {
			kept = append(kept, t)
		}
	}
	clear(list[len(kept):])
	return kept
}

// settle takes f out of the wakes: off its waiter's sleepers or the
// queue, or passing its turn on to the next reader queued. Under
// waiters.mu.
func (f *follower) settle() {
	switch f.state {
	case turnIdle:
		return
	case turnAsleep:
		f.w.sleepers.live--
	case turnHeld:
		f.ws.queue.busy--
		f.ws.dispatch()
	}
	f.state = turnIdle
	select {
	case <-f.woken: // a turn given as ctx ended
	default:
	}
}

// take moves the valid tickets of s to the end of q, in order, and
// empties s.
func (q *turnQueue) take(s *tickets) {
	for _, t := range s.list {
		if t.valid(turnAsleep) {
			t.f.state = turnQueued
			q.list = append(q.list, t)
		}
	}
	clear(s.list)
	s.list, s.live = s.list[:0], 0
}

// dispatch gives turns to the readers at the head of the queue while
// fewer than ws.turns are held. Under waiters.mu.
func (ws *waiters) dispatch() {
	q := &ws.queue
	for q.busy < ws.turns && q.head < len(q.list) {
		t := q.list[q.head]
		q.list[q.head] = ticket{}
		q.head++
		if !t.valid(turnQueued) {
			continue
		}
		t.f.state = turnHeld
		q.busy++
		t.f.woken <- struct{}{} // never full: settle drains it
	}
	if q.head == len(q.list) {
		q.list, q.head = q.list[:0], 0
	}
}
