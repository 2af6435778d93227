package main

import (
	"context"
	"fmt"
	"os"
)

// Three agents, a quorum of two: flaky fails twice, its circuit opens, and
// the third round skips it without a request. The last round needs all
// three: out of reach at once, so the two other calls are cancelled, which
// their breakers leave out of their counts.
func Example() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// round 1, 2 answers needed: quorum reached
	//   weather  circuit closed  answered: Sunny, 24°C.
	//   news     circuit closed  answered: Markets are calm.
	//   flaky    circuit closed  failed: HTTP 503 Service Unavailable
	// round 2, 2 answers needed: quorum reached
	//   weather  circuit closed  answered: Sunny, 24°C.
	//   news     circuit closed  answered: Markets are calm.
	//   flaky    circuit open    failed: HTTP 503 Service Unavailable
	// round 3, 2 answers needed: quorum reached
	//   weather  circuit closed  answered: Sunny, 24°C.
	//   news     circuit closed  answered: Markets are calm.
	//   flaky    circuit open    skipped: its circuit is open
	// round 4, 3 answers needed: quorum not reached, 0 answered (an open circuit among the causes)
	//   weather  circuit closed  cancelled: not needed
	//   news     circuit closed  cancelled: not needed
	//   flaky    circuit open    skipped: its circuit is open
	// flaky received 2 requests in 4 rounds
}
