package a2a_test

import (
	"encoding/json"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
)

// ExampleChainError: the planner agent called the flights agent, which
// answered a retryable error. The planner answers its own caller with an
// error whose data names both agents, and the caller reads the chain back
// with ChainOf.
func ExampleChainError() {
	fromFlights := &a2a.RPCError{Code: a2a.CodeInternalError, Message: "model overloaded",
		Data: json.RawMessage(`{"retryable":true,"retryAfter":5}`)}

	// In the planner: its own link, then what the flights agent answered.
	down := a2a.ChainOf(fromFlights)
	down[0].Agent = "flights"
	own := a2a.ChainLink{
		Agent: "planner", Code: a2a.CodeInternalError,
		Message:   "downstream agent flights failed: " + down[0].Message,
		Retryable: down[0].Retryable, RetryAfter: down[0].RetryAfter,
	}
	answer := a2a.ChainError(a2a.V03, append([]a2a.ChainLink{own}, down...))
	fmt.Printf("%d %s\n%s\n", answer.Code, answer.Message, answer.Data)

	// In the caller, which may know nothing of chains: the retry hint.
	fmt.Println("retry:", answer.Retryable(), answer.RetryAfter())
	// And one that does.
	for _, l := range a2a.ChainOf(fmt.Errorf("booking: %w", answer)) {
		fmt.Printf("%s: %d %q retryable=%t after %v\n", l.Agent, l.Code, l.Message, l.Retryable, l.RetryAfter)
	}
	// Output:
	// -32603 downstream agent flights failed: model overloaded
	// {"agent":"planner","downstreamAgent":"flights","retryable":true,"retryAfter":5,"downstream":{"code":-32603,"message":"model overloaded","data":{"agent":"flights","retryable":true,"retryAfter":5}}}
	// retry: true 5s
	// planner: -32603 "downstream agent flights failed: model overloaded" retryable=true after 5s
	// flights: -32603 "model overloaded" retryable=true after 5s
}

// ExampleChainOf reads a chain in A2A 1.0's shape, where each link is a
// google.rpc.ErrorInfo of its own, and a plain error, which is one link
// without an agent.
func ExampleChainOf() {
	chain := a2a.ChainError(a2a.V10, []a2a.ChainLink{
		{Agent: "concierge", Code: a2a.CodeInternalError, Message: "downstream agent planner failed"},
		{Agent: "planner", Code: a2a.CodeInternalError, Message: "downstream agent flights failed"},
		{Agent: "flights", Message: "task t-9 ended in state failed: no seats", TaskID: "t-9", State: a2a.StateFailed},
	})
	for _, l := range a2a.ChainOf(chain) {
		fmt.Printf("%s: code %d, %q", l.Agent, l.Code, l.Message)
		if l.TaskID != "" {
			fmt.Printf(", task %s %s", l.TaskID, l.State)
		}
		fmt.Println()
	}
	plain := &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "task not found",
		Data: json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]`)}
	fmt.Printf("%+v\n", a2a.ChainOf(plain))
	// Output:
	// concierge: code -32603, "downstream agent planner failed"
	// planner: code -32603, "downstream agent flights failed"
	// flights: code 0, "task t-9 ended in state failed: no seats", task t-9 failed
	// [{Agent: Code:-32001 Message:task not found Reason:TASK_NOT_FOUND HTTPStatus:0 TaskID: State: Retryable:false RetryAfter:0s}]
}
