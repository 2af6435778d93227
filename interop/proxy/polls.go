package proxy

import (
	"math/rand/v2"
	"strconv"
	"sync"
)

// DropAction says what happens to one poll (a get-task request; see Poll).
type DropAction int

const (
	// Keep forwards the poll and its response untouched.
	Keep DropAction = iota
	// ResetRequest resets both sockets as soon as the request has been read:
	// the server never sees it and the client gets no response.
	ResetRequest
	// ResetResponse forwards the request, then forwards the response head
	// and Drop.AfterBytes bytes of its body (at most all but the last byte)
	// and resets both sockets: the server did the work, the client lost it.
	ResetResponse
)

// Drop is what happens to one poll.
type Drop struct {
	Action     DropAction
	AfterBytes int // ResetResponse: body bytes forwarded before the reset
}

// String reads like "keep", "reset-request" or "reset-response+40".
func (d Drop) String() string {
	switch d.Action {
	case Keep:
		return "keep"
	case ResetRequest:
		return "reset-request"
	case ResetResponse:
		return "reset-response+" + strconv.Itoa(d.AfterBytes)
	}
	return "drop(" + strconv.Itoa(int(d.Action)) + ")"
}

// DropPolls sets the policy that decides the fate of each poll: policy(n)
// is called for the n-th poll (from 0) through this proxy, in the order the
// requests arrive. A nil policy keeps every poll, as does a new Proxy.
func (p *Proxy) DropPolls(policy func(n int) Drop) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pollPolicy = policy
}

// RandomDrops returns a reproducible poll policy: the first poll is
// dropped for sure (so that every run that polls drops one), then each
// poll with probability rate, but never more than maxRun in a row. A drop is a ResetRequest, a ResetResponse right after
// the head, or a ResetResponse some bytes into the body, in equal shares.
// The same seed gives the same decisions for the same sequence of polls.
func RandomDrops(seed uint64, rate float64, maxRun int) func(n int) Drop {
	var (
		mu   sync.Mutex
		rng  = rand.New(rand.NewPCG(seed, 0x5eed))
		run  int
		memo []Drop
	)
	return func(n int) Drop {
		mu.Lock()
		defer mu.Unlock()
		for len(memo) <= n {
			i := len(memo)
			drop := i == 0 || rng.Float64() < rate
			if drop && run >= maxRun {
				drop = false
			}
			d := Drop{}
			if drop {
				run++
				switch rng.IntN(3) {
				case 0:
					d = Drop{Action: ResetRequest}
				case 1:
					d = Drop{Action: ResetResponse}
				default:
					d = Drop{Action: ResetResponse, AfterBytes: 1 + rng.IntN(200)}
				}
			} else {
				run = 0
			}
			memo = append(memo, d)
		}
		return memo[n]
	}
}
