package chain_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chain"
	"github.com/a2astream/a2astream/stream"
)

// ExampleError: a planner agent calls a flights agent, which is busy
// (HTTP 503, Retry-After: 30). The planner answers its own caller with
// Error of how its call ended; the caller reads the chain back with Of, and
// a caller that knows nothing of chains still sees the retry hint.
func ExampleError() {
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
		answer := chain.Error(err, a2a.V10, "planner", "flights")
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
	for _, l := range chain.Of(err) {
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

// ExampleEncode: the planner agent called the flights agent, which
// answered a retryable error. The planner writes its own link in front of
// what the flights agent answered, and the caller reads the chain back with
// Of.
func ExampleEncode() {
	fromFlights := &a2a.RPCError{Code: a2a.CodeInternalError, Message: "model overloaded",
		Data: json.RawMessage(`{"retryable":true,"retryAfter":5}`)}

	// In the planner: its own link, then what the flights agent answered.
	down := chain.Of(fromFlights)
	down[0].Agent = "flights"
	own := chain.Link{
		Agent: "planner", Code: a2a.CodeInternalError,
		Message:   "downstream agent flights failed: " + down[0].Message,
		Retryable: down[0].Retryable, RetryAfter: down[0].RetryAfter,
	}
	answer := chain.Encode(a2a.V03, append([]chain.Link{own}, down...))
	fmt.Printf("%d %s\n%s\n", answer.Code, answer.Message, answer.Data)

	// In the caller, which may know nothing of chains: the retry hint.
	fmt.Println("retry:", answer.Retryable(), answer.RetryAfter())
	// And one that does.
	for _, l := range chain.Of(fmt.Errorf("booking: %w", answer)) {
		fmt.Printf("%s: %d %q retryable=%t after %v\n", l.Agent, l.Code, l.Message, l.Retryable, l.RetryAfter)
	}
	// Output:
	// -32603 downstream agent flights failed: model overloaded
	// {"agent":"planner","downstreamAgent":"flights","retryable":true,"retryAfter":5,"downstream":{"code":-32603,"message":"model overloaded","data":{"agent":"flights","retryable":true,"retryAfter":5}}}
	// retry: true 5s
	// planner: -32603 "downstream agent flights failed: model overloaded" retryable=true after 5s
	// flights: -32603 "model overloaded" retryable=true after 5s
}

// ExampleOf reads a chain in A2A 1.0's shape, where each link is a
// google.rpc.ErrorInfo of its own, and a plain error, which is one link
// without an agent.
func ExampleOf() {
	answer := chain.Encode(a2a.V10, []chain.Link{
		{Agent: "concierge", Code: a2a.CodeInternalError, Message: "downstream agent planner failed"},
		{Agent: "planner", Code: a2a.CodeInternalError, Message: "downstream agent flights failed"},
		{Agent: "flights", Message: "task t-9 ended in state failed: no seats", TaskID: "t-9", State: a2a.StateFailed},
	})
	for _, l := range chain.Of(answer) {
		fmt.Printf("%s: code %d, %q", l.Agent, l.Code, l.Message)
		if l.TaskID != "" {
			fmt.Printf(", task %s %s", l.TaskID, l.State)
		}
		fmt.Println()
	}
	plain := &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "task not found",
		Data: json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]`)}
	fmt.Printf("%+v\n", chain.Of(plain))
	// Output:
	// concierge: code -32603, "downstream agent planner failed"
	// planner: code -32603, "downstream agent flights failed"
	// flights: code 0, "task t-9 ended in state failed: no seats", task t-9 failed
	// [{Agent: Code:-32001 Message:task not found Reason:TASK_NOT_FOUND HTTPStatus:0 TaskID: State: Retryable:false RetryAfter:0s TraceID:}]
}
