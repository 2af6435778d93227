package stream_test

// Stranger round 28, retry hints: however hostile the hint, a stream never
// waits a negative time nor longer than its 30 s cap, and a chain's links
// say at most a2a.MaxRetryHint.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chain"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// s28Cap is the most a stream waits on a server's hint ("up to 30 s",
// README, Errors call by call; WithPollInterval "to at most 30 s").
const s28Cap = 30 * time.Second

// s28Hint is a Retry-After value and the hint it must read as: want < 0
// means no hint.
type s28Hint struct {
	name  string
	value func(now time.Time) string
	want  time.Duration
	// approx: an HTTP date, whole seconds, so the wait may be up to a
	// second shorter.
	approx bool
}

func s28Hints() []s28Hint {
	v := func(s string) func(time.Time) string { return func(time.Time) string { return s } }
	return []s28Hint{
		{"0", v("0"), 0, false},
		{"-1", v("-1"), -1, false},
		{"+5", v("+5"), -1, false},
		{"1e3", v("1e3"), -1, false},
		{"5.5", v("5.5"), -1, false},
		{"5", v("5"), 5 * time.Second, false},
		{"18446744074", v("18446744074"), a2a.MaxRetryHint, false},
		{"9223372037", v("9223372037"), a2a.MaxRetryHint, false},
		{"99999999999999999999", v("99999999999999999999"), a2a.MaxRetryHint, false},
		{"date far ahead", func(now time.Time) string { return now.Add(100 * 365 * 24 * time.Hour).UTC().Format(http.TimeFormat) }, a2a.MaxRetryHint, false},
		{"date in 10 s", func(now time.Time) string { return now.Add(10 * time.Second).UTC().Format(http.TimeFormat) }, 10 * time.Second, true},
		{"date past", func(now time.Time) string { return now.Add(-time.Hour).UTC().Format(http.TimeFormat) }, 0, false},
		{"year 9999", v("Fri, 31 Dec 9999 23:59:59 GMT"), a2a.MaxRetryHint, false},
		{"garbage", v("soon, please"), -1, false},
		{"empty", v(""), -1, false},
	}
}

func TestStranger28ParseRetryAfterIsBounded(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, h := range s28Hints() {
		t.Run(h.name, func(t *testing.T) {
			d, ok := a2a.ParseRetryAfter(h.value(now), now)
			if h.want < 0 {
				require.False(t, ok, "%v", d)
				return
			}
			require.True(t, ok)
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.LessOrEqual(t, d, a2a.MaxRetryHint)
			if h.approx {
				require.InDelta(t, float64(h.want), float64(d), float64(time.Second))
			} else {
				require.Equal(t, h.want, d)
			}
			he := &stream.HTTPError{StatusCode: 503, Header: http.Header{"Retry-After": {h.value(time.Now())}}}
			d2, ok2 := he.RetryAfter()
			require.True(t, ok2)
			require.GreaterOrEqual(t, d2, time.Duration(0))
			require.LessOrEqual(t, d2, a2a.MaxRetryHint)
		})
	}
}

// s28Expect is the wait a stream must make for a hint, given its own floor.
func s28Expect(h s28Hint, floor time.Duration) time.Duration {
	want := h.want
	if want > s28Cap {
		want = s28Cap
	}
	if want < floor {
		want = floor
	}
	return want
}

// s28Stamps wraps a handler and records when each request of a kind came.
type s28Stamps struct {
	mu    sync.Mutex
	at    []time.Time
	kinds []string
}

func (s *s28Stamps) wrap(w s28Wire, h http.Handler, header func(kind string, rw http.ResponseWriter)) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		c := s28Read(w, r)
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.mu.Lock()
		s.at = append(s.at, time.Now())
		s.kinds = append(s.kinds, c.kind)
		s.mu.Unlock()
		if header != nil {
			header(c.kind, rw)
		}
		h.ServeHTTP(rw, r)
	})
}

func (s *s28Stamps) gaps(kind string) []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []time.Duration
	var last time.Time
	for i, k := range s.kinds {
		if k != kind {
			continue
		}
		if !last.IsZero() {
			out = append(out, s.at[i].Sub(last))
		}
		last = s.at[i]
	}
	return out
}

func (s *s28Stamps) times() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.at...)
}

// A 503 with a Retry-After on a resubscribe: the stream waits the larger
// of its backoff and the hint, at most 30 s, never less than zero.
func TestStranger28RetryAfterOnAResubscribe(t *testing.T) {
	const backoff = 100 * time.Millisecond
	for _, w := range s28Wires() {
		for _, h := range s28Hints() {
			t.Run(w.String()+"/"+h.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := w.agent(
						a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")),
						a2atest.WithFaults(a2atest.CutAfterEvents(1),
							a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {h.value(time.Now())}})))
					var st s28Stamps
					var notices []stream.Notice
					c := w.client(t, st.wrap(w, agent, nil),
						stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: backoff}),
						stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) }))
					ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
					defer cancel()
					s := c.Send(ctx, s28Msg())
					defer s.Close()
					for s.Next() {
						if len(st.times()) >= 3 {
							break
						}
					}
					at := st.times()
					require.GreaterOrEqual(t, len(at), 3, "%v", s.Err())
					got := at[2].Sub(at[1])
					want := s28Expect(h, backoff)
					var waits []time.Duration
					for _, n := range notices {
						if n.Kind == stream.Reconnecting {
							waits = append(waits, n.Wait)
							require.GreaterOrEqual(t, n.Wait, time.Duration(0))
							require.LessOrEqual(t, n.Wait, s28Cap)
						}
					}
					t.Logf("waited %v, notices %v", got, waits)
					require.GreaterOrEqual(t, got, time.Duration(0))
					require.LessOrEqual(t, got, s28Cap)
					if h.approx {
						require.InDelta(t, float64(want), float64(got), float64(time.Second))
					} else {
						require.Equal(t, want, got)
					}
				})
			})
		}
	}
}

// A busy send with WithIdempotentSends: the same wait.
func TestStranger28RetryAfterOnABusySend(t *testing.T) {
	const backoff = 100 * time.Millisecond
	for _, w := range s28Wires() {
		for _, h := range s28Hints() {
			t.Run(w.String()+"/"+h.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := w.agent(a2atest.WithFaults(
						a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {h.value(time.Now())}})))
					var st s28Stamps
					c := w.client(t, st.wrap(w, agent, nil), stream.WithIdempotentSends(),
						stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: backoff}))
					ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
					defer cancel()
					e := s28Drain(c.Send(ctx, s28Msg()))
					require.NoError(t, e.Err)
					at := st.times()
					require.Len(t, at, 2)
					got := at[1].Sub(at[0])
					want := s28Expect(h, backoff)
					t.Logf("waited %v", got)
					if h.approx {
						require.InDelta(t, float64(want), float64(got), float64(time.Second))
					} else {
						require.Equal(t, want, got)
					}
				})
			})
		}
	}
}

// A Retry-After on a poll's 200 answer, and on a failed poll: one wait
// lengthened, to at most 30 s, never shortened below the interval.
func TestStranger28RetryAfterOnAPoll(t *testing.T) {
	t.Parallel()
	const interval = time.Second
	for _, w := range s28Wires() {
		for _, failed := range []bool{false, true} {
			for _, h := range s28Hints() {
				t.Run(fmt.Sprintf("%s/failed=%t/%s", w, failed, h.name), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						opts := []a2atest.Option{a2atest.WithoutStreaming(),
							a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, ""))}
						var header func(string, http.ResponseWriter)
						if failed {
							opts = append(opts, a2atest.WithGetFaults(
								a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {h.value(time.Now())}})))
						} else {
							first := true
							header = func(kind string, rw http.ResponseWriter) {
								if kind == "get" && first {
									first = false
									rw.Header().Set("Retry-After", h.value(time.Now()))
								}
							}
						}
						agent := w.agent(opts...)
						var st s28Stamps
						c := w.client(t, st.wrap(w, agent, header), stream.WithPollInterval(interval),
							stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: 100 * time.Millisecond}))
						ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
						defer cancel()
						s := c.Send(ctx, s28Msg())
						defer s.Close()
						for s.Next() {
							if len(st.gaps("get")) >= 2 {
								break
							}
						}
						gaps := st.gaps("get")
						require.GreaterOrEqual(t, len(gaps), 1, "%v", s.Err())
						got := gaps[0]
						t.Logf("gaps %v", gaps[:min(3, len(gaps))])
						require.Greater(t, got, time.Duration(0))
						require.LessOrEqual(t, got, s28Cap)
						floor := interval
						if failed {
							floor = 100 * time.Millisecond // a failed poll waits its backoff or its interval
						}
						want := s28Expect(h, floor)
						if h.want > interval || !failed {
							if h.approx {
								require.InDelta(t, float64(s28Expect(h, interval)), float64(got), float64(time.Second))
							} else {
								require.Equal(t, s28Expect(h, interval), got)
							}
						} else {
							require.GreaterOrEqual(t, got, want)
							require.LessOrEqual(t, got, interval)
						}
					})
				})
			}
		}
	}
}

// RetryInfo and 0.3 retryAfter of any size read as 0 to MaxRetryHint.
func TestStranger28RPCRetryHintIsBounded(t *testing.T) {
	for _, data := range []string{
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"99999999999999999999s"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"315576000000s"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"9223372037s"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"18446744074s"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"-5s"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1e30s"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2562047h"}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":{"seconds":"99999999999999"}}]`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":{"seconds":-9223372036854775808,"nanos":-1}}]`,
		`{"retryable":true,"retryAfter":1e300}`,
		`{"retryable":true,"retryAfter":-1}`,
		`{"retryable":true,"retryAfter":9223372037}`,
		`{"retryable":true,"retryAfter":18446744074}`,
		`{"retryable":true,"retryAfter":99999999999999999999}`,
		`{"retryable":true,"retryAfter":"5"}`,
		`{"retryable":true,"retryAfter":NaN}`,
	} {
		t.Run(data, func(t *testing.T) {
			e := &a2a.RPCError{Code: a2a.CodeInternalError, Message: "busy", Data: json.RawMessage(data)}
			d := e.RetryAfter()
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.LessOrEqual(t, d, a2a.MaxRetryHint)
			for _, l := range chain.Of(e) {
				require.GreaterOrEqual(t, l.RetryAfter, time.Duration(0))
				require.LessOrEqual(t, l.RetryAfter, a2a.MaxRetryHint)
			}
			body := []byte(`{"error":{"code":503,"status":"UNAVAILABLE","message":"busy","details":` + data + `}}`)
			_, after := a2a.ParseHTTPRetry(body)
			require.GreaterOrEqual(t, after, time.Duration(0))
			require.LessOrEqual(t, after, a2a.MaxRetryHint)
		})
	}
}

// A huge RetryInfo on a resubscribe: the stream waits its 30 s cap.
func TestStranger28HugeRetryInfoOnAResubscribeWaitsTheCap(t *testing.T) {
	for _, w := range s28Wires() {
		for _, after := range []time.Duration{1000 * time.Hour, time.Duration(1<<63 - 1)} {
			t.Run(fmt.Sprintf("%s/%v", w, after), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := w.agent(
						a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")),
						a2atest.WithFaults(a2atest.CutAfterEvents(1),
							a2atest.RetryableError(a2a.CodeInternalError, "busy", after, a2atest.ErrorAsJSON)))
					var st s28Stamps
					c := w.client(t, st.wrap(w, agent, nil),
						stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: 100 * time.Millisecond}))
					ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
					defer cancel()
					s := c.Send(ctx, s28Msg())
					defer s.Close()
					for s.Next() {
						if len(st.times()) >= 3 {
							break
						}
					}
					at := st.times()
					require.GreaterOrEqual(t, len(at), 3, "%v", s.Err())
					require.Equal(t, s28Cap, at[2].Sub(at[1]))
				})
			})
		}
	}
}

// chain.Error of any hint says at most MaxRetryHint, never negative.
func TestStranger28ChainErrorRetryHintIsBounded(t *testing.T) {
	var errs []error
	for _, h := range s28Hints() {
		v := h.value(time.Now())
		for _, code := range []int{408, 429, 500, 503} {
			errs = append(errs, &stream.HTTPError{StatusCode: code, Status: http.StatusText(code), Header: http.Header{"Retry-After": {v}}})
			errs = append(errs, &stream.HTTPError{StatusCode: code, Status: http.StatusText(code), Header: http.Header{"Retry-After": {v}},
				Err: &a2a.RPCError{Code: a2a.CodeInternalError, Message: "x", Data: json.RawMessage(`{"retryable":true,"retryAfter":99999999999999999999}`)}})
		}
		errs = append(errs, &reconnect.Error{Attempts: 3, Err: &stream.HTTPError{StatusCode: 503, Header: http.Header{"Retry-After": {v}}}, TaskID: "t"})
	}
	errs = append(errs, &a2a.RPCError{Code: a2a.CodeInternalError, Message: "x",
		Data: json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"99999999999999999999s"}]`)})
	// a chain whose links carry hostile delays already
	errs = append(errs, chain.Encode(a2a.V10, []chain.Link{
		{Agent: "a", Code: a2a.CodeInternalError, Message: "m", Retryable: true, RetryAfter: -5 * time.Second},
		{Agent: "b", Message: "m", Retryable: true, RetryAfter: time.Duration(1<<63 - 1)}}))
	errs = append(errs, chain.Encode(a2a.V03, []chain.Link{
		{Agent: "a", Code: a2a.CodeInternalError, Message: "m", Retryable: true, RetryAfter: time.Duration(-1 << 63)},
		{Agent: "b", Message: "m", Retryable: true, RetryAfter: 1000 * time.Hour}}))
	for i, err := range errs {
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			t.Run(fmt.Sprintf("%d/%s", i, v), func(t *testing.T) {
				out := chain.Error(err, v, "me", "down")
				require.NotNil(t, out)
				require.GreaterOrEqual(t, out.RetryAfter(), time.Duration(0))
				require.LessOrEqual(t, out.RetryAfter(), a2a.MaxRetryHint)
				links := chain.Of(out)
				require.NotEmpty(t, links)
				for _, l := range links {
					require.GreaterOrEqual(t, l.RetryAfter, time.Duration(0), "%+v", l)
					require.LessOrEqual(t, l.RetryAfter, a2a.MaxRetryHint, "%+v", l)
				}
				var re *a2a.RPCError
				if errors.As(err, &re) {
					for _, l := range chain.Of(re) {
						require.GreaterOrEqual(t, l.RetryAfter, time.Duration(0), "%+v", l)
						require.LessOrEqual(t, l.RetryAfter, a2a.MaxRetryHint, "%+v", l)
					}
				}
			})
		}
	}
}
