package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// KeyFunc returns the key of the stream a request is about (the store's
// key, see Store.Open), or false when there is no such stream: the handler
// then answers 404. It decides who may read which stream: Store.Open
// creates a log for a key it does not know, so a KeyFunc must not accept
// keys the application did not make.
type KeyFunc func(r *http.Request) (key string, ok bool)

// HandlerOption configures a Handler. NewHandler refuses a bad value, and a
// nil HandlerOption, with an error that wraps ErrInvalidOption. When an
// option is given twice, the last one wins, except that WithTrustedOrigins
// adds origins.
type HandlerOption interface{ applyHandler(*handlerConfig) error }

type handlerOptionFunc func(*handlerConfig) error

func (f handlerOptionFunc) applyHandler(c *handlerConfig) error { return f(c) }

type handlerConfig struct {
	keepAlive time.Duration
	page      int
	origin    *http.CrossOriginProtection // decides whether a POST is the page's own; WithTrustedOrigins adds to it
	retry     time.Duration
	write     time.Duration // the longest one write to a browser may take
	calls     int           // the store calls made at once, at most (gate.go)
	trace     *Trace        // nil: none
}

// WithTrustedOrigins names origins, each "scheme://host[:port]" as a
// browser sends it in the Origin header (such as "https://app.example"),
// whose pages may post answers and cancels from another site (see
// Handler). NewHandler refuses a value that is not such an origin: one
// with a path (even "/"), a query or a fragment, without a scheme or a
// host, "*" or "null". No origin at all names none.
func WithTrustedOrigins(origins ...string) HandlerOption {
	origins = slices.Clone(origins)
	return handlerOptionFunc(func(c *handlerConfig) error {
		var errs []error
		for _, o := range origins {
			if err := c.origin.AddTrustedOrigin(o); err != nil {
				errs = append(errs, fmt.Errorf("%w: WithTrustedOrigins: %w", ErrInvalidOption, err))
			}
		}
		return errors.Join(errs...)
	})
}

func defaultHandlerConfig() handlerConfig {
	return handlerConfig{keepAlive: 15 * time.Second, page: 64, origin: http.NewCrossOriginProtection(), retry: 2 * time.Second, write: 30 * time.Second,
		calls: storeCallsPerCPU * runtime.GOMAXPROCS(0)}
}

// storeCallsPerCPU makes WithStoreCalls's default: half of go-redis's
// default pool (10 connections per CPU), the other half left to the
// drivers.
const storeCallsPerCPU = 5

// WithStoreCalls sets how many calls to its store a Handler makes at once
// for its browsers, at most (5 per CPU by default, GOMAXPROCS: half of
// go-redis's default pool): reading pages, the tail, a
// snapshot, posting answers and cancels. Browsers beyond wait their turn
// in the process. The drivers of the same process share the store's client
// (redisrelay: its pool of connections), and their commits and lease
// renewals must find a connection however many browsers read, reconnect
// or read a long stream from far back: keep n well below the client's
// pool. The drivers come first: when they commit to many streams at once
// and fill the pool, the reads wait their turn behind their commits (on
// Redis, 1,000 streams of one browser each, every stream given an entry
// at once, got them 100–130 ms later at the median, 7 ms with no bound on
// the reads, while the drivers committed almost twice as fast). A
// Handler's waits on the store (one per stream its browsers follow) are
// not counted: a store waits outside its pool (redisrelay: on one Pub/Sub
// connection, the waits' short looks going in batches on one pooled
// connection), but the read that follows each wait is. A number of 0 or
// less is refused.
func WithStoreCalls(n int) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) error {
		if n <= 0 {
			return invalidOption("WithStoreCalls: the number must be positive, not %d", n)
		}
		c.calls = n
		return nil
	})
}

// WithWriteTimeout sets how long one write to a browser's event stream,
// with its flush, may take (30 s by default): a page of entries, a gone
// event with its snapshot, a keep-alive comment, each written 32 KiB at a
// time at most, each 32 KiB given the whole timeout, so that a browser
// that reads slowly but steadily is not cut. A browser that stops
// reading (a tab frozen in the background, a hostile client) blocks the
// write once the connection's buffers are full; when the timeout passes
// the Handler ends the response and closes the connection, so that such a
// reader holds no goroutine, no page and no wait on the store. The browser,
// if it comes back, reconnects with Last-Event-ID and misses nothing. It
// applies where the server can set a write deadline (net/http's HTTP/1
// and HTTP/2 servers can; http.ResponseController says which). A duration
// of 0 or less is refused.
func WithWriteTimeout(d time.Duration) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) error {
		if d <= 0 {
			return invalidOption("WithWriteTimeout: the duration must be positive, not %s", d)
		}
		c.write = d
		return nil
	})
}

// WithKeepAlive sets how long an idle event stream waits before it sends a
// comment, so that proxies do not close it (15 s by default). A duration
// of 0 or less is refused.
func WithKeepAlive(d time.Duration) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) error {
		if d <= 0 {
			return invalidOption("WithKeepAlive: the duration must be positive, not %s", d)
		}
		c.keepAlive = d
		return nil
	})
}

// WithPageSize sets how many entries one read of the log returns (64 by
// default). A reader holds at most one page, so with the driver's chunk
// size it bounds the reader's memory; the Handler keeps the newest four
// pages of each stream that readers follow, for them all (see the package
// doc). A size of 0 or less is refused.
func WithPageSize(n int) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) error {
		if n <= 0 {
			return invalidOption("WithPageSize: the size must be positive, not %d", n)
		}
		c.page = n
		return nil
	})
}

// WithOutageRetry sets how long a client is told to wait before it tries
// again when the store fails (2 s by default): EventSource's retry field,
// in whole milliseconds, and the Retry-After header of a 503, rounded up
// to whole seconds. A duration below a millisecond is refused: the retry
// field would tell EventSource to reconnect at once.
func WithOutageRetry(d time.Duration) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) error {
		if d < time.Millisecond {
			return invalidOption("WithOutageRetry: the duration must be at least 1ms, not %s", d)
		}
		c.retry = d
		return nil
	})
}

// The bounds of a POST: its JSON body, and its Idempotency-Key, which the
// store keeps with the answer.
const (
	maxBody = 64 << 10
	maxKey  = 256
)

// Handler serves the relayed streams of a Store to browsers, one stream per
// key (see KeyFunc):
//
//   - GET: the stream's events, as Server-Sent Events. A request with a
//     Last-Event-ID header, or a lastEventId query parameter (for
//     EventSource's first connection), gets the events after that ID, then
//     the live ones; one without gets them all. The response ends after the
//     stream's last event (EventEnd or EventFailure); a request whose
//     Last-Event-ID is that event's gets 204 No Content, which tells
//     EventSource to stop. When the events after the ID cannot be replayed
//     the response starts with EventGone (see the package doc). A page
//     that comes back with an event ID to a log that holds neither an
//     entry nor a checkpoint (the store lost the stream's log, and no
//     driver can resume it) is sent away with EventGone of reason "lost"
//     and told so by an EventFailure of kind "lost", which ends the
//     response; its ID is <epoch>-1, which then gets 204.
//   - POST to a path ending in "/answer": the answer to a question, as
//     JSON {"prompt": <seq>, "text": "..."} with an Idempotency-Key header
//     (of at most 256 bytes; the body of at most 64 KiB). It may name the
//     epoch of the question's event ID, {"epoch": "..."}: a post of
//     another epoch than the log's (a log lost and made afresh, whose
//     prompts may name other questions) gets 410, and nothing is stored.
//     200 with {"prompt", "text"} when this answer was stored, now or
//     before with the same key; 409 with the answer held, under "answer",
//     when another answer was stored first. An answer is stored only while
//     its question is open: no answered entry, other question or end of
//     the stream follows it in the log (for a question whose entry the log
//     trimmed, while the log's snapshot shows it open; a page sent away
//     with EventGone shows it from there). Once it is closed, a post gets
//     the answer stored, with 200 or 409 as above, and 410 when it closed
//     unanswered; nothing is stored. A prompt that names no question of
//     the stream gets 404 ("no such question").
//   - POST to a path ending in "/cancel": asks the stream's driver to
//     cancel the task; 202. Its body is empty or a JSON object.
//
// A POST changes what the stream does, so the Handler takes it only from
// the page's own origin: browsers send a form, a text/plain or a multipart
// post to another site without asking first, with the user's cookies.
// Every POST must have the Content-Type application/json (415 otherwise),
// which a browser sends to another site only after a CORS preflight that
// the Handler does not answer. And a POST is refused with 403 when the
// browser says it comes from another origin: a Sec-Fetch-Site header other
// than "same-origin" or "none" (a sibling subdomain, "same-site", is
// another origin too), or, from a browser that sends no Sec-Fetch-Site, an
// Origin whose host and port are not the request's Host (its scheme is not
// compared, since a proxy that ends TLS makes the two differ: every current
// browser sends Sec-Fetch-Site, which is exact). A request with
// neither header (a program, not a browser) is taken. An origin named with
// WithTrustedOrigins may post from another site; the application then
// answers the preflight itself. Neither a refused post nor one of another
// content type records anything. GET changes nothing and is served to any
// origin that may read it.
//
// The readers of one stream share one wait on the store, and one read of
// each new page of its entries, which the Handler keeps in memory within
// bounds: a page per reader no longer costs a store call (see the package
// doc).
//
// Errors are JSON {"error": "..."} with a 4xx status for bad requests, and
// 503 with Retry-After when the store fails (WithOutageRetry). EventSource
// gives up for good on any answer other than 200 with an event stream, so
// a GET that accepts text/event-stream gets, when the store fails, 200 with
// an event stream that holds only "retry: <ms>" and ends: EventSource
// connects again after that wait, with its Last-Event-ID. An event stream
// the store cuts ends the same way. A Handler is safe for concurrent use.
type Handler struct {
	store Store
	key   KeyFunc
	cfg   handlerConfig
	waits *waiters  // the readers of a log wait on the store, and read it, together
	pages pageBufs  // the buffers its readers write their pages from
	gate  storeGate // the slots of its calls to the store (gate.go)
}

// NewHandler returns a Handler for the streams of store that key names. It
// refuses a nil store or key, a nil option and an option's bad value with
// an error that wraps ErrInvalidOption, and returns no Handler then.
func NewHandler(store Store, key KeyFunc, opts ...HandlerOption) (*Handler, error) {
	var errs []error
	if store == nil {
		errs = append(errs, invalidOption("NewHandler: a nil Store"))
	}
	if key == nil {
		errs = append(errs, invalidOption("NewHandler: a nil KeyFunc"))
	}
	cfg := defaultHandlerConfig()
	errs = append(errs, applyOptions("HandlerOption", opts, func(o HandlerOption) error { return o.applyHandler(&cfg) }))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Handler{store: store, key: key, cfg: cfg, waits: newWaiters(cfg.page, runtime.GOMAXPROCS(0)),
		gate: make(storeGate, cfg.calls)}, nil
}

// ServeHTTP implements http.Handler.
// A Handler not made by NewHandler (the zero Handler) answers every
// request with 500.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.store == nil || h.key == nil || h.cfg.origin == nil {
		httpError(w, http.StatusInternalServerError, "relay: the handler has no store or no key function: make it with NewHandler")
		return
	}
	key, ok := h.key(r)
	if !ok {
		httpError(w, http.StatusNotFound, "no such stream")
		return
	}
	if r.Method == http.MethodPost && !h.ownPost(w, r) {
		return
	}
	switch {
	case r.Method == http.MethodGet:
		h.events(w, r, key)
	case r.Method == http.MethodPost && path.Base(r.URL.Path) == "answer":
		h.answer(w, r, key)
	case r.Method == http.MethodPost && path.Base(r.URL.Path) == "cancel":
		h.cancel(w, r, key)
	case r.Method == http.MethodPost:
		httpError(w, http.StatusNotFound, "post to .../answer or .../cancel")
	default:
		w.Header().Set("Allow", "GET, POST")
		httpError(w, http.StatusMethodNotAllowed, "use GET or POST")
	}
}

// storeFailed answers a request the store failed. EventSource gives up
// for good on any answer other than 200 with an event stream, so a GET
// that accepts an event stream gets one, that holds only the time to wait
// (retry:) and ends: EventSource then connects again, with the same
// Last-Event-ID. Other requests get 503 with Retry-After.
func (h *Handler) storeFailed(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && acceptsEventStream(r.Header.Values("Accept")) {
		hd := w.Header()
		hd.Set("Content-Type", "text/event-stream")
		hd.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		sse := &sseWriter{w: w}
		sse.comment("the stream's store failed")
		sse.retry(h.cfg.retry)
		return
	}
	secs := (h.cfg.retry + time.Second - 1) / time.Second
	w.Header().Set("Retry-After", strconv.FormatInt(int64(secs), 10))
	httpError(w, http.StatusServiceUnavailable, "the stream's store failed")
}

// acceptsEventStream reports whether Accept header values name
// text/event-stream, as EventSource sends them, with a quality above 0.
// A wildcard does not count: a client that did not ask for an event
// stream is not one.
func acceptsEventStream(accept []string) bool {
	for _, v := range accept {
		for item := range strings.SplitSeq(v, ",") {
			mt, params, err := mime.ParseMediaType(item)
			if err != nil || mt != "text/event-stream" {
				continue
			}
			if q, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(q, 64); err != nil || f <= 0 {
					continue
				}
			}
			return true
		}
	}
	return false
}

// ownPost reports whether a POST may change the stream: it comes from the
// page's own origin, or from a trusted one, and holds JSON. It answers the
// request itself when not.
func (h *Handler) ownPost(w http.ResponseWriter, r *http.Request) bool {
	if h.cfg.origin.Check(r) != nil {
		httpError(w, http.StatusForbidden, "a post from another origin")
		return false
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "send application/json")
		return false
	}
	return true
}

// ended reports whether an event of this name is a stream's last.
func ended(name string) bool { return name == EventEnd || name == EventFailure }

// events serves the stream's events.
func (h *Handler) events(w http.ResponseWriter, r *http.Request, key string) {
	ctx := r.Context()
	log, err := h.open(ctx, key)
	if err != nil {
		h.storeFailed(w, r)
		return
	}
	tail, err := log.Tail(ctx)
	if err != nil {
		h.storeFailed(w, r)
		return
	}
	epoch := log.Epoch()
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("lastEventId")
	}
	var after uint64
	gone := ""
	id, idErr := ParseID(last)
	if last != "" {
		switch {
		case idErr != nil:
			gone = "unparsable"
		case id.Epoch != epoch:
			gone = "epoch"
		case id.Seq > tail:
			gone = "ahead"
		default:
			after = id.Seq
		}
	}
	reply := lostNot
	if last != "" && tail == 0 {
		// A page that saw events of this stream, on a log that holds
		// neither an entry nor a checkpoint: the store lost the log, and
		// no driver can resume it.
		cp, err := log.LoadCheckpoint(ctx)
		if err != nil {
			h.storeFailed(w, r)
			return
		}
		if cp == nil {
			reply = lostReply(id, idErr, epoch)
		}
	}
	if reply == lostTold || gone == "" && after > 0 && after == tail && delivered(ctx, log, after) {
		w.WriteHeader(http.StatusNoContent) // all delivered: EventSource stops
		return
	}

	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	// due gives the writes that follow WithWriteTimeout to finish; a
	// server that cannot set a deadline leaves them unbounded.
	due := func() { _ = rc.SetWriteDeadline(time.Now().Add(h.cfg.write)) }
	due()
	w.WriteHeader(http.StatusOK)
	sse := &sseWriter{w: w, bufs: &h.pages, due: due}
	rt := readerTrace{t: h.cfg.trace, ctx: ctx}
	if rt.t != nil {
		rt.t.reader(ReaderInfo{Kind: ReaderAttached, After: after})
		defer func() { rt.done(sse.err) }()
	}
	sse.comment("relay")
	if sse.flush(rc) != nil {
		rt.end = endWrite
		return
	}
	if reply != lostNot {
		if reply == lostGone {
			rt.gone("lost")
			data, _ := json.Marshal(GoneData{Reason: "lost", View: json.RawMessage(`{"seq":0,"panes":[]}`)})
			sse.event(ID{Epoch: epoch}.String(), EventGone, data)
		}
		data, _ := json.Marshal(FailureData{Kind: "lost", Text: lostText})
		sse.event(ID{Epoch: epoch, Seq: 1}.String(), EventFailure, data)
		rt.end = endEnded
		if sse.flush(rc) != nil {
			rt.end = endWrite
		}
		return
	}
	follow := h.waits.follow(waitKey{key: key, epoch: epoch}, log, tail)
	defer follow.leave()
	for {
		var entries []Entry
		if gone != "" {
			var done bool
			due()
			after, entries, done = h.gone(ctx, sse, log, epoch, gone)
			if sse.err == nil {
				rt.gone(gone)
			}
			if errors.Is(sse.err, errStore) && ctx.Err() == nil {
				sse.err = nil
				sse.retry(h.cfg.retry) // reconnect after a while
				_ = rc.Flush()
				rt.end = endStore
				return
			}
			if sse.flush(rc) != nil {
				rt.end = endWrite
				return
			}
			if done {
				rt.end = endEnded
				return
			}
			gone = ""
		} else {
			var err error
			entries, err = follow.read(ctx, after, h.cfg.page)
			if errors.Is(err, ErrGone) {
				gone = "trimmed"
				continue
			}
			due()
			if err != nil {
				sse.retry(h.cfg.retry) // the store failed: reconnect after a while
				_ = rc.Flush()
				rt.end = endStore
				return
			}
		}
		if len(entries) > 0 {
			sse.hold() // the page goes out in one write for each 32 KiB
		}
		for _, e := range entries {
			sse.event(ID{Epoch: epoch, Seq: e.Seq}.String(), e.Name, e.Data)
			after = e.Seq
			rt.sent++
			if ended(e.Name) {
				rt.end = endEnded
				sse.send()
				if sse.flush(rc) != nil {
					rt.end = endWrite
				}
				return
			}
		}
		sse.send()
		if sse.err != nil || (len(entries) > 0 && sse.flush(rc) != nil) {
			rt.end = endWrite
			return
		}
		if len(entries) == h.cfg.page {
			continue
		}
		wctx, cancel := context.WithTimeout(ctx, h.cfg.keepAlive)
		err := follow.await(wctx, after)
		cancel()
		if ctx.Err() != nil {
			rt.end = endLeft
			return
		}
		if err != nil {
			due()
			sse.comment("keep-alive")
			if sse.flush(rc) != nil {
				rt.end = endWrite
				return
			}
		}
	}
}

// readerTrace is what a response of events tells a Trace's Reader.
type readerTrace struct {
	t    *Trace
	ctx  context.Context // the request's
	sent int             // entries sent
	end  string          // why the response ended (ReaderInfo.End)
}

// Why a response of events ended (ReaderInfo.End).
const (
	endEnded = "ended"
	endLeft  = "left"
	endWrite = "write"
	endStore = "store"
)

// gone tells the Trace, if any, that the reader is sent away for reason.
func (rt *readerTrace) gone(reason string) {
	if rt.t != nil {
		rt.t.reader(ReaderInfo{Kind: ReaderGone, Reason: reason})
	}
}

// done tells the Trace that the response ended, werr being the first
// error of its writes and flushes.
func (rt *readerTrace) done(werr error) {
	rt.t.reader(ReaderInfo{Kind: ReaderDone, Sent: rt.sent, End: readerEnd(rt.end, werr, rt.ctx.Err() != nil)})
}

// readerEnd decides why a response ended, as a Trace is told (ReaderInfo.End):
// end, as the Handler set it, but a write that failed because the browser
// went away (its request's context ended) is the browser's leaving, and
// one that outran the write timeout is the write's, though net/http ends
// the request's context for it too.
func readerEnd(end string, werr error, ctxDone bool) string {
	switch {
	case end == "":
		return endLeft
	case end != endWrite:
		return end
	case errors.Is(werr, os.ErrDeadlineExceeded):
		return endWrite
	case ctxDone:
		return endLeft
	}
	return endWrite
}

// What a page of a lost log is served (see lostReply).
const (
	lostNot  = iota // the log is not lost: serve it
	lostGone        // EventGone of reason "lost", then the lost ending
	lostEnd         // the lost ending: the page was sent away already
	lostTold        // 204: the page has the lost ending
)

// lostText is the text of the ending a page of a lost log is served.
const lostText = "the stream was lost from the relay's store, and cannot be resumed"

// lostReply decides what a page is served whose Last-Event-ID (id, or
// idErr when it does not parse) comes to a log of this epoch that holds
// neither an entry nor a checkpoint: the store lost the stream's log and
// made it afresh, and no driver can resume it. The lost ending has the
// ID <epoch>-1, after the gone event's <epoch>-0, so that a page folds
// them as any others; a page that has it gets 204.
func lostReply(id ID, idErr error, epoch string) int {
	switch {
	case idErr != nil || id.Epoch != epoch || id.Seq > 1:
		return lostGone
	case id.Seq == 0:
		return lostEnd
	}
	return lostTold
}

// errStore marks a failure of the store while an event stream is served.
var errStore = errors.New("relay: the stream's store failed")

// gone writes EventGone with the log's snapshot, and returns the Seq of
// the snapshot, the first page of entries after it, read with it in one
// step (Log.Attach), and whether the snapshot holds the stream's end.
func (h *Handler) gone(ctx context.Context, sse *sseWriter, log Log, epoch, reason string) (uint64, []Entry, bool) {
	snap, entries, err := log.Attach(ctx, h.cfg.page)
	if err != nil {
		sse.err = fmt.Errorf("%w: %w", errStore, err)
		return 0, nil, false
	}
	screen := snap.Data
	if len(screen) == 0 {
		screen = []byte(`{"seq":0,"panes":[]}`)
	}
	done, err := screenEnded(screen)
	if err != nil {
		sse.err = err
		return 0, nil, false
	}
	data, err := json.Marshal(GoneData{Reason: reason, View: screen})
	if err != nil {
		sse.err = err
		return 0, nil, false
	}
	sse.event(ID{Epoch: epoch, Seq: snap.Seq}.String(), EventGone, data)
	return snap.Seq, entries, done
}

// delivered reports whether the entry at Seq seq, the log's tail, is the
// stream's last: in the log, or, when the log trimmed it, in the snapshot.
func delivered(ctx context.Context, log Log, seq uint64) bool {
	es, err := log.Read(ctx, seq-1, 1)
	if err == nil {
		return len(es) == 1 && ended(es[0].Name)
	}
	if !errors.Is(err, ErrGone) {
		return false
	}
	snap, err := log.LoadSnapshot(ctx)
	if err != nil || snap.Seq != seq {
		return false
	}
	done, err := screenEnded(snap.Data)
	return err == nil && done
}

// openQuestion returns the prompt of the question the log's snapshot
// shows open, 0 for none.
func openQuestion(ctx context.Context, log Log) (uint64, error) {
	snap, err := log.LoadSnapshot(ctx)
	if err != nil {
		return 0, err
	}
	var sc struct {
		Question *InputData `json:"question"`
	}
	if len(snap.Data) == 0 || json.Unmarshal(snap.Data, &sc) != nil || sc.Question == nil {
		return 0, nil
	}
	return sc.Question.Prompt, nil
}

// screenEnded reports whether a View's JSON holds the stream's end.
func screenEnded(screen []byte) (bool, error) {
	if len(screen) == 0 {
		return false, nil
	}
	var end struct {
		End json.RawMessage `json:"end"`
	}
	if err := json.Unmarshal(screen, &end); err != nil {
		return false, err
	}
	return len(end.End) > 0 && string(end.End) != "null", nil
}

// answer stores the answer to a question.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, key string) {
	idem := r.Header.Get("Idempotency-Key")
	switch {
	case idem == "":
		httpError(w, http.StatusBadRequest, "the Idempotency-Key header is missing")
		return
	case len(idem) > maxKey:
		httpError(w, http.StatusBadRequest, "the Idempotency-Key header is too long")
		return
	}
	var in struct {
		Prompt uint64 `json:"prompt"`
		Text   string `json:"text"`
		Epoch  string `json:"epoch"`
	}
	if !readJSON(w, r, &in, false) {
		return
	}
	if in.Prompt == 0 {
		httpError(w, http.StatusBadRequest, "the prompt is missing")
		return
	}
	if strings.TrimSpace(in.Text) == "" {
		httpError(w, http.StatusBadRequest, "the answer is empty")
		return
	}
	ctx := r.Context()
	log, err := h.open(ctx, key)
	if err != nil {
		h.storeFailed(w, r)
		return
	}
	if in.Epoch != "" && in.Epoch != log.Epoch() {
		// A question of a log lost and made afresh: its prompt may name
		// another question in this one.
		httpError(w, http.StatusGone, "the question is of another epoch of the stream")
		return
	}
	es, err := log.Read(ctx, in.Prompt-1, 1)
	switch {
	case errors.Is(err, ErrGone):
		// The question's entry was trimmed; the snapshot, which a page
		// sent away with EventGone shows, may hold it open still.
		open, err := openQuestion(ctx, log)
		if err != nil {
			h.storeFailed(w, r)
			return
		}
		if open != in.Prompt {
			// Closed: answered, and the answer stored (the question
			// closes only after that), or never answered at all.
			h.answerClosed(w, r, log, in.Prompt, idem)
			return
		}
	case err != nil:
		h.storeFailed(w, r)
		return
	case len(es) != 1 || es[0].Name != EventInput:
		httpError(w, http.StatusNotFound, "no such question")
		return
	default:
		open, err := h.stillOpen(ctx, log, in.Prompt)
		if err != nil {
			h.storeFailed(w, r)
			return
		}
		if !open {
			// Answered (the answer is stored), or closed unanswered: the
			// stream ended, or went on to another question.
			h.answerClosed(w, r, log, in.Prompt, idem)
			return
		}
	}
	held, err := log.PostAnswer(ctx, Answer{Prompt: in.Prompt, Key: idem, Text: in.Text})
	if err != nil {
		h.storeFailed(w, r)
		return
	}
	writeAnswer(w, held, idem)
}

// stillOpen reports whether the question asked by the log's entry prompt
// is open: no entry after it closes it (see closes). It reads the entries
// after it in pages, up to the first that closes it: a question is open
// while its stream waits for the answer, which appends little. When the
// entries were trimmed meanwhile, the snapshot says.
func (h *Handler) stillOpen(ctx context.Context, log Log, prompt uint64) (bool, error) {
	for after := prompt; ; {
		es, err := log.Read(ctx, after, h.cfg.page)
		if errors.Is(err, ErrGone) {
			open, err := openQuestion(ctx, log)
			return open == prompt, err
		}
		if err != nil {
			return false, err
		}
		if len(es) == 0 {
			return true, nil
		}
		for _, e := range es {
			if closes(e, prompt) {
				return false, nil
			}
		}
		after = es[len(es)-1].Seq
	}
}

// closes reports whether an entry after the question asked by the entry
// prompt closes it: its answer, another question (a question is open
// only while the stream waits on it), or the stream's end.
func closes(e Entry, prompt uint64) bool {
	switch e.Name {
	case EventInput, EventEnd, EventFailure:
		return true
	case EventAnswered:
		var a AnsweredData
		return json.Unmarshal(e.Data, &a) != nil || a.Prompt == prompt
	}
	return false
}

// answerClosed answers a post to a question that is closed: with the
// answer stored, as a post while it was open would have been answered, or
// 410 when there is none (it closed unanswered, and an answer posted now
// would reach no one).
func (h *Handler) answerClosed(w http.ResponseWriter, r *http.Request, log Log, prompt uint64, idem string) {
	held, ok, err := log.LoadAnswer(r.Context(), prompt)
	switch {
	case err != nil:
		h.storeFailed(w, r)
	case !ok:
		httpError(w, http.StatusGone, "the question is closed, unanswered")
	default:
		writeAnswer(w, held, idem)
	}
}

// writeAnswer answers a post with the key idem with the answer held: 200
// when it is the post's (now or before), 409 with it otherwise.
func writeAnswer(w http.ResponseWriter, held Answer, idem string) {
	out := AnsweredData{Prompt: held.Prompt, Text: held.Text}
	if held.Key != idem {
		writeJSON(w, http.StatusConflict, struct {
			Error  string       `json:"error"`
			Answer AnsweredData `json:"answer"`
		}{"the question was answered already", out})
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// cancel asks the stream's driver to cancel the task.
func (h *Handler) cancel(w http.ResponseWriter, r *http.Request, key string) {
	var in struct{}
	if !readJSON(w, r, &in, true) {
		return
	}
	ctx := r.Context()
	log, err := h.open(ctx, key)
	if err == nil {
		err = log.RequestCancel(ctx)
	}
	if err != nil {
		h.storeFailed(w, r)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"status": "cancel requested"})
}

// readJSON decodes a JSON request body into v; an empty one leaves v as it
// is when empty is set. It answers the request itself and returns false
// when the body is not acceptable. The content type was checked by
// ownPost.
func readJSON(w http.ResponseWriter, r *http.Request, v any, empty bool) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(v); err != nil && (!empty || !errors.Is(err, io.EOF)) {
		httpError(w, http.StatusBadRequest, "bad JSON body")
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v) // the client may be gone; nothing to do
}

func httpError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

// sseWriter writes Server-Sent Events and keeps the first write error.
// Between hold and send it gathers what it writes in a buffer of bufs
// (ssepage.go), when it has bufs.
type sseWriter struct {
	w    http.ResponseWriter
	err  error
	bufs *pageBufs
	page *[]byte // held since hold, written by send; nil when not holding
	due  func()  // renews the write deadline (see put); nil: none
}

// flush flushes what s wrote to the browser, unless a write failed, and
// keeps the first error.
func (s *sseWriter) flush(rc *http.ResponseController) error {
	if s.err == nil {
		s.err = rc.Flush()
	}
	return s.err
}

func (s *sseWriter) write(parts ...[]byte) {
	if s.page != nil {
		for _, p := range parts {
			*s.page = append(*s.page, p...)
		}
		return
	}
	for _, p := range parts {
		s.put(p)
	}
}

// event writes one event; data on several lines (broken by LF, CR or
// CRLF, as SSE reads them) becomes several data fields, which the browser
// joins again with LF, so no line of the data is read as a field of its
// own.
func (s *sseWriter) event(id, name string, data []byte) {
	s.write([]byte("id: " + id + "\nevent: " + name + "\n"))
	for {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			s.write([]byte("data: "), data, []byte("\n"))
			break
		}
		s.write([]byte("data: "), data[:i], []byte("\n"))
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	s.write([]byte("\n"))
}

func (s *sseWriter) comment(text string) { s.write([]byte(": " + text + "\n\n")) }

// retry tells EventSource how long to wait before it connects again.
func (s *sseWriter) retry(d time.Duration) {
	s.write([]byte("retry: " + strconv.FormatInt(d.Milliseconds(), 10) + "\n\n"))
}
