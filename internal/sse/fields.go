package sse

import (
	"bytes"
	"math"
	"time"
)

// processLine interprets one complete line, without its end. It reports
// whether the line ended a block that must be dispatched.
func (d *Decoder) processLine(l []byte) bool {
	if len(l) == 0 {
		return d.endBlock()
	}
	if l[0] == ':' {
		return false
	}
	colon := bytes.IndexByte(l, ':')
	if colon < 0 {
		d.field(l, nil)
		return false
	}
	value := l[colon+1:]
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	d.field(l[:colon], value)
	return false
}

// field applies one field to the event being built.
func (d *Decoder) field(name, value []byte) {
	d.open = true
	switch string(name) {
	case "data":
		d.beginData()
		d.write(value)
	case "event":
		d.typ = append(d.typ[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			d.id = append(d.id[:0], value...)
		}
	case "retry":
		if r, ok := parseRetry(value); ok {
			d.retry = r
		}
	}
}

// beginData starts a new data line in the data buffer.
func (d *Decoder) beginData() {
	d.open = true
	if d.hasData {
		d.writeByte('\n')
	}
	d.hasData = true
}

// endBlock handles a blank line. It reports whether the block is to be
// dispatched; if not, it forgets the block.
func (d *Decoder) endBlock() bool {
	dispatch := d.hasData
	d.open = false
	d.hasData = false
	if !dispatch {
		d.resetBlock()
	}
	return dispatch
}

// resetBlock empties the per-event buffers. The last event ID is kept.
func (d *Decoder) resetBlock() {
	d.data = d.data[:0]
	d.typ = d.typ[:0]
	d.retry = 0
}

// event returns the event that has just been completed and prepares the
// buffers for the next one. The returned slices keep pointing at the
// buffers, which are overwritten only by the next call to Next.
func (d *Decoder) event() Event {
	ev := Event{
		Type:  d.eventType(),
		ID:    d.id[:len(d.id):len(d.id)],
		Retry: d.retry,
	}
	if len(d.chunks) == 0 {
		ev.Data = d.data[:len(d.data):len(d.data)]
	} else {
		// The chunks go with the event. Only the first is kept, as the
		// data buffer of the next: a stream holds no more than a chunk
		// once a big event is behind it.
		ev.Chunks = append(d.chunks, d.data[:len(d.data):len(d.data)])
		d.data = ev.Chunks[0][:0]
		d.chunks, d.chunked = nil, 0
	}
	d.resetBlock()
	return ev
}

// eventType returns the event type buffer as a string without allocating
// for the usual values or for a value equal to the previous one.
func (d *Decoder) eventType() string {
	switch string(d.typ) {
	case "":
		return ""
	case "message":
		return "message"
	case "error":
		return "error"
	}
	if string(d.typ) != d.lastType {
		d.lastType = string(d.typ)
	}
	return d.lastType
}

// parseRetry parses a retry field's value: ASCII digits only, read as
// milliseconds. Values too large for a time.Duration saturate.
func parseRetry(v []byte) (time.Duration, bool) {
	if len(v) == 0 {
		return 0, false
	}
	const maxMillis = math.MaxInt64 / int64(time.Millisecond)
	var ms int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		if ms <= maxMillis {
			ms = ms*10 + int64(c-'0')
		}
	}
	if ms > maxMillis {
		return math.MaxInt64, true
	}
	return time.Duration(ms) * time.Millisecond, true
}
