package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/clip"
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
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *a2a.RPCError   `json:"error"`
}

// DecodeResponse decodes one response object. Its errors wrap
// a2a.ErrNotAResponse, as a2a.EventDecoder's do for stream responses.
func DecodeResponse(data []byte) (*Response, error) {
	var w wireResponse
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%w: %w", a2a.ErrNotAResponse, err)
	}
	r := &Response{ID: w.ID}
	switch {
	case w.Error != nil:
		r.Error = w.Error
	case len(w.Result) > 0 && !bytes.Equal(w.Result, []byte("null")):
		r.Result = w.Result
	default:
		return nil, fmt.Errorf("%w: neither result nor error", a2a.ErrNotAResponse)
	}
	return r, nil
}

// IDMismatchError reports a response that answers another request.
type IDMismatchError struct {
	Got  json.RawMessage // the response's id member, as sent
	Want string          // the request's ID
}

func (e *IDMismatchError) Error() string {
	// The ID is server data: its text is cut (see clip.Text).
	return fmt.Sprintf("response ID %s does not match request ID %q", clip.Text(string(e.Got), clip.Field), e.Want)
}

// Check is what a response makes of its ID and error member, for the
// request reqID, stream results and unary responses alike: an
// *IDMismatchError when it answers another request, else rpcErr when it
// carries one, else nil.
func Check(respID json.RawMessage, reqID string, rpcErr *a2a.RPCError) error {
	if !IDMatches(respID, reqID) {
		return &IDMismatchError{Got: respID, Want: reqID}
	}
	if rpcErr != nil {
		return rpcErr
	}
	return nil
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
