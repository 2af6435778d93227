package a2a

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Response is one decoded JSON-RPC response of a stream: either a result
// event or an error.
type Response struct {
	// ID is the response's id member as sent (a JSON string, number or
	// null), or empty when absent.
	ID json.RawMessage
	// Event is the result, when the response carries one.
	Event Event
	// Error is the JSON-RPC error, when the response carries one.
	Error *RPCError
}

// ResponseDecoder decodes the JSON-RPC responses of one stream, each holding a
// stream result of either version, in a single pass. It keeps its decoding
// state from one response to the next, which makes it much cheaper than
// decoding the envelope and the result separately. A ResponseDecoder is not
// safe for concurrent use.
type ResponseDecoder struct {
	feed feeder
	dec  *json.Decoder
	env  envelope
	fed  int64 // bytes handed to dec since it was made
}

type envelope struct {
	ID     json.RawMessage `json:"id"`
	Result wireObject      `json:"result"`
	Error  *wireError      `json:"error"`
}

type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// feeder hands one response at a time to the json.Decoder.
type feeder struct{ b []byte }

func (f *feeder) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}

// NewResponseDecoder returns a decoder for the responses of one stream.
func NewResponseDecoder() *ResponseDecoder {
	d := &ResponseDecoder{}
	d.dec = json.NewDecoder(&d.feed)
	return d
}

// ErrNotAResponse is wrapped by the errors of ResponseDecoder.Decode for
// data that is not one JSON-RPC response object.
var ErrNotAResponse = errors.New("a2a: not a JSON-RPC response")

// Decode decodes one response. data must hold exactly one JSON object; it
// is not retained.
func (d *ResponseDecoder) Decode(data []byte) (Response, error) {
	if len(data) > bigResponse {
		// A big event is decoded in place: going through the json.Decoder
		// would copy it into a buffer that then stays as large.
		d.env = envelope{}
		if err := json.Unmarshal(data, &d.env); err != nil {
			return Response{}, fmt.Errorf("%w: %w", ErrNotAResponse, err)
		}
		return d.env.response()
	}
	d.feed.b = data
	d.fed += int64(len(data))
	d.env = envelope{}
	if err := d.dec.Decode(&d.env); err != nil {
		d.reset()
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return Response{}, fmt.Errorf("%w: %w", ErrNotAResponse, err)
	}
	// Only white space may follow the object: the decoder must not carry
	// anything over into the next response.
	if rest := d.fed - d.dec.InputOffset(); rest > 0 && !blank(data[int64(len(data))-rest:]) {
		d.reset()
		return Response{}, fmt.Errorf("%w: data after the response object", ErrNotAResponse)
	}
	return d.env.response()
}

// bigResponse is the size above which Decode unmarshals in place.
const bigResponse = 64 << 10

func (e *envelope) response() (Response, error) {
	r := Response{ID: e.ID}
	if e.Error != nil {
		r.Error = &RPCError{Code: e.Error.Code, Message: e.Error.Message, Data: e.Error.Data}
		return r, nil
	}
	ev, err := e.Result.event(dialectRPC)
	if err != nil {
		return Response{}, err
	}
	r.Event = ev
	return r, nil
}

// reset drops a decoder left in an error state.
func (d *ResponseDecoder) reset() {
	d.feed.b, d.fed = nil, 0
	d.dec = json.NewDecoder(&d.feed)
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}
