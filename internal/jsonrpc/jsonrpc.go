package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/clip"
	"github.com/a2astream/a2astream/internal/jsonscan"
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

// ErrNotAResponse is wrapped by the errors of [DecodeResponse] and
// [StreamDecoder.Decode] for data that is not one JSON-RPC response object:
// data that is not one JSON object, or one with neither a result nor an
// error (see [Response]).
var ErrNotAResponse = errors.New("jsonrpc: not a JSON-RPC response")

// Response is a JSON-RPC 2.0 response: the one envelope of the binding, for
// unary and streamed responses alike. Result is what the result member
// decodes into: a *json.RawMessage (see [DecodeResponse]); a stream's
// decoder returns the event instead (see [StreamDecoder.Decode]).
//
// The rule for every response: one with an error member (not null) is that
// error, whatever else it holds; else one with a result that is neither
// absent nor null is that result; anything else is not a response.
type Response struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result"`
	Error  *a2a.RPCError   `json:"error"`
}

// check applies the rule of [Response] once the envelope has decoded: nil
// when the response carries an error, or a result by hasResult; else an
// error wrapping ErrNotAResponse. The error member is the caller's to
// return, after [Check] of the ID: another request's error is not this one's.
func (r *Response) check(hasResult func() bool) error {
	if r.Error == nil && !hasResult() {
		return fmt.Errorf("%w: neither result nor error", ErrNotAResponse)
	}
	return nil
}

// isResult reports whether a raw result member is there and not null.
func isResult(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// DecodeResponse decodes one unary response. It returns the response, whose
// Error is the error it carries, and its result raw (nil with an error). The
// error wraps ErrNotAResponse.
func DecodeResponse(data []byte) (*Response, json.RawMessage, error) {
	var raw json.RawMessage
	r := &Response{Result: &raw}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrNotAResponse, err)
	}
	if err := r.check(func() bool { return r.Result != nil && isResult(raw) }); err != nil {
		return nil, nil, err
	}
	if r.Error != nil {
		raw = nil
	}
	return r, raw, nil
}

// StreamDecoder decodes the responses of one JSON-RPC stream, each the data
// of one SSE event: the envelope and the stream result in one pass. It is
// not safe for concurrent use.
type StreamDecoder struct {
	dec *a2a.EventDecoder
	r   Response
}

// NewStreamDecoder returns a decoder for the stream responses of version v.
func NewStreamDecoder(v a2a.Version) *StreamDecoder {
	return &StreamDecoder{dec: a2a.NewEventDecoder(a2a.Codec{Version: v, Binding: a2a.BindingJSONRPC})}
}

// Decode decodes one response carrying a stream result. It returns the
// response, whose Error is the error it carries, and its event (nil with an
// error). The response is the decoder's, valid until the next call, and
// its ID may share data's memory: valid while data is. Its Result is not
// to be read (the event is the result; the fast path leaves it nil). The
// error wraps ErrNotAResponse for data that is not a response, and
// a2a.ErrUnknownResult for a result that is none of the four.
//
// The response of almost every event, {"jsonrpc","id","result"} with the
// result last, is read by a fast path: the envelope by a scan of its own,
// the result by [a2a.EventDecoder.Decode]. Anything else, and any response
// the fast path cannot decode, is read in two steps, as [DecodeResponse]
// reads a unary one: the envelope with its result kept raw (a member
// written twice counts as encoding/json counts it, the last one winning),
// then the result by Decode.
func (d *StreamDecoder) Decode(data []byte) (*Response, a2a.Event, error) {
	s := jsonscan.New(data)
	end := closingBrace([][]byte{data})
	if idLo, idHi, result, ok := scanEnvelope(&s, end); ok {
		if ev, err := d.dec.Decode(data[result:end]); err == nil {
			var id json.RawMessage
			if idLo >= 0 {
				id = data[idLo:idHi]
			}
			d.reset(id)
			return &d.r, ev, nil
		}
	}
	return d.decodeFrame(data)
}

// DecodePieces is [StreamDecoder.Decode] of the text made of pieces, one
// after the other, as a big event's data comes: it gives what Decode gives
// of the pieces joined. The fast path reads the pieces as they are (see
// [a2a.EventDecoder.DecodePieces]); the rest joins them. The response's ID
// has memory of its own. While it runs it cuts the first and last of the
// result's pieces in place, and puts them back before it returns.
func (d *StreamDecoder) DecodePieces(pieces [][]byte) (*Response, a2a.Event, error) {
	s := jsonscan.NewPieces(pieces)
	end := closingBrace(pieces)
	if idLo, idHi, result, ok := scanEnvelope(&s, end); ok {
		c := cutSpan(pieces, result, end)
		ev, err := d.dec.DecodePieces(c.span())
		c.restore()
		if err == nil {
			var id json.RawMessage
			if idLo >= 0 {
				c := cutSpan(pieces, idLo, idHi)
				id = bytes.Join(c.span(), nil)
				c.restore()
			}
			d.reset(id)
			return &d.r, ev, nil
		}
	}
	return d.decodeFrame(bytes.Join(pieces, nil))
}

// reset makes the decoder's response the one of a result with the given
// ID: d.r = Response{ID: id}, written member by member, and only those
// that change. Writing the whole struct zeroes it with a bulk write barrier
// over its pointers while the collector runs, on every event.
func (d *StreamDecoder) reset(id json.RawMessage) {
	d.r.ID = id
	if d.r.Result != nil {
		d.r.Result = nil
	}
	if d.r.Error != nil {
		d.r.Error = nil
	}
}

// decodeFrame is Decode for every response the fast path leaves: the
// envelope by encoding/json, with its result kept raw, then the result by
// the EventDecoder. A member written twice counts as encoding/json counts
// it, the last one winning: a result followed by another result is the
// second, one followed by "result":null is none.
func (d *StreamDecoder) decodeFrame(data []byte) (*Response, a2a.Event, error) {
	r, raw, err := DecodeResponse(data)
	if err != nil {
		return nil, nil, err
	}
	d.r = Response{ID: r.ID, Error: r.Error}
	if r.Error != nil {
		return &d.r, nil, nil
	}
	ev, err := d.dec.Decode(raw)
	switch {
	case errors.Is(err, a2a.ErrUnknownResult):
		return nil, nil, err
	case err != nil:
		return nil, nil, fmt.Errorf("%w: %w", ErrNotAResponse, err)
	}
	return &d.r, ev, nil
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
		// A copy: a decoded response's ID may share the memory of the
		// data it was read from.
		return &IDMismatchError{Got: bytes.Clone(respID), Want: reqID}
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

// DecodeVoidResponse decodes one unary response to a call whose result
// carries nothing (a delete: "result": null): the response, whose Error is
// the error it carries. A response with neither an error nor a result
// member is not a response (an error wrapping ErrNotAResponse); a result
// of any value, null included, is success, and is not kept.
func DecodeVoidResponse(data []byte) (*Response, error) {
	var w struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *a2a.RPCError   `json:"error"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotAResponse, err)
	}
	r := &Response{ID: w.ID, Error: w.Error}
	if err := r.check(func() bool { return len(w.Result) > 0 }); err != nil {
		return nil, err
	}
	return r, nil
}
