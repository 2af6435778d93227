package a2atest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
)

// remoteAddr is the client address every server-side request carries. It is
// taken from the TEST-NET-1 documentation range, so it never names a real
// host.
const remoteAddr = "192.0.2.1:49152"

// errBodyClosed is returned by reads from a response body after its Close.
var errBodyClosed = errors.New("a2atest: read on closed response body")

// NewTransport returns an [http.RoundTripper] that serves every request by
// calling h in-process, without sockets, so that it also works inside a
// [testing/synctest] bubble.
//
// Each RoundTrip runs h.ServeHTTP on its own goroutine with a server-side
// request shaped like the one net/http's server would build: the URL holds
// only the path and query, Proto is HTTP/1.1, Host, RequestURI and RemoteAddr
// are set, and the header is a copy. The handler's context is derived from
// the client request's context and is also cancelled when the client closes
// the response body.
//
// The response body really streams: it is an unbuffered pipe, so every Write
// of the handler reaches the client's Read at once and nothing is buffered in
// between. The [*http.Response] is handed back when the handler first calls
// WriteHeader, Write or Flush, or when it returns. As in net/http, a
// WriteHeader without a Content-Type is held back until the first Write, whose
// bytes are then sniffed with [http.DetectContentType]; Flush sends the header
// as it stands. The writer implements [http.Flusher]; Flush has no other effect
// since nothing is buffered.
//
// Errors reach the client as they would over a network:
//   - When the client request's context ends, reads from the body fail with an
//     error e for which errors.Is(e, ctx.Err()) holds. If RoundTrip was still
//     waiting for the response, it waits for the handler to return and then
//     returns ctx.Err().
//   - A handler that panics with [http.ErrAbortHandler] cuts the connection:
//     reads fail with [io.ErrUnexpectedEOF] (or RoundTrip fails, wrapping it,
//     if no response was released yet). Any other panic is recovered and turned
//     into an error the same way; it never crashes the test binary.
//
// Closing the response body cancels the handler's context, unblocks its
// writes and waits until ServeHTTP has returned, so no goroutine outlives
// Close. Close is idempotent and safe to call concurrently with Read.
func NewTransport(h http.Handler) http.RoundTripper {
	return &transport{h: h}
}

// NewClient returns an [*http.Client] whose transport is NewTransport(h). It
// has no Timeout: bound requests with their contexts.
func NewClient(h http.Handler) *http.Client {
	return &http.Client{Transport: NewTransport(h)}
}

type transport struct {
	h http.Handler
}

// RoundTrip implements [http.RoundTripper].
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL == nil {
		closeBody(req)
		return nil, errors.New("a2atest: request has no URL")
	}
	reqCtx := req.Context()
	if err := reqCtx.Err(); err != nil {
		closeBody(req)
		return nil, err
	}

	refused := &refuser{}
	hctx, cancel := context.WithCancel(context.WithValue(reqCtx, refuseKey{}, refused))
	pr, pw := io.Pipe()
	rw := &responseWriter{
		header:   make(http.Header),
		method:   req.Method,
		pw:       pw,
		released: make(chan struct{}),
		done:     make(chan struct{}),
		cancel:   cancel,
		clientRq: req,
		refused:  refused,
	}
	rw.body = &pipeBody{pr: pr, cancel: cancel, done: rw.done}
	// When the client's context ends, reads fail with its error at once, even
	// while the handler is still busy.
	stop := context.AfterFunc(reqCtx, func() { pw.CloseWithError(reqCtx.Err()) })

	sreq := serverRequest(req).WithContext(hctx)
	go rw.serve(t.h, sreq, reqCtx, stop)

	select {
	case <-rw.released:
		return rw.resp, nil
	case <-rw.done:
		select {
		case <-rw.released:
			return rw.resp, nil
		default:
		}
		return nil, rw.failure
	case <-reqCtx.Done():
		select {
		case <-rw.released:
			// The response is ready: hand it over, its reads report the
			// context's error.
			return rw.resp, nil
		default:
		}
		cancel()
		pw.CloseWithError(reqCtx.Err())
		<-rw.done
		return nil, reqCtx.Err()
	}
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// serverRequest builds the request the handler sees from the client's.
func serverRequest(req *http.Request) *http.Request {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	u := &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	var body io.ReadCloser = http.NoBody
	if req.Body != nil && req.Body != http.NoBody {
		body = req.Body
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	header := req.Header.Clone()
	if header == nil {
		header = make(http.Header)
	}
	sreq := &http.Request{
		Method:        method,
		URL:           u,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          body,
		ContentLength: req.ContentLength,
		Host:          host,
		RequestURI:    req.URL.RequestURI(),
		RemoteAddr:    remoteAddr,
	}
	if body == http.NoBody {
		sreq.ContentLength = 0
	}
	return sreq
}

// responseWriter is the handler's side of one exchange. All its methods are
// called from the handler's goroutine (like net/http's, it is not safe for
// concurrent use by the handler).
type responseWriter struct {
	header   http.Header
	method   string
	pw       *io.PipeWriter
	body     *pipeBody
	clientRq *http.Request
	cancel   context.CancelFunc
	refused  *refuser // set by a Refuse fault

	status      int  // status passed to WriteHeader, 0 before
	wroteHeader bool // WriteHeader (or an implicit one) happened
	isReleased  bool
	released    chan struct{} // closed when resp is ready
	resp        *http.Response

	done    chan struct{} // closed when ServeHTTP has returned
	failure error         // why no response was released; set before done
}

func (rw *responseWriter) serve(h http.Handler, sreq *http.Request, reqCtx context.Context, stop func() bool) {
	defer close(rw.done)
	defer stop()
	defer closeBody(rw.clientRq)
	defer rw.cancel()
	defer func() {
		v := recover()
		if v == nil {
			if !rw.isReleased {
				if err := reqCtx.Err(); err != nil {
					// The client gave up before any response: it gets
					// its context's error, not an empty 200.
					rw.failure = err
				} else if rw.refused.refused {
					rw.failure = dialRefused(rw.clientRq.URL.Host)
				} else {
					rw.WriteHeader(http.StatusOK)
					rw.release(nil)
				}
			}
			if err := reqCtx.Err(); err != nil {
				rw.pw.CloseWithError(err)
			} else {
				_ = rw.pw.Close()
			}
			return
		}
		var err error
		if v == http.ErrAbortHandler {
			err = io.ErrUnexpectedEOF
		} else {
			err = fmt.Errorf("a2atest: handler panicked: %v", v)
		}
		if !rw.isReleased {
			rw.failure = fmt.Errorf("a2atest: no response from handler: %w", err)
		}
		rw.pw.CloseWithError(err)
	}()
	h.ServeHTTP(rw, sreq)
}

// Header implements [http.ResponseWriter].
func (rw *responseWriter) Header() http.Header { return rw.header }

// WriteHeader implements [http.ResponseWriter]. Informational (1xx) codes are
// ignored; a second call is ignored.
func (rw *responseWriter) WriteHeader(code int) {
	if rw.wroteHeader || code < 200 {
		return
	}
	rw.wroteHeader, rw.status = true, code
	_, haveType := rw.header["Content-Type"]
	if haveType || !rw.bodyAllowed() {
		rw.release(nil)
	}
}

// Write implements [http.ResponseWriter].
func (rw *responseWriter) Write(p []byte) (int, error) {
	if !rw.wroteHeader {
		rw.WriteHeader(http.StatusOK)
	}
	if !rw.bodyAllowed() {
		if rw.method == http.MethodHead {
			return len(p), nil
		}
		return 0, http.ErrBodyNotAllowed
	}
	if !rw.isReleased {
		rw.release(p)
	}
	if len(p) == 0 {
		return 0, nil
	}
	return rw.pw.Write(p)
}

// Flush implements [http.Flusher]. It sends the response header if it was
// not sent yet; the body needs no flushing.
func (rw *responseWriter) Flush() {
	if !rw.wroteHeader {
		rw.WriteHeader(http.StatusOK)
	}
	if !rw.isReleased {
		rw.release(nil)
	}
}

func (rw *responseWriter) bodyAllowed() bool {
	if rw.method == http.MethodHead {
		return false
	}
	s := rw.status
	return !(s >= 100 && s < 200) && s != http.StatusNoContent && s != http.StatusNotModified
}

// release builds the response from the header as it stands and hands it to
// RoundTrip. first is the first chunk of the body, used for sniffing.
func (rw *responseWriter) release(first []byte) {
	if rw.isReleased {
		return
	}
	rw.isReleased = true
	h := rw.header.Clone()
	if h == nil {
		h = make(http.Header)
	}
	_, haveType := h["Content-Type"]
	if !haveType && len(first) > 0 && h.Get("Content-Encoding") == "" {
		h.Set("Content-Type", http.DetectContentType(first))
	}
	code := rw.status
	var body io.ReadCloser = rw.body
	contentLength := int64(-1)
	if cl := h.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n >= 0 {
			contentLength = n
		}
	}
	if !rw.bodyAllowed() {
		contentLength = 0
	}
	rw.resp = &http.Response{
		Status:        strconv.Itoa(code) + " " + http.StatusText(code),
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          body,
		ContentLength: contentLength,
		Request:       rw.clientRq,
	}
	close(rw.released)
}

// pipeBody is the client's end of the response body.
type pipeBody struct {
	pr     *io.PipeReader
	cancel context.CancelFunc
	done   <-chan struct{}
	once   sync.Once
	closed atomic.Bool
}

// Read implements [io.Reader].
func (b *pipeBody) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, errBodyClosed
	}
	return b.pr.Read(p)
}

// Close cancels the handler's context, ends the pipe and waits for the
// handler to return.
func (b *pipeBody) Close() error {
	b.once.Do(func() {
		b.closed.Store(true)
		b.cancel()
		b.pr.CloseWithError(errBodyClosed)
	})
	<-b.done
	return nil
}
