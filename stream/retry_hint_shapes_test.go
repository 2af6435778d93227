package stream_test

// The retry hint in every shape a server may give it: the delay a
// retryable error asks for (zero, negative, fractional, huge, a string),
// a Retry-After header beside a hint in the body, and a hint in the other
// version's shape. README, "Retryable errors": the stream waits the larger
// of the backoff and the delay asked for (at most 30 s), and the budget
// counts it.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// hintBackoff is the backoff of the hint tests: shorter than every delay
// a hint asks for, so that the wait tells which one won.
const hintBackoff = 100 * time.Millisecond

// hintData is the data of an internal error whose retry hint is the raw
// JSON value hint: A2A 0.3's {"retryable":true,"retryAfter":hint}, or
// 1.0's ErrorInfo and a google.rpc.RetryInfo whose retryDelay is hint.
func hintData(v a2a.Version, hint string) json.RawMessage {
	if v == a2a.V03 {
		return json.RawMessage(`{"retryable":true,"retryAfter":` + hint + `}`)
	}
	return json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org"},` +
		`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":` + hint + `}]`)
}

// refusedOnceThenCompletes is an agent whose send streams a working task
// and ends; its first resubscribe is answered by refuse, the next one
// completes the task.
func refusedOnceThenCompletes(w wire, refuse func(ww *wireWriter)) *wireAgent {
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, _ wireCall) {
			ww.sse()
			ww.event(snap(a2a.StateWorking, "one"))
		},
		kindSubscribe: func(ww *wireWriter, c wireCall) {
			if c.n == 0 {
				refuse(ww)
				return
			}
			ww.sse()
			ww.event(snap(a2a.StateCompleted, "one", " two"))
		},
	})
}

func TestRetryHintOfEveryShapeSetsTheWait(t *testing.T) {
	cases := []struct {
		name     string
		v03, v10 string        // the hint as each version writes it
		wait     time.Duration // the wait after the refused resubscribe
	}{
		{"zero", `0`, `"0s"`, hintBackoff},
		{"negative", `-5`, `"-5s"`, hintBackoff},
		{"fractional", `1.5`, `"1.5s"`, 1500 * time.Millisecond},
		{"under the backoff", `0.05`, `"0.05s"`, hintBackoff},
		{"over the cap", `86400`, `"86400s"`, 30 * time.Second},
		{"past int64 nanoseconds", `1e12`, `"1000000000000s"`, 30 * time.Second},
		{"past float64 precision", `1e300`, `"100000000000000000000s"`, 30 * time.Second},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			t.Run(w.String()+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					hint := tc.v03
					if w.v == a2a.V10 {
						hint = tc.v10
					}
					a := refusedOnceThenCompletes(w, func(ww *wireWriter) {
						ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", hintData(w.v, hint))
					})
					var ws waits
					start := time.Now()
					got, err := drain(t, a.client(t, ws.option(), stream.WithReconnect(reconnect.Policy{Backoff: hintBackoff})).Send(background(), hello()))
					require.NoError(t, err)
					require.Equal(t, "one two", got.text("a1"))
					require.Equal(t, []time.Duration{hintBackoff, tc.wait}, ws.all(), "the drop's backoff, then the hint's wait")
					require.Equal(t, hintBackoff+tc.wait, time.Since(start))
					require.Equal(t, 2, a.count(kindSubscribe))
					require.Equal(t, 0, a.count(kindGet), "a retryable error is a failed attempt, not an ending to check")
				})
			})
		}
	}
}

// A hint that is no delay in the version's own shape still marks the
// error retryable (its "retryable" or its RetryInfo says so): the stream
// waits the backoff.
func TestRetryHintThatIsNoDelayWaitsTheBackoff(t *testing.T) {
	for _, w := range wires() {
		hints := []string{`"5s"`, `null`, `true`, `{}`}
		if w.v == a2a.V10 {
			hints = []string{`"5"`, `5`, `"PT5S"`, `null`}
		}
		for _, hint := range hints {
			t.Run(w.String()+"/"+hint, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := refusedOnceThenCompletes(w, func(ww *wireWriter) {
						ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", hintData(w.v, hint))
					})
					var ws waits
					_, err := drain(t, a.client(t, ws.option(), stream.WithReconnect(reconnect.Policy{Backoff: hintBackoff})).Send(background(), hello()))
					require.NoError(t, err)
					require.Equal(t, []time.Duration{hintBackoff, hintBackoff}, ws.all())
					require.Equal(t, 2, a.count(kindSubscribe))
				})
			})
		}
	}
}

// A Retry-After header and a hint in the error body: the stream waits the
// larger of the two ("the larger of the backoff and the delay asked
// for"), whichever carries it.
func TestRetryAfterHeaderAndBodyHintTheLargerWins(t *testing.T) {
	cases := []struct {
		status       int
		header, body int // seconds
	}{
		{http.StatusServiceUnavailable, 7, 3},
		{http.StatusServiceUnavailable, 2, 9},
		{http.StatusTooManyRequests, 7, 3},
		{http.StatusTooManyRequests, 2, 9},
		{http.StatusInternalServerError, 7, 3},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/%d/header %ds/body %ds", w, tc.status, tc.header, tc.body), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := refusedOnceThenCompletes(w, func(ww *wireWriter) {
						ww.w.Header().Set("Retry-After", fmt.Sprint(tc.header))
						e := &a2a.RPCError{Code: a2a.CodeInternalError, Message: "model overloaded", Data: retryData(w.v, tc.body)}
						if w.b == a2a.BindingJSONRPC {
							raw, err := json.Marshal(e)
							if err != nil {
								panic(err)
							}
							ww.w.Header().Set("Content-Type", "application/json")
							ww.w.WriteHeader(tc.status)
							fmt.Fprintf(ww.w, `{"jsonrpc":"2.0","id":%s,"error":%s}`, ww.idOrNull(), raw)
							return
						}
						_, ct, body := a2a.MarshalHTTPError(w.v, e)
						ww.w.Header().Set("Content-Type", ct)
						ww.w.WriteHeader(tc.status)
						ww.w.Write(body)
					})
					var ws waits
					_, err := drain(t, a.client(t, ws.option(), stream.WithReconnect(reconnect.Policy{Backoff: hintBackoff})).Send(background(), hello()))
					require.NoError(t, err)
					larger := time.Duration(max(tc.header, tc.body)) * time.Second
					require.Equal(t, []time.Duration{hintBackoff, larger}, ws.all())
					require.Equal(t, 2, a.count(kindSubscribe))
				})
			})
		}
	}
}

// A server may put the other version's hint in its error: a 0.3 server a
// google.rpc.RetryInfo entry, a 1.0 server the 0.3 "retryable" object (or
// entry, over HTTP+JSON, where the details must be an array). Retryable()
// reads them all, and so does the stream.
func TestRetryHintInTheOtherVersionsShapeIsRead(t *testing.T) {
	for _, w := range wires() {
		data := `[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"4s"}]`
		switch {
		case w.v == a2a.V10 && w.b == a2a.BindingJSONRPC:
			data = `{"retryable":true,"retryAfter":4}`
		case w.v == a2a.V10:
			data = `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org"},{"retryable":true,"retryAfter":4}]`
		}
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := refusedOnceThenCompletes(w, func(ww *wireWriter) {
					ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", json.RawMessage(data))
				})
				var ws waits
				_, err := drain(t, a.client(t, ws.option(), stream.WithReconnect(reconnect.Policy{Backoff: hintBackoff})).Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, []time.Duration{hintBackoff, 4 * time.Second}, ws.all())
				require.Equal(t, 0, a.count(kindGet))
			})
		})
	}
}

// Retry-After in seconds or as an HTTP date sets the wait after a 429 or a
// 503 on a resubscribe; a send is never retried, whatever the server asks.
func TestRetryAfterHeaderInSecondsOrAsADate(t *testing.T) {
	// The synctest clock starts at 2000-01-01 00:00:00 UTC.
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		code   int
		header string
		want   func(at time.Time) time.Duration // the wait, given when it was decided
	}{
		{"seconds", 503, "7", func(time.Time) time.Duration { return 7 * time.Second }},
		{"429 seconds", 429, "2", func(time.Time) time.Duration { return 2 * time.Second }},
		{"capped at 30 s", 503, "86400", func(time.Time) time.Duration { return 30 * time.Second }},
		{"HTTP date", 503, epoch.Add(13 * time.Second).Format(http.TimeFormat), func(at time.Time) time.Duration { return epoch.Add(13 * time.Second).Sub(at) }},
		{"HTTP date far ahead", 503, epoch.Add(time.Hour).Format(http.TimeFormat), func(time.Time) time.Duration { return 30 * time.Second }},
		{"HTTP date past", 503, epoch.Add(-time.Hour).Format(http.TimeFormat), func(time.Time) time.Duration { return 500 * time.Millisecond }},
		{"shorter than the backoff", 503, "0", func(time.Time) time.Duration { return 500 * time.Millisecond }},
		{"negative", 503, "-5", func(time.Time) time.Duration { return 500 * time.Millisecond }},
		{"garbage", 503, "soon", func(time.Time) time.Duration { return 500 * time.Millisecond }},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					require.True(t, epoch.Equal(time.Now()))
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...),
						a2atest.WithFaults(a2atest.CutAfterEvents(3),
							a2atest.HTTPStatusWithHeader(c.code, "busy", http.Header{"Retry-After": {c.header}})))
					var rec reconnects
					s := newClient(t, agent, v, rec.option()).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					requireSameAsServer(t, agent, s, got)
					require.Len(t, rec.waits, 2)
					want := c.want(rec.at[1])
					require.Equal(t, []time.Duration{500 * time.Millisecond, want}, rec.waits)
					require.Len(t, rec.resumed, 1)
					require.Equal(t, want, rec.resumed[0].Sub(rec.at[1]), "the stream really waited that long")
					var he *stream.HTTPError
					require.ErrorAs(t, rec.causes[1], &he)
					require.Equal(t, c.code, he.StatusCode)
				})
			})
		}
		t.Run(string(v)+"/on the send", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v),
					a2atest.WithFaults(a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {"7"}})))
				_, err := drain(t, newClient(t, agent, v).Send(background(), hello()))
				var he *stream.HTTPError
				require.ErrorAs(t, err, &he, "a send is never retried, whatever the server asks")
				d, ok := he.RetryAfter()
				require.True(t, ok)
				require.Equal(t, 7*time.Second, d)
				require.Equal(t, 1, sends(agent))
			})
		})
	}
}
