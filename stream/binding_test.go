package stream_test

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// memAgent is an agent behind a Transport that is neither JSON-RPC nor REST:
// calls are method calls, and events come from an in-memory channel of
// the agent's, with drops and refusals injected call by call. It has one
// task, whose events are fixed: the task, chunks of one artifact, each
// followed by a status message, and the end. The task moves on as its
// events are read; a subscribe yields the task as it stands, then what
// follows.
type memAgent struct {
	mu     sync.Mutex
	events []a2a.Event // the task's events, in order
	next   int         // how many of them the agent has produced
	sends  int         // messages the agent took
	legs   int         // streaming calls it answered
	// faults says, for each streaming call in order, what goes wrong: an
	// error before any event ("unsent" is NotSent, "refused" -32001,
	// "busy" a retryable error), or a drop after so many events ("drop
	// after 2").
	faults []string
}

func newMemAgent(chunks int, faults ...string) *memAgent {
	a := &memAgent{faults: faults}
	st := func(s a2a.TaskState) a2a.TaskStatus { return a2a.TaskStatus{State: s} }
	a.events = append(a.events, &a2a.Task{ID: "t-1", ContextID: "c-1", Status: st(a2a.StateSubmitted)})
	for i := range chunks {
		a.events = append(a.events, &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: i > 0,
			Artifact: a2a.Artifact{ID: "a-1", Parts: []a2a.Part{a2a.TextPart("c" + strconv.Itoa(i) + " ")}}})
		note := a2a.NewTextMessage(a2a.RoleAgent, "wrote chunk "+strconv.Itoa(i))
		note.ID = "note-" + strconv.Itoa(i)
		a.events = append(a.events, &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1",
			Status: a2a.TaskStatus{State: a2a.StateWorking, Message: note}})
	}
	a.events = append(a.events, &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: st(a2a.StateCompleted), Final: true})
	return a
}

// snapshot is the task as it stands after the events produced so far.
func (a *memAgent) snapshot() *a2a.Task {
	var t a2a.Task
	for _, ev := range a.events[:max(a.next, 1)] {
		t.Apply(ev)
	}
	return &t
}

// open answers one streaming call: its fault, or a reader of the events
// from the agent's channel, led by the task as it stands on a subscribe.
func (a *memAgent) open(ctx context.Context, send bool) (stream.EventReader, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fault := ""
	if a.legs < len(a.faults) {
		fault = a.faults[a.legs]
	}
	a.legs++
	switch fault {
	case "unsent":
		return nil, stream.NotSent(errors.New("mem: no route to agent"))
	case "refused":
		return nil, &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "task not found"}
	case "busy":
		return nil, &a2a.RPCError{Code: a2a.CodeInternalError, Message: "busy", Data: []byte(`{"retryable":true,"retryAfter":1}`)}
	case "cannot stream":
		return nil, &a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "streaming is not supported"}
	}
	cut := -1
	if n, ok := cutAfter(fault); ok {
		cut = n
	}
	if send {
		a.sends++
		a.next = 0
	}
	ch := make(chan a2a.Event)
	done := make(chan struct{})
	r := &memReader{ch: ch, done: done, ctx: ctx}
	var first a2a.Event
	if !send {
		first = a.snapshot()
	}
	go a.serve(ch, done, first, cut)
	return r, nil
}

// cutAfter reads "drop after n".
func cutAfter(fault string) (int, bool) {
	s, ok := strings.CutPrefix(fault, "drop after ")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// serve sends the task's events on ch until they end, the reader closes,
// or the injected drop.
func (a *memAgent) serve(ch chan<- a2a.Event, done <-chan struct{}, first a2a.Event, cut int) {
	defer close(ch)
	sent := 0
	emit := func(ev a2a.Event) bool {
		if sent == cut {
			return false
		}
		select {
		case ch <- ev:
			sent++
			return true
		case <-done:
			return false
		}
	}
	if first != nil && !emit(first) {
		return
	}
	for sent != cut {
		a.mu.Lock()
		if a.next >= len(a.events) {
			a.mu.Unlock()
			return
		}
		ev := a.events[a.next]
		a.next++
		a.mu.Unlock()
		if !emit(ev) {
			return
		}
	}
}

// memReader reads a streaming call's events from the agent's channel. The
// channel closing before the task ends is a dropped connection.
type memReader struct {
	ch   <-chan a2a.Event
	done chan struct{}
	once sync.Once
	ctx  context.Context
	last a2a.Event
}

func (r *memReader) Next() (a2a.Event, error) {
	select {
	case ev, ok := <-r.ch:
		if !ok {
			if u, final := r.last.(*a2a.StatusUpdate); final && u.Status.State.Terminal() {
				return nil, io.EOF
			}
			return nil, errors.New("mem: connection reset")
		}
		r.last = ev
		return ev, nil
	case <-r.ctx.Done():
		return nil, r.ctx.Err()
	}
}

func (r *memReader) Close() { r.once.Do(func() { close(r.done) }) }

// memBinding is the Transport of a memAgent.
type memBinding struct{ a *memAgent }

func (b memBinding) SendStream(ctx context.Context, _ stream.Call, m *a2a.Message) (stream.EventReader, error) {
	return b.a.open(ctx, true)
}

func (b memBinding) Subscribe(ctx context.Context, _ stream.Call, taskID string) (stream.EventReader, error) {
	return b.a.open(ctx, false)
}

// SendUnary takes the message and answers with the task as created.
func (b memBinding) SendUnary(ctx context.Context, _ stream.Call, m *a2a.Message) (a2a.Event, error) {
	b.a.mu.Lock()
	defer b.a.mu.Unlock()
	b.a.sends++
	b.a.next = 1
	return b.a.snapshot(), nil
}

// GetTask answers with the task as it stands, and the task moves on by
// one event: an agent that works while it is polled.
func (b memBinding) GetTask(ctx context.Context, _ stream.Call, taskID string) (*a2a.Task, error) {
	b.a.mu.Lock()
	defer b.a.mu.Unlock()
	t := b.a.snapshot()
	b.a.next = min(b.a.next+1, len(b.a.events))
	return t, nil
}

func (b memBinding) Cancel(ctx context.Context, _ stream.Call, taskID string) (*a2a.Task, error) {
	return nil, &a2a.RPCError{Code: a2a.CodeTaskNotCancelable, Message: "no"}
}

// TestBindingOfAnotherKindStreamsExactlyOnce runs the exactly-once scenarios
// through a Transport that is neither JSON-RPC nor REST, made with
// NewClientFor: drops at every point of a stream, a send that never left, a
// refused subscribe and a busy one, and an agent that cannot stream, which
// is sent to unary and polled. The message is taken once, every chunk
// and every status message is delivered once and in order, and the stream
// ends completed.
func TestBindingOfAnotherKindStreamsExactlyOnce(t *testing.T) {
	const chunks = 4
	cases := map[string][]string{
		"no fault":                            nil,
		"a send that never left":              {"unsent"},
		"drop after the task":                 {"drop after 1"},
		"drops on every leg":                  {"drop after 3", "drop after 2", "drop after 4", "drop after 2"},
		"a refused subscribe":                 {"drop after 3", "refused"},
		"a busy subscribe":                    {"drop after 3", "busy"},
		"an agent that cannot stream":         {"cannot stream"},
		"sent again, then dropped":            {"unsent", "drop after 5"},
		"drop on the last event":              {"drop after 9"},
		"resubscribe dropped at its snapshot": {"drop after 4", "drop after 1"},
	}
	for name, faults := range cases {
		for _, v := range versions {
			t.Run(name+"/"+string(v), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := newMemAgent(chunks, faults...)
					c, err := stream.NewClientFor(memBinding{agent}, stream.WithVersion(v))
					require.NoError(t, err)
					got, err := drain(t, c.Send(background(), hello()))
					require.NoError(t, err)

					require.Equal(t, 1, agent.sends, "the message is taken once")
					require.GreaterOrEqual(t, agent.legs, len(faults), "every fault was met")
					require.Equal(t, "c0 c1 c2 c3 ", got.text("a-1"), "every chunk once, in order")
					var notes []string
					for _, id := range got.messages {
						notes = append(notes, got.shown[id])
					}
					require.Equal(t, []string{"wrote chunk 0", "wrote chunk 1", "wrote chunk 2", "wrote chunk 3"}, notes)
					require.Equal(t, a2a.StateCompleted, got.task.Status.State)
				})
			})
		}
	}
}

// TestBindingOfAnotherKindDropBeforeTheTask: a connection lost after the
// message left but before any event names the task cannot be recovered
// without sending the message again, which the Client does not do: the
// stream ends in reconnect.ErrNoTask and the message was taken once.
func TestBindingOfAnotherKindDropBeforeTheTask(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := newMemAgent(2, "drop after 0")
				c, err := stream.NewClientFor(memBinding{agent}, stream.WithVersion(v))
				require.NoError(t, err)
				_, err = drain(t, c.Send(background(), hello()))
				require.ErrorIs(t, err, reconnect.ErrNoTask)
				require.Equal(t, 1, agent.sends)
				require.Equal(t, 1, agent.legs, "nothing is tried again")
			})
		})
	}
}

func TestNewClientForRefusesANilBinding(t *testing.T) {
	_, err := stream.NewClientFor(nil)
	require.ErrorIs(t, err, stream.ErrInvalidOption)
}
