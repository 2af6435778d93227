package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"time"
)

// DefaultMaxEventSize is the size limit, in bytes, that [NewDecoder] uses
// when it is given a limit of zero or less: 16 MiB.
const DefaultMaxEventSize = 16 << 20

// dataChunkSize is the size of the chunks that hold the data of an event
// bigger than one chunk. Up to that size the data buffer grows by doubling,
// as a small event needs; past it, each new chunk of data goes into a chunk
// of its own, no byte is copied again while the event grows, and the event
// is handed out in its chunks (Event.Chunks). It is small so that a big
// event's memory is its size and not much more: the last chunk's free room
// and the first one's growth are at most a chunk each.
const dataChunkSize = 16 << 10

// readBufferSize is the size of the bufio.Reader that NewDecoder puts in
// front of a reader that is not one already.
const readBufferSize = 64 << 10

// utf8BOM is the byte order mark that may open a stream, and only a stream.
const utf8BOM = "\xEF\xBB\xBF"

// errNilReader is returned by Next on a decoder built around a nil reader.
var errNilReader = errors.New("sse: nil reader")

// Event is one dispatched server-sent event.
//
// Data, Chunks and ID alias buffers owned by the [Decoder]. They stay valid
// only until the next call to [Decoder.Next]; copy them to keep them longer.
type Event struct {
	// Type is the value of the block's event field, or "" when the block
	// had none. The common values "message" and "error" do not allocate.
	Type string

	// Data is the block's data lines joined with "\n", for an event of up
	// to 16 KiB of data. It is empty, not missing, for a block whose only
	// data line had an empty value. It is nil for a bigger event, whose
	// data is in Chunks.
	Data []byte

	// Chunks holds the data of an event of more than 16 KiB of data, in
	// pieces, one after the other, in the chunks the decoder read it into:
	// a big event is never copied into one slice (bytes.Join(Chunks, nil)
	// does that). It is nil for a smaller event.
	Chunks [][]byte

	// ID is the last event ID of the stream. As the SSE specification
	// says, it carries over from earlier events until an id field changes
	// it; an id field with an empty value resets it to empty, and an id
	// field whose value contains a NUL byte is ignored.
	ID []byte

	// Retry is the reconnection delay the server asked for in this event's
	// block, with a retry field made only of ASCII digits (milliseconds).
	// It is zero when the block had no such field.
	Retry time.Duration
}

// Decoder reads server-sent events from a text/event-stream body, following
// the event stream interpretation rules of the WHATWG HTML specification.
//
// The decoder needs time linear in the size of the stream, and once its
// buffers have grown to fit the events it sees, [Decoder.Next] does not
// allocate. It starts no goroutines.
//
// A Decoder is not safe for concurrent use.
type Decoder struct {
	r   *bufio.Reader
	max int

	err  error // returned by every call to Next once set
	rerr error // read error met while looking for a BOM, kept for later

	bomDone bool // the start of the stream has been checked for a BOM
	skipLF  bool // the last line ended with a CR that was the last buffered byte

	// The position of the next LF in the unread part of r's buffer, so
	// that streams with CR line endings are not scanned again and again
	// for an LF that is not there. lf is -1 when the buffer holds none.
	lfKnown bool
	lf      int

	// The event being built. Its data is the full chunks of chunks, then
	// data: an event of up to chunk bytes lives in data alone (see
	// dataChunkSize). chunked is the bytes in chunks.
	data    []byte
	chunks  [][]byte
	chunked int
	chunk   int  // the chunk size: dataChunkSize, smaller in tests
	hasData bool // the block had at least one data field
	open    bool // the block had at least one field
	typ     []byte
	retry   time.Duration

	id       []byte // last event ID buffer; outlives blocks
	lastType string // last event type that was not interned, for reuse

	// A line that arrives in more than one piece.
	partial      bool
	mode         lineMode
	line         []byte
	lineLen      int  // bytes of the line read so far, without its end
	base         int  // len(data) when the line started
	spacePending bool // modeData: the value's first byte has not been seen
}

// NewDecoder returns a decoder that reads events from r. Unless r is a
// *bufio.Reader already, the decoder reads through a bufio.Reader of 64 KiB.
//
// maxEventSize bounds, in bytes, the data of one event plus the line being
// read, so it also bounds any single line. A value of zero or less means
// [DefaultMaxEventSize].
func NewDecoder(r io.Reader, maxEventSize int) *Decoder {
	if maxEventSize <= 0 {
		maxEventSize = DefaultMaxEventSize
	}
	d := &Decoder{max: maxEventSize, chunk: dataChunkSize}
	if r == nil {
		d.err = errNilReader
		return d
	}
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, readBufferSize)
	}
	d.r = br
	return d
}

// Next reads up to the end of the next event and returns it. The event's
// Data and ID are valid only until the following call to Next.
//
// Next returns the first of these errors that applies:
//   - io.EOF when the stream ends between events, including a stream that
//     held only comments and blank lines;
//   - io.ErrUnexpectedEOF when the stream ends inside an event or inside a
//     line; the unfinished event is dropped, never returned;
//   - a [*TooLargeError], matching [ErrTooLarge], as soon as one event would
//     grow past the limit given to [NewDecoder]; nothing more is read;
//   - any other error from the reader, as it is; an unfinished event is
//     dropped.
//
// Once Next has returned an error, it returns the same error on every call.
//
// A typical loop:
//
//	dec := sse.NewDecoder(resp.Body, 0)
//	for {
//		ev, err := dec.Next()
//		if err == io.EOF {
//			break
//		}
//		if err != nil {
//			return err
//		}
//		handle(ev.Type, ev.Data) // copy ev.Data to keep it
//	}
func (d *Decoder) Next() (Event, error) {
	if d.err != nil {
		return Event{}, d.err
	}
	if !d.bomDone {
		d.stripBOM()
	}
	for {
		buf, err := d.fill()
		if err != nil {
			return Event{}, d.fail(d.endError(err))
		}
		if d.skipLF {
			d.skipLF = false
			if buf[0] == '\n' {
				d.consume(1)
				continue
			}
		}
		i := d.findEOL(buf)
		if i < 0 {
			if err := d.appendPartial(buf); err != nil {
				return Event{}, d.fail(err)
			}
			d.consume(len(buf))
			continue
		}
		n := i + 1
		if buf[i] == '\r' {
			switch {
			case i+1 == len(buf):
				d.skipLF = true
			case buf[i+1] == '\n':
				n++
			}
		}
		if d.partial {
			if err := d.appendPartial(buf[:i]); err != nil {
				return Event{}, d.fail(err)
			}
			d.finishPartial()
			d.consume(n)
			continue
		}
		if d.dataLen()+i > d.max {
			return Event{}, d.fail(&TooLargeError{Limit: d.max})
		}
		dispatch := d.processLine(buf[:i])
		d.consume(n)
		if dispatch {
			return d.event(), nil
		}
	}
}

// fail records err as the decoder's final error and returns it.
func (d *Decoder) fail(err error) error {
	d.err = err
	return err
}

// endError turns the error that stopped the reader into the error Next
// reports.
func (d *Decoder) endError(err error) error {
	if err == io.EOF && (d.partial || d.open) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// stripBOM drops a UTF-8 byte order mark at the start of the stream. It
// waits for more bytes only while those seen so far could start a BOM, and
// such bytes can never complete an event, so no event is held back.
func (d *Decoder) stripBOM() {
	d.bomDone = true
	for n := 1; n <= len(utf8BOM); n++ {
		b, err := d.r.Peek(n)
		if len(b) < n {
			// bufio hands a read error out only once; keep it until the
			// buffered bytes have been parsed.
			d.rerr = err
			return
		}
		if b[n-1] != utf8BOM[n-1] {
			return
		}
	}
	d.consume(len(utf8BOM))
}

// fill returns the unread bytes in the buffer, reading more only when there
// are none. The returned slice is never empty when err is nil.
func (d *Decoder) fill() ([]byte, error) {
	n := d.r.Buffered()
	if n == 0 {
		if d.rerr != nil {
			return nil, d.rerr
		}
		d.lfKnown = false
		if _, err := d.r.Peek(1); err != nil {
			return nil, err
		}
		n = d.r.Buffered()
	}
	buf, _ := d.r.Peek(n) // n bytes are buffered, so this cannot fail
	return buf, nil
}

// consume drops n bytes from the front of the buffer.
func (d *Decoder) consume(n int) {
	_, _ = d.r.Discard(n) // n bytes are buffered, so this cannot fail
	if d.lfKnown && d.lf >= 0 {
		d.lf -= n
		if d.lf < 0 {
			d.lfKnown = false
		}
	}
}

// findEOL returns the index in buf of the first CR or LF, or -1.
func (d *Decoder) findEOL(buf []byte) int {
	if !d.lfKnown {
		d.lf = bytes.IndexByte(buf, '\n')
		d.lfKnown = true
	}
	end := d.lf
	if end < 0 {
		end = len(buf)
	}
	if cr := bytes.IndexByte(buf[:end], '\r'); cr >= 0 {
		return cr
	}
	return d.lf
}
