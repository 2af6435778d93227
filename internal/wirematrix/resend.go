package wirematrix

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

// ChunkyScript is a task that streams a few chunks over two seconds, one
// chunk a second, and completes.
func ChunkyScript() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("on it"),
		a2atest.Chunk("a1", "one ", false, false),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "two ", true, false),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "three", true, true),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

// AskScript is a task that asks a question ("Which city?") and, once
// answered, finishes.
func AskScript() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("on it"),
		a2atest.AskInput("Which city?"),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "plan", false, true),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

// ResubscribeStyles returns the styles of the resend scenarios, in their
// order: snapshot-first, live-only, full-replay.
func ResubscribeStyles() []a2atest.ResubscribeStyle {
	return []a2atest.ResubscribeStyle{a2atest.SnapshotFirst, a2atest.LiveOnly, a2atest.FullReplay}
}

// SendFaults are answers to a send that may have been taken (or that got
// a response, which is enough not to send again).
func SendFaults() map[string]a2atest.Fault {
	f := map[string]a2atest.Fault{
		"200-no-event-eof": a2atest.CloseAfterEvents(0),
		"200-no-event-cut": a2atest.CutAfterEvents(0),
		"cut-after-first":  a2atest.CutAfterEvents(1),
		"500":              a2atest.HTTPStatus(500, "<html>boom</html>"),
		"502":              a2atest.HTTPStatus(502, "bad gateway"),
		"503-retry-after":  a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {"1"}}),
		"504":              a2atest.HTTPStatus(504, "timeout"),
	}
	for _, n := range []int{1, 10, 17, 40, 80, 120, 200} {
		f[fmt.Sprintf("cut-at-%d", n)] = a2atest.CutAfterBytes(n)
	}
	return f
}

// SendCountsOf counts the sends of a new message (first) and of replies
// that agent received, refused ones included;
// with unaryOnly it counts unary sends only (for an agent that refuses
// every streaming send, which a client not told so tries first: a refused
// streaming call was not taken).
func SendCountsOf(agent *a2atest.Agent, unaryOnly bool) (first, replies int) {
	for _, r := range agent.Requests() {
		if r.Message == nil {
			continue
		}
		if unaryOnly && r.Method != "message/send" && r.Method != "SendMessage" {
			continue
		}
		if r.Message.TaskID == "" {
			first++
		} else {
			replies++
		}
	}
	return first, replies
}

// HitlFunc returns a hook that answers "Lisbon" and calls count each time.
func HitlFunc(count func()) hitl.Hook {
	return hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
		count()
		return hitl.Text("Lisbon"), nil
	})
}

// FirstSendNeverResent: a new message whose send (streamed, or unary for
// an agent that cannot stream) got any response (an empty stream, a cut
// at any point, an error status) is sent once.
func FirstSendNeverResent(t *testing.T, w Wire) {
	for _, polled := range []bool{false, true} {
		for name, f := range SendFaults() {
			t.Run(fmt.Sprintf("%s/polled=%v/%s", w, polled, name), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					opts := []a2atest.Option{a2atest.WithScript(ChunkyScript()...)}
					if polled {
						opts = append(opts, a2atest.WithoutStreaming(), a2atest.WithSendFaults(f))
					} else {
						opts = append(opts, a2atest.WithFaults(f))
					}
					agent := w.Agent(opts...)
					c := w.Client(t, agent, Quick()...)
					ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
					defer cancel()
					_, _ = Drain(t, c.Send(ctx, hello()))
					first, _ := SendCountsOf(agent, polled)
					require.Equal(t, 1, first, "the message went out once")
				})
			})
		}
	}
}

// ReplyNeverResent: a human's reply whose send got any response (streamed,
// or unary for an agent that cannot stream) is never sent again, and the
// human is asked once, whatever the server's style. The faults named in
// except (keys of sendFaults) are left out: a wire whose binding reads
// them otherwise says so where it runs this.
func ReplyNeverResent(t *testing.T, w Wire, except ...string) {
	for _, polled := range []bool{false, true} {
		for _, style := range ResubscribeStyles() {
			for name, f := range SendFaults() {
				if slices.Contains(except, name) {
					continue
				}
				t.Run(fmt.Sprintf("%s/polled=%v/%s/%s", w, polled, style, name), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						opts := []a2atest.Option{a2atest.WithScript(AskScript()...), a2atest.WithStyle(style)}
						if polled {
							opts = append(opts, a2atest.WithoutStreaming(), a2atest.WithSendFaults(a2atest.Fault{}, f))
						} else {
							opts = append(opts, a2atest.WithFaults(a2atest.Fault{}, f))
						}
						agent := w.Agent(opts...)
						asked := 0
						hook := HitlFunc(func() { asked++ })
						c := w.Client(t, agent, Quick(stream.WithHumanInput(hook))...)
						ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
						defer cancel()
						_, err := Drain(t, c.Send(ctx, hello()))
						first, replies := SendCountsOf(agent, polled)
						require.Equal(t, 1, first, "the message went out once")
						require.Equal(t, 1, replies, "the reply went out once (ended in %v)", err)
						require.Equal(t, 1, asked, "the human was asked once")
						hit := false
						for _, r := range agent.Requests() {
							hit = hit || r.Message != nil && r.Message.TaskID != "" && r.Fault == f
						}
						require.True(t, hit, "the fault fell on the reply")
					})
				})
			}
		}
	}
}
