package sse

import (
	"bytes"
	"math/bits"
)

// lineMode tells what the decoder is doing with a line that arrives in more
// than one piece.
type lineMode uint8

const (
	// modeName: no colon seen yet; the bytes are kept in Decoder.line.
	modeName lineMode = iota
	// modeValue: a field other than data; the whole line is kept in
	// Decoder.line and parsed when it ends.
	modeValue
	// modeData: a data field; the value goes straight into Decoder.data.
	modeData
	// modeComment: a comment; the bytes are counted and dropped.
	modeComment
)

// appendPartial takes the next piece of a line whose end is not in the
// buffer yet (or, when the line is already partial, its last piece).
func (d *Decoder) appendPartial(p []byte) error {
	if !d.partial {
		d.partial = true
		d.mode = modeName
		d.line = d.line[:0]
		d.lineLen = 0
		d.base = d.dataLen()
	}
	if d.base+d.lineLen+len(p) > d.max {
		return &TooLargeError{Limit: d.max}
	}
	d.lineLen += len(p)
	switch d.mode {
	case modeName:
		// Only the name goes into line until the field is known: a data
		// field's value goes straight to data, so a big first piece of it
		// does not stay behind as line's capacity.
		colon := bytes.IndexByte(p, ':')
		if colon < 0 {
			d.line = append(d.line, p...)
			return nil
		}
		d.line = append(d.line, p[:colon]...)
		switch {
		case len(d.line) == 0:
			d.mode = modeComment
		case string(d.line) == "data":
			d.mode = modeData
			d.line = d.line[:0]
			d.beginData()
			d.spacePending = true
			d.appendData(p[colon+1:])
		default:
			d.mode = modeValue
			d.line = append(d.line, p[colon:]...)
		}
	case modeValue:
		d.line = append(d.line, p...)
	case modeData:
		d.appendData(p)
	}
	return nil
}

// appendData adds part of a data field's value to the data buffer,
// dropping the one space that may open the value.
func (d *Decoder) appendData(p []byte) {
	if d.spacePending && len(p) > 0 {
		d.spacePending = false
		if p[0] == ' ' {
			p = p[1:]
		}
	}
	d.write(p)
}

// dataLen returns the length of the event's data so far.
func (d *Decoder) dataLen() int { return d.chunked + len(d.data) }

// write appends p to the event's data.
func (d *Decoder) write(p []byte) {
	if len(p) <= cap(d.data)-len(d.data) {
		d.data = append(d.data, p...)
		return
	}
	d.writeSlow(p)
}

// writeByte appends c to the event's data.
func (d *Decoder) writeByte(c byte) {
	if len(d.data) < cap(d.data) {
		d.data = append(d.data, c)
		return
	}
	d.writeSlow([]byte{c})
}

// writeSlow is write when p does not fit in the data buffer. Below the
// chunk size the buffer grows (see grow); at the chunk size it is full,
// joins the chunks, and a new chunk takes its place: the data of a big
// event is never copied, and leaves no garbage as it grows.
func (d *Decoder) writeSlow(p []byte) {
	for {
		room := cap(d.data) - len(d.data)
		if len(p) <= room {
			d.data = append(d.data, p...)
			return
		}
		if cap(d.data) < d.chunk {
			d.data = d.grow(len(p))
			continue
		}
		d.data = append(d.data, p[:room]...)
		p = p[room:]
		d.chunks = append(d.chunks, d.data)
		d.chunked += len(d.data)
		d.data = make([]byte, 0, d.chunk)
	}
}

// grow returns the data buffer with room for n more bytes, or as much as
// a chunk holds. When it must grow, it at least doubles the capacity and
// rounds it up to a power of two, so that an event arriving in many small
// pieces costs at most twice its size in allocations. It does not go past
// the size limit unless asked to, nor past the chunk size.
func (d *Decoder) grow(n int) []byte {
	need := len(d.data) + n
	c := 1 << bits.Len(uint(max(2*cap(d.data), need, 512)-1))
	if c > d.max || c <= 0 {
		c = max(d.max, need)
	}
	c = min(c, d.chunk)
	b := make([]byte, len(d.data), c)
	copy(b, d.data)
	return b
}

// finishPartial completes a line that arrived in more than one piece. Such
// a line is never blank, so it never ends a block.
func (d *Decoder) finishPartial() {
	switch d.mode {
	case modeName, modeValue:
		d.processLine(d.line)
	}
	d.partial = false
	d.line = d.line[:0]
}
