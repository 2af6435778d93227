package chat

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

//go:embed static
var static embed.FS

const (
	// maxRunning is how many conversations this server may drive at once.
	maxRunning = 16
	// maxKept is how many ended conversations a server that keeps its logs
	// in memory keeps, so that a browser can still reconnect to their
	// event streams.
	maxKept = 64
	// maxBody bounds the JSON body of a POST.
	maxBody = 64 << 10
	// inputTimeout bounds the wait for the person's answer to a question.
	inputTimeout = 15 * time.Minute
)

// server is the web chat: it serves the page and the JSON and SSE API. Each
// conversation is one relayed stream (package relay) whose log, kept by the
// store, is the conversation's events; the server drives the conversations
// it starts (relay.Run, which holds and renews their leases), and serves
// the events, answers and cancel of any conversation in the store with a
// relay.Handler.
//
// With a shared store (replicas is true), a server that serves a
// conversation's events also runs relay.Run on it as a watcher, so that it
// takes the conversation over, resuming it from the log's checkpoint, when
// its driver dies. Without, a conversation the server stops ends
// with a failure event of kind "stopped".
//
// Conversations end when their task ends, when the server's context ends, or
// when Close is called. Close waits for all of them.
type server struct {
	ctx      context.Context // parent of every conversation
	cancel   context.CancelFunc
	client   *stream.Client
	store    relay.Store
	owner    string // this server's name in the leases
	secret   []byte // the key of the conversation IDs' MACs
	replicas bool   // the store is shared with other servers
	mux      *http.ServeMux
	wg       sync.WaitGroup // one per conversation goroutine

	mu       sync.Mutex
	closed   bool
	running  int                 // conversations this server drives
	ended    []string            // IDs of ended conversations, oldest first (memory store only)
	watching map[string]struct{} // conversations this server watches or drives
	driving  map[string]int      // conversations this server drives (relay.Run started or resumed them here)
}

// serverConfig is what newServer needs besides the agent.
type serverConfig struct {
	store    relay.Store // nil: a relay.MemoryStore of its own
	owner    string      // "": a random name
	secret   []byte      // nil: a random secret
	replicas bool
}

// newServer returns a server whose conversations live at most as long as ctx.
// dial builds the stream.Client from the options the server needs (the time
// a human has to answer); it adds its own, such as the HTTP client or the
// agent's URL.
func newServer(ctx context.Context, dial func(opts ...stream.Option) (*stream.Client, error), cfg serverConfig) (*server, error) {
	if cfg.store == nil {
		store, err := relay.NewMemoryStore()
		if err != nil {
			return nil, err
		}
		cfg.store = store
	}
	if cfg.owner == "" {
		cfg.owner = "webchat-" + rand.Text()[:8]
	}
	if cfg.secret == nil {
		cfg.secret = []byte(rand.Text())
	}
	s := &server{
		mux:      http.NewServeMux(),
		store:    cfg.store,
		owner:    cfg.owner,
		secret:   cfg.secret,
		replicas: cfg.replicas,
		watching: make(map[string]struct{}),
		driving:  make(map[string]int),
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
	events, err := relay.NewHandler(s.store, func(r *http.Request) (string, bool) {
		id := r.PathValue("id")
		return id, validID(s.secret, id)
	})
	if err != nil {
		return nil, err
	}
	s.mux.Handle("GET /", http.FileServerFS(page))
	s.mux.HandleFunc("POST /api/messages", s.handleMessage)
	s.mux.Handle("GET /api/conversations/{id}/events", s.watched(events))
	s.mux.Handle("POST /api/conversations/{id}/answer", events)
	s.mux.Handle("POST /api/conversations/{id}/cancel", events)
	s.mux.HandleFunc("GET /api/conversations/{id}/driver", s.handleDriver)
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Webchat-Replica", s.owner)
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

// start opens a conversation for msg, takes its lease and starts its
// goroutine.
func (s *server) start(msg *a2a.Message) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.ctx.Err() != nil {
		return "", errShuttingDown
	}
	if s.running >= maxRunning {
		return "", errBusy
	}
	id := conversationID(s.secret)
	lg, err := s.store.Open(s.ctx, id)
	if err != nil {
		return "", err
	}
	s.running++
	s.watching[id] = struct{}{}
	s.wg.Go(func() {
		err := s.run(s.ctx, id, lg, msg, !s.replicas)
		if err != nil && s.ctx.Err() == nil {
			slog.Default().Warn("webchat: conversation", "id", id, "err", err)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.running--
		delete(s.watching, id)
		if !s.replicas {
			s.ended = append(s.ended, id)
			s.prune()
		}
	})
	return id, nil
}

// prune deletes the oldest ended conversations beyond maxKept from a
// memory store. s.mu is held.
func (s *server) prune() {
	m, ok := s.store.(*relay.MemoryStore)
	if !ok {
		return
	}
	for len(s.ended) > maxKept {
		m.Delete(s.ended[0])
		s.ended = s.ended[1:]
	}
}

// watched wraps the events handler: with a shared store, a server that
// serves a conversation's events also watches it (see watch).
func (s *server) watched(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.PathValue("id"); s.replicas && validID(s.secret, id) {
			s.watch(id)
		}
		h.ServeHTTP(w, r)
	})
}

// watch starts relay.Run on conversation id as a watcher, unless this
// server runs it already.
func (s *server) watch(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.watching[id]; ok || s.closed {
		return
	}
	s.watching[id] = struct{}{}
	s.wg.Go(func() {
		defer func() {
			s.mu.Lock()
			delete(s.watching, id)
			s.mu.Unlock()
		}()
		lg, err := s.store.Open(s.ctx, id)
		if err == nil {
			err = s.run(s.ctx, id, lg, nil, false)
		}
		if err != nil && s.ctx.Err() == nil {
			slog.Default().Warn("webchat: watching a conversation", "id", id, "err", err)
		}
	})
}

// handleDriver answers whether this server drives a conversation (holds
// its lease): 200 with {"owner": "...", "pid": n} when it does, 404 when
// not. The proxy in front of replicas asks each of them.
func (s *server) handleDriver(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	_, ok := s.driving[id]
	s.mu.Unlock()
	if !ok || !validID(s.secret, id) {
		httpError(w, http.StatusNotFound, "this server does not drive this conversation")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"owner": s.owner, "pid": os.Getpid()})
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
	id, err := s.start(newMessage(text, in.ContextID))
	switch {
	case errors.Is(err, errBusy):
		httpError(w, http.StatusTooManyRequests, err.Error())
		return
	case err != nil:
		httpError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"id": id})
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
