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
	base   string // the base URL, without a trailing slash
	cfg    config
	holder string // this Receiver's name in the records it holds in a Share: a random UUID

	mu   sync.RWMutex
	regs map[string]*Registration
	lis  *listener // with a Share, while regs is not empty
	// rung remembers the last notifications rung for registrations held
	// elsewhere, so that a replay rings no more (see rungBefore).
	rung rungWindow
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
	holder, err := uuid.NewRandom()
	if err != nil {
		return nil, fmt.Errorf("push: making the Receiver's name: %w", err)
	}
	return &Receiver{base: base, cfg: cfg, holder: holder.String(), regs: map[string]*Registration{}}, nil
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
//
// With a Share (WithShare), Register stores the registration's record
// there, and makes sure that the Receiver listens for its rings, before it
// returns; ctx bounds that. Without one, it does no I/O and ctx is unused.
func (r *Receiver) Register(ctx context.Context) (*Registration, error) {
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
	token := base64.RawURLEncoding.EncodeToString(b[:])
	g := &Registration{
		id:     id.String(),
		url:    r.base + "/" + id.String(),
		token:  token,
		digest: sha256.Sum256([]byte(token)),
		recv:   r,
		ready:  make(chan struct{}, 1),
	}
	r.mu.Lock()
	r.regs[g.id] = g
	var l *listener
	if r.cfg.share != nil {
		if r.lis == nil {
			r.lis = r.startListener()
		}
		l = r.lis
	}
	r.mu.Unlock()
	if l == nil {
		return g, nil
	}
	if err := awaitListener(ctx, l); err != nil {
		g.Close()
		return nil, fmt.Errorf("push: Register: listening for rings: %w", err)
	}
	if err := r.put(ctx, g, ""); err != nil {
		g.Close()
		return nil, fmt.Errorf("push: Register: sharing the registration: %w", err)
	}
	return g, nil
}

// forget removes g from the registrations held, unless another took its
// place, and stops the listener when it was the last one.
func (r *Receiver) forget(g *Registration) {
	if l := r.unhold(g); l != nil {
		l.stop()
	}
}

// unhold removes g from the registrations held, unless another took its
// place, and returns the listener when g was the last one, for the
// caller to stop: the Receiver no longer has it.
func (r *Receiver) unhold(g *Registration) *listener {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.regs[g.id] == g {
		delete(r.regs, g.id)
	}
	var l *listener
	if len(r.regs) == 0 {
		l, r.lis = r.lis, nil
	}
	return l
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
//
// With a Share (WithShare), a notification for a registration the Receiver
// does not hold is checked against the registration's record in the Share
// (the token's digest, in constant time; then the body; then the task) and
// answered as its holder would answer it, but nothing is queued here: a
// notification taken, or one sent with the token that could not be read,
// was too large or did not decode, rings the registration through the
// Share, and its holder reports a loss.
// A replay of one rung recently is answered as a replay, and rings no
// more. A Share that fails to read
// the record or to ring gets 503.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	ctx := req.Context()
	if r == nil || r.regs == nil {
		w.WriteHeader(http.StatusUnauthorized) // the zero Receiver has no registration
		return
	}
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		closeUnread(w, req)
		r.refuse(ctx, w, http.StatusMethodNotAllowed, "method", "")
		return
	}
	if !acceptedType(req.Header.Get("Content-Type")) {
		closeUnread(w, req)
		r.refuse(ctx, w, http.StatusUnsupportedMediaType, "content-type", "")
		return
	}
	id := req.URL.Path[strings.LastIndexByte(req.URL.Path, '/')+1:]
	g := r.lookup(id)
	if g == nil && r.cfg.share != nil {
		r.serveShared(ctx, w, req, id)
		return
	}
	if !g.authentic(req.Header.Values(TokenHeader)) {
		closeUnread(w, req)
		r.refuse(ctx, w, http.StatusUnauthorized, "unauthorized", "")
		return
	}
	// From here the sender holds the registration's token.
	body, status, class := r.readBody(w, req)
	if class != "" {
		g.markLost()
		r.refuse(ctx, w, status, class, g.id)
		return
	}
	digest := sha256.Sum256(body)
	if g.seen(digest) {
		r.drop(ctx, w, "replay", g.id, len(body))
		return
	}
	n, taskID, class := decode(body)
	if class != "" {
		g.markLost()
		r.refuse(ctx, w, http.StatusBadRequest, class, g.id)
		return
	}
	unbound := g.TaskID() == ""
	switch g.offer(n, taskID, digest, int64(len(body))) {
	case offerQueued:
		if unbound {
			r.share(ctx, g, taskID)
		}
		r.cfg.logger.LogAttrs(ctx, slog.LevelDebug, "push: notification queued",
			slog.String("registration", g.id), slog.Int("bytes", len(body)), slog.String("version", string(n.Version)))
		w.WriteHeader(statusAccepted)
	case offerReplay:
		r.drop(ctx, w, "replay", g.id, len(body))
	case offerOverflow:
		if unbound {
			r.share(ctx, g, taskID)
		}
		r.drop(ctx, w, "overflow", g.id, len(body))
	case offerForeign:
		r.refuse(ctx, w, http.StatusForbidden, "foreign-task", g.id)
	case offerClosed:
		r.refuse(ctx, w, http.StatusUnauthorized, "unauthorized", "")
	}
}

// readBody reads req's body under the size limit. When it cannot, it
// returns the status and the class of the refusal (the request's
// connection closed when the body was left unread).
func (r *Receiver) readBody(w http.ResponseWriter, req *http.Request) (body []byte, status int, class string) {
	if req.ContentLength > r.cfg.maxBody {
		closeUnread(w, req)
		return nil, http.StatusRequestEntityTooLarge, "too-large"
	}
	src := req.Body
	if src == nil { // a server never passes one; a caller of ServeHTTP may
		src = http.NoBody
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, src, r.cfg.maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, http.StatusRequestEntityTooLarge, "too-large"
		}
		// The body could not be read to its end (the connection failed):
		// nothing is known of the event.
		return nil, http.StatusBadRequest, "unread"
	}
	return body, 0, ""
}

// share stores in the Share, if any, that g is bound to taskID, after a
// notification bound it; a failure is logged, and the record stays
// unbound (a Receiver that does not hold g then rings it for a
// notification of any task; the ring costs the holder one fetch).
func (r *Receiver) share(ctx context.Context, g *Registration, taskID string) {
	if r.cfg.share == nil {
		return
	}
	if err := g.shareBinding(ctx, taskID); err != nil {
		r.cfg.logger.LogAttrs(ctx, slog.LevelWarn, "push: sharing a binding failed",
			slog.String("registration", g.id), slog.Any("err", err))
	}
}

// serveShared takes a notification for id, which the Receiver does not
// hold, through the Share: it checks the token against the digest of the
// registration's record, the body's task against the record's, and rings
// the registration. It queues nothing. It answers as ServeHTTP, and 503
// when the Share fails.
func (r *Receiver) serveShared(ctx context.Context, w http.ResponseWriter, req *http.Request, id string) {
	var rec SharedRegistration
	found := false
	values := req.Header.Values(TokenHeader)
	// Only a request with one token and an ID of the form Register makes
	// costs a read of the Share: anything else is refused from here.
	if _, err := uuid.Parse(id); err == nil && len(id) == 36 && len(values) == 1 {
		var err error
		rec, found, err = r.cfg.share.GetRegistration(ctx, id)
		if err != nil {
			closeUnread(w, req)
			r.shareFailed(ctx, w, "get", err)
			return
		}
	}
	want := dummyDigest()
	if found {
		want = rec.TokenDigest
	}
	got := ""
	if len(values) == 1 {
		got = values[0]
	}
	digest := sha256.Sum256([]byte(got))
	if subtle.ConstantTimeCompare(digest[:], want[:]) != 1 || !found || len(values) != 1 {
		closeUnread(w, req)
		r.refuse(ctx, w, http.StatusUnauthorized, "unauthorized", "")
		return
	}
	// From here the sender holds the registration's token.
	body, status, class := r.readBody(w, req)
	if class == "" {
		_, taskID, decoded := decode(body)
		class, status = decoded, http.StatusBadRequest
		if class == "" && rec.TaskID != "" && taskID != rec.TaskID {
			r.refuse(ctx, w, http.StatusForbidden, "foreign-task", id)
			return
		}
	}
	if r.rung.seen(id, body) {
		// A replay of a notification rung already: answered as the holder
		// answers a replay, with no ring (each would cost the holder a
		// get-task).
		r.drop(ctx, w, "replay", id, len(body))
		return
	}
	if err := r.cfg.share.RingRegistration(ctx, id); err != nil {
		r.shareFailed(ctx, w, "ring", err)
		return
	}
	r.rung.add(id, body)
	if class != "" {
		r.refuse(ctx, w, status, class, id)
		return
	}
	r.cfg.logger.LogAttrs(ctx, slog.LevelDebug, "push: notification rung",
		slog.String("registration", id), slog.Int("bytes", len(body)))
	w.WriteHeader(statusAccepted)
}

// rungWindowSize is how many rung notifications a Receiver remembers.
const rungWindowSize = 1024

// rungWindow is the digests of the last notifications a Receiver rung for
// registrations it does not hold (of the registration's ID and the body):
// a replay of one rings no more, so that a captured notification sent
// again and again costs its holder one get-task per replica, not one per
// request. It holds rungWindowSize digests, the oldest forgotten first.
type rungWindow struct {
	mu   sync.Mutex
	ring [rungWindowSize][32]byte
	n    int // digests added, ever; the next goes at n%rungWindowSize
	set  map[[32]byte]struct{}
}

// key is the digest of a notification of body for the registration id.
func (*rungWindow) key(id string, body []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(id))
	h.Write([]byte{0})
	h.Write(body)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// seen reports whether a notification of body for id was rung recently.
func (w *rungWindow) seen(id string, body []byte) bool {
	k := w.key(id, body)
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.set[k]
	return ok
}

// add remembers a notification of body for id as rung, forgetting the
// oldest when the window is full.
func (w *rungWindow) add(id string, body []byte) {
	k := w.key(id, body)
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.set[k]; ok {
		return
	}
	if w.set == nil {
		w.set = make(map[[32]byte]struct{}, rungWindowSize)
	}
	slot := w.n % rungWindowSize
	if w.n >= rungWindowSize {
		delete(w.set, w.ring[slot])
	}
	w.ring[slot] = k
	w.set[k] = struct{}{}
	w.n++
}

// shareFailed answers 503, with an empty body, to a notification the Share
// failed to take, and logs what failed (never the request's path).
func (r *Receiver) shareFailed(ctx context.Context, w http.ResponseWriter, what string, err error) {
	r.cfg.logger.LogAttrs(ctx, slog.LevelWarn, "push: share failed",
		slog.String("call", what), slog.Any("err", err))
	w.WriteHeader(http.StatusServiceUnavailable)
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
// at Debug before the token was checked (id is ""), at Warn after, with the
// registration's ID.
func (r *Receiver) refuse(ctx context.Context, w http.ResponseWriter, status int, class string, id string) {
	if id == "" {
		r.cfg.logger.LogAttrs(ctx, slog.LevelDebug, "push: notification refused", slog.String("refusal", class))
	} else {
		r.cfg.logger.LogAttrs(ctx, slog.LevelWarn, "push: notification refused",
			slog.String("refusal", class), slog.String("registration", id))
	}
	w.WriteHeader(status)
}

// drop answers 2xx to a notification that was not queued, and logs why.
func (r *Receiver) drop(ctx context.Context, w http.ResponseWriter, class string, id string, size int) {
	level := slog.LevelDebug
	if class == "overflow" {
		level = slog.LevelWarn
	}
	r.cfg.logger.LogAttrs(ctx, level, "push: notification dropped",
		slog.String("drop", class), slog.String("registration", id), slog.Int("bytes", size))
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
// exactly one value whose SHA-256 digest is that of g's token (compared in
// constant time: a registration that Adopt made knows only the digest); g
// may be nil (no registration), and then the answer is false after the
// same comparison.
func (g *Registration) authentic(values []string) bool {
	want := dummyDigest()
	if g != nil {
		want = g.digest
	}
	got := ""
	if len(values) == 1 {
		got = values[0]
	}
	digest := sha256.Sum256([]byte(got))
	ok := subtle.ConstantTimeCompare(digest[:], want[:]) == 1
	return ok && g != nil && len(values) == 1
}

// dummyDigest returns the digest of dummyToken.
func dummyDigest() [sha256.Size]byte { return sha256.Sum256([]byte(dummyToken)) }
