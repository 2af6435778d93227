package a2a

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// EventDecoder decodes the stream results of one HTTP+JSON stream: the data
// of each SSE event, a bare {"task"|"message"|"statusUpdate"|"artifactUpdate": …}
// object without a JSON-RPC envelope. It reads what [UnmarshalEventFor]
// reads for its version and binding, and keeps its decoding state from one
// event to the next, as [ResponseDecoder] does, which makes it much cheaper
// than calling UnmarshalEventFor for each event. An EventDecoder is not safe
// for concurrent use.
//
// The data of an "event: error" is an error body, not a result: read it
// with [ParseHTTPError].
type EventDecoder struct {
	d    dialect
	feed feeder
	dec  *json.Decoder
	w    wireObject
	fed  int64 // bytes handed to dec since it was made
}

// NewEventDecoder returns a decoder for the stream results of version v
// over binding b (see [UnmarshalEventFor]).
func NewEventDecoder(v Version, b Binding) *EventDecoder {
	d := &EventDecoder{}
	d.d, _ = dialectOf(v, b)
	d.dec = json.NewDecoder(&d.feed)
	return d
}

// Decode decodes one stream result. data must hold exactly one JSON object;
// it is not retained. It returns a *Task, *Message, *StatusUpdate or
// *ArtifactUpdate.
func (d *EventDecoder) Decode(data []byte) (Event, error) {
	d.w = wireObject{}
	if len(data) > bigResponse {
		// A big event is decoded in place: going through the json.Decoder
		// would copy it into a buffer that then stays as large.
		if err := json.Unmarshal(data, &d.w); err != nil {
			return nil, fmt.Errorf("a2a: decoding stream result: %w", err)
		}
		return d.w.event(d.d)
	}
	d.feed.b = data
	d.fed += int64(len(data))
	if err := d.dec.Decode(&d.w); err != nil {
		d.reset()
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("a2a: decoding stream result: %w", err)
	}
	// Only white space may follow the object: the decoder must not carry
	// anything over into the next event.
	if rest := d.fed - d.dec.InputOffset(); rest > 0 && !blank(data[int64(len(data))-rest:]) {
		d.reset()
		return nil, errors.New("a2a: decoding stream result: data after the object")
	}
	return d.w.event(d.d)
}

// reset drops a decoder left in an error state.
func (d *EventDecoder) reset() {
	d.feed.b, d.fed = nil, 0
	d.dec = json.NewDecoder(&d.feed)
}
