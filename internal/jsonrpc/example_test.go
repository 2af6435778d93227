package jsonrpc_test

import (
	"errors"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/jsonrpc"
)

// ExampleStreamDecoder decodes the SSE data of one A2A 1.0 stream over
// JSON-RPC: each event is a whole JSON-RPC response. An error response
// carries an *a2a.RPCError, and data that is no response at all is an error
// wrapping ErrNotAResponse.
func ExampleStreamDecoder() {
	dec := jsonrpc.NewStreamDecoder(a2a.V10)
	events := []string{
		`{"jsonrpc":"2.0","id":7,"result":{"task":{"id":"trip-7","contextId":"ctx-7","status":{"state":"TASK_STATE_WORKING"}}}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"artifactUpdate":{"taskId":"trip-7","contextId":"ctx-7",` +
			`"artifact":{"artifactId":"itinerary","parts":[{"text":"Day 1: Alfama."}]}}}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"ping":{}}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"Task trip-7 was purged"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`: keep-alive`,
	}
	for _, data := range events {
		r, ev, err := dec.Decode([]byte(data))
		switch {
		case errors.Is(err, jsonrpc.ErrNotAResponse):
			fmt.Println("not a response")
		case errors.Is(err, a2a.ErrUnknownResult):
			fmt.Println("unknown result, skipped")
		case err != nil:
			fmt.Println(err)
		case r.Error != nil:
			fmt.Printf("id %s: error %d, task not found: %t, parse error: %t\n", r.ID, r.Error.Code,
				r.Error.Code == a2a.CodeTaskNotFound, r.Error.Code == a2a.CodeParseError)
		default:
			fmt.Printf("id %s: %T\n", r.ID, ev)
		}
	}
	// Output:
	// id 7: *a2a.Task
	// id 7: *a2a.ArtifactUpdate
	// unknown result, skipped
	// id 7: error -32001, task not found: true, parse error: false
	// id null: error -32700, task not found: false, parse error: true
	// not a response
}
