package chain_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chain"
)

// planner and flights are the two links of the chain the tests write: the
// planner agent failed because its downstream agent, flights, answered a
// retryable error with HTTP 503.
var (
	planner = chain.Link{
		Agent: "planner", Code: a2a.CodeInternalError,
		Message:   "downstream agent flights failed: model overloaded",
		Retryable: true, RetryAfter: 5 * time.Second,
	}
	flights = chain.Link{
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

func TestEncodeWritesEachVersionsShape(t *testing.T) {
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
			e := chain.Encode(tc.v, []chain.Link{planner, flights})
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

func TestOfReadsWhatEncodeWrote(t *testing.T) {
	t.Parallel()
	deep := []chain.Link{
		{Agent: "concierge", Code: a2a.CodeInternalError, Message: "downstream agent planner failed", Reason: "UPSTREAM", TaskID: "t-a", State: a2a.StateWorking},
		{Agent: "planner", Code: a2a.CodeInternalError, Message: "downstream agent flights failed", TaskID: "t-b"},
		{Agent: "flights", Code: 0, Message: "task t-c ended in state failed: no seats", TaskID: "t-c", State: a2a.StateFailed},
	}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		unnamed := []chain.Link{{Code: a2a.CodeTaskNotFound, Message: "gone", Reason: "TASK_NOT_FOUND", TaskID: "t-d"}}
		for _, links := range [][]chain.Link{{planner, flights}, deep, {planner}, unnamed} {
			t.Run(fmt.Sprintf("%s/%d links", v, len(links)), func(t *testing.T) {
				t.Parallel()
				got := wireRoundTrip(t, chain.Encode(v, links))
				require.Equal(t, links, chain.Of(fmt.Errorf("calling %s: %w", links[0].Agent, got)))
			})
		}
	}
}

func TestOfReadsItThroughHTTPJSONBodies(t *testing.T) {
	t.Parallel()
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			status, _, body := a2a.MarshalHTTPError(v, chain.Encode(v, []chain.Link{planner, flights}))
			require.Equal(t, 500, status)
			got, ok := a2a.ParseHTTPError(status, body)
			require.True(t, ok, "an A2A error: %s", body)
			require.Equal(t, a2a.CodeInternalError, got.Code)
			require.Equal(t, []chain.Link{planner, flights}, chain.Of(got))
		})
	}
}

// TestOfThreeAgentsDeep: the flights agent fails with a retryable
// error whose data holds more than the chain keeps; the planner agent
// builds its own error from it with Of and Encode; the concierge
// reads both links back. The hops may speak different versions.
func TestOfThreeAgentsDeep(t *testing.T) {
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
				links := chain.Of(received)
				require.Len(t, links, 1, "a plain error is one link")
				links[0].Agent = "flights"
				own := chain.Link{Agent: "planner", Code: a2a.CodeInternalError,
					Message:   "downstream agent flights failed: " + links[0].Message,
					Retryable: links[0].Retryable, RetryAfter: links[0].RetryAfter}
				answered := chain.Encode(up, append([]chain.Link{own}, links...))

				raw, err := json.Marshal(answered)
				require.NoError(t, err)
				require.NotContains(t, string(raw), secret)

				got := chain.Of(wireRoundTrip(t, answered))
				reason := ""
				if down == a2a.V10 {
					reason = "INTERNAL_ERROR"
				}
				require.Equal(t, []chain.Link{
					{Agent: "planner", Code: a2a.CodeInternalError, Message: "downstream agent flights failed: model overloaded", Retryable: true, RetryAfter: 5 * time.Second},
					{Agent: "flights", Code: a2a.CodeInternalError, Message: "model overloaded", Reason: reason, Retryable: true, RetryAfter: 5 * time.Second},
				}, got)
			})
		}
	}
}

// TestOfOneMoreHop: an agent whose downstream answered a chain puts
// its own link in front of the whole chain.
func TestOfOneMoreHop(t *testing.T) {
	t.Parallel()
	for _, down := range []a2a.Version{a2a.V03, a2a.V10} {
		for _, up := range []a2a.Version{a2a.V03, a2a.V10} {
			t.Run(string(down)+"→"+string(up), func(t *testing.T) {
				t.Parallel()
				fromPlanner := wireRoundTrip(t, chain.Encode(down, []chain.Link{planner, flights}))
				links := chain.Of(fromPlanner)
				links[0].Agent = "planner-eu" // the name the concierge gives it
				own := chain.Link{Agent: "concierge", Code: a2a.CodeInternalError, Message: "downstream agent planner-eu failed", Retryable: true, RetryAfter: 5 * time.Second}
				got := chain.Of(wireRoundTrip(t, chain.Encode(up, append([]chain.Link{own}, links...))))
				renamed := planner
				renamed.Agent = "planner-eu"
				require.Equal(t, []chain.Link{own, renamed, flights}, got)
			})
		}
	}
}

func TestOfAPlainErrorIsOneLink(t *testing.T) {
	t.Parallel()
	// read returns the error of an answer package a2a captured: its last
	// line, a JSON-RPC error response, bare or as an SSE "data:" line.
	read := func(name string) *a2a.RPCError {
		raw, err := os.ReadFile(filepath.Join("..", "a2a", "testdata", "captures", name))
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
		want []chain.Link
	}{
		{"nil", nil, nil},
		{"not an RPC error", errors.New("connection refused"), nil},
		{"@a2a-js/sdk 1.3.0, 1.0 ErrorInfo", read("js-1.3.0-subscribe-unknown.txt"), []chain.Link{{
			Code: a2a.CodeTaskNotFound, Reason: "TASK_NOT_FOUND",
			Message: "Task not found: 00000000-0000-0000-0000-000000000000",
		}}},
		{"a2a-go, 0.3 data object", read("a2a-go-resubscribe-unknown.txt"), []chain.Link{{
			Code: a2a.CodeTaskNotFound, Message: "task not found",
		}}},
		{"@a2a-js/sdk 0.3.14, no data", read("js-0.3.14-resubscribe-unknown.txt"), []chain.Link{{
			Code: a2a.CodeTaskNotFound, Message: "Task not found: 00000000-0000-0000-0000-000000000000",
		}}},
		{"0.3 retry hint", &a2a.RPCError{Code: a2a.CodeInternalError, Message: "busy", Data: json.RawMessage(`{"retryable":true,"retryAfter":0.2}`)},
			[]chain.Link{{Code: a2a.CodeInternalError, Message: "busy", Retryable: true, RetryAfter: time.Second}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, chain.Of(tc.err))
		})
	}
}

func TestEncodeBoundsWhatItCopies(t *testing.T) {
	t.Parallel()
	const secret = "tok-9f8e7d"
	long := strings.Repeat("é", 300) // 600 bytes
	links := []chain.Link{
		{Agent: "planner", Code: a2a.CodeInternalError, Message: long},
		{Agent: "https://bot:" + secret + "@flights.example:8443/a2a/v1?token=" + secret + "#" + secret, Message: long,
			TaskID: strings.Repeat("t", 300), Reason: strings.Repeat("R", 100), State: a2a.TaskState(strings.Repeat("s", 100))},
	}
	for i := 0; i < 10; i++ {
		links = append(links, chain.Link{Agent: fmt.Sprintf("hop-%d", i), Message: strings.Repeat("\x01\"", 200)})
	}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			e := chain.Encode(v, links)
			require.LessOrEqual(t, len(e.Data), chain.MaxData)
			raw, err := json.Marshal(e)
			require.NoError(t, err)
			require.NotContains(t, string(raw), secret)
			require.NotContains(t, string(raw), `\u0001`, "control characters are not copied")

			got := chain.Of(e)
			require.LessOrEqual(t, len(got), chain.MaxLinks)
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
		var big []chain.Link
		for i := 0; i < chain.MaxLinks; i++ {
			big = append(big, chain.Link{Agent: fmt.Sprintf("%064d", i), Code: a2a.CodeInternalError, Message: strings.Repeat(`"`, 256)})
		}
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			e := chain.Encode(v, big)
			require.LessOrEqual(t, len(e.Data), chain.MaxData, "%s", v)
			got := chain.Of(e)
			require.Less(t, len(got), chain.MaxLinks, "%s: links dropped to fit", v)
			require.Equal(t, big[:len(got)], got, "%s: from the deep end", v)
		}
	})
	t.Run("more links than are kept", func(t *testing.T) {
		t.Parallel()
		var many []chain.Link
		for i := 0; i < 12; i++ {
			many = append(many, chain.Link{Agent: fmt.Sprintf("hop-%d", i), Code: a2a.CodeInternalError, Message: "failed"})
		}
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			require.Equal(t, many[:chain.MaxLinks], chain.Of(chain.Encode(v, many)), "%s", v)
		}
	})
}

func TestEncodeNormalises(t *testing.T) {
	t.Parallel()
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			e := chain.Encode(v, []chain.Link{
				{Agent: "planner", Message: "failed", Retryable: true, RetryAfter: 1500 * time.Millisecond},
				{Agent: "flights", Code: a2a.CodeInternalError, Message: "no", RetryAfter: time.Minute, HTTPStatus: 42, State: "TASK_STATE_FAILED"},
			})
			require.Equal(t, a2a.CodeInternalError, e.Code, "a first link without a code is an internal error")
			require.Equal(t, []chain.Link{
				{Agent: "planner", Code: a2a.CodeInternalError, Message: "failed", Retryable: true, RetryAfter: 2 * time.Second},
				{Agent: "flights", Code: a2a.CodeInternalError, Message: "no", State: a2a.StateFailed},
			}, chain.Of(e), "delays in whole seconds, rounded up; none without retryability; no status out of range")
		})
	}
	require.Equal(t, &a2a.RPCError{Code: a2a.CodeInternalError, Message: "internal error"}, chain.Encode(a2a.V10, nil))
}

// manyLinks is how many links the longest 1.0 chain of TestOfHostileData
// has; CI passes the full size (.ci/run).
var manyLinks = flag.Int("chain.links", 10_000, "how many links the many-links case of TestOfHostileData has (CI: 100,000)")

func TestOfHostileData(t *testing.T) {
	t.Parallel()
	const info = `"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"DOWNSTREAM_AGENT_ERROR","domain":"github.com/a2astream/a2astream"`
	nested := strings.Repeat(`{"agent":"a","downstream":{"code":1,"message":"m","data":`, 20000) + `{}` + strings.Repeat(`}}`, 20000)
	deep := strings.Repeat(`{"agent":"a","downstream":{"code":-1,"message":"m","data":`, 50) + `{}` + strings.Repeat(`}}`, 50)
	for _, tc := range []struct {
		name  string
		data  string
		links int
	}{
		{"nesting too deep to decode", nested, 1},
		{"nesting deeper than the chain keeps", deep, chain.MaxLinks},
		{"0.3 members of the wrong types", `{"agent":5,"downstreamAgent":[],"retryable":"yes","httpStatus":"503","downstream":{"code":"x","message":7,"data":[1]}}`, 2},
		{"0.3 downstream not an object", `{"agent":"a","downstream":"b"}`, 1},
		{"1.0 metadata of the wrong types", `[{` + info + `,"metadata":{"agent":1,"code":"-1e99","retryable":true,"retryAfter":"-5s"}},{` + info + `,"metadata":[]},{` + info + `}]`, 3},
		{"1.0 entries of every kind", `[null,1,"x",[],{},{"reason":7},{` + info + `,"metadata":{"code":"-32001"}}]`, 1},
		{"many 1.0 links", `[` + strings.TrimSuffix(strings.Repeat(`{`+info+`},`, *manyLinks), ",") + `]`, chain.MaxLinks},
		{"huge strings", `{"agent":"` + strings.Repeat("a", 1<<20) + `","downstream":{"code":-1,"message":"` + strings.Repeat("m", 1<<20) + `"}}`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := chain.Of(&a2a.RPCError{Code: a2a.CodeInternalError, Message: "x", Data: json.RawMessage(tc.data)})
			require.Len(t, got, tc.links)
			for _, l := range got {
				require.LessOrEqual(t, len(l.Agent), 64+len("…"))
				require.LessOrEqual(t, len(l.Message), 256+len("…"))
				require.LessOrEqual(t, l.RetryAfter, a2a.MaxRetryHint)
				require.GreaterOrEqual(t, l.RetryAfter, time.Duration(0))
			}
			// What was read writes a chain within the bounds.
			for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
				require.LessOrEqual(t, len(chain.Encode(v, got).Data), chain.MaxData)
			}
		})
	}
}

func TestLinkBoundedIsWhatEncodeWrites(t *testing.T) {
	t.Parallel()
	for _, l := range []chain.Link{
		{Agent: "https://bot:pw@flights.example/a2a?token=t#f", Message: "ok"},
		{Agent: "flights\x00\x7f", Message: strings.Repeat("x", 300) + "\xff", RetryAfter: time.Second, HTTPStatus: 700},
		{Agent: "https://" + strings.Repeat("h", 80) + ".example/", Retryable: true, RetryAfter: 100 * time.Millisecond, State: "TASK_STATE_WORKING"},
		{Agent: "x://[bad", TaskID: "t\n1"},
	} {
		b := l.Bounded()
		require.Equal(t, b, b.Bounded(), "idempotent")
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			require.Equal(t, []chain.Link{{Agent: "a", Code: a2a.CodeInternalError}, b},
				chain.Of(chain.Encode(v, []chain.Link{{Agent: "a", Code: a2a.CodeInternalError}, l})), "%s", v)
		}
	}
	require.Equal(t, "https://flights.example", chain.Link{Agent: "https://bot:pw@flights.example/a2a?token=t#f"}.Bounded().Agent)
	require.Empty(t, chain.Link{Agent: "https://" + strings.Repeat("h", 80) + ".example/"}.Bounded().Agent, "an origin too long to keep")
	require.Empty(t, chain.Link{Agent: "x://[bad"}.Bounded().Agent, "a URL that does not parse")
	require.Equal(t, "flights\uFFFD\uFFFD", chain.Link{Agent: "flights\x00\x7f"}.Bounded().Agent)
}
