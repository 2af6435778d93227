package chain_test

// Link.TraceID: written and read back in both versions, given by
// ErrorInTrace, and dropped when it is not a W3C trace ID.

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chain"
)

const (
	traceA = "4bf92f3577b34da6a3ce929d0e0e4736"
	traceB = "0af7651916cd43dd8448eb211c80319c"
)

// A link's trace ID goes through Encode and Of in both versions, at every
// depth.
func TestTraceIDRoundTrips(t *testing.T) {
	t.Parallel()
	links := []chain.Link{
		{Agent: "a", Code: a2a.CodeInternalError, Message: "downstream agent b failed", TraceID: traceA},
		{Agent: "b", Code: a2a.CodeInternalError, Message: "downstream agent c failed", TraceID: traceA},
		{Agent: "c", Message: "task t ended in state failed", TaskID: "t", State: a2a.StateFailed, TraceID: traceB},
	}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(v), func(t *testing.T) {
			e := chain.Encode(v, links)
			require.Contains(t, string(e.Data), `"traceId":"`+traceA+`"`)
			require.Equal(t, links, chain.Of(e))
		})
	}
}

// A trace ID of any other form than 32 lowercase hexadecimal digits, or
// all zeros, is dropped: where it is written, and where it is read from a
// peer's answer.
func TestTraceIDOfAnotherFormIsDropped(t *testing.T) {
	t.Parallel()
	bad := []string{
		"4BF92F3577B34DA6A3CE929D0E0E4736",  // upper case
		"4bf92f3577b34da6a3ce929d0e0e473",   // 31 digits
		"4bf92f3577b34da6a3ce929d0e0e47360", // 33
		"00000000000000000000000000000000",  // all zeros: invalid in W3C trace context
		"4bf92f3577b34da6-3ce929d0e0e4736",
		"Bearer sk-live-0123456789abcdef0",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // a whole traceparent
	}
	for _, id := range bad {
		require.Empty(t, chain.Link{TraceID: id}.Bounded().TraceID, id)
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			e := chain.Encode(v, []chain.Link{{Agent: "a", TraceID: id}, {Agent: "b", TraceID: id}})
			require.NotContains(t, string(e.Data), "traceId", "%s %s", v, id)
		}
		// A peer that wrote it anyway, in either version.
		quoted, err := json.Marshal(id)
		require.NoError(t, err)
		e03 := &a2a.RPCError{Code: a2a.CodeInternalError, Message: "m",
			Data: json.RawMessage(`{"agent":"b","traceId":` + string(quoted) + `,"downstreamAgent":"c","downstream":{"code":0,"message":"x","data":{"agent":"c","traceId":` + string(quoted) + `}}}`)}
		e10 := &a2a.RPCError{Code: a2a.CodeInternalError, Message: "m", Data: json.RawMessage(
			`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"DOWNSTREAM_AGENT_ERROR","domain":"github.com/a2astream/a2astream","metadata":{"agent":"b","traceId":` + string(quoted) + `}}]`)}
		for _, e := range []*a2a.RPCError{e03, e10} {
			links := chain.Of(e)
			require.NotEmpty(t, links)
			for _, l := range links {
				require.Equal(t, "b", links[0].Agent)
				require.Empty(t, l.TraceID, id)
			}
		}
	}
}

// ErrorInTrace puts the trace ID in this agent's link and in the
// downstream agent's when that agent's answer gave none; a trace ID the
// downstream agent's chain gave is kept. A bad one is left out.
func TestErrorInTrace(t *testing.T) {
	t.Parallel()
	plain := &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "task not found"}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		links := chain.Of(chain.ErrorInTrace(plain, v, "b", "c", traceA))
		require.Len(t, links, 2)
		require.Equal(t, []string{traceA, traceA}, []string{links[0].TraceID, links[1].TraceID}, v)

		// c answered a chain of its own, in another trace (it did not
		// continue b's): its ID stays.
		fromC := chain.Encode(v, []chain.Link{{Agent: "c", Message: "downstream agent d failed", TraceID: traceB}, {Agent: "d", Message: "x"}})
		links = chain.Of(chain.ErrorInTrace(fromC, v, "b", "c", traceA))
		require.Len(t, links, 3)
		require.Equal(t, []string{traceA, traceB, ""}, []string{links[0].TraceID, links[1].TraceID, links[2].TraceID}, v)

		for _, id := range []string{"", "00000000000000000000000000000000", "not-a-trace-id"} {
			e := chain.ErrorInTrace(plain, v, "b", "c", id)
			require.NotContains(t, string(e.Data), "traceId")
			require.Equal(t, chain.Error(plain, v, "b", "c"), e, "ErrorInTrace without a trace ID is Error")
		}
	}
}
