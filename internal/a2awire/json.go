package a2awire

import (
	"bytes"
	"encoding/json"
)

// IsObject, IsArray and IsString report the kind of a raw JSON value from
// its first byte; the caller trims white space first where it may lead.
func IsObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }

// IsArray reports a raw JSON array (see [IsObject]).
func IsArray(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '[' }

// IsString reports a raw JSON string (see [IsObject]).
func IsString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }

// String returns a raw JSON string's value, or "" for anything else.
func String(raw json.RawMessage) string {
	var s string
	if !IsString(raw) || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// Int32 returns a raw JSON number's value when it is an integer that fits
// in an int32 (JSON-RPC codes and HTTP statuses both do).
func Int32(raw json.RawMessage) (int, bool) {
	var n int32
	if len(raw) == 0 || json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	return int(n), true
}

// Marshal is json.Marshal without HTML escaping: A2A is not embedded in
// HTML, and escaping would rewrite the bytes of a part's raw JSON data, so
// that data would not survive a decode/encode round trip unchanged.
func Marshal(obj any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
