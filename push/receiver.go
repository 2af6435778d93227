package push

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/google/uuid"
)

// TokenHeader is the header that carries a notification's token: an agent
// sends in it the token of the push config it POSTs for.
const TokenHeader = "X-A2A-Notification-Token"

// tokenBytes is how many random bytes a token holds (43 characters once
// encoded).
const tokenBytes = 32

// Receiver receives the push notifications of A2A agents: it is an
// http.Handler that the application mounts at the base URL given to
// NewReceiver, and Register makes a Registration for each push config the
// application registers with an agent. A Receiver is safe for concurrent
// use. It holds its registrations, in memory, until they are closed: close
// each one when its task is done with. It does not bound how many there
// are; the application does, by the tasks it follows. Make one with
// NewReceiver: the zero Receiver refuses to Register and refuses every
// request.
type Receiver struct {
	base string // the base URL, without a trailing slash
	cfg  config

	mu   sync.RWMutex
	regs map[string]*Registration
}

// NewReceiver returns a Receiver whose registrations have URLs under
// baseURL: baseURL + "/" + the registration's ID. baseURL is where the
// application mounts the Receiver as the agent will reach it; an https URL,
// or an http one whose host is loopback (localhost, 127.0.0.0/8, ::1: tests
// and agents on the same machine), with no query, fragment or user name.
// Anything else is refused with an error that wraps ErrInvalidOption, as are
// invalid options.
func NewReceiver(baseURL string, opts ...Option) (*Receiver, error) {
	cfg := defaultConfig()
	errs := []error{cfg.applyAll(opts)}
	base, err := checkBase(baseURL)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Receiver{base: base, cfg: cfg, regs: map[string]*Registration{}}, nil
}

// checkBase returns baseURL without a trailing slash, or why it is refused.
func checkBase(baseURL string) (string, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return "", invalidOption("base URL: not a URL")
	}
	switch {
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return "", invalidOption("base URL: no host")
	case u.User != nil:
		return "", invalidOption("base URL: it holds a user name")
	case u.RawQuery != "" || u.ForceQuery:
		return "", invalidOption("base URL: it has a query")
	case u.Fragment != "" || strings.Contains(baseURL, "#"):
		return "", invalidOption("base URL: it has a fragment")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !loopback(u.Hostname()) {
			return "", invalidOption("base URL: http is allowed only to a loopback host; use https")
		}
	default:
		return "", invalidOption("base URL: scheme %q; it must be https (or http to a loopback host)", u.Scheme)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// loopback reports whether host names this machine.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Register makes a Registration: a fresh ID (a random UUID), its URL under
// the base URL, and a fresh random token (32 bytes from crypto/rand,
// base64url). Put the three in the push config the client registers with
// the agent. The registration is unbound: Bind it to its task, or it binds
// to the task of the first notification it accepts. The caller must Close
// it.
func (r *Receiver) Register() (*Registration, error) {
	if r == nil || r.regs == nil {
		return nil, errors.New("push: Register: the Receiver was not made by NewReceiver")
	}
	id, err := uuid.NewRandom()
	if err != nil {
		return nil, fmt.Errorf("push: making a registration ID: %w", err)
	}
	var b [tokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("push: making a token: %w", err)
	}
	g := &Registration{
		id:    id.String(),
		url:   r.base + "/" + id.String(),
		token: base64.RawURLEncoding.EncodeToString(b[:]),
		recv:  r,
		ready: make(chan struct{}, 1),
	}
	r.mu.Lock()
	r.regs[g.id] = g
	r.mu.Unlock()
	return g, nil
}

// forget removes the registration with id.
func (r *Receiver) forget(id string) {
	r.mu.Lock()
	delete(r.regs, id)
	r.mu.Unlock()
}

// lookup returns the open registration whose ID is id, or nil.
func (r *Receiver) lookup(id string) *Registration {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.regs[id]
}

// statusAccepted answers every notification taken, queued or dropped.
const statusAccepted = http.StatusNoContent

// ServeHTTP takes one notification. The registration is the one whose ID is
// the last segment of the request's path, so that the Receiver works both
// under a pattern such as "POST /hooks/a2a/{id}" and under
// http.StripPrefix. It answers:
//
//   - 405 to a method other than POST;
//   - 415 to a content type other than application/json or
//     application/a2a+json (parameters allowed);
//   - 401 when the path names no open registration, or when the request's
//     X-A2A-Notification-Token is not the registration's token (compared in
//     constant time). The two answers are the same, and the body is not
//     read. An Authorization header is not a token: the library registers
//     its configs with a token only;
//   - 413 to a body longer than WithMaxBodySize, 400 to one that could not
//     be read to its end;
//   - 400 to a body that is not one event: a 1.0 StreamResponse member
//     (task, statusUpdate, artifactUpdate, or a message with a task ID) or a
//     0.3 Task snapshot;
//   - 403 to an event of another task than the registration's;
//   - 204 otherwise: the notification is queued, or dropped as a replay of
//     one of the registration's recent bodies, or dropped because the
//     queue is full (then the next Take reports a loss).
//
// Every refusal has an empty body and says nothing more than its status.
// ServeHTTP never waits for the application.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	ctx := req.Context()
	if r == nil || r.regs == nil {
		w.WriteHeader(http.StatusUnauthorized) // the zero Receiver has no registration
		return
	}
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		closeUnread(w, req)
		r.refuse(ctx, w, http.StatusMethodNotAllowed, "method", nil)
		return
	}
	if !acceptedType(req.Header.Get("Content-Type")) {
		closeUnread(w, req)
		r.refuse(ctx, w, http.StatusUnsupportedMediaType, "content-type", nil)
		return
	}
	id := req.URL.Path[strings.LastIndexByte(req.URL.Path, '/')+1:]
	g := r.lookup(id)
	if !g.authentic(req.Header.Values(TokenHeader)) {
		closeUnread(w, req)
		r.refuse(ctx, w, http.StatusUnauthorized, "unauthorized", nil)
		return
	}
	// From here the sender holds the registration's token.
	if req.ContentLength > r.cfg.maxBody {
		g.markLost()
		closeUnread(w, req)
		r.refuse(ctx, w, http.StatusRequestEntityTooLarge, "too-large", g)
		return
	}
	src := req.Body
	if src == nil { // a server never passes one; a caller of ServeHTTP may
		src = http.NoBody
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, src, r.cfg.maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			g.markLost()
			r.refuse(ctx, w, http.StatusRequestEntityTooLarge, "too-large", g)
			return
		}
		// The body could not be read to its end (the connection failed):
		// nothing is known of the event.
		g.markLost()
		r.refuse(ctx, w, http.StatusBadRequest, "unread", g)
		return
	}
	digest := sha256.Sum256(body)
	if g.seen(digest) {
		r.drop(ctx, w, "replay", g, len(body))
		return
	}
	n, taskID, class := decode(body)
	if class != "" {
		g.markLost()
		r.refuse(ctx, w, http.StatusBadRequest, class, g)
		return
	}
	switch g.offer(n, taskID, digest, int64(len(body))) {
	case offerQueued:
		r.cfg.logger.LogAttrs(ctx, slog.LevelDebug, "push: notification queued",
			slog.String("registration", g.id), slog.Int("bytes", len(body)), slog.String("version", string(n.Version)))
		w.WriteHeader(statusAccepted)
	case offerReplay:
		r.drop(ctx, w, "replay", g, len(body))
	case offerOverflow:
		r.drop(ctx, w, "overflow", g, len(body))
	case offerForeign:
		r.refuse(ctx, w, http.StatusForbidden, "foreign-task", g)
	case offerClosed:
		r.refuse(ctx, w, http.StatusUnauthorized, "unauthorized", nil)
	}
}

// closeUnread asks net/http to close an HTTP/1 connection whose request is
// refused with its body unread: otherwise the server reads up to 256 KiB
// of that body before it answers, and a sender that drips it (anyone, before
// the token is checked) holds the connection and its goroutine until the
// server's ReadTimeout. An HTTP/2 connection carries other requests, and a
// stream's unread body holds nothing of it; it is left open.
func closeUnread(w http.ResponseWriter, req *http.Request) {
	if req.ProtoMajor == 1 {
		w.Header().Set("Connection", "close")
	}
}

// refuse answers status with an empty body and logs the refusal's class:
// at Debug before the token was checked (g is nil), at Warn after.
func (r *Receiver) refuse(ctx context.Context, w http.ResponseWriter, status int, class string, g *Registration) {
	if g == nil {
		r.cfg.logger.LogAttrs(ctx, slog.LevelDebug, "push: notification refused", slog.String("refusal", class))
	} else {
		r.cfg.logger.LogAttrs(ctx, slog.LevelWarn, "push: notification refused",
			slog.String("refusal", class), slog.String("registration", g.id))
	}
	w.WriteHeader(status)
}

// drop answers 2xx to a notification that was not queued, and logs why.
func (r *Receiver) drop(ctx context.Context, w http.ResponseWriter, class string, g *Registration, size int) {
	level := slog.LevelDebug
	if class == "overflow" {
		level = slog.LevelWarn
	}
	r.cfg.logger.LogAttrs(ctx, level, "push: notification dropped",
		slog.String("drop", class), slog.String("registration", g.id), slog.Int("bytes", size))
	w.WriteHeader(statusAccepted)
}

// acceptedType reports whether a Content-Type names JSON as agents send
// it: application/json (0.3) or application/a2a+json (1.0).
func acceptedType(value string) bool {
	mt, _, err := mime.ParseMediaType(value)
	return err == nil && (mt == "application/json" || mt == "application/a2a+json")
}

// dummyToken is compared with the token given for a path that names no
// registration, so that such a request costs what a wrong token costs.
// It has the length of a token.
const dummyToken = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// authentic reports whether values, the request's token header values, are
// exactly one value equal to g's token; g may be nil (no registration),
// and then the answer is false after the same comparison.
func (g *Registration) authentic(values []string) bool {
	want := dummyToken
	if g != nil {
		want = g.token
	}
	got := ""
	if len(values) == 1 {
		got = values[0]
	}
	ok := subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
	return ok && g != nil && len(values) == 1
}
