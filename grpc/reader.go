package a2agrpc

import (
	"io"

	"github.com/a2astream/a2astream/a2a"
)

// eventReader reads the events of one streaming call: each RecvMsg under
// the call's idle timer, decoded by the call's version. It is the
// transport.EventReader of SendStream and Subscribe.
type eventReader struct {
	r *rpc
	// recv reads and decodes the next event.
	recv func(*rpc) (a2a.Event, error)
	// first is an event read before the reader was returned (see
	// openStream), given by the first Next; ended says the call has ended,
	// with err (io.EOF at its clean end).
	first a2a.Event
	ended bool
	err   error
}

// Next returns the next event, io.EOF at the call's clean end (an OK
// status), or the error that ended it (see Transport).
func (e *eventReader) Next() (a2a.Event, error) {
	if ev := e.first; ev != nil {
		e.first = nil
		return ev, nil
	}
	if e.ended {
		return nil, e.err
	}
	ev, err := e.recv(e.r)
	if err != nil {
		e.ended, e.err = true, err
		return nil, err
	}
	return ev, nil
}

// Close ends the call. It is idempotent.
func (e *eventReader) Close() { e.r.close() }

// recvEvent reads one message of r into sink, whose decoder makes it an
// event; at the call's end, io.EOF or its error (see rpc.fail). A message
// that does not decode ends the call with a *transport.ProtocolError: the
// converter's, or malformed's for bytes that are no StreamResponse.
func recvEvent(r *rpc, sink *eventSink) (a2a.Event, error) {
	sink.ev, sink.err, sink.bad = nil, nil, nil
	if err := r.recv(sink); err != nil {
		if err == io.EOF {
			r.close()
			return nil, io.EOF
		}
		if sink.bad != nil {
			r.close()
			return nil, malformed(sink.bad)
		}
		return nil, r.fail(err)
	}
	r.responded = true
	ev, err := sink.ev, sink.err
	sink.ev = nil
	if err != nil {
		r.close()
		return nil, err
	}
	return ev, nil
}
