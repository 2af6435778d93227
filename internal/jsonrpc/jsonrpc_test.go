package jsonrpc

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

func TestDecodeResponse(t *testing.T) {
	r, result, err := DecodeResponse([]byte(`{"jsonrpc":"2.0","id":"r1","result":{"kind":"task"}}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"kind":"task"}`, string(result))
	require.Equal(t, `"r1"`, string(r.ID))
	require.Nil(t, r.Error)

	r, result, err = DecodeResponse([]byte(`{"jsonrpc":"2.0","id":"r1","error":{"code":-32001,"message":"task not found","data":[{"reason":"TASK_NOT_FOUND"}]}}`))
	require.NoError(t, err)
	require.Equal(t, &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "task not found", Data: json.RawMessage(`[{"reason":"TASK_NOT_FOUND"}]`)}, r.Error)
	require.Nil(t, result)

	for _, bad := range []string{`{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":1,"result":null}`, `[1]`, `{"id":`} {
		_, _, err := DecodeResponse([]byte(bad))
		require.ErrorIs(t, err, ErrNotAResponse, bad)
	}
}

// TestUnaryAndStreamResponsesFollowOneRule: a unary response and a streamed
// one are one envelope, and each of its corners reads the same in both: an
// error member wins over a result, a null or absent result is no result,
// and what is not one JSON object is not a response.
func TestUnaryAndStreamResponsesFollowOneRule(t *testing.T) {
	msg := `{"kind":"message","messageId":"m","role":"agent","parts":[]}`
	for _, c := range []struct {
		in   string
		want string // "result", "error" or "not a response"
	}{
		{`{"jsonrpc":"2.0","id":"a","result":` + msg + `}`, "result"},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"boom"}}`, "error"},
		{`{"jsonrpc":"2.0","id":"a","result":` + msg + `,"error":{"code":-32603,"message":"boom"}}`, "error"},
		{`{"jsonrpc":"2.0","id":"a","result":null,"error":{"code":-32603}}`, "error"},
		{`{"jsonrpc":"2.0","id":"a","result":null}`, "not a response"},
		{`{"jsonrpc":"2.0","id":"a"}`, "not a response"},
		{`{"jsonrpc":"2.0","id":"a","error":null}`, "not a response"},
		{`{}`, "not a response"},
		{`null`, "not a response"},
		{`[1]`, "not a response"},
		{`{"jsonrpc":"2.0","id":"a","result":` + msg, "not a response"},
		{`{"jsonrpc":"2.0","error":{"code":"x"}}`, "not a response"},
	} {
		kind := func(r *Response, err error) string {
			switch {
			case errors.Is(err, ErrNotAResponse):
				return "not a response"
			case err != nil:
				return "other: " + err.Error()
			case r.Error != nil:
				return "error"
			}
			return "result"
		}
		r, _, err := DecodeResponse([]byte(c.in))
		require.Equal(t, c.want, kind(r, err), "unary %s", c.in)
		sr, _, err := NewStreamDecoder(a2a.V03).Decode([]byte(c.in))
		require.Equal(t, c.want, kind(sr, err), "stream %s", c.in)
	}
}

func TestIDMatches(t *testing.T) {
	cases := []struct {
		raw  string
		want bool
	}{
		{``, true}, {`null`, true}, {`"r1"`, true}, {`"r2"`, false}, {`1`, false}, {` "r1" `, true},
	}
	for _, c := range cases {
		if got := IDMatches(json.RawMessage(c.raw), "r1"); got != c.want {
			t.Errorf("IDMatches(%q) = %v; want %v", c.raw, got, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	rpcErr := &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "task not found"}
	require.NoError(t, Check(json.RawMessage(`"r1"`), "r1", nil))
	require.Same(t, rpcErr, Check(json.RawMessage(`"r1"`), "r1", rpcErr))
	require.Same(t, rpcErr, Check(nil, "r1", rpcErr), "a server that could not read the request sends no ID")

	// Another request's answer is a mismatch, error member or not, and the
	// server's ID is cut in the text.
	long := json.RawMessage(`"` + strings.Repeat("x", 500) + `"`)
	for _, rpc := range []*a2a.RPCError{nil, rpcErr} {
		err := Check(long, "r1", rpc)
		var mismatch *IDMismatchError
		require.ErrorAs(t, err, &mismatch)
		require.Equal(t, "r1", mismatch.Want)
		require.Equal(t, long, mismatch.Got)
		require.Less(t, len(err.Error()), 120, err.Error())
	}
}

func TestNewRequest(t *testing.T) {
	b, err := json.Marshal(NewRequest("r1", "tasks/get", map[string]string{"id": "t-1"}))
	require.NoError(t, err)
	require.JSONEq(t, `{"jsonrpc":"2.0","id":"r1","method":"tasks/get","params":{"id":"t-1"}}`, string(b))
}

// TestCheckKeepsACopyOfTheID: the ID a mismatch error reports is its own,
// not the memory of the response it came from, which a stream reuses for
// the next event (StreamDecoder's ID shares the data's memory).
func TestCheckKeepsACopyOfTheID(t *testing.T) {
	data := []byte(`"other-request"`)
	err := Check(data, "r-1", nil)
	var mismatch *IDMismatchError
	require.ErrorAs(t, err, &mismatch)
	copy(data, `"#############"`)
	require.Equal(t, `"other-request"`, string(mismatch.Got))
}

// A delete's response carries "result": null: success, as any result is;
// one with neither result nor error is not a response.
func TestDecodeVoidResponse(t *testing.T) {
	for _, ok := range []string{`{"jsonrpc":"2.0","id":"r1","result":null}`, `{"jsonrpc":"2.0","id":"r1","result":{}}`} {
		r, err := DecodeVoidResponse([]byte(ok))
		require.NoError(t, err, ok)
		require.Nil(t, r.Error)
		require.JSONEq(t, `"r1"`, string(r.ID))
	}
	r, err := DecodeVoidResponse([]byte(`{"jsonrpc":"2.0","id":"r1","result":null,"error":{"code":-32003,"message":"no push"}}`))
	require.NoError(t, err)
	require.Equal(t, -32003, r.Error.Code)
	for _, bad := range []string{`{"jsonrpc":"2.0","id":"r1"}`, `[]`, `null`, ``} {
		_, err := DecodeVoidResponse([]byte(bad))
		require.ErrorIs(t, err, ErrNotAResponse, bad)
	}
}
