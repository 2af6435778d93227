package a2a_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// planner and flights are the two links of the chain the tests write: the
// planner agent failed because its downstream agent, flights, answered a
// retryable error with HTTP 503.
var (
	planner = a2a.ChainLink{
		Agent: "planner", Code: a2a.CodeInternalError,
		Message:   "downstream agent flights failed: model overloaded",
		Retryable: true, RetryAfter: 5 * time.Second,
	}
	flights = a2a.ChainLink{
		Agent: "flights", Code: a2a.CodeInternalError, Message: "model overloaded",
		HTTPStatus: 503, Retryable: true, RetryAfter: 5 * time.Second,
	}
)

// wireRoundTrip sends e as a JSON-RPC error response and reads it back, as
// the caller receives it.
func wireRoundTrip(t *testing.T, e *a2a.RPCError) *a2a.RPCError {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "error": e})
	require.NoError(t, err)
	var resp struct {
		Error *a2a.RPCError `json:"error"`
	}
	require.NoError(t, json.Unmarshal(raw, &resp))
	require.NotNil(t, resp.Error)
	return resp.Error
}

func TestChainErrorWritesEachVersionsShape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    a2a.Version
		data string
	}{
		{a2a.V03, `{"agent":"planner","downstreamAgent":"flights","retryable":true,"retryAfter":5,` +
			`"downstream":{"code":-32603,"message":"model overloaded",` +
			`"data":{"agent":"flights","httpStatus":503,"retryable":true,"retryAfter":5}}}`},
		{a2a.V10, `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org"},` +
			`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"5s"},` +
			`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"DOWNSTREAM_AGENT_ERROR","domain":"github.com/a2astream/a2astream",` +
			`"metadata":{"agent":"planner","downstreamAgent":"flights","retryAfter":"5s","retryable":"true"}},` +
			`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"DOWNSTREAM_AGENT_ERROR","domain":"github.com/a2astream/a2astream",` +
			`"metadata":{"agent":"flights","code":"-32603","httpStatus":"503","message":"model overloaded","retryAfter":"5s","retryable":"true"}}]`},
	} {
		t.Run(string(tc.v), func(t *testing.T) {
			t.Parallel()
			e := a2a.ChainError(tc.v, []a2a.ChainLink{planner, flights})
			require.NotNil(t, e)
			require.Equal(t, a2a.CodeInternalError, e.Code)
			require.Equal(t, planner.Message, e.Message)
			require.JSONEq(t, tc.data, string(e.Data))
			// Generic clients read the retry hint of each version.
			require.True(t, e.Retryable())
			require.Equal(t, 5*time.Second, e.RetryAfter())
			if tc.v == a2a.V10 {
				require.Equal(t, "INTERNAL_ERROR", e.Reason(), "the A2A ErrorInfo comes first")
			}
		})
	}
}

func TestChainOfReadsWhatChainErrorWrote(t *testing.T) {
	t.Parallel()
	deep := []a2a.ChainLink{
		{Agent: "concierge", Code: a2a.CodeInternalError, Message: "downstream agent planner failed", Reason: "UPSTREAM", TaskID: "t-a", State: a2a.StateWorking},
		{Agent: "planner", Code: a2a.CodeInternalError, Message: "downstream agent flights failed", TaskID: "t-b"},
		{Agent: "flights", Code: 0, Message: "task t-c ended in state failed: no seats", TaskID: "t-c", State: a2a.StateFailed},
	}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		unnamed := []a2a.ChainLink{{Code: a2a.CodeTaskNotFound, Message: "gone", Reason: "TASK_NOT_FOUND", TaskID: "t-d"}}
		for _, links := range [][]a2a.ChainLink{{planner, flights}, deep, {planner}, unnamed} {
			t.Run(fmt.Sprintf("%s/%d links", v, len(links)), func(t *testing.T) {
				t.Parallel()
				got := wireRoundTrip(t, a2a.ChainError(v, links))
				require.Equal(t, links, a2a.ChainOf(fmt.Errorf("calling %s: %w", links[0].Agent, got)))
			})
		}
	}
}

func TestChainOfReadsItThroughHTTPJSONBodies(t *testing.T) {
	t.Parallel()
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			status, _, body := a2a.MarshalHTTPError(v, a2a.ChainError(v, []a2a.ChainLink{planner, flights}))
			require.Equal(t, 500, status)
			got, ok := a2a.ParseHTTPError(status, body)
			require.True(t, ok, "an A2A error: %s", body)
			require.Equal(t, a2a.CodeInternalError, got.Code)
			require.Equal(t, []a2a.ChainLink{planner, flights}, a2a.ChainOf(got))
		})
	}
}

// TestChainOfThreeAgentsDeep: the flights agent fails with a retryable
// error whose data holds more than the chain keeps; the planner agent
// builds its own error from it with ChainOf and ChainError; the concierge
// reads both links back. The hops may speak different versions.
func TestChainOfThreeAgentsDeep(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-0123456789"
	fromFlights := map[a2a.Version]*a2a.RPCError{
		a2a.V03: {Code: a2a.CodeInternalError, Message: "model overloaded",
			Data: json.RawMessage(`{"retryable":true,"retryAfter":5,"request":{"headers":{"Authorization":"Bearer ` + secret + `"}}}`)},
		a2a.V10: {Code: a2a.CodeInternalError, Message: "model overloaded",
			Data: json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org","metadata":{"token":"` + secret + `"}},` +
				`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"5s"},{"@type":"type.googleapis.com/google.rpc.DebugInfo","detail":"` + secret + `"}]`)},
	}
	for _, down := range []a2a.Version{a2a.V03, a2a.V10} {
		for _, up := range []a2a.Version{a2a.V03, a2a.V10} {
			t.Run(string(down)+"→"+string(up), func(t *testing.T) {
				t.Parallel()
				received := wireRoundTrip(t, fromFlights[down])
				links := a2a.ChainOf(received)
				require.Len(t, links, 1, "a plain error is one link")
				links[0].Agent = "flights"
				own := a2a.ChainLink{Agent: "planner", Code: a2a.CodeInternalError,
					Message:   "downstream agent flights failed: " + links[0].Message,
					Retryable: links[0].Retryable, RetryAfter: links[0].RetryAfter}
				answered := a2a.ChainError(up, append([]a2a.ChainLink{own}, links...))

				raw, err := json.Marshal(answered)
				require.NoError(t, err)
				require.NotContains(t, string(raw), secret)

				got := a2a.ChainOf(wireRoundTrip(t, answered))
				reason := ""
				if down == a2a.V10 {
					reason = "INTERNAL_ERROR"
				}
				require.Equal(t, []a2a.ChainLink{
					{Agent: "planner", Code: a2a.CodeInternalError, Message: "downstream agent flights failed: model overloaded", Retryable: true, RetryAfter: 5 * time.Second},
					{Agent: "flights", Code: a2a.CodeInternalError, Message: "model overloaded", Reason: reason, Retryable: true, RetryAfter: 5 * time.Second},
				}, got)
			})
		}
	}
}

// TestChainOfOneMoreHop: an agent whose downstream answered a chain puts
// its own link in front of the whole chain.
func TestChainOfOneMoreHop(t *testing.T) {
	t.Parallel()
	for _, down := range []a2a.Version{a2a.V03, a2a.V10} {
		for _, up := range []a2a.Version{a2a.V03, a2a.V10} {
			t.Run(string(down)+"→"+string(up), func(t *testing.T) {
				t.Parallel()
				fromPlanner := wireRoundTrip(t, a2a.ChainError(down, []a2a.ChainLink{planner, flights}))
				links := a2a.ChainOf(fromPlanner)
				links[0].Agent = "planner-eu" // the name the concierge gives it
				own := a2a.ChainLink{Agent: "concierge", Code: a2a.CodeInternalError, Message: "downstream agent planner-eu failed", Retryable: true, RetryAfter: 5 * time.Second}
				got := a2a.ChainOf(wireRoundTrip(t, a2a.ChainError(up, append([]a2a.ChainLink{own}, links...))))
				renamed := planner
				renamed.Agent = "planner-eu"
				require.Equal(t, []a2a.ChainLink{own, renamed, flights}, got)
			})
		}
	}
}

func TestChainOfAPlainErrorIsOneLink(t *testing.T) {
	t.Parallel()
	// read returns the error of a captured answer: its last line, a
	// JSON-RPC error response, bare or as an SSE "data:" line.
	read := func(name string) *a2a.RPCError {
		raw, err := os.ReadFile(filepath.Join("testdata", "captures", name))
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		last := strings.TrimPrefix(lines[len(lines)-1], "data: ")
		var resp struct {
			Error *a2a.RPCError `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(last), &resp), "%s", last)
		require.NotNil(t, resp.Error)
		return resp.Error
	}
	for _, tc := range []struct {
		name string
		err  error
		want []a2a.ChainLink
	}{
		{"nil", nil, nil},
		{"not an RPC error", errors.New("connection refused"), nil},
		{"@a2a-js/sdk 1.3.0, 1.0 ErrorInfo", read("js-1.3.0-subscribe-unknown.txt"), []a2a.ChainLink{{
			Code: a2a.CodeTaskNotFound, Reason: "TASK_NOT_FOUND",
			Message: "Task not found: 00000000-0000-0000-0000-000000000000",
		}}},
		{"a2a-go, 0.3 data object", read("a2a-go-resubscribe-unknown.txt"), []a2a.ChainLink{{
			Code: a2a.CodeTaskNotFound, Message: "task not found",
		}}},
		{"@a2a-js/sdk 0.3.14, no data", read("js-0.3.14-resubscribe-unknown.txt"), []a2a.ChainLink{{
			Code: a2a.CodeTaskNotFound, Message: "Task not found: 00000000-0000-0000-0000-000000000000",
		}}},
		{"0.3 retry hint", &a2a.RPCError{Code: a2a.CodeInternalError, Message: "busy", Data: json.RawMessage(`{"retryable":true,"retryAfter":0.2}`)},
			[]a2a.ChainLink{{Code: a2a.CodeInternalError, Message: "busy", Retryable: true, RetryAfter: time.Second}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, a2a.ChainOf(tc.err))
		})
	}
}

func TestChainErrorBoundsWhatItCopies(t *testing.T) {
	t.Parallel()
	const secret = "tok-9f8e7d"
	long := strings.Repeat("é", 300) // 600 bytes
	links := []a2a.ChainLink{
		{Agent: "planner", Code: a2a.CodeInternalError, Message: long},
		{Agent: "https://bot:" + secret + "@flights.example:8443/a2a/v1?token=" + secret + "#" + secret, Message: long,
			TaskID: strings.Repeat("t", 300), Reason: strings.Repeat("R", 100), State: a2a.TaskState(strings.Repeat("s", 100))},
	}
	for i := 0; i < 10; i++ {
		links = append(links, a2a.ChainLink{Agent: fmt.Sprintf("hop-%d", i), Message: strings.Repeat("\x01\"", 200)})
	}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			e := a2a.ChainError(v, links)
			require.LessOrEqual(t, len(e.Data), a2a.MaxChainData)
			raw, err := json.Marshal(e)
			require.NoError(t, err)
			require.NotContains(t, string(raw), secret)
			require.NotContains(t, string(raw), `\u0001`, "control characters are not copied")

			got := a2a.ChainOf(e)
			require.LessOrEqual(t, len(got), a2a.MaxChainLinks)
			require.Greater(t, len(got), 2, "hops are dropped from the deep end")
			require.Equal(t, "planner", got[0].Agent)
			require.Equal(t, strings.Repeat("é", 128)+"…", got[0].Message, "cut at 256 bytes")
			require.Equal(t, strings.Repeat("é", 128)+"…", got[1].Message)
			require.Equal(t, "https://flights.example:8443", got[1].Agent, "a URL for a name is cut to its origin")
			require.Empty(t, got[1].TaskID, "an ID too long to keep is not cut into another ID")
			require.Equal(t, strings.Repeat("R", 64)+"…", got[1].Reason)
			require.Equal(t, a2a.StateUnknown, got[1].State)
			require.Equal(t, "hop-0", got[2].Agent)
			require.NotContains(t, got[2].Message, "\x01")
		})
	}
	t.Run("more data than is kept", func(t *testing.T) {
		t.Parallel()
		var big []a2a.ChainLink
		for i := 0; i < a2a.MaxChainLinks; i++ {
			big = append(big, a2a.ChainLink{Agent: fmt.Sprintf("%064d", i), Code: a2a.CodeInternalError, Message: strings.Repeat(`"`, 256)})
		}
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			e := a2a.ChainError(v, big)
			require.LessOrEqual(t, len(e.Data), a2a.MaxChainData, "%s", v)
			got := a2a.ChainOf(e)
			require.Less(t, len(got), a2a.MaxChainLinks, "%s: links dropped to fit", v)
			require.Equal(t, big[:len(got)], got, "%s: from the deep end", v)
		}
	})
	t.Run("more links than are kept", func(t *testing.T) {
		t.Parallel()
		var many []a2a.ChainLink
		for i := 0; i < 12; i++ {
			many = append(many, a2a.ChainLink{Agent: fmt.Sprintf("hop-%d", i), Code: a2a.CodeInternalError, Message: "failed"})
		}
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			require.Equal(t, many[:a2a.MaxChainLinks], a2a.ChainOf(a2a.ChainError(v, many)), "%s", v)
		}
	})
}

func TestChainErrorNormalises(t *testing.T) {
	t.Parallel()
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			e := a2a.ChainError(v, []a2a.ChainLink{
				{Agent: "planner", Message: "failed", Retryable: true, RetryAfter: 1500 * time.Millisecond},
				{Agent: "flights", Code: a2a.CodeInternalError, Message: "no", RetryAfter: time.Minute, HTTPStatus: 42, State: "TASK_STATE_FAILED"},
			})
			require.Equal(t, a2a.CodeInternalError, e.Code, "a first link without a code is an internal error")
			require.Equal(t, []a2a.ChainLink{
				{Agent: "planner", Code: a2a.CodeInternalError, Message: "failed", Retryable: true, RetryAfter: 2 * time.Second},
				{Agent: "flights", Code: a2a.CodeInternalError, Message: "no", State: a2a.StateFailed},
			}, a2a.ChainOf(e), "delays in whole seconds, rounded up; none without retryability; no status out of range")
		})
	}
	require.Equal(t, &a2a.RPCError{Code: a2a.CodeInternalError, Message: "internal error"}, a2a.ChainError(a2a.V10, nil))
}

func TestChainOfHostileData(t *testing.T) {
	t.Parallel()
	const chain = `"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"DOWNSTREAM_AGENT_ERROR","domain":"github.com/a2astream/a2astream"`
	nested := strings.Repeat(`{"agent":"a","downstream":{"code":1,"message":"m","data":`, 20000) + `{}` + strings.Repeat(`}}`, 20000)
	deep := strings.Repeat(`{"agent":"a","downstream":{"code":-1,"message":"m","data":`, 50) + `{}` + strings.Repeat(`}}`, 50)
	for _, tc := range []struct {
		name  string
		data  string
		links int
	}{
		{"nesting too deep to decode", nested, 1},
		{"nesting deeper than the chain keeps", deep, a2a.MaxChainLinks},
		{"0.3 members of the wrong types", `{"agent":5,"downstreamAgent":[],"retryable":"yes","httpStatus":"503","downstream":{"code":"x","message":7,"data":[1]}}`, 2},
		{"0.3 downstream not an object", `{"agent":"a","downstream":"b"}`, 1},
		{"1.0 metadata of the wrong types", `[{` + chain + `,"metadata":{"agent":1,"code":"-1e99","retryable":true,"retryAfter":"-5s"}},{` + chain + `,"metadata":[]},{` + chain + `}]`, 3},
		{"1.0 entries of every kind", `[null,1,"x",[],{},{"reason":7},{` + chain + `,"metadata":{"code":"-32001"}}]`, 1},
		{"many 1.0 links", `[` + strings.TrimSuffix(strings.Repeat(`{`+chain+`},`, 100000), ",") + `]`, a2a.MaxChainLinks},
		{"huge strings", `{"agent":"` + strings.Repeat("a", 1<<20) + `","downstream":{"code":-1,"message":"` + strings.Repeat("m", 1<<20) + `"}}`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := a2a.ChainOf(&a2a.RPCError{Code: a2a.CodeInternalError, Message: "x", Data: json.RawMessage(tc.data)})
			require.Len(t, got, tc.links)
			for _, l := range got {
				require.LessOrEqual(t, len(l.Agent), 64+len("…"))
				require.LessOrEqual(t, len(l.Message), 256+len("…"))
				require.LessOrEqual(t, l.RetryAfter, a2a.MaxRetryHint)
				require.GreaterOrEqual(t, l.RetryAfter, time.Duration(0))
			}
			// What was read writes a chain within the bounds.
			for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
				require.LessOrEqual(t, len(a2a.ChainError(v, got).Data), a2a.MaxChainData)
			}
		})
	}
}

func TestChainLinkBoundedIsWhatChainErrorWrites(t *testing.T) {
	t.Parallel()
	for _, l := range []a2a.ChainLink{
		{Agent: "https://bot:pw@flights.example/a2a?token=t#f", Message: "ok"},
		{Agent: "flights\x00\x7f", Message: strings.Repeat("x", 300) + "\xff", RetryAfter: time.Second, HTTPStatus: 700},
		{Agent: "https://" + strings.Repeat("h", 80) + ".example/", Retryable: true, RetryAfter: 100 * time.Millisecond, State: "TASK_STATE_WORKING"},
		{Agent: "x://[bad", TaskID: "t\n1"},
	} {
		b := l.Bounded()
		require.Equal(t, b, b.Bounded(), "idempotent")
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			require.Equal(t, []a2a.ChainLink{{Agent: "a", Code: a2a.CodeInternalError}, b},
				a2a.ChainOf(a2a.ChainError(v, []a2a.ChainLink{{Agent: "a", Code: a2a.CodeInternalError}, l})), "%s", v)
		}
	}
	require.Equal(t, "https://flights.example", a2a.ChainLink{Agent: "https://bot:pw@flights.example/a2a?token=t#f"}.Bounded().Agent)
	require.Empty(t, a2a.ChainLink{Agent: "https://" + strings.Repeat("h", 80) + ".example/"}.Bounded().Agent, "an origin too long to keep")
	require.Empty(t, a2a.ChainLink{Agent: "x://[bad"}.Bounded().Agent, "a URL that does not parse")
	require.Equal(t, "flights\uFFFD\uFFFD", a2a.ChainLink{Agent: "flights\x00\x7f"}.Bounded().Agent)
}
