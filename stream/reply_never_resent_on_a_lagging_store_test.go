package stream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

// laggingAgent is a 0.3 JSON-RPC agent that takes the human-input reply (reads it whole) and then
// loses the connection before answering, and whose store lags: for lag after the reply arrived, its
// subscriptions and get-task still show the task as it was before the reply (input-required, the
// user's first message in its history, not the reply), as a replica behind or a2a-js 1.3.0's
// follow-up snapshot does. Then it shows the task completed, the reply in its history.
type laggingAgent struct {
	lag       time.Duration
	noUsers   bool          // keeps no user messages in its history, as a2a-go
	hang      chan struct{} // when set, a reply is taken, then its answer hangs and this is closed
	mu        sync.Mutex
	replies   []string // message IDs of the replies received
	repliedAt time.Time
}

func (a *laggingAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Message struct {
				MessageID string `json:"messageId"`
				TaskID    string `json:"taskId"`
			} `json:"message"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	prompt := `{"kind":"message","messageId":"p1","role":"agent","parts":[{"kind":"text","text":"more?"}],"taskId":"t1","contextId":"c1"}`
	user := `{"kind":"message","messageId":"u1","role":"user","parts":[{"kind":"text","text":"hello"}],"taskId":"t1","contextId":"c1"}`
	before := `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"input-required","message":` + prompt +
		`,"timestamp":"2026-01-01T00:00:00Z"},"history":[` + user + `,` + prompt + `]}`
	a.mu.Lock()
	replied := len(a.replies) > 0
	caughtUp := replied && time.Since(a.repliedAt) >= a.lag
	reply := ""
	if replied {
		reply = a.replies[0]
	}
	a.mu.Unlock()
	after := `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed","timestamp":"2026-01-01T00:00:05Z"},` +
		`"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":"thanks"}]}],"history":[` + user + `,` + prompt +
		`,{"kind":"message","messageId":"` + reply + `","role":"user","parts":[{"kind":"text","text":"yes"}],"taskId":"t1","contextId":"c1"}]}`
	if a.noUsers {
		before = strings.Replace(before, user+`,`, "", 1)
		after = strings.Replace(after, user+`,`, "", 1)
		after = after[:strings.LastIndex(after, `,{"kind":"message","messageId":"`+reply)] + `]}`
	}
	now := before
	if caughtUp {
		now = after
	}
	switch {
	case req.Method == "message/stream" && req.Params.Message.TaskID == "":
		startSSE(w)
		lagEvent(w, req.ID, `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"submitted"},"history":[`+user+`]}`)
		lagEvent(w, req.ID, `{"kind":"status-update","taskId":"t1","contextId":"c1","status":{"state":"input-required","message":`+prompt+
			`,"timestamp":"2026-01-01T00:00:00Z"},"final":true}`)
	case req.Method == "message/stream":
		a.mu.Lock()
		a.replies = append(a.replies, req.Params.Message.MessageID)
		if len(a.replies) == 1 {
			a.repliedAt = time.Now()
		}
		hang := a.hang
		a.hang = nil
		a.mu.Unlock()
		if hang != nil {
			close(hang)
			<-r.Context().Done() // the client's process dies while the reply is in flight
			return
		}
		panic(http.ErrAbortHandler) // taken, then the connection is lost before any answer
	case req.Method == "tasks/get":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, now)
	case req.Method == "tasks/resubscribe":
		startSSE(w)
		lagEvent(w, req.ID, now)
	default:
		w.WriteHeader(404)
	}
}

// lagEvent writes one SSE event holding a JSON-RPC result, and flushes it.
func lagEvent(w http.ResponseWriter, id json.RawMessage, result string) {
	rawEvent(w, id, []byte(result))
	w.(http.Flusher).Flush()
}

// Stranger BJ's finding (high). GUARANTEES.md: "Your message is never sent
// twice once it may have reached the agent". The agent took the reply (read
// it whole) and lost the connection before answering; its store shows the
// task without the reply for a while (its history lists the user's first
// message, not the reply), or, keeping no user messages (a2a-go), has not
// left input-required yet. The stream sent the reply again once the lag
// outlasted its backoff (a 1 s lag: twice; 3 s: four times). A reply that
// got no response is sent again only with WithIdempotentSends now.
func TestAReplyThatReachedTheAgentIsNotSentAgainWhenItsStoreLags(t *testing.T) {
	for _, lag := range []time.Duration{0, 100 * time.Millisecond, time.Second, 3 * time.Second} {
		for _, noUsers := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/no-user-history=%v", lag, noUsers), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := &laggingAgent{lag: lag, noUsers: noUsers}
					asked := 0
					c, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(a2atest.NewClient(agent)),
						stream.WithVersion(a2a.V03),
						stream.WithHumanInput(hitl.Func(func(ctx context.Context, r *hitl.Request) ([]a2a.Part, error) {
							asked++
							return hitl.Text("yes"), nil
						})))
					require.NoError(t, err)
					ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
					defer cancel()
					task, err := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello")).Wait()
					agent.mu.Lock()
					replies := append([]string(nil), agent.replies...)
					agent.mu.Unlock()
					state := a2a.TaskState("")
					if task != nil {
						state = task.Status.State
					}
					require.Len(t, replies, 1, "the reply reached the agent %d times (asked %d, ended in %v, state %v): %s",
						len(replies), asked, err, state, strings.Join(replies, ","))
					require.Equal(t, 1, asked)
				})
			})
		}
	}
}

// Stranger BJ's finding (high), on Resume. A process dies while its reply
// is in flight (the agent took it); another resumes from the checkpoint
// saved before the send (WithCheckpointBeforeReply) while the agent's store
// lags behind the reply: its history lists the user's first message, not
// the reply, which read as proof that the reply never arrived. The resumed
// stream sent it again on each attempt (4 more times here).
func TestResumeDoesNotSendAgainAReplyInFlightThatALaggingStoreDoesNotList(t *testing.T) {
	for _, lag := range []time.Duration{0, 2 * time.Second} {
		t.Run(fmt.Sprint(lag), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := &laggingAgent{lag: lag, hang: make(chan struct{})}
				hung := agent.hang
				var saved []byte
				hook := stream.WithHumanInput(hitl.Func(func(ctx context.Context, r *hitl.Request) ([]a2a.Part, error) {
					return hitl.Text("yes"), nil
				}))
				c1, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(a2atest.NewClient(agent)), stream.WithVersion(a2a.V03), hook,
					stream.WithCheckpointBeforeReply(func(ctx context.Context, cp *stream.Checkpoint) error {
						b, err := cp.MarshalBinary()
						saved = b
						return err
					}))
				require.NoError(t, err)
				ctx, cancel := context.WithCancel(context.Background())
				s := c1.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello"))
				go func() { <-hung; cancel() }() // the process dies once the agent has the reply
				for s.Next() {
				}
				require.NoError(t, s.Close())
				require.NotNil(t, saved, "no checkpoint was saved before the reply (ended in %v)", s.Err())

				cp, err := stream.ParseCheckpoint(saved)
				require.NoError(t, err)
				c2, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(a2atest.NewClient(agent)), stream.WithVersion(a2a.V03), hook)
				require.NoError(t, err)
				task, err := c2.Resume(context.Background(), cp).Wait()
				agent.mu.Lock()
				replies := append([]string(nil), agent.replies...)
				agent.mu.Unlock()
				state := a2a.TaskState("")
				if task != nil {
					state = task.Status.State
				}
				require.Len(t, replies, 1, "the reply reached the agent %d times (resume ended in %v, state %v)", len(replies), err, state)
			})
		})
	}
}
