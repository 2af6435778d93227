package chain_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chain"
)

// FuzzChainOf reads a chain out of any error data: no panic, at most
// MaxLinks links, each bounded, and what was read writes, in either
// version, at most MaxData bytes of data that read back as the same
// links (after the first writing, which applies the bounds).
func FuzzChainOf(f *testing.F) {
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		e := chain.Encode(v, []chain.Link{
			{Agent: "planner", Code: a2a.CodeInternalError, Message: "downstream agent flights failed", Retryable: true, RetryAfter: 5 * time.Second},
			{Agent: "flights", Code: a2a.CodeTaskNotFound, Message: "task not found", Reason: "TASK_NOT_FOUND", HTTPStatus: 404, TaskID: "t-1", State: a2a.StateFailed},
		})
		f.Add(int32(e.Code), []byte(e.Data))
	}
	for _, s := range []string{
		`{"agent":"a","downstream":{"code":-1,"message":"m","data":{"agent":"b","downstream":{"code":-2}}}}`,
		`{"agent":5,"downstream":"x"}`, `{"retryable":true,"retryAfter":5}`,
		`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"DOWNSTREAM_AGENT_ERROR","domain":"github.com/a2astream/a2astream","metadata":{"agent":"https://u:p@h/?t=1","code":"x","state":"TASK_STATE_FAILED"}}]`,
		`[null,1,{"reason":7}]`, `null`,
		// Retry hints past every bound (as package a2a's FuzzRetryHint
		// seeds them): each link's delay is still within MaxRetryHint.
		`{"retryable":true,"retryAfter":5}`, `{"retryAfter":"1e9"}`, `{"retryable":false}`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]`,
		`[{"@type":"x/google.rpc.RetryInfo","retryDelay":{"seconds":"3","nanos":999999999}}]`,
		`{"retryable":true,"retryAfter":18446744074}`, `[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"9223372037s"}]`,
		`{"agent":"a","retryable":true,"retryAfter":9223372037,"downstream":{"code":-32603,"message":"m","data":{"agent":"b","retryable":true,"retryAfter":18446744074}}}`,
	} {
		f.Add(int32(a2a.CodeInternalError), []byte(s))
	}
	f.Fuzz(func(t *testing.T, code int32, data []byte) {
		e := &a2a.RPCError{Code: int(code), Message: "m", Data: data}
		links := chain.Of(e)
		if len(links) < 1 || len(links) > chain.MaxLinks {
			t.Fatalf("data %q: %d links", data, len(links))
		}
		for _, l := range links {
			if len(l.Agent) > 64+len("…") || len(l.Message) > 256+len("…") || len(l.Reason) > 64+len("…") || len(l.TaskID) > 256 {
				t.Fatalf("data %q: link out of bounds: %+v", data, l)
			}
			if l.RetryAfter < 0 || l.RetryAfter > a2a.MaxRetryHint || !l.Retryable && l.RetryAfter != 0 {
				t.Fatalf("data %q: delay %v (retryable %v)", data, l.RetryAfter, l.Retryable)
			}
		}
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			written := chain.Encode(v, links)
			if len(written.Data) > chain.MaxData || !json.Valid(written.Data) {
				t.Fatalf("data %q: %s writes %d bytes: %s", data, v, len(written.Data), written.Data)
			}
			again := chain.Of(written)
			if links[0].Code != 0 && len(again) == len(links) && !reflect.DeepEqual(again, links) {
				t.Fatalf("data %q: %s chain changed in writing:\nread    %+v\nwritten %+v", data, v, links, again)
			}
			if !reflect.DeepEqual(chain.Of(chain.Encode(v, again)), again) {
				t.Fatalf("data %q: %s chain not stable:\nonce  %+v\ntwice %+v", data, v, again, chain.Of(chain.Encode(v, again)))
			}
		}
	})
}
