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
		d.base = len(d.data)
	}
	if d.base+d.lineLen+len(p) > d.max {
		return &TooLargeError{Limit: d.max}
	}
	d.lineLen += len(p)
	switch d.mode {
	case modeName:
		off := len(d.line)
		d.line = append(d.line, p...)
		colon := bytes.IndexByte(p, ':')
		if colon < 0 {
			return nil
		}
		colon += off
		switch {
		case colon == 0:
			d.mode = modeComment
			d.line = d.line[:0]
		case string(d.line[:colon]) == "data":
			d.mode = modeData
			d.beginData()
			d.spacePending = true
			d.appendData(d.line[colon+1:])
			d.line = d.line[:0]
		default:
			d.mode = modeValue
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
	d.data = append(d.grow(len(p)), p...)
}

// grow returns the data buffer with room for n more bytes. When it must
// grow, it at least doubles the capacity and rounds it up to a power of
// two, so that a big event arriving in many small pieces costs two to four
// times its size in allocations rather than the five or more of append's
// gentler growth for large slices. It does not go past the size limit
// unless asked to.
func (d *Decoder) grow(n int) []byte {
	need := len(d.data) + n
	if need <= cap(d.data) {
		return d.data
	}
	c := 1 << bits.Len(uint(max(2*cap(d.data), need, 512)-1))
	if c > d.max || c <= 0 {
		c = max(d.max, need)
	}
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
