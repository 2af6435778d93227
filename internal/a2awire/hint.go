package a2awire

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// Max is the longest delay a retry hint reads as, from every source:
// a2a.MaxRetryHint, which a2a's tests hold equal to it.
const Max = 24 * time.Hour

// Bound is the one place every retry hint passes through, whatever
// carried it (a 0.3 "retryAfter", a RetryInfo's retryDelay, a Retry-After
// header in seconds or as a date, a chain's link): a delay below 0 is 0, one
// over Max is Max. What a server wrote reaches it as a time.Duration that
// did not overflow (SecondsDelay, time.Time.Sub).
func Bound(d time.Duration) time.Duration {
	return min(max(d, 0), Max)
}

// saturatedSeconds is a count of seconds past every cap whose nanoseconds
// still fit in a time.Duration (2^33 s, some 272 years): SecondsDelay
// converts any larger count as this one, so that no multiplication
// overflows.
const saturatedSeconds = 1 << 33

// SecondsDelay converts a count of seconds, finite and not negative, to a
// bounded delay (Bound) without overflow.
func SecondsDelay(secs float64) time.Duration {
	return Bound(time.Duration(min(secs, saturatedSeconds) * float64(time.Second)))
}

// Seconds reads a delay in seconds: a JSON number, or a string holding one.
func Seconds(raw json.RawMessage) (time.Duration, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false
	}
	var s string
	if raw[0] == '"' {
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
	} else {
		s = string(raw)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, false
	}
	return fromSeconds(f)
}

// ProtoDuration reads a google.protobuf.Duration in JSON: "1.5s", or the
// object {"seconds":1,"nanos":500000000}.
func ProtoDuration(raw json.RawMessage) (time.Duration, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0, false
	}
	if raw[0] == '{' {
		var o struct {
			Seconds json.RawMessage `json:"seconds"`
			Nanos   json.RawMessage `json:"nanos"`
		}
		if json.Unmarshal(raw, &o) != nil {
			return 0, false
		}
		secs, ok := Seconds(o.Seconds)
		if !ok {
			return 0, false
		}
		var nanos int64
		if n := bytes.TrimSpace(o.Nanos); len(n) > 0 {
			if json.Unmarshal(n, &nanos) != nil || nanos < 0 || nanos >= int64(time.Second) {
				return 0, false
			}
		}
		return Bound(secs + time.Duration(nanos)), true // secs is bounded: no overflow
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	num, ok := strings.CutSuffix(strings.TrimSpace(s), "s")
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	return fromSeconds(f)
}

// fromSeconds converts a count of seconds a server wrote, ignoring what is
// negative or not finite, and bounding the rest (SecondsDelay).
func fromSeconds(f float64) (time.Duration, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	return SecondsDelay(f), true
}
