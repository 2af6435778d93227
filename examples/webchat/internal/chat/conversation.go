package chat

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"log/slog"
	"strings"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/relay"
)

// leaseTTL is how long a replica holds a conversation's lease without
// renewing it (relay.Run renews it every third of that): how long a dead
// driver keeps the others from taking over.
const leaseTTL = 5 * time.Second

// snapshotEvery is how many entries the driver appends between two
// snapshots of the screen (relay.WithSnapshotEvery; the relay's default is
// 1024). A chat's answers are short: with the default, most conversations
// would have no snapshot, and a page sent away with a gone event would
// replay them whole. Each snapshot also trims the log through the one
// before, so a page more than two intervals behind gets gone.
const snapshotEvery = 32

// snapshotBytes is the byte rule of relay.WithSnapshotEvery: the relay's
// default, 1 MiB, which a chat's answers seldom reach between snapshots.
const snapshotBytes = 1 << 20

// conversationID returns a new conversation ID: a random part and its MAC
// under secret, so that any replica that knows the secret can tell the IDs
// the web chat made from others without asking the store (Store.Open
// would create a log for any key).
func conversationID(secret []byte) string {
	nonce := rand.Text()
	return nonce + "." + mac(secret, nonce)
}

// validID reports whether id is one conversationID made with secret.
func validID(secret []byte, id string) bool {
	nonce, sum, ok := strings.Cut(id, ".")
	return ok && nonce != "" && hmac.Equal([]byte(sum), []byte(mac(secret, nonce)))
}

func mac(secret []byte, nonce string) string {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(nonce))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// run keeps conversation id driven with relay.Run, until its log holds the
// ending or ctx ends: msg starts it (nil for a watcher, which only takes
// it over), and a replica that takes it over resumes the stream from the
// checkpoint in the log. While this server drives it, GET .../driver says
// so. With final set (no other server can take the conversation over), a
// conversation that ctx stops ends with a failure event of kind "stopped",
// so that its browsers are told.
func (s *server) run(ctx context.Context, id string, lg relay.Log, msg *a2a.Message, final bool) error {
	src := relay.Resume(s.client)
	if msg != nil {
		src = relay.Send(s.client, msg)
	}
	// Run calls driving when this server takes the lease, with a context
	// that ends when it stops driving.
	driving := func(ctx context.Context) {
		s.setDriving(id, true)
		context.AfterFunc(ctx, func() { s.setDriving(id, false) })
	}
	err := relay.Run(ctx, lg, s.owner, src, relay.WithLease(leaseTTL), relay.WithDriving(driving),
		relay.WithDrive(relay.WithSnapshotEvery(snapshotEvery, snapshotBytes), relay.WithLogger(slog.Default())))
	if err != nil && ctx.Err() != nil && final {
		// relay.Run gave its lease up when it stopped.
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = relay.Stop(sctx, lg, s.owner, "the chat server stopped this conversation")
		cancel()
	}
	return err
}

// setDriving records whether this server drives conversation id.
func (s *server) setDriving(id string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.driving[id]++
	} else if s.driving[id]--; s.driving[id] <= 0 {
		delete(s.driving, id)
	}
}

// newMessage is the message a POST /api/messages sends.
func newMessage(text, contextID string) *a2a.Message {
	msg := a2a.NewTextMessage(a2a.RoleUser, text)
	msg.ContextID = contextID
	return msg
}
