package a2a

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// EventDecoder decodes the stream results of one stream, each the data of
// one SSE event, with the rules of one [Codec]: what [Codec.DecodeEvent]
// reads, a bare {"task"|"message"|"statusUpdate"|"artifactUpdate": …}
// object, or a 0.3 object with a "kind". It keeps its decoding state from
// one event to the next, which makes it much cheaper than calling
// DecodeEvent for each event. An EventDecoder is not safe for concurrent
// use.
//
// [EventDecoder.Decode] reads the results that make up almost every
// stream, artifact and status updates with text parts, with a decoder
// written for them, in one pass and with three allocations for an
// artifact update; it gives exactly what DecodeEvent gives, and leaves every other
// result, and any field or value it does not know, to encoding/json.
//
// A binding that frames each result in an object of its own, as JSON-RPC
// frames it in a response, reads the frame and the result in one pass with
// [EventDecoder.DecodeFrame]. The data of an HTTP+JSON "event: error" is an
// error body, not a result: read it with [ParseHTTPError].
type EventDecoder struct {
	d    dialect
	feed feeder
	dec  *json.Decoder
	w    wireObject
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

// NewEventDecoder returns a decoder for the stream results of c's wire.
func NewEventDecoder(c Codec) *EventDecoder {
	d := &EventDecoder{d: c.dialect()}
	d.dec = json.NewDecoder(&d.feed)
	return d
}

// Decode decodes one stream result. data must hold exactly one JSON object,
// which white space may precede and follow; it is not retained. Nothing of
// one call's data is read by the next. It returns a *Task, *Message,
// *StatusUpdate or *ArtifactUpdate, as [Codec.DecodeEvent] does.
//
// The text of a part of an artifact or status update read by the fast
// path has memory of its own; the event's other strings share one buffer,
// but for those over 4 KiB: keeping one of them (an ID, a name) keeps the
// others alive, never a part's text and never more than 4 KiB of any one.
func (d *EventDecoder) Decode(data []byte) (Event, error) {
	if ev, ok := decodeFast(d.d, data); ok {
		return ev, nil
	}
	d.w = wireObject{}
	if err := d.decode(data, &d.w); err != nil {
		return nil, fmt.Errorf("a2a: decoding stream result: %w", err)
	}
	return d.w.event(d.d)
}

// A Frame is an object that a binding wraps around each stream result, with
// members of its own, as a JSON-RPC response holds its result beside its id
// and error. [EventDecoder.DecodeFrame] reads a frame and the result it
// holds in one pass. This package defines no frame: a binding does.
type Frame interface {
	// Target returns the pointer that encoding/json decodes the frame's
	// data into, once the frame has set the member that holds its result
	// (a field of type any) to result. encoding/json then decodes the
	// result into result itself, or sets the field to nil when the result
	// is null.
	Target(result any) any
}

// DecodeFrame decodes data, one frame holding one stream result, into f and
// the result, in one pass, as [EventDecoder.Decode] decodes a bare result.
// It returns an error wrapping [ErrUnknownResult] when the frame decoded
// but holds none of the four results (none at all included: its member is
// absent or null), which the binding may judge by the frame's other
// members; any other error means that data did not decode into the frame.
func (d *EventDecoder) DecodeFrame(data []byte, f Frame) (Event, error) {
	d.w = wireObject{}
	if err := d.decode(data, f.Target(&d.w)); err != nil {
		return nil, fmt.Errorf("a2a: decoding a frame: %w", err)
	}
	return d.w.event(d.d)
}

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
