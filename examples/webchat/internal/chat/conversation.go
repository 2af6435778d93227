package chat

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

const (
	// leaseTTL is how long a replica holds a conversation's lease without
	// renewing it: how long a dead driver keeps the others from taking
	// over.
	leaseTTL = 5 * time.Second
	// renewEvery is how often the driver renews its lease.
	renewEvery = leaseTTL / 3
)

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

// drive runs one conversation as the holder of its lease: it relays the
// stream that start starts into the conversation's log with relay.Drive,
// renewing the lease meanwhile. It returns once the log holds the
// stream's ending, or when the lease is lost or ctx ends. With final set
// (no other replica can take the conversation over), a conversation that
// ctx stops ends with an error event of kind "stopped", so that its
// browsers are told.
func (s *server) drive(ctx context.Context, id string, lg relay.Log, fence relay.Fence, start relay.StartFunc, final bool) error {
	s.setDriving(id, true)
	defer s.setDriving(id, false)
	dctx, stop := context.WithCancel(ctx)
	defer stop()
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		tick := time.NewTicker(renewEvery)
		defer tick.Stop()
		for {
			select {
			case <-dctx.Done():
				return
			case <-tick.C:
				if lg.Renew(dctx, fence, leaseTTL) != nil && dctx.Err() == nil {
					stop() // lost: another replica drives it now
					return
				}
			}
		}
	}()
	err := relay.Drive(dctx, lg, fence, start)
	stop()
	<-renewed
	if err != nil && ctx.Err() != nil && final {
		stopped(lg, fence)
	}
	_ = lg.Release(context.WithoutCancel(ctx), fence)
	return err
}

// setDriving records whether this server holds conversation id's lease.
func (s *server) setDriving(id string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.driving[id] = struct{}{}
	} else {
		delete(s.driving, id)
	}
}

// stopped appends the ending of a conversation the server stopped.
func stopped(lg relay.Log, fence relay.Fence) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	tail, err := lg.Tail(ctx)
	if err != nil {
		return
	}
	data, _ := json.Marshal(relay.ErrorData{Kind: "stopped", Text: "the chat server stopped this conversation"})
	_ = lg.Append(ctx, fence, relay.Entry{Seq: tail + 1, Name: relay.EventError, Data: data})
}

// taskOf returns the ID of the task a conversation's log names, "" when it
// names none yet: the snapshot's, or the last status entry's after it.
func taskOf(ctx context.Context, lg relay.Log) (string, error) {
	snap, err := lg.LoadSnapshot(ctx)
	if err != nil {
		return "", err
	}
	sc, err := relay.ParseScreen(snap.Data)
	if err != nil {
		return "", err
	}
	id, after := sc.TaskID, snap.Seq
	for {
		entries, err := lg.Read(ctx, after, 64)
		if err != nil {
			return "", err
		}
		if len(entries) == 0 {
			return id, nil
		}
		for _, e := range entries {
			after = e.Seq
			if e.Name != relay.EventStatus {
				continue
			}
			var d relay.StatusData
			if json.Unmarshal(e.Data, &d) == nil && d.TaskID != "" {
				id = d.TaskID
			}
		}
	}
}

// watch follows a conversation whose driver runs elsewhere, and takes it
// over when that driver's lease ends: it resubscribes to the task the log
// names and drives it on. It returns once the log holds the ending, or
// when ctx ends.
func (s *server) watchLog(ctx context.Context, id string, lg relay.Log) error {
	for {
		fence, err := lg.Acquire(ctx, s.owner, leaseTTL)
		switch {
		case errors.Is(err, relay.ErrHeld):
			t := time.NewTimer(leaseTTL / 5)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
			continue
		case err != nil:
			return err
		}
		taskID, err := taskOf(ctx, lg)
		if err != nil {
			_ = lg.Release(context.WithoutCancel(ctx), fence)
			return err
		}
		if taskID == "" {
			// The driver died before the agent named the task: there is
			// nothing to subscribe to.
			_ = lg.Release(context.WithoutCancel(ctx), fence)
			return errNoTask
		}
		err = s.drive(ctx, id, lg, fence, func(ctx context.Context, opts ...stream.Option) *stream.Stream {
			return s.client.Subscribe(ctx, taskID, opts...)
		}, false)
		if errors.Is(err, relay.ErrEnded) {
			return nil
		}
		if err == nil || ctx.Err() != nil {
			return err
		}
		// The lease was lost or a write failed: watch again.
	}
}

var errNoTask = errors.New("webchat: the conversation's driver died before the agent named a task")

// newMessage is the message a POST /api/messages sends.
func newMessage(text, contextID string) *a2a.Message {
	msg := a2a.NewTextMessage(a2a.RoleUser, text)
	msg.ContextID = contextID
	return msg
}
