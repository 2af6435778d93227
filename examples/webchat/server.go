package main

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

//go:embed static
var static embed.FS

const (
	// maxRunning is how many conversations may run at once.
	maxRunning = 16
	// maxKept is how many ended conversations are kept, so that a browser
	// can still reconnect to their event streams.
	maxKept = 64
	// maxBody bounds the JSON body of a POST.
	maxBody = 64 << 10
	// inputTimeout bounds the wait for the person's answer to a question.
	inputTimeout = 15 * time.Minute
	// keepAlive is how often an idle event stream gets a comment, so that
	// proxies do not close it while the agent waits for an answer.
	keepAlive = 15 * time.Second
)

// server is the web chat: it serves the page and the JSON and SSE API, and
// owns one goroutine per conversation, which drives a stream of the Client.
//
// Conversations end when their task ends, when the server's context ends, or
// when Close is called. Close waits for all of them.
type server struct {
	ctx    context.Context // parent of every conversation
	cancel context.CancelFunc
	client *stream.Client
	mux    *http.ServeMux
	wg     sync.WaitGroup // one per conversation goroutine

	mu     sync.Mutex
	closed bool
	convs  map[string]*conversation
	order  []*conversation // in creation order, for pruning
}

// newServer returns a server whose conversations live at most as long as ctx.
// dial builds the stream.Client from the options the server needs (the time
// a human has to answer); it adds its own, such as the HTTP client or the
// agent's URL. Each conversation's stream gets its own human-input hook and
// notice function, as per-call options.
func newServer(ctx context.Context, dial func(opts ...stream.Option) (*stream.Client, error)) (*server, error) {
	s := &server{
		mux:   http.NewServeMux(),
		convs: make(map[string]*conversation),
	}
	client, err := dial(stream.WithInputTimeout(inputTimeout))
	if err != nil {
		return nil, err
	}
	s.client = client
	s.ctx, s.cancel = context.WithCancel(ctx)

	page, err := fs.Sub(static, "static")
	if err != nil {
		return nil, err
	}
	s.mux.Handle("GET /", http.FileServerFS(page))
	s.mux.HandleFunc("POST /api/messages", s.handleMessage)
	s.mux.HandleFunc("GET /api/conversations/{id}/events", s.handleEvents)
	s.mux.HandleFunc("POST /api/conversations/{id}/answer", s.handleAnswer)
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	s.mux.ServeHTTP(w, r)
}

// Close ends every conversation and waits for their goroutines. New messages
// are refused from then on.
func (s *server) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
}

// start registers a conversation for msg and starts its goroutine.
func (s *server) start(msg *a2a.Message) (*conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.ctx.Err() != nil {
		return nil, errShuttingDown
	}
	running := 0
	for _, c := range s.order {
		if !c.ended() {
			running++
		}
	}
	if running >= maxRunning {
		return nil, errBusy
	}
	s.prune()

	c := newConversation(rand.Text())
	s.convs[c.id] = c
	s.order = append(s.order, c)
	ctx, cancel := context.WithCancel(s.ctx)
	s.wg.Go(func() {
		defer cancel()
		s.drive(ctx, c, msg)
	})
	return c, nil
}

// prune forgets the oldest ended conversations beyond maxKept. s.mu is held.
func (s *server) prune() {
	ended := 0
	for _, c := range s.order {
		if c.ended() {
			ended++
		}
	}
	kept := s.order[:0]
	for _, c := range s.order {
		if ended >= maxKept && c.ended() {
			delete(s.convs, c.id)
			ended--
			continue
		}
		kept = append(kept, c)
	}
	clear(s.order[len(kept):])
	s.order = kept
}

func (s *server) lookup(id string) *conversation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.convs[id]
}

// drive runs one conversation: it sends msg with the conversation's own
// hook and notice function, relays every event of the stream to c, and
// ends c with the stream's outcome.
func (s *server) drive(ctx context.Context, c *conversation, msg *a2a.Message) {
	ask := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
		answer, err := c.ask(ctx, req.Text())
		if err != nil {
			return nil, err
		}
		return hitl.Text(answer), nil
	})
	st := s.client.Send(ctx, msg, stream.WithHumanInput(ask), stream.WithNotify(c.notice))
	defer st.Close()
	for st.Next() {
		c.relay(st.Event(), st.Task())
	}
	c.end(st.Ending())
}

var (
	errShuttingDown = errors.New("the server is shutting down")
	errBusy         = errors.New("too many conversations are running; try again later")
)

// handleMessage starts a conversation with the posted text and answers with
// its ID.
func (s *server) handleMessage(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Text      string `json:"text"`
		ContextID string `json:"contextId"`
	}
	if !readJSON(w, r, &in) {
		return
	}
	text := strings.TrimSpace(in.Text)
	if text == "" {
		httpError(w, http.StatusBadRequest, "the message is empty")
		return
	}
	msg := a2a.NewTextMessage(a2a.RoleUser, text)
	msg.ContextID = in.ContextID
	c, err := s.start(msg)
	switch {
	case errors.Is(err, errBusy):
		httpError(w, http.StatusTooManyRequests, err.Error())
		return
	case err != nil:
		httpError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"id": c.id})
}

// handleAnswer hands the posted text to the conversation's waiting question.
func (s *server) handleAnswer(w http.ResponseWriter, r *http.Request) {
	c := s.lookup(r.PathValue("id"))
	if c == nil {
		httpError(w, http.StatusNotFound, "no such conversation")
		return
	}
	var in struct {
		Text string `json:"text"`
	}
	if !readJSON(w, r, &in) {
		return
	}
	text := strings.TrimSpace(in.Text)
	if text == "" {
		httpError(w, http.StatusBadRequest, "the answer is empty")
		return
	}
	if !c.answer(text) {
		httpError(w, http.StatusConflict, "the agent is not waiting for an answer")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleEvents streams a conversation's events as Server-Sent Events, from
// the start or from after the Last-Event-ID the browser sends when it
// reconnects. It returns once the conversation's last event is written, or
// when the request's context ends (the browser went away). When the server
// stops, its conversations end, and so do their event streams.
func (s *server) handleEvents(w http.ResponseWriter, r *http.Request) {
	c := s.lookup(r.PathValue("id"))
	if c == nil {
		httpError(w, http.StatusNotFound, "no such conversation")
		return
	}
	next := 0
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		n, err := strconv.Atoi(id)
		if err != nil || n < 0 {
			httpError(w, http.StatusBadRequest, "bad Last-Event-ID")
			return
		}
		next = n
	}
	if c.delivered(next) {
		// Everything was delivered: 204 tells EventSource to stop
		// reconnecting.
		w.WriteHeader(http.StatusNoContent)
		return
	}

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if _, err := fmt.Fprint(w, "retry: 1000\n\n"); err != nil {
		return
	}
	if rc.Flush() != nil {
		return
	}

	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		evs, changed, done := c.since(next)
		for _, ev := range evs {
			next++
			if _, err := fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", next, ev.name, ev.data); err != nil {
				return
			}
		}
		if len(evs) > 0 && rc.Flush() != nil {
			return
		}
		if done {
			return
		}
		select {
		case <-changed:
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// readJSON decodes a JSON request body into v. It answers the request itself
// and returns false when the body is not acceptable. Requiring the JSON
// content type also keeps other sites from posting to the API: browsers
// allow such cross-origin requests only after a preflight, which the server
// does not answer.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "send application/json")
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(v); err != nil {
		httpError(w, http.StatusBadRequest, "bad JSON body: "+err.Error())
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
