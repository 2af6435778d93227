package main

import "net/http"

// traceOf reads the W3C trace context of a request (its traceparent
// header, https://www.w3.org/TR/trace-context/#traceparent-header): the
// trace ID and the caller's span ID, as lowercase hexadecimal, and whether
// there was a valid one. The demo agent names the trace in its request log
// so that a request is found in the caller's trace; it has no spans of its
// own to export. A request with more than one traceparent header, or one
// that does not parse, has none (the specification asks a receiver to
// start a new trace then).
func traceOf(h http.Header) (traceID, parentID string, ok bool) {
	values := h.Values("Traceparent")
	if len(values) != 1 {
		return "", "", false
	}
	v := values[0]
	// version "-" trace-id "-" parent-id "-" trace-flags: 2+1+32+1+16+1+2.
	const size = 55
	if len(v) < size || v[2] != '-' || v[35] != '-' || v[52] != '-' || !lowerHex(v[:2]) || !lowerHex(v[53:55]) {
		return "", "", false
	}
	version := v[:2]
	switch {
	case version == "ff":
		return "", "", false // forbidden
	case version == "00" && len(v) != size:
		return "", "", false
	case len(v) > size && v[size] != '-':
		return "", "", false // a later version may add fields, after a dash
	}
	traceID, parentID = v[3:35], v[36:52]
	if !lowerHex(traceID) || !lowerHex(parentID) || allZero(traceID) || allZero(parentID) {
		return "", "", false
	}
	return traceID, parentID, true
}

// lowerHex reports whether s is lowercase hexadecimal digits.
func lowerHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// allZero reports whether s is zeros only.
func allZero(s string) bool {
	for i := range len(s) {
		if s[i] != '0' {
			return false
		}
	}
	return true
}
