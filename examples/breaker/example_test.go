package main

import (
	"context"
	"fmt"
	"os"
)

// Three agents, a quorum of two: flaky fails, with HTTP 503 and
// Retry-After: 60. The second round needs all three: flaky's second 503
// puts that out of reach at once, so the two other calls are cancelled
// (their breakers leave them out of their counts), flaky's circuit opens,
// and digest answers its caller with the chain of that failure. The third
// round skips flaky without a request.
func Example() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// round 1, 2 answers needed: quorum reached
	//   weather  circuit closed  answered: Sunny, 24°C.
	//   news     circuit closed  answered: Markets are calm.
	//   flaky    circuit closed  failed: HTTP 503 Service Unavailable
	// round 2, 3 answers needed: quorum not reached, 0 answered
	//   weather  circuit closed  cancelled: not needed
	//   news     circuit closed  cancelled: not needed
	//   flaky    circuit open    failed: HTTP 503 Service Unavailable
	//   digest answers its caller: {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"downstream agent flaky failed: HTTP 503 Service Unavailable","data":{"agent":"digest","downstreamAgent":"flaky","retryable":true,"retryAfter":60,"downstream":{"code":0,"message":"HTTP 503 Service Unavailable","data":{"agent":"flaky","httpStatus":503,"retryable":true,"retryAfter":60}}}}}
	//   the caller reads the chain:
	//     digest: code -32603, "downstream agent flaky failed: HTTP 503 Service Unavailable", retryable after 1m0s
	//     flaky: code 0, "HTTP 503 Service Unavailable", HTTP 503, retryable after 1m0s
	// round 3, 2 answers needed: quorum reached
	//   weather  circuit closed  answered: Sunny, 24°C.
	//   news     circuit closed  answered: Markets are calm.
	//   flaky    circuit open    skipped: its circuit is open
	// flaky received 2 requests in 3 rounds
}
