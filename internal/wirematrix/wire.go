package wirematrix

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// Wire is one way of reaching an a2atest agent: a binding in one version.
type Wire struct {
	// Name names the wire in subtests, e.g. "0.3/JSONRPC".
	Name string
	// Version is the version the wire speaks; clients are fixed to it.
	Version a2a.Version
	// AgentOptions make an a2atest agent speak the wire (its versions and
	// bindings); the scenarios' options follow them.
	AgentOptions []a2atest.Option
	// Client returns a client of agent over the wire, fixed to Version,
	// with opts after the wire's own. Whatever it opens closes when the
	// test ends.
	Client func(t *testing.T, agent *a2atest.Agent, opts ...stream.Option) *stream.Client
	// HandlerClient returns a client, fixed to Version, with opts after
	// the wire's own, of h: a hand-written server of the JSON-RPC binding
	// in Version (StylesMixedPerReconnect's), which a wire of another
	// binding reaches through a bridge (grpc/a2agrpctest's
	// NewHandlerServer). Nil for a wire that cannot reach one, which
	// cannot run StylesMixedPerReconnect (it fails the test). Whatever it
	// opens closes when the test ends.
	HandlerClient func(t *testing.T, h http.Handler, opts ...stream.Option) *stream.Client
	// Lost reports whether err, a stream's error, is the one of a
	// connection lost before anything could be resumed. Nil means the HTTP
	// wires' errors: io.ErrUnexpectedEOF or transport.ErrEndedEarly.
	Lost func(err error) bool
	// CutOffsets returns the byte offsets at which FirstSendCutAtEveryByte
	// cuts the first send stream under style. Nil means the HTTP wires'
	// offsets: every offset below 900, each byte under snapshot-first and
	// every fifth under the other styles.
	CutOffsets func(t *testing.T, style a2atest.ResubscribeStyle) []int
}

// String returns the wire's name.
func (w Wire) String() string { return w.Name }

// Agent returns an a2atest agent that speaks the wire, with opts.
func (w Wire) Agent(opts ...a2atest.Option) *a2atest.Agent {
	return a2atest.NewAgent(append(append([]a2atest.Option(nil), w.AgentOptions...), opts...)...)
}

// lost is w.Lost, or the HTTP wires' test.
func (w Wire) lost(err error) bool {
	if w.Lost != nil {
		return w.Lost(err)
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, transport.ErrEndedEarly)
}

// Styles returns the resubscribe styles of a2atest: live-only,
// snapshot-first, full-replay.
func Styles() []a2atest.ResubscribeStyle {
	return []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay}
}

// Tick is the pause between the events of Paced and Asking.
const Tick = 100 * time.Millisecond

// Paced is a script whose events are 100 ms apart, so that a cut leaves
// events to be produced while the client is away. Its send stream carries
// PacedEvents events: the task, working, three chunks of a1, a message,
// a2, completed.
func Paced() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("thinking"),
		a2atest.Pause(Tick), a2atest.Chunk("a1", "one ", false, false),
		a2atest.Pause(Tick), a2atest.Chunk("a1", "two ", true, false),
		a2atest.Pause(Tick), a2atest.Say("aside"),
		a2atest.Pause(Tick), a2atest.Chunk("a1", "three", true, true),
		a2atest.Pause(Tick), a2atest.Chunk("a2", "x", false, true),
		a2atest.Pause(Tick), a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

// PacedEvents is the number of events of Paced's send stream.
const PacedEvents = 8

// Asking is a script that stops for input ("Which dates?") half-way.
func Asking() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working(""),
		a2atest.Pause(Tick), a2atest.Chunk("a1", "draft ", false, false),
		a2atest.Pause(Tick), a2atest.AskInput("Which dates?"),
		a2atest.Pause(Tick), a2atest.Chunk("a1", "final", true, true),
		a2atest.Pause(Tick), a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

func hello() *a2a.Message { return a2a.NewTextMessage(a2a.RoleUser, "hello") }

// bounded is a context that ends with the test, an hour of (fake) time
// at most.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	t.Cleanup(cancel)
	return ctx
}

// CountMethod counts the requests agent received with one of methods.
func CountMethod(agent *a2atest.Agent, methods ...string) int {
	n := 0
	for _, r := range agent.Requests() {
		for _, m := range methods {
			if r.Method == m {
				n++
			}
		}
	}
	return n
}

// Sends counts the streamed sends agent received (either version's
// method), refused ones included.
func Sends(agent *a2atest.Agent) int {
	return CountMethod(agent, "message/stream", "SendStreamingMessage")
}

// Resubscribes counts the resubscribes agent received (either version's
// method).
func Resubscribes(agent *a2atest.Agent) int {
	return CountMethod(agent, "tasks/resubscribe", "SubscribeToTask")
}

// FollowUps are the sends of messages to an existing task that agent
// received.
func FollowUps(agent *a2atest.Agent) []a2atest.Request {
	var out []a2atest.Request
	for _, r := range agent.Requests() {
		if r.Message != nil && r.Message.TaskID != "" {
			out = append(out, r)
		}
	}
	return out
}
