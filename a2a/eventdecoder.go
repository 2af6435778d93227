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
}

// envelope is a JSON-RPC response carrying a stream result.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Result wireObject      `json:"result"`
	Error  *RPCError       `json:"error"`
}

// feeder hands one event at a time to the json.Decoder, and counts the
// bytes the decoder has taken from it.
type feeder struct {
	b    []byte
	read int64 // bytes read since the decoder was made
}

func (f *feeder) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	f.read += int64(n)
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

// Decode decodes one stream result. data must hold exactly one JSON object,
// which white space may precede and follow; it is not retained. Nothing of
// one call's data is read by the next. It returns a *Task, *Message,
// *StatusUpdate or *ArtifactUpdate.
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
//
// The json.Decoder reads ahead: it may stop reading from the feeder before
// the end of an event, or keep bytes it has read but not used in its buffer.
// Either would carry bytes of one event into the next. So the decoder is
// given the event without its trailing white space, which JSON allows and
// which means nothing, and must take every byte of that: the object then
// ends the event exactly, the feeder is empty and the buffer fully used.
// Anything else is data after the object, and the decoder starts afresh.
func (d *EventDecoder) decode(data []byte, v any) error {
	if len(data) > bigResponse {
		// A big event is decoded in place: going through the json.Decoder
		// would copy it into a buffer that then stays as large.
		return json.Unmarshal(data, v)
	}
	d.feed.b = trimBlankRight(data)
	if err := d.dec.Decode(v); err != nil {
		d.reset()
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if len(d.feed.b) > 0 || d.dec.InputOffset() != d.feed.read {
		d.reset()
		return errors.New("data after the object")
	}
	d.feed.b = nil // data is not retained
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

// reset drops a decoder left in an error state, or holding bytes of an
// event it did not use.
func (d *EventDecoder) reset() {
	d.feed = feeder{}
	d.dec = json.NewDecoder(&d.feed)
}

// trimBlankRight returns b without the JSON white space at its end.
func trimBlankRight(b []byte) []byte {
	for len(b) > 0 {
		switch b[len(b)-1] {
		case ' ', '\t', '\n', '\r':
			b = b[:len(b)-1]
		default:
			return b
		}
	}
	return b
}
