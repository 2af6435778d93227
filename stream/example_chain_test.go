package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// ExampleChainError: a planner agent calls a flights agent, which is busy
// (HTTP 503, Retry-After: 30). The planner answers its own caller with
// ChainError of how its call ended; the caller reads the chain back with
// a2a.ChainOf, and a caller that knows nothing of chains still sees the
// retry hint.
func ExampleChainError() {
	flights := a2atest.NewAgent(a2atest.WithFaults(
		a2atest.HTTPStatusWithHeader(http.StatusServiceUnavailable, "busy", http.Header{"Retry-After": {"30"}})))

	// The planner, a JSON-RPC agent of A2A 1.0, reduced to its error path.
	planner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		down, err := stream.NewClient("http://flights.test/", stream.WithHTTPClient(flights.Client()), stream.WithVersion(a2a.V10))
		if err == nil {
			_, err = down.Send(r.Context(), a2a.NewTextMessage(a2a.RoleUser, "seats to Lisbon?")).Wait()
		}
		answer := stream.ChainError(err, a2a.V10, "planner", "flights")
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": answer})
	})

	c, err := stream.NewClient("http://planner.test/", stream.WithHTTPClient(a2atest.NewClient(planner)), stream.WithVersion(a2a.V10))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "plan a trip")).Wait()
	fmt.Println(err)
	for _, l := range a2a.ChainOf(err) {
		fmt.Printf("%s: code %d, %q, HTTP %d, retryable %t after %v\n", l.Agent, l.Code, l.Message, l.HTTPStatus, l.Retryable, l.RetryAfter)
	}
	var rpcErr *a2a.RPCError
	if errors.As(err, &rpcErr) {
		fmt.Println("any client:", rpcErr.Retryable(), rpcErr.RetryAfter())
	}
	// Output:
	// a2a: json-rpc error -32603 (internal error): downstream agent flights failed: HTTP 503 Service Unavailable
	// planner: code -32603, "downstream agent flights failed: HTTP 503 Service Unavailable", HTTP 0, retryable true after 30s
	// flights: code 0, "HTTP 503 Service Unavailable", HTTP 503, retryable true after 30s
	// any client: true 30s
}
