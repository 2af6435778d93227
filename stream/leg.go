package stream

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/httpx"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/transport"
)

// legReadBuffer is the size of the read buffer of a streaming leg. An idle
// stream holds it for its whole life, so it is small: 1 KiB instead of 4
// saved 3 KiB per idle stream, and cost no client CPU per event that could
// be measured (within 1 % over loopback, for events of 200 bytes; +1.4 %
// for one 4 MiB event, whose line the decoder assembles either way). 512
// bytes cost 3.6 % on the 4 MiB event.
const legReadBuffer = 1 << 10

// frameDecoder turns the data of one SSE event (or a whole JSON body that
// stands in for a stream) into an event, or the error the server sent in
// its place. Each binding has its own. The data comes whole, or, for an
// SSE event of more than 16 KiB of data, in the decoder's chunks (pieces;
// data is then nil), which the binding reads without joining them (see
// sse.Event.Chunks): a big event then costs its size in chunks and its
// text's one copy, not a third copy of it in one slice.
type frameDecoder func(data []byte, pieces [][]byte) (a2a.Event, error)

// leg is one streaming call (a send or a subscribe) as the driver reads it:
// the binding's transport.EventReader, and how many events it has yielded.
type leg struct {
	r      transport.EventReader
	events int
}

// next returns the next event of the leg, io.EOF at its clean end, or the
// error the reader returned (see transport.EventReader).
func (l *leg) next() (a2a.Event, error) {
	ev, err := l.r.Next()
	if err != nil {
		return nil, err
	}
	l.events++
	return ev, nil
}

// close releases the leg. It is idempotent.
func (l *leg) close() { l.r.Close() }

// sseReader is the transport.EventReader of the HTTP bindings: one HTTP response of a
// streaming call, an SSE body or a single JSON answer standing in for one.
type sseReader struct {
	k      *call
	body   io.ReadCloser
	dec    *sse.Decoder
	frame  frameDecoder
	single a2a.Event // set when the server answered with one JSON document
	done   bool
}

// newSSEReader reads a 2xx response of a streaming call. It returns an
// error, and closes the call, when the response is not a stream it can read:
// a single JSON answer that is an error or empty, or another content type.
func (c *Client) newSSEReader(k *call, resp *http.Response, frame frameDecoder) (transport.EventReader, error) {
	l := &sseReader{k: k, body: k.body(resp), frame: frame}
	switch mt := httpx.MediaType(resp); {
	case mt == "text/event-stream":
		// A small read buffer (legReadBuffer) instead of the decoder's
		// default 64 KiB: an idle stream holds it for its whole life, and
		// longer lines are assembled by the decoder anyway.
		l.dec = sse.NewDecoder(bufio.NewReaderSize(l.body, legReadBuffer), k.cfg.maxEventSize)
		return l, nil
	case jsonType(mt):
		// A single JSON answer instead of a stream: servers answer refused
		// streaming calls this way, with HTTP 200.
		raw, err := httpx.ReadLimited(l.body, k.cfg.maxEventSize)
		l.Close()
		if err != nil {
			return nil, k.readErr(err)
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			// An empty answer is a connection that ended before its first
			// event, as an empty event stream is.
			return nil, transport.ErrEndedEarly
		}
		ev, err := frame(trimRecordSeparator(raw), nil)
		if err != nil {
			return nil, err
		}
		l.single = ev
		return l, nil
	}
	l.Close()
	return nil, contentTypeError(resp)
}

// Next returns the next event of the response, io.EOF at its clean end, or
// an error: *a2a.RPCError, *transport.ProtocolError, the parent context's error, or a
// transport error (transport.ErrIdleTimeout wrapped for an idle cut).
func (l *sseReader) Next() (a2a.Event, error) {
	if l.single != nil {
		ev := l.single
		l.single, l.done = nil, true
		return ev, nil
	}
	if l.done {
		return nil, io.EOF
	}
	e, err := l.dec.Next()
	for err == nil && keepAlive(e) {
		e, err = l.dec.Next()
	}
	if err != nil {
		return nil, l.k.readErr(err)
	}
	var ev a2a.Event
	if e.Chunks != nil {
		ev, err = l.frame(nil, trimRecordSeparatorPieces(e.Chunks))
	} else {
		ev, err = l.frame(trimRecordSeparator(e.Data), nil)
	}
	if err == nil && e.Type == "error" {
		err = &transport.ProtocolError{Reason: fmt.Sprintf("an %q frame without an error in it", "event: error")}
	}
	if err != nil {
		return nil, err
	}
	return ev, nil
}

// keepAlive reports whether an SSE event carries nothing: its data is
// empty, or white space. Some servers send "data:" alone (or "event: ping"
// with it) to keep a connection open, as others send comments; such an
// event is skipped, and brings nothing new to the stall limit. An event
// named "error" is not skipped: it must hold an error.
func keepAlive(e sse.Event) bool {
	if e.Type == "error" {
		return false
	}
	if e.Chunks != nil {
		return blankPieces(e.Chunks)
	}
	return len(bytes.TrimSpace(trimRecordSeparator(e.Data))) == 0
}

// blankPieces is keepAlive's test of data that comes in pieces: whether
// the text they make is white space around at most one record separator,
// as the test of whole data reads it.
func blankPieces(pieces [][]byte) bool {
	sep := false
	for _, p := range pieces {
		for _, c := range p {
			switch {
			case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			case c == 0x1e && !sep:
				sep = true
			default:
				return false
			}
		}
	}
	return true
}

// trimRecordSeparator drops the ASCII record separator (0x1E) that some
// servers put before each JSON text, as RFC 7464 JSON text sequences do.
func trimRecordSeparator(b []byte) []byte {
	b = trimLeftSpace(b)
	return bytes.TrimPrefix(b, []byte{0x1e})
}

// trimLeftSpace is bytes.TrimLeft(b, " \t\r\n") without building the set
// of its cutset on every call: it runs on every event.
func trimLeftSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	return b
}

// trimRecordSeparatorPieces is trimRecordSeparator of the text made of
// pieces, an event's chunks: it drops the leading pieces that hold nothing
// but white space, and cuts the first of the others in place.
func trimRecordSeparatorPieces(pieces [][]byte) [][]byte {
	for len(pieces) > 0 {
		if p := trimLeftSpace(pieces[0]); len(p) > 0 {
			pieces[0] = bytes.TrimPrefix(p, []byte{0x1e})
			return pieces
		}
		pieces = pieces[1:]
	}
	return pieces
}

// Close releases the response: stops its timer, cancels its request and
// closes the body. It is idempotent.
func (l *sseReader) Close() {
	l.k.close()
	if l.body != nil {
		l.body.Close()
	}
	l.done = true
}
