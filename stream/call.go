package stream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/internal/clip"
	"github.com/a2astream/a2astream/internal/httpx"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/transport"
)

// errIdle is the cancel cause of a call whose idle timer fired.
var errIdle = errors.New("idle")

// call is one HTTP exchange of any binding, with its idle timer. The timer
// measures silence: it runs while the request waits for its response, and
// then only while a read of the body waits for the network.
type call struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	parent context.Context
	idle   *time.Timer
	d      time.Duration
	cfg    callConfig
	// responded: the response's status line arrived, so the request reached
	// the server, which may have acted on it.
	responded bool
	// rpcMethod and rpcID name a JSON-RPC request in the debug log.
	rpcMethod, rpcID string
	// unwatch stops the watch body sets on the call's context; nil
	// before.
	unwatch func() bool
}

// newCall begins an HTTP exchange under parent, the caller's context, made
// with cfg.
func (c *Client) newCall(parent context.Context, cfg callConfig) *call {
	ctx, cancel := context.WithCancelCause(parent)
	k := &call{ctx: ctx, cancel: cancel, parent: parent, d: cfg.idleTimeout, cfg: cfg}
	if k.d > 0 {
		k.idle = time.AfterFunc(k.d, func() { cancel(errIdle) })
	}
	return k
}

// do sends req (built on k.ctx) with the call's headers if it goes to an
// origin they go to, under the connect timeout; a redirect to another
// origin does not carry them. It returns the response whatever its status,
// or the transport's error mapped by transportErr, as a callmark.Unsent when
// the request never left.
func (c *Client) do(k *call, req *http.Request) (*http.Response, error) {
	httpx.AddHeaders(req, c.headerOrigins, k.cfg.header)
	r := &reach{d: k.cfg.connectTimeout, cancel: k.cancel}
	req = req.WithContext(r.trace(req.Context()))
	r.guardBody(req)
	resp, err := httpx.OriginOnlyHeaders(c.httpc, c.headerOrigins, k.cfg.header).Do(req)
	k.logRequest(req, resp, err)
	if unsent := r.done(err); err != nil {
		err = k.transportErr(err)
		if unsent && k.parent.Err() == nil {
			err = &callmark.Unsent{Err: err}
		}
		return nil, err
	}
	k.responded = true
	return resp, nil
}

// logRequest logs one attempt at debug level: the HTTP method and the URL
// (redacted), the JSON-RPC method and request ID, and the response's status
// or the transport's error, so that a task's attempts can be found in the
// server's logs.
func (k *call) logRequest(req *http.Request, resp *http.Response, err error) {
	log := k.cfg.logger
	if !log.Enabled(k.parent, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{slog.String("method", req.Method), slog.String("url", httpx.RedactURL(req.URL))}
	if k.rpcID != "" {
		attrs = append(attrs, slog.String("rpc", k.rpcMethod), slog.String("id", k.rpcID))
	}
	if err != nil {
		attrs = append(attrs, slog.Any("err", httpx.RedactError(err)))
	} else {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	log.LogAttrs(k.parent, slog.LevelDebug, "a2a: request", attrs...)
}

// body returns the response body, read under the idle timer. When the
// call's context ends (the idle timer, the caller's cancel or deadline,
// the stream's Close), the body is closed, which ends a read that waits
// even when an http.RoundTripper of the caller's detached the request from
// that context.
func (k *call) body(resp *http.Response) io.ReadCloser {
	b := resp.Body
	k.unwatch = context.AfterFunc(k.ctx, func() { _ = b.Close() })
	if k.idle == nil {
		return resp.Body
	}
	k.idle.Stop()
	return &idleReader{ReadCloser: resp.Body, timer: k.idle, d: k.d}
}

// transportErr maps an error of the exchange: the caller's context error
// when it is done, transport.ErrIdleTimeout when the idle timer cut the call (wrapping
// err unless err is only the cancel the timer caused), else err; an error
// after the response's status line comes as a callmark.Responded.
func (k *call) transportErr(err error) error {
	if perr := k.parent.Err(); perr != nil {
		return perr
	}
	err = k.lost(err)
	if k.responded {
		return &callmark.Responded{Err: err}
	}
	return err
}

// lost maps a transport error as transportErr says.
func (k *call) lost(err error) error {
	err = httpx.RedactError(err)
	if context.Cause(k.ctx) == errConnect {
		return connectTimeoutErr(k.cfg.connectTimeout, err)
	}
	if context.Cause(k.ctx) == errIdle {
		// The cancel was the idle timer's, not the caller's: a caller
		// testing for its own cancel must not match it. The request's
		// method and (redacted) URL stay in the text.
		var ue *url.Error
		switch {
		case errors.As(err, &ue) && errors.Is(ue.Err, context.Canceled):
			return &url.Error{Op: ue.Op, URL: ue.URL, Err: transport.ErrIdleTimeout}
		case errors.Is(err, context.Canceled):
			return transport.ErrIdleTimeout
		}
		return fmt.Errorf("%w: %w", transport.ErrIdleTimeout, err)
	}
	return err
}

// readErr maps an error from reading a body: io.EOF at its clean end, a
// *transport.ProtocolError for an event over the size limit, else as transportErr.
func (k *call) readErr(err error) error {
	switch {
	case errors.Is(err, io.EOF):
		return io.EOF
	case isTooLarge(err):
		return &transport.ProtocolError{Reason: "event too large", Err: err}
	}
	return k.transportErr(err)
}

// close stops the timer and cancels the request. It is idempotent.
func (k *call) close() {
	if k.idle != nil {
		k.idle.Stop()
	}
	if k.unwatch != nil {
		k.unwatch() // the body is closed by whoever read it
	}
	k.cancel(context.Canceled)
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

// readUnary reads the body of a unary call's 2xx response, under the size
// limit, and closes it: a JSON document, or the data of a one-event stream
// (tolerated from servers that answer a unary call that way). It returns
// too the wait the response asks for with a Retry-After header (in seconds
// or as an HTTP date, read by a2a.ParseRetryAfter), as askedWait bounds it;
// 0 when it asks for none. A poll's answer may say so when to poll again.
func (c *Client) readUnary(k *call, resp *http.Response) ([]byte, time.Duration, error) {
	defer resp.Body.Close()
	after, _ := a2a.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	asked := askedWait(after)
	body := k.body(resp)
	var (
		raw []byte
		err error
	)
	switch mt := httpx.MediaType(resp); {
	case jsonType(mt):
		raw, err = httpx.ReadLimited(body, k.cfg.maxEventSize)
	case mt == "text/event-stream":
		var e sse.Event
		e, err = sse.NewDecoder(body, k.cfg.maxEventSize).Next()
		raw = e.Data
		if e.Chunks != nil {
			raw = bytes.Join(e.Chunks, nil)
		}
	default:
		return nil, 0, contentTypeError(resp)
	}
	if err != nil {
		if isTooLarge(err) {
			return nil, 0, &transport.ProtocolError{Reason: "response too large", Err: err}
		}
		return nil, 0, k.transportErr(err)
	}
	return trimRecordSeparator(raw), asked, nil
}

// isTooLarge reports an event or body over the size limit.
func isTooLarge(err error) bool {
	var tooLarge *sse.TooLargeError
	return errors.As(err, &tooLarge) || errors.Is(err, httpx.ErrTooLarge)
}

// jsonType reports the media types a single JSON response comes in:
// a2a-go's unary answers are text/plain (net/http's sniffing).
func jsonType(mt string) bool {
	return mt == "application/json" || mt == "text/plain" || mt == "application/a2a+json"
}

func contentTypeError(resp *http.Response) error {
	return &transport.ProtocolError{Reason: fmt.Sprintf("unexpected content type %q", quote([]byte(resp.Header.Get("Content-Type"))))}
}

// httpError reads up to maxErrorBody of a non-2xx response, closes it, and
// reads the A2A error its body carries, if any. A body cut short by the
// network (the error it carried unknown) is a transport error, not an
// answer.
func (k *call) httpError(resp *http.Response) error {
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	if err != nil {
		return k.transportErr(err)
	}
	e := &transport.HTTPError{StatusCode: resp.StatusCode, Status: resp.Status, Header: resp.Header, Body: b, Call: k.rpcMethod}
	if r := resp.Request; r != nil && r.URL != nil {
		e.Method, e.URL = r.Method, httpx.RedactURL(r.URL)
	}
	if rpcErr, ok := a2a.ParseHTTPError(resp.StatusCode, b); ok {
		e.Err = rpcErr
	}
	return e
}

// quote cuts server data quoted in an error text to a readable length, on
// a character boundary (see clip.Text).
func quote(b []byte) string { return clip.Text(string(b), clip.Field) }
