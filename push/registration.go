package push

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"

	"github.com/a2astream/a2astream/a2a"
)

// replayWindow is how many bodies of a registration's recent notifications
// it remembers (by SHA-256 digest) to drop an exact replay of one.
const replayWindow = 64

// Notification is one event an agent pushed, decoded. It holds nothing of
// the request that carried it: no header, no token.
type Notification struct {
	// Event is a *a2a.Task, *a2a.StatusUpdate, *a2a.ArtifactUpdate or
	// *a2a.Message of the registration's task. A 0.3 notification is
	// always a *a2a.Task: the whole task as it was after the event that
	// caused the push, not the event.
	Event a2a.Event
	// Version is the shape the body had: a2a.V10 for a 1.0 StreamResponse
	// member ({"task"|"statusUpdate"|"artifactUpdate"|"message": …}),
	// a2a.V03 for a whole Task snapshot (with "kind":"task", or bare).
	Version a2a.Version
}

// Registration is one push config of the application's: the ID, URL and
// token to register with the agent, the task it is bound to, and the queue
// of the notifications received for it until they are taken. It is safe
// for concurrent use; Ready and Take are meant for one consumer. Only
// Receiver.Register makes a usable one.
//
// A consumer waits with a select beside its own timer or context:
//
//	select {
//	case <-reg.Ready():
//		ns, lost := reg.Take()
//		// apply ns; when lost, fetch the task: a notification was dropped
//	case <-timer.C:
//		// poll
//	}
type Registration struct {
	id, url, token string
	digest         [sha256.Size]byte // of the token: what a notification's token is checked against
	generation     uint64            // of the shared record: 0 when Register made it, the adoption's after Adopt
	recv           *Receiver
	// ready holds a value exactly when the queue is not empty or lost is
	// set: both change under mu, and so does ready.
	ready chan struct{}

	mu         sync.Mutex
	closed     bool
	released   bool // another Receiver adopted it: this one writes nothing more to the Share
	taskID     string
	sharedTask string // the task of the record in the Receiver's Share, once stored
	queue      []Notification
	bytes      int64 // the sum of the queued notifications' body sizes
	lost       bool
	digests    [replayWindow][32]byte
	ndigest    int // digests recorded, ever; the next goes at ndigest%replayWindow
}

// String reads like push.Registration{ID:"…" URL:"…" Token:xxxxx}: never
// the token, so that printing a Registration is safe.
func (g *Registration) String() string {
	if g == nil {
		return "push.Registration(nil)"
	}
	token := ""
	if g.token != "" {
		token = "xxxxx"
	}
	return "push.Registration{ID:" + strconv.Quote(g.id) + " URL:" + strconv.Quote(g.url) + " Token:" + token + "}"
}

// Format writes String for every verb (%v, %+v and %#v included).
func (g *Registration) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(g.String())) }

// LogValue returns String as a log/slog value.
func (g *Registration) LogValue() slog.Value { return slog.StringValue(g.String()) }

// ID returns the registration's ID, a random UUID: the push config's id.
func (g *Registration) ID() string { return g.id }

// URL returns the URL the agent POSTs to: the Receiver's base URL, "/",
// and the ID. It is the push config's url.
func (g *Registration) URL() string { return g.url }

// Token returns the secret the agent sends back in the
// X-A2A-Notification-Token header of each notification: the push config's
// token. Keep it out of logs. A registration taken over with
// Receiver.Adopt returns "": the Share keeps only the token's digest, and
// the push config registered with the agent already carries the token.
func (g *Registration) Token() string { return g.token }

// Bind binds the registration to the task taskID: the Receiver then
// refuses a notification of any other task. A registration registered with
// the push-config calls is bound to the task it was registered for; one
// that rides in the send, before the task exists, is bound when the task's
// first event comes (or by the first notification, whichever is first).
// Binding again to the same task does nothing; to another, it returns
// ErrBound. After Close it returns ErrClosed. An empty taskID is an error.
// Once another Receiver has adopted the registration (see Receiver.Adopt),
// Bind returns ErrAdopted and stores nothing in the Share.
//
// With a Share (WithShare), Bind also stores the binding in the
// registration's record, so that the Receivers that do not hold the
// registration refuse another task's notifications too; ctx bounds that.
// When that fails, Bind returns the error and the registration is bound
// here all the same: Bind again to the same task to share the binding.
// Without a Share, ctx is unused.
func (g *Registration) Bind(ctx context.Context, taskID string) error {
	if taskID == "" {
		return errors.New("push: Bind: the task ID is empty")
	}
	g.mu.Lock()
	switch {
	case g.closed:
		g.mu.Unlock()
		return ErrClosed
	case g.released:
		g.mu.Unlock()
		return ErrAdopted
	case g.taskID == "":
		g.taskID = taskID
	case g.taskID != taskID:
		g.mu.Unlock()
		return ErrBound
	}
	g.mu.Unlock()
	if g.recv == nil || g.recv.cfg.share == nil {
		return nil
	}
	if err := g.shareBinding(ctx, taskID); err != nil {
		return fmt.Errorf("push: Bind: sharing the binding: %w", err)
	}
	return nil
}

// shareBinding stores in the Share the record of g bound to taskID, unless
// it is stored already.
func (g *Registration) shareBinding(ctx context.Context, taskID string) error {
	g.mu.Lock()
	done := g.sharedTask == taskID || g.closed
	g.mu.Unlock()
	if done {
		return nil
	}
	if err := g.recv.put(ctx, g, taskID); errors.Is(err, ErrAdopted) {
		if l := g.recv.release(g); l != nil {
			l.stop()
		}
		return ErrAdopted
	} else if err != nil {
		return err
	}
	g.mu.Lock()
	g.sharedTask = taskID
	closed := g.closed
	g.mu.Unlock()
	if closed { // Close deleted the record before the put landed
		g.recv.deleteShared(g.id)
	}
	return nil
}

// TaskID returns the ID of the task the registration is bound to, or "".
func (g *Registration) TaskID() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.taskID
}

// Ready returns a channel that holds a value while notifications are
// queued or one was lost: receive from it in a select, then call Take. It
// is the same channel for the registration's life; after Close it never
// becomes ready again.
func (g *Registration) Ready() <-chan struct{} { return g.ready }

// Take returns, without waiting, the notifications queued, oldest first,
// and whether any was lost since the last Take: dropped because the queue
// was full, or sent by the agent (with the right token) in a body the
// Receiver could not read. After a loss, the consumer should fetch the task
// to recover what it missed. It returns nil and false when there is
// nothing, and after Close.
func (g *Registration) Take() (ns []Notification, lost bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	ns, lost = g.queue, g.lost
	g.queue, g.bytes, g.lost = nil, 0, false
	g.drainReady()
	return ns, lost
}

// Close forgets the registration: the Receiver refuses its later
// notifications (as it refuses an unknown one), and what it held is freed.
// Close is idempotent.
//
// With a Share (WithShare), Close also deletes the registration's record,
// waiting up to a few seconds for the Share, unless another Receiver
// adopted it since (Receiver.Adopt): the record is then the adopter's, and
// is left as it is. The delete is best effort, and a record it failed to
// delete is refused by every Receiver once it expires (WithShareTTL), its
// holder no longer refreshing it. Until then another Receiver may ring it,
// and the ring reaches no one. To hand the registration on rather than
// end it, use Leave.
func (g *Registration) Close() { g.end(true) }

// Leave forgets the registration here, as Close does, but leaves its
// record in the Share (WithShare) for another Receiver to adopt
// (Receiver.Adopt) until it expires, WithShareTTL after its last refresh:
// a process that stops following a task that still runs (a replica that
// shuts down, a stream closed to be resumed elsewhere) hands the push
// config the agent holds on, rather than making the next holder register
// a new one. Without a Share, Leave is Close. Once either was called, both
// do nothing.
func (g *Registration) Leave() { g.end(false) }

// end is Close (deleteRecord) and Leave.
func (g *Registration) end(deleteRecord bool) {
	if g.recv != nil {
		g.recv.forget(g)
	}
	g.mu.Lock()
	first := !g.closed && !g.released
	g.closed = true
	g.queue, g.bytes, g.lost = nil, 0, false
	g.digests, g.ndigest = [replayWindow][32]byte{}, 0
	g.drainReady()
	g.mu.Unlock()
	if first && deleteRecord && g.recv != nil {
		g.recv.deleteShared(g.id)
	}
}

// isReleased reports whether another Receiver adopted the registration.
func (g *Registration) isReleased() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.released
}

// markReleased notes that another Receiver adopted the registration, and
// reports whether it was not noted already.
func (g *Registration) markReleased() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	first := !g.released
	g.released = true
	return first
}

// drainReady empties ready; mu is held.
func (g *Registration) drainReady() {
	select {
	case <-g.ready:
	default:
	}
}

// signal fills ready; mu is held.
func (g *Registration) signal() {
	select {
	case g.ready <- struct{}{}:
	default:
	}
}

// markLost records that a notification sent with the registration's token
// could not be taken.
func (g *Registration) markLost() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	g.lost = true
	g.signal()
}

// seen reports whether a body with digest d was queued recently.
func (g *Registration) seen(d [32]byte) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.seenLocked(d)
}

func (g *Registration) seenLocked(d [32]byte) bool {
	for i := range min(g.ndigest, replayWindow) {
		if g.digests[i] == d {
			return true
		}
	}
	return false
}

// offer is what became of a notification offered to a registration.
type offer int

const (
	offerQueued   offer = iota
	offerReplay         // a recent body again: dropped
	offerOverflow       // the queue is full: dropped, lost set
	offerForeign        // another task's: refused
	offerClosed         // closed meanwhile: refused as unknown
)

// offer queues n, of task taskID, whose body had digest d and size bytes,
// unless the registration is closed, bound to another task, saw the body
// recently, or has no room. An unbound registration binds to taskID.
func (g *Registration) offer(n Notification, taskID string, d [32]byte, bytes int64) offer {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.closed:
		return offerClosed
	case g.taskID != "" && g.taskID != taskID:
		return offerForeign
	case g.seenLocked(d):
		return offerReplay
	}
	g.taskID = taskID
	if len(g.queue) >= g.recv.cfg.queueEntries || g.bytes+bytes > g.recv.cfg.queueBytes {
		g.lost = true
		g.signal()
		return offerOverflow
	}
	g.queue = append(g.queue, n)
	g.bytes += bytes
	g.digests[g.ndigest%replayWindow] = d
	g.ndigest++
	g.signal()
	return offerQueued
}
