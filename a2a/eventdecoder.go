package a2a

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// EventDecoder decodes the stream results of one stream, each the data of
// one SSE event, as its binding frames them:
//
//   - over HTTP+JSON, a bare {"task"|"message"|"statusUpdate"|"artifactUpdate": …}
//     object (or the 0.3 proto-JSON form of one);
//   - over JSON-RPC, a response object, {"jsonrpc":"2.0","id":…,"result":…}
//     or {…,"error":…}, the envelope and the result read in one pass.
//
// It reads what [UnmarshalEventFor] reads for its version and binding, and
// keeps its decoding state from one event to the next, which makes it much
// cheaper than calling UnmarshalEventFor for each event. An EventDecoder is
// not safe for concurrent use.
//
// The data of an HTTP+JSON "event: error" is an error body, not a result:
// read it with [ParseHTTPError].
type EventDecoder struct {
	d    dialect
	rpc  bool // the JSON-RPC binding: each result comes in a response
	feed feeder
	dec  *json.Decoder
	w    wireObject
	env  envelope
	fed  int64 // bytes handed to dec since it was made
}

// envelope is a JSON-RPC response carrying a stream result.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Result wireObject      `json:"result"`
	Error  *RPCError       `json:"error"`
}

// feeder hands one event at a time to the json.Decoder.
type feeder struct{ b []byte }

func (f *feeder) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}

// NewEventDecoder returns a decoder for the stream results of version v
// over binding b (see [UnmarshalEventFor]).
func NewEventDecoder(v Version, b Binding) *EventDecoder {
	d := &EventDecoder{}
	d.d, _ = dialectOf(v, b)
	d.rpc = b == BindingJSONRPC
	d.dec = json.NewDecoder(&d.feed)
	return d
}

// ErrNotAResponse is wrapped by the errors of [EventDecoder.Decode], over
// JSON-RPC, for data that is not one JSON-RPC response object.
var ErrNotAResponse = errors.New("a2a: not a JSON-RPC response")

// Decode decodes one stream result. data must hold exactly one JSON object;
// it is not retained. It returns a *Task, *Message, *StatusUpdate or
// *ArtifactUpdate.
//
// Over JSON-RPC, a response that carries an error is returned as that
// *RPCError, and data that is not a response object as an error wrapping
// [ErrNotAResponse]; [EventDecoder.ResponseID] then tells which request the
// response answers.
func (d *EventDecoder) Decode(data []byte) (Event, error) {
	if d.rpc {
		d.env = envelope{}
		if err := d.decode(data, &d.env); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotAResponse, err)
		}
		if d.env.Error != nil {
			return nil, d.env.Error
		}
		ev, err := d.env.Result.event(d.d)
		if err != nil && !hasResult(data) {
			// Not an unknown result: no result at all (a bare result, a
			// request, {}, null, or "result": null).
			return nil, fmt.Errorf("%w: neither result nor error", ErrNotAResponse)
		}
		return ev, err
	}
	d.w = wireObject{}
	if err := d.decode(data, &d.w); err != nil {
		return nil, fmt.Errorf("a2a: decoding stream result: %w", err)
	}
	return d.w.event(d.d)
}

// ResponseID returns the id member of the last JSON-RPC response decoded,
// as sent (a JSON string, number or null), or nil when it had none or did
// not decode. It is always nil over HTTP+JSON.
func (d *EventDecoder) ResponseID() json.RawMessage { return d.env.ID }

// decode reads the one JSON object in data into v.
func (d *EventDecoder) decode(data []byte, v any) error {
	if len(data) > bigResponse {
		// A big event is decoded in place: going through the json.Decoder
		// would copy it into a buffer that then stays as large.
		return json.Unmarshal(data, v)
	}
	d.feed.b = data
	d.fed += int64(len(data))
	if err := d.dec.Decode(v); err != nil {
		d.reset()
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	// Only white space may follow the object: the decoder must not carry
	// anything over into the next event.
	if rest := d.fed - d.dec.InputOffset(); rest > 0 && !blank(data[int64(len(data))-rest:]) {
		d.reset()
		return errors.New("data after the object")
	}
	return nil
}

// hasResult reports whether data, a JSON object, has a result member that
// is not null. Decode asks only when the result did not decode, so the
// second read costs nothing on the way of a good stream.
func hasResult(data []byte) bool {
	var probe struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	return len(probe.Result) > 0 && string(probe.Result) != "null"
}

// bigResponse is the size above which Decode unmarshals in place.
const bigResponse = 64 << 10

// reset drops a decoder left in an error state.
func (d *EventDecoder) reset() {
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
