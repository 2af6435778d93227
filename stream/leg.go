package stream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/jsonrpc"
	"github.com/a2astream/a2astream/internal/sse"
)

type operation int

const (
	opStream operation = iota
	opSubscribe
	opGet
	opCancel
)

// method returns the JSON-RPC method name of op in version v.
func (op operation) method(v a2a.Version) string {
	if v == a2a.V03 {
		return [...]string{"message/stream", "tasks/resubscribe", "tasks/get", "tasks/cancel"}[op]
	}
	return [...]string{"SendStreamingMessage", "SubscribeToTask", "GetTask", "CancelTask"}[op]
}

type idParams struct {
	ID     string `json:"id"`
	Tenant string `json:"tenant,omitempty"`
}

func taskParams(taskID, tenant string) func(a2a.Version) (any, error) {
	return func(v a2a.Version) (any, error) {
		p := idParams{ID: taskID}
		if v == a2a.V10 {
			p.Tenant = tenant
		}
		return p, nil
	}
}

type sendParams struct {
	Message json.RawMessage `json:"message"`
	Tenant  string          `json:"tenant,omitempty"`
}

func messageParams(m *a2a.Message, tenant string) func(a2a.Version) (any, error) {
	return func(v a2a.Version) (any, error) {
		raw, err := a2a.MarshalMessage(v, m)
		if err != nil {
			return nil, err
		}
		p := sendParams{Message: raw}
		if v == a2a.V10 {
			p.Tenant = tenant
		}
		return p, nil
	}
}

// legReadBuffer is the size of the read buffer of a streaming leg.
const legReadBuffer = 4 << 10

// errIdle is the cancel cause of a leg whose idle timer fired.
var errIdle = errors.New("idle")

// leg is one HTTP response of a streaming call: an SSE body, or a single
// JSON-RPC response standing in for one.
type leg struct {
	reqID  string
	body   io.ReadCloser
	dec    *sse.Decoder
	rdec   *a2a.ResponseDecoder
	single a2a.Event // set when the server answered with one JSON result
	ctx    context.Context
	cancel context.CancelCauseFunc
	idle   *time.Timer
	parent context.Context
	events int
	done   bool
}

// post sends one JSON-RPC request. It returns the response with its body
// open and a 2xx status, or an error: a *HTTPError for any other status, the
// parent context's error when it is done, ErrIdleTimeout (wrapped) when the
// idle timer fired, or the transport's error.
func (c *Client) post(ctx, parent context.Context, v a2a.Version, op operation, params func(a2a.Version) (any, error), accept string) (*http.Response, string, error) {
	p, err := params(v)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrInvalidMessage, err)
	}
	id := uuid.NewString()
	body, err := json.Marshal(jsonrpc.NewRequest(id, op.method(v), p))
	if err != nil {
		return nil, "", fmt.Errorf("%w: encoding the request: %w", ErrInvalidMessage, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, "", fmt.Errorf("stream: building request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if v == a2a.V10 {
		req.Header.Set("A2A-Version", string(a2a.V10))
	}
	addHeaders(req, c.origin, c.cfg.header)
	resp, err := c.httpc.Do(req)
	if err != nil {
		return nil, "", transportError(ctx, parent, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		return nil, "", &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status, Header: resp.Header, Body: b}
	}
	return resp, id, nil
}

// transportError maps an error from the transport: the caller's context
// error when it is done, ErrIdleTimeout when the idle timer cut the request.
func transportError(ctx, parent context.Context, err error) error {
	if perr := parent.Err(); perr != nil {
		return perr
	}
	if context.Cause(ctx) == errIdle {
		return fmt.Errorf("%w: %w", ErrIdleTimeout, err)
	}
	return err
}

// openLeg starts a streaming call (send or subscribe).
func (c *Client) openLeg(parent context.Context, v a2a.Version, op operation, params func(a2a.Version) (any, error)) (*leg, error) {
	ctx, cancel := context.WithCancelCause(parent)
	l := &leg{ctx: ctx, cancel: cancel, parent: parent}
	if d := c.cfg.idleTimeout; d > 0 {
		l.idle = time.AfterFunc(d, func() { cancel(errIdle) })
	}
	resp, id, err := c.post(ctx, parent, v, op, params, "text/event-stream")
	if err != nil {
		l.close()
		return nil, err
	}
	l.reqID = id
	body := io.ReadCloser(resp.Body)
	if l.idle != nil {
		l.idle.Stop()
		body = &idleReader{ReadCloser: resp.Body, timer: l.idle, d: c.cfg.idleTimeout}
	}
	l.body = body
	switch mt := mediaType(resp); {
	case mt == "text/event-stream":
		// A 4 KiB read buffer instead of the decoder's default 64 KiB: an
		// idle stream holds it for its whole life, and longer lines are
		// assembled by the decoder anyway.
		l.dec = sse.NewDecoder(bufio.NewReaderSize(body, legReadBuffer), c.cfg.maxEventSize)
		l.rdec = a2a.NewResponseDecoder()
		return l, nil
	case jsonType(mt):
		// A single JSON-RPC response instead of a stream: servers answer
		// refused streaming calls this way, with HTTP 200.
		raw, err := readLimited(body, c.cfg.maxEventSize)
		l.close()
		if err != nil {
			return nil, l.mapErr(err)
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			// An empty answer is a connection that ended before its first
			// event, as an empty event stream is.
			return nil, ErrEndedEarly
		}
		ev, err := decodeEvent(a2a.NewResponseDecoder(), raw, id)
		if err != nil {
			return nil, err
		}
		l.single = ev
		return l, nil
	}
	l.close()
	return nil, contentTypeError(resp)
}

func mediaType(resp *http.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt
}

// jsonType reports the media types a single JSON-RPC response comes in:
// a2a-go's unary answers are text/plain (net/http's sniffing).
func jsonType(mt string) bool {
	return mt == "application/json" || mt == "text/plain" || mt == "application/a2a+json"
}

func contentTypeError(resp *http.Response) error {
	return &ProtocolError{Reason: fmt.Sprintf("unexpected content type %q", quote([]byte(resp.Header.Get("Content-Type"))))}
}

// isTooLarge reports an event or body over the size limit.
func isTooLarge(err error) bool {
	var tooLarge *sse.TooLargeError
	return errors.As(err, &tooLarge) || errors.Is(err, errTooLarge)
}

// quote cuts server data quoted in an error text to a readable length.
func quote(b []byte) string {
	const limit = 64
	if len(b) <= limit {
		return string(b)
	}
	return string(b[:limit]) + "…"
}

// next returns the next event of the leg, io.EOF at its clean end, or an
// error: *a2a.RPCError, *ProtocolError, the parent context's error, or a
// transport error (ErrIdleTimeout wrapped for an idle cut).
func (l *leg) next() (a2a.Event, error) {
	if l.single != nil {
		ev := l.single
		l.single, l.done = nil, true
		l.events++
		return ev, nil
	}
	if l.done {
		return nil, io.EOF
	}
	e, err := l.dec.Next()
	if err != nil {
		return nil, l.mapErr(err)
	}
	ev, err := decodeEvent(l.rdec, e.Data, l.reqID)
	if err == nil && e.Type == "error" {
		err = &ProtocolError{Reason: "an \"event: error\" frame without a JSON-RPC error"}
	}
	if err != nil {
		return nil, err
	}
	l.events++
	return ev, nil
}

func (l *leg) mapErr(err error) error {
	switch {
	case errors.Is(err, io.EOF):
		return io.EOF
	case isTooLarge(err):
		return &ProtocolError{Reason: "event too large", Err: err}
	}
	return transportError(l.ctx, l.parent, err)
}

// close releases the leg: stops its timer, cancels its request and closes
// the body. It is idempotent.
func (l *leg) close() {
	if l.idle != nil {
		l.idle.Stop()
	}
	l.cancel(context.Canceled)
	if l.body != nil {
		l.body.Close()
	}
	l.done = true
}

// decodeEvent decodes one JSON-RPC response carrying a stream result.
func decodeEvent(d *a2a.ResponseDecoder, data []byte, reqID string) (a2a.Event, error) {
	resp, err := d.Decode(data)
	switch {
	case errors.Is(err, a2a.ErrNotAResponse):
		return nil, &ProtocolError{Reason: "malformed JSON-RPC response", Err: err}
	case err != nil:
		return nil, &ProtocolError{Reason: "malformed result", Err: err}
	}
	if !jsonrpc.IDMatches(resp.ID, reqID) {
		return nil, &ProtocolError{Reason: fmt.Sprintf("response ID %s does not match request ID %q", quote(resp.ID), reqID)}
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Event, nil
}

// unary makes a non-streaming call and returns its JSON-RPC result.
func (c *Client) unary(parent context.Context, v a2a.Version, op operation, params func(a2a.Version) (any, error)) (json.RawMessage, error) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(context.Canceled)
	var idle *time.Timer
	if d := c.cfg.idleTimeout; d > 0 {
		idle = time.AfterFunc(d, func() { cancel(errIdle) })
		defer idle.Stop()
	}
	resp, id, err := c.post(ctx, parent, v, op, params, "application/json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body := io.Reader(resp.Body)
	if idle != nil {
		// As on a stream, the timer measures silence, not the whole call.
		idle.Stop()
		body = &idleReader{ReadCloser: resp.Body, timer: idle, d: c.cfg.idleTimeout}
	}
	var raw []byte
	switch mt := mediaType(resp); {
	case jsonType(mt):
		raw, err = readLimited(body, c.cfg.maxEventSize)
	case mt == "text/event-stream":
		// Tolerate a server that answers a unary call as a one-event stream.
		var e sse.Event
		e, err = sse.NewDecoder(body, c.cfg.maxEventSize).Next()
		raw = e.Data
	default:
		return nil, contentTypeError(resp)
	}
	if err != nil {
		if isTooLarge(err) {
			return nil, &ProtocolError{Reason: "response too large", Err: err}
		}
		return nil, transportError(ctx, parent, err)
	}
	r, err := jsonrpc.DecodeResponse(raw)
	if err != nil {
		return nil, &ProtocolError{Reason: "malformed JSON-RPC response", Err: err}
	}
	if !jsonrpc.IDMatches(r.ID, id) {
		return nil, &ProtocolError{Reason: fmt.Sprintf("response ID %s does not match request ID %q", quote(r.ID), id)}
	}
	if r.Error != nil {
		return nil, r.Error
	}
	return r.Result, nil
}

// errTooLarge is returned by readLimited for a body over the limit.
var errTooLarge = errors.New("response body exceeds the maximum event size")

func readLimited(r io.Reader, limit int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > limit {
		return nil, errTooLarge
	}
	return b, nil
}

// idleReader runs the idle timer only while a Read waits for the network:
// time the application spends between two events is not silence.
type idleReader struct {
	io.ReadCloser
	timer *time.Timer
	d     time.Duration
}

func (r *idleReader) Read(p []byte) (int, error) {
	r.timer.Reset(r.d)
	n, err := r.ReadCloser.Read(p)
	r.timer.Stop()
	return n, err
}
