package stream_test

// A Retry-After too large for a time.Duration is the longest hint there is,
// never a number that wrapped around: README, "Retryable errors": the
// stream waits the larger of the backoff and the delay asked for, at most
// 30 s; a2a.MaxRetryHint is the longest delay a hint reads as, and
// chain.Link.Bounded promises a link's delay is at most that.

import (
	"encoding/json"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chain"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// hugeRetryAfters are header values past what a time.Duration holds: in
// nanoseconds, 9223372037 s is just over the largest int64 (it wrapped to a
// negative wait), 18446744074 s just over 2^64 (it wrapped to 290 ms); the
// rest are past any integer, or a date centuries ahead.
var hugeRetryAfters = map[string]string{
	"just past int64 nanoseconds": "9223372037",
	"just past 2^64 nanoseconds":  "18446744074",
	"past uint64 seconds":         "99999999999999999999999999",
	"date in the year 9999":       "Fri, 31 Dec 9999 23:59:59 GMT",
	"date 300 years ahead":        "Sat, 01 Jan 2300 00:00:00 GMT",
}

func TestHugeRetryAfterReadsAsTheLongestHint(t *testing.T) {
	for name, value := range hugeRetryAfters {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := &stream.HTTPError{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {value}}}
				d, ok := e.RetryAfter()
				require.True(t, ok)
				require.Equal(t, a2a.MaxRetryHint, d)
			})
		})
	}
}

// After a 503 on a resubscribe, a huge Retry-After makes the stream wait
// the 30 s cap, exactly: not the backoff, nor 290 ms.
func TestHugeRetryAfterOnAResubscribeWaitsTheCap(t *testing.T) {
	for _, w := range wires() {
		for name, value := range hugeRetryAfters {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := refusedOnceThenCompletes(w, func(ww *wireWriter) {
						ww.w.Header().Set("Retry-After", value)
						http.Error(ww.w, "busy", http.StatusServiceUnavailable)
					})
					var ws waits
					start := time.Now()
					got, err := drain(t, a.client(t, ws.option(), stream.WithReconnect(reconnect.Policy{Backoff: hintBackoff})).Send(background(), hello()))
					require.NoError(t, err)
					require.Equal(t, "one two", got.text("a1"))
					require.Equal(t, []time.Duration{hintBackoff, 30 * time.Second}, ws.all(), "the drop's backoff, then the cap")
					require.Equal(t, hintBackoff+30*time.Second, time.Since(start))
					require.Equal(t, 2, a.count(kindSubscribe))
				})
			})
		}
	}
}

// The link chain.Error writes of a 503 whose Retry-After is huge says
// "retry after MaxRetryHint", in the link and in the data as either
// version writes it, whether the 503 ended the call or a budget spent on
// resubscribes.
func TestChainErrorOfAHugeRetryAfterSaysTheLongestHint(t *testing.T) {
	for name, value := range hugeRetryAfters {
		busy := &stream.HTTPError{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {value}}}
		for how, err := range map[string]error{
			"the 503":      busy,
			"budget spent": &reconnect.Error{Attempts: 3, TaskID: "t-9", Err: busy},
		} {
			for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
				t.Run(name+"/"+how+"/"+string(v), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						e := chain.Error(err, v, "planner", "flights")
						links := chain.Of(e)
						require.Len(t, links, 2)
						for i, l := range links {
							require.True(t, l.Retryable, "link %d", i)
							require.Equal(t, a2a.MaxRetryHint, l.RetryAfter, "link %d", i)
						}
						require.Equal(t, a2a.MaxRetryHint, e.RetryAfter(), "any client reads the hint at the top")
						raw, jerr := json.Marshal(e)
						require.NoError(t, jerr)
						if v == a2a.V03 {
							require.Contains(t, string(raw), `"retryAfter":86400,`)
						} else {
							require.Contains(t, string(raw), `"retryDelay":"86400s"`)
							require.Contains(t, string(raw), `"retryAfter":"86400s"`)
						}
					})
				})
			}
		}
	}
}
