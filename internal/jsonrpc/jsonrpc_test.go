package jsonrpc

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

func TestDecodeResponse(t *testing.T) {
	r, err := DecodeResponse([]byte(`{"jsonrpc":"2.0","id":"r1","result":{"kind":"task"}}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"kind":"task"}`, string(r.Result))
	require.Nil(t, r.Error)

	r, err = DecodeResponse([]byte(`{"jsonrpc":"2.0","id":"r1","error":{"code":-32001,"message":"task not found","data":[{"reason":"TASK_NOT_FOUND"}]}}`))
	require.NoError(t, err)
	require.Equal(t, &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "task not found", Data: json.RawMessage(`[{"reason":"TASK_NOT_FOUND"}]`)}, r.Error)
	require.Nil(t, r.Result)

	for _, bad := range []string{`{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":1,"result":null}`, `[1]`, `{"id":`} {
		_, err := DecodeResponse([]byte(bad))
		require.ErrorIs(t, err, ErrInvalidResponse, bad)
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

func TestNewRequest(t *testing.T) {
	b, err := json.Marshal(NewRequest("r1", "tasks/get", map[string]string{"id": "t-1"}))
	require.NoError(t, err)
	require.JSONEq(t, `{"jsonrpc":"2.0","id":"r1","method":"tasks/get","params":{"id":"t-1"}}`, string(b))
}
