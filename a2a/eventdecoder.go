package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/a2astream/a2astream/internal/jsonscan"
)

// EventDecoder decodes the stream results of one stream, each the data of
// one SSE event, with the rules of one [Codec]: what [Codec.DecodeEvent]
// reads, a bare {"task"|"message"|"statusUpdate"|"artifactUpdate": …}
// object, or a 0.3 object with a "kind". An EventDecoder is not safe for
// concurrent use.
//
// [EventDecoder.Decode] reads the results that make up almost every
// stream, artifact and status updates with text parts, with a decoder
// written for them, in one pass and with three allocations for an
// artifact update, two for the next chunk of the same artifact; it gives
// exactly what DecodeEvent gives, and leaves every other result, and any
// field or value it does not know, to encoding/json. Of one event it keeps
// for the next only the short strings (the IDs, the names, the state: not a
// part's text, nothing over 4 KiB), so that a string the next event repeats
// is given again, not copied; while a stream is idle it holds those and no
// buffer.
//
// A binding that frames each result in an object of its own, as JSON-RPC
// frames it in a response, reads the frame with its result kept raw (a
// json.RawMessage), then the result with Decode. The data of an HTTP+JSON
// "event: error" is an error body, not a result: read it with
// [ParseHTTPError].
type EventDecoder struct {
	d    dialect
	last fastLast // the short strings of the last event the fast path read
}

// NewEventDecoder returns a decoder for the stream results of c's wire.
func NewEventDecoder(c Codec) *EventDecoder {
	return &EventDecoder{d: c.dialect()}
}

// Decode decodes one stream result. data must hold exactly one JSON object,
// which white space may precede and follow; it is not retained. Nothing of
// one call's data is read by the next. It returns a *Task, *Message,
// *StatusUpdate or *ArtifactUpdate, as [Codec.DecodeEvent] does.
//
// The text of a part of an artifact or status update read by the fast
// path has memory of its own; the event's other strings share one buffer,
// but for those over 4 KiB, and those the last event had the same in their
// place, which are that event's strings: keeping one of them (an ID, a
// name) keeps the others of the event it was first read in alive, never a
// part's text and never more than 4 KiB of any one.
func (d *EventDecoder) Decode(data []byte) (Event, error) {
	s := jsonscan.New(data)
	if ev, ok := decodeFast(d.d, &s, &d.last); ok {
		return ev, nil
	}
	return d.decodeSlow(data)
}

// DecodePieces is [EventDecoder.Decode] of the text made of pieces, one
// after the other, as a big event's data comes: it gives what Decode gives
// of the pieces joined, and joins them only for a result the fast path does
// not read. So the text of a big artifact chunk is copied once, out of the
// pieces, and the pieces and the text are all the memory it takes.
func (d *EventDecoder) DecodePieces(pieces [][]byte) (Event, error) {
	s := jsonscan.NewPieces(pieces)
	if ev, ok := decodeFast(d.d, &s, &d.last); ok {
		return ev, nil
	}
	return d.decodeSlow(bytes.Join(pieces, nil))
}

// decodeSlow decodes data with encoding/json.
func (d *EventDecoder) decodeSlow(data []byte) (Event, error) {
	var w wireObject
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("a2a: decoding stream result: %w", err)
	}
	return w.event(d.d)
}
