package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
)

// Request is a JSON-RPC 2.0 request with a string ID.
type Request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      string `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// NewRequest returns a request for method with the given ID and params.
func NewRequest(id, method string, params any) *Request {
	return &Request{JSONRPC: "2.0", ID: id, Method: method, Params: params}
}

// Response is a decoded JSON-RPC 2.0 response. Exactly one of Result and
// Error is set.
type Response struct {
	ID     json.RawMessage
	Result json.RawMessage
	Error  *a2a.RPCError
}

type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *wireError      `json:"error"`
}

type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// ErrInvalidResponse is wrapped by DecodeResponse's errors for JSON that is
// not a JSON-RPC response.
var ErrInvalidResponse = errors.New("jsonrpc: invalid response")

// DecodeResponse decodes one response object.
func DecodeResponse(data []byte) (*Response, error) {
	var w wireResponse
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidResponse, err)
	}
	r := &Response{ID: w.ID}
	switch {
	case w.Error != nil:
		r.Error = &a2a.RPCError{Code: w.Error.Code, Message: w.Error.Message, Data: w.Error.Data}
	case len(w.Result) > 0 && !bytes.Equal(w.Result, []byte("null")):
		r.Result = w.Result
	default:
		return nil, fmt.Errorf("%w: neither result nor error", ErrInvalidResponse)
	}
	return r, nil
}

// IDMatches reports whether a response ID is the request's string ID, or is
// absent or null (which servers send when they could not read the request).
func IDMatches(raw json.RawMessage, id string) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return true
	}
	// The usual case, the ID sent back byte for byte, needs no decoding. An
	// ID spelled with escapes takes the slow path below.
	if len(raw) == len(id)+2 && raw[0] == '"' && raw[len(raw)-1] == '"' && string(raw[1:len(raw)-1]) == id &&
		bytes.IndexByte(raw, '\\') < 0 {
		return true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return false
	}
	return s == id
}
