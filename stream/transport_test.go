package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
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
func (a *memAgent) open(ctx context.Context, send bool) (transport.EventReader, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fault := ""
	if a.legs < len(a.faults) {
		fault = a.faults[a.legs]
	}
	a.legs++
	switch fault {
	case "unsent":
		return nil, transport.NotSent(errors.New("mem: no route to agent"))
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

func (b memBinding) SendStream(ctx context.Context, _ transport.Call, m *a2a.Message) (transport.EventReader, error) {
	return b.a.open(ctx, true)
}

func (b memBinding) Subscribe(ctx context.Context, _ transport.Call, taskID string) (transport.EventReader, error) {
	return b.a.open(ctx, false)
}

// SendUnary takes the message and answers with the task as created.
func (b memBinding) SendUnary(ctx context.Context, _ transport.Call, m *a2a.Message) (a2a.Event, error) {
	b.a.mu.Lock()
	defer b.a.mu.Unlock()
	b.a.sends++
	b.a.next = 1
	return b.a.snapshot(), nil
}

// GetTask answers with the task as it stands, and the task moves on by
// one event: an agent that works while it is polled.
func (b memBinding) GetTask(ctx context.Context, _ transport.Call, taskID string) (*a2a.Task, error) {
	b.a.mu.Lock()
	defer b.a.mu.Unlock()
	t := b.a.snapshot()
	b.a.next = min(b.a.next+1, len(b.a.events))
	return t, nil
}

func (b memBinding) Cancel(ctx context.Context, _ transport.Call, taskID string) (*a2a.Task, error) {
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

// A Transport of another module (NewClientFor) at the edges: the headers of
// its calls after auth-required and between Clients that share it, calls
// that return nothing, readers that go on after io.EOF, return nil events
// or ignore their context, and NotSent.

// listReader yields its events, then end (io.EOF when nil), then, if the
// driver asks again, what follows: more events (a reader that goes on
// after its end). It counts the calls made after the end, and Close.
type listReader struct {
	events []a2a.Event
	end    error
	after  []a2a.Event

	mu         sync.Mutex
	ended      bool
	afterCalls int
	closes     int
}

func (r *listReader) Next() (a2a.Event, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		r.afterCalls++
		if len(r.after) > 0 {
			ev := r.after[0]
			r.after = r.after[1:]
			return ev, nil
		}
		return nil, io.EOF
	}
	if len(r.events) > 0 {
		ev := r.events[0]
		r.events = r.events[1:]
		return ev, nil
	}
	r.ended = true
	if r.end != nil {
		return nil, r.end
	}
	return nil, io.EOF
}

func (r *listReader) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closes++
}

// bTask, bStatus and bArt build the events of task t-1.
func bTask(state a2a.TaskState) *a2a.Task {
	return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state}}
}

func bStatus(state a2a.TaskState, text string) *a2a.StatusUpdate {
	u := &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Final: state.Terminal(), Status: a2a.TaskStatus{State: state}}
	if text != "" {
		m := a2a.NewTextMessage(a2a.RoleAgent, text)
		m.TaskID, m.ContextID = "t-1", "c-1"
		u.Status.Message = m
	}
	return u
}

func bArt(text string, appendChunk bool) *a2a.ArtifactUpdate {
	return &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: appendChunk,
		Artifact: a2a.Artifact{ID: "a-1", Parts: []a2a.Part{a2a.TextPart(text)}}}
}

// A task that enters auth-required through a binding of another module
// calls the credentials hook; the headers it gives reach the binding's
// next calls in Call.Header, over the Client's own, and only those of
// this stream.
func TestCallHeaderCarriesCredentialsAfterAuthRequired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			mu   sync.Mutex
			seen = map[string][]http.Header{}
		)
		note := func(name string, call transport.Call) {
			mu.Lock()
			defer mu.Unlock()
			seen[name] = append(seen[name], call.Header)
		}
		b := &funcBinding{
			sendStream: func(ctx context.Context, call transport.Call, m *a2a.Message) (transport.EventReader, error) {
				note("send", call)
				return &listReader{events: []a2a.Event{bTask(a2a.StateSubmitted), bArt("one ", false), bStatus(a2a.StateAuthRequired, "sign in")}}, nil
			},
			subscribe: func(ctx context.Context, call transport.Call, id string) (transport.EventReader, error) {
				note("subscribe", call)
				task := bTask(a2a.StateWorking)
				task.Artifacts = []a2a.Artifact{{ID: "a-1", Parts: []a2a.Part{a2a.TextPart("one ")}}}
				return &listReader{events: []a2a.Event{task, bArt("two", true), bStatus(a2a.StateCompleted, "")}}, nil
			},
			getTask: func(ctx context.Context, call transport.Call, id string) (*a2a.Task, error) {
				note("get", call)
				return bTask(a2a.StateWorking), nil
			},
		}
		hook := credentials.Func(func(ctx context.Context, req *credentials.Request) (http.Header, error) {
			return http.Header{"Authorization": {"Bearer fresh"}}, nil
		})
		c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10), stream.WithHeader("Authorization", "Bearer stale"),
			stream.WithHeader("X-Team", "travel"))
		require.NoError(t, err)
		got, err := drain(t, c.Send(background(), hello(), stream.WithCredentials(hook)))
		require.NoError(t, err)
		require.Equal(t, "one two", got.text("a-1"))
		calls := func() map[string][]http.Header {
			mu.Lock()
			defer mu.Unlock()
			out := seen
			seen = map[string][]http.Header{}
			return out
		}
		heard := calls()
		require.Equal(t, []http.Header{{"Authorization": {"Bearer stale"}, "X-Team": {"travel"}}}, heard["send"])
		require.NotEmpty(t, heard["subscribe"])
		for _, h := range append(heard["subscribe"], heard["get"]...) {
			require.Equal(t, http.Header{"Authorization": {"Bearer fresh"}, "X-Team": {"travel"}}, h)
		}

		// Another call of the Client never gets this stream's credentials.
		_, err = c.GetTask(background(), "t-1")
		require.NoError(t, err)
		require.Equal(t, []http.Header{{"Authorization": {"Bearer stale"}, "X-Team": {"travel"}}}, calls()["get"])
	})
}

// Two Clients that share one binding, each with its own token, send at
// the same time: each call of the binding gets its own Client's headers,
// never the other's.
func TestCallHeaderOfClientsSharingABinding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			mu  sync.Mutex
			got = map[string][]string{} // message text -> Authorization seen
		)
		release := make(chan struct{})
		b := &funcBinding{
			sendStream: func(ctx context.Context, call transport.Call, m *a2a.Message) (transport.EventReader, error) {
				<-release // both calls are in flight together
				mu.Lock()
				got[m.Text()] = append(got[m.Text()], call.Header.Values("Authorization")...)
				mu.Unlock()
				return &listReader{events: []a2a.Event{bTask(a2a.StateSubmitted), bStatus(a2a.StateCompleted, "")}}, nil
			},
		}
		var wg sync.WaitGroup
		for _, user := range []string{"alice", "bob"} {
			c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10), stream.WithHeader("Authorization", "Bearer "+user))
			require.NoError(t, err)
			wg.Go(func() {
				_, err := c.Send(background(), a2a.NewTextMessage(a2a.RoleUser, user)).Wait()
				require.NoError(t, err)
			})
		}
		synctest.Wait()
		close(release)
		wg.Wait()
		require.Equal(t, map[string][]string{"alice": {"Bearer alice"}, "bob": {"Bearer bob"}}, got)
	})
}

// A binding that returns (nil, nil), no result and no error, from a
// streaming call, a unary send or a subscribe: nothing panics, and the
// stream ends in an error, not in success.
func TestBindingThatReturnsNothingFromAStreamOrASend(t *testing.T) {
	requireNothingIsAnError(t, map[string]func(t *testing.T) error{
		"SendStream": func(t *testing.T) error {
			c, err := stream.NewClientFor(&funcBinding{sendStream: func(context.Context, transport.Call, *a2a.Message) (transport.EventReader, error) { return nil, nil }},
				stream.WithVersion(a2a.V10))
			require.NoError(t, err)
			_, err = c.Send(background(), hello()).Wait()
			return err
		},
		"SendUnary": func(t *testing.T) error {
			c, err := stream.NewClientFor(&funcBinding{
				sendStream: func(context.Context, transport.Call, *a2a.Message) (transport.EventReader, error) {
					return nil, &a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "no streaming"}
				},
				sendUnary: func(context.Context, transport.Call, *a2a.Message) (a2a.Event, error) { return nil, nil },
			}, stream.WithVersion(a2a.V10))
			require.NoError(t, err)
			_, err = c.Send(background(), hello()).Wait()
			return err
		},
		"Subscribe": func(t *testing.T) error {
			c, err := stream.NewClientFor(&funcBinding{
				subscribe: func(context.Context, transport.Call, string) (transport.EventReader, error) { return nil, nil },
				getTask:   func(context.Context, transport.Call, string) (*a2a.Task, error) { return bTask(a2a.StateWorking), nil },
			}, stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second}))
			require.NoError(t, err)
			_, err = c.Subscribe(background(), "t-1").Wait()
			return err
		},
	})
}

// A binding whose GetTask or Cancel returns (nil, nil): Client.GetTask,
// Client.Cancel, Stream.Cancel and a polling stream end in an error, and
// nothing panics (the house style: no panic on bad input).
func TestBindingThatReturnsNoTask(t *testing.T) {
	requireNothingIsAnError(t, map[string]func(t *testing.T) error{
		"GetTask": func(t *testing.T) error {
			c, err := stream.NewClientFor(&funcBinding{getTask: func(context.Context, transport.Call, string) (*a2a.Task, error) { return nil, nil }},
				stream.WithVersion(a2a.V10))
			require.NoError(t, err)
			task, err := c.GetTask(background(), "t-1")
			if err == nil {
				require.NotNil(t, task, "GetTask returned neither a task nor an error")
			}
			return err
		},
		"Cancel": func(t *testing.T) error {
			c, err := stream.NewClientFor(&funcBinding{cancel: func(context.Context, transport.Call, string) (*a2a.Task, error) { return nil, nil }},
				stream.WithVersion(a2a.V10))
			require.NoError(t, err)
			task, err := c.Cancel(background(), "t-1")
			if err == nil {
				require.NotNil(t, task, "Cancel returned neither a task nor an error")
			}
			return err
		},
		"GetTask while polling": func(t *testing.T) error {
			c, err := stream.NewClientFor(&funcBinding{
				sendStream: func(context.Context, transport.Call, *a2a.Message) (transport.EventReader, error) {
					return nil, &a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "no streaming"}
				},
				sendUnary: func(context.Context, transport.Call, *a2a.Message) (a2a.Event, error) {
					return bTask(a2a.StateSubmitted), nil
				},
				getTask: func(context.Context, transport.Call, string) (*a2a.Task, error) { return nil, nil },
			}, stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second}))
			require.NoError(t, err)
			_, err = c.Send(background(), hello()).Wait()
			return err
		},
		"Stream.Cancel": func(t *testing.T) error {
			c, err := stream.NewClientFor(&funcBinding{
				sendStream: func(context.Context, transport.Call, *a2a.Message) (transport.EventReader, error) {
					return &blockingReader{events: []a2a.Event{bTask(a2a.StateWorking)}, done: make(chan struct{})}, nil
				},
				cancel: func(context.Context, transport.Call, string) (*a2a.Task, error) { return nil, nil },
			}, stream.WithVersion(a2a.V10))
			require.NoError(t, err)
			s := c.Send(background(), hello())
			defer s.Close()
			require.True(t, s.Next())
			return s.Cancel(background())
		},
	})
}

// requireNothingIsAnError runs each call in a bubble: it must not panic,
// and must return an error.
func requireNothingIsAnError(t *testing.T, calls map[string]func(t *testing.T) error) {
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var err error
				require.NotPanics(t, func() { err = call(t) })
				require.Error(t, err, "a call that returned nothing is not a success")
			})
		})
	}
}

// A reader that returns a nil event with no error, against the
// EventReader's contract: nothing panics, the nil is passed over, and the
// task completes with its events.
func TestReaderNilEventIsPassedOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, err := stream.NewClientFor(&funcBinding{sendStream: func(context.Context, transport.Call, *a2a.Message) (transport.EventReader, error) {
			return &listReader{events: []a2a.Event{bTask(a2a.StateSubmitted), nil, bArt("x", false), bStatus(a2a.StateCompleted, "")}}, nil
		}}, stream.WithVersion(a2a.V10))
		require.NoError(t, err)
		var got *collected
		require.NotPanics(t, func() { got, err = drain(t, c.Send(background(), hello())) })
		require.NoError(t, err)
		require.Equal(t, "x", got.text("a-1"))
		require.Equal(t, a2a.StateCompleted, got.task.Status.State)
	})
}

// The driver reads a reader until it returns an error, and closes it
// once: an event a reader would return after its io.EOF is never read.
// The stream resubscribes after the early end and completes.
func TestReaderIsNotReadAfterItsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first := &listReader{events: []a2a.Event{bTask(a2a.StateSubmitted), bArt("one ", false)},
			after: []a2a.Event{bArt("ghost ", true), bStatus(a2a.StateCompleted, "")}}
		var second *listReader
		b := &funcBinding{
			sendStream: func(context.Context, transport.Call, *a2a.Message) (transport.EventReader, error) { return first, nil },
			subscribe: func(context.Context, transport.Call, string) (transport.EventReader, error) {
				task := bTask(a2a.StateWorking)
				task.Artifacts = []a2a.Artifact{{ID: "a-1", Parts: []a2a.Part{a2a.TextPart("one ")}}}
				second = &listReader{events: []a2a.Event{task, bArt("two", true), bStatus(a2a.StateCompleted, "")}}
				return second, nil
			},
			getTask: func(context.Context, transport.Call, string) (*a2a.Task, error) {
				task := bTask(a2a.StateCompleted)
				task.Artifacts = []a2a.Artifact{{ID: "a-1", Parts: []a2a.Part{a2a.TextPart("one two")}}}
				return task, nil
			},
		}
		c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10))
		require.NoError(t, err)
		got, err := drain(t, c.Send(background(), hello()))
		require.NoError(t, err)
		require.Equal(t, "one two", got.text("a-1"))
		require.Zero(t, first.afterCalls, "Next called after io.EOF")
		require.Equal(t, 1, first.closes, "the reader closed once")
		require.NotNil(t, second)
		require.Equal(t, 1, second.closes, "the second reader closed once")
	})
}

// blockingReader's Next blocks until Close: a reader that ignores the
// call's context, as the Transport's doc allows (Close makes a blocked Next
// return).
type blockingReader struct {
	events []a2a.Event
	done   chan struct{}
	once   sync.Once
}

func (r *blockingReader) Next() (a2a.Event, error) {
	if len(r.events) > 0 {
		ev := r.events[0]
		r.events = r.events[1:]
		return ev, nil
	}
	<-r.done
	return nil, errors.New("reader closed")
}

func (r *blockingReader) Close() { r.once.Do(func() { close(r.done) }) }

// A binding of another module times out a silent stream itself (the
// Client's WithIdleTimeout times this package's readers only, as the
// Transport doc says): its reader returns an error wrapping ErrIdleTimeout,
// and the stream takes it as a drop and resubscribes after the backoff.
func TestSilenceABindingTimesOutItselfIsADrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &funcBinding{
			sendStream: func(ctx context.Context, _ transport.Call, _ *a2a.Message) (transport.EventReader, error) {
				return &selfTimedReader{events: []a2a.Event{bTask(a2a.StateSubmitted)}, idle: 10 * time.Second}, nil
			},
		}
		requireIdleTimeoutEndsSilence(t, b)
	})
}

// selfTimedReader yields its events, then, after idle of silence, an error
// wrapping ErrIdleTimeout: a binding that times its own silence.
type selfTimedReader struct {
	events []a2a.Event
	idle   time.Duration
}

func (r *selfTimedReader) Next() (a2a.Event, error) {
	if len(r.events) > 0 {
		ev := r.events[0]
		r.events = r.events[1:]
		return ev, nil
	}
	<-time.After(r.idle)
	return nil, fmt.Errorf("no event for %s: %w", r.idle, transport.ErrIdleTimeout)
}

func (r *selfTimedReader) Close() {}

// requireIdleTimeoutEndsSilence completes b's silent send through a
// resubscribe made 10 s after the send's last event.
func requireIdleTimeoutEndsSilence(t *testing.T, b *funcBinding, opts ...stream.Option) {
	t.Helper()
	var subscribedAfter time.Duration
	start := time.Now()
	b.subscribe = func(context.Context, transport.Call, string) (transport.EventReader, error) {
		subscribedAfter = time.Since(start)
		return &listReader{events: []a2a.Event{bTask(a2a.StateWorking), bStatus(a2a.StateCompleted, "")}}, nil
	}
	b.getTask = func(context.Context, transport.Call, string) (*a2a.Task, error) { return bTask(a2a.StateWorking), nil }
	c, err := stream.NewClientFor(b, append([]stream.Option{stream.WithVersion(a2a.V10),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Second})}, opts...)...)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(background(), time.Hour) // a bound for the test, far past the idle timeout
	defer cancel()
	task, err := c.Send(ctx, hello()).Wait()
	require.NoError(t, err)
	require.Equal(t, a2a.StateCompleted, task.Status.State)
	require.Equal(t, 11*time.Second, subscribedAfter, "the idle timeout, then the backoff")
}

// NotSent(nil) is nil; NotSent(err) still is err for errors.Is and
// errors.As.
func TestNotSent(t *testing.T) {
	require.NoError(t, transport.NotSent(nil))
	cause := &a2a.RPCError{Code: a2a.CodeInternalError, Message: "no route"}
	err := transport.NotSent(cause)
	require.ErrorIs(t, err, cause)
	var re *a2a.RPCError
	require.ErrorAs(t, err, &re)
	require.Same(t, cause, re)
	_, isTerminal := wirematrix.TerminalState(err)
	require.False(t, isTerminal)
}

// headerBinding is a memBinding that records, for each call, the headers
// of its transport.Call, and refuses a subscribe with 401 while those lack
// the Authorization header it wants (when it wants one).
type headerBinding struct {
	memBinding
	want string // the Authorization a subscribe needs; "" for none

	mu   sync.Mutex
	seen map[string][]http.Header // by method
}

func newHeaderBinding(a *memAgent, want string) *headerBinding {
	return &headerBinding{memBinding: memBinding{a}, want: want, seen: map[string][]http.Header{}}
}

func (b *headerBinding) note(method string, call transport.Call) http.Header {
	h := call.Header.Clone() // as given, whatever the binding does with it then
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen[method] = append(b.seen[method], h)
	return h
}

func (b *headerBinding) calls(method string) []http.Header {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seen[method]
}

func (b *headerBinding) SendStream(ctx context.Context, call transport.Call, m *a2a.Message) (transport.EventReader, error) {
	b.note("SendStream", call)
	return b.memBinding.SendStream(ctx, call, m)
}

func (b *headerBinding) Subscribe(ctx context.Context, call transport.Call, taskID string) (transport.EventReader, error) {
	if h := b.note("Subscribe", call); b.want != "" && h.Get("Authorization") != b.want {
		return nil, &transport.HTTPError{StatusCode: http.StatusUnauthorized, Status: "401 Unauthorized"}
	}
	return b.memBinding.Subscribe(ctx, call, taskID)
}

func (b *headerBinding) GetTask(ctx context.Context, call transport.Call, taskID string) (*a2a.Task, error) {
	b.note("GetTask", call)
	return b.memBinding.GetTask(ctx, call, taskID)
}

func (b *headerBinding) Cancel(ctx context.Context, call transport.Call, taskID string) (*a2a.Task, error) {
	b.note("Cancel", call)
	return b.memBinding.Cancel(ctx, call, taskID)
}

// TestCallHeaderGivesABindingTheHeadersOfItsCall: a binding made for
// NewClientFor reads, in each call's Call.Header, the Client's WithHeader
// headers and those given to the call, which replace the Client's values
// of the same names.
func TestCallHeaderGivesABindingTheHeadersOfItsCall(t *testing.T) {
	b := newHeaderBinding(newMemAgent(2), "")
	c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10),
		stream.WithHeader("X-Client", "c"), stream.WithHeader("X-Tenant", "client"))
	require.NoError(t, err)

	_, err = drain(t, c.Send(background(), hello(), stream.WithHeader("X-Tenant", "call"), stream.WithHeader("X-Call", "1")))
	require.NoError(t, err)
	require.Equal(t, []http.Header{{"X-Client": {"c"}, "X-Tenant": {"call"}, "X-Call": {"1"}}}, b.calls("SendStream"))

	_, err = c.GetTask(background(), "t-1", stream.WithHeader("X-Call", "2"))
	require.NoError(t, err)
	_, err = c.Cancel(background(), "t-1")
	require.Error(t, err)
	require.Equal(t, []http.Header{{"X-Client": {"c"}, "X-Tenant": {"client"}, "X-Call": {"2"}}}, b.calls("GetTask"))
	require.Equal(t, []http.Header{{"X-Client": {"c"}, "X-Tenant": {"client"}}}, b.calls("Cancel"))
}

// TestCallHeaderCarriesCredentialsToABinding: a binding made for
// NewClientFor that refuses a resubscribe with 401 gets the headers the
// credentials hook gave on the next call, and the task goes on.
func TestCallHeaderCarriesCredentialsToABinding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newHeaderBinding(newMemAgent(2, "drop after 2"), "Bearer fresh")
		asked := 0
		hook := credentials.Func(func(ctx context.Context, req *credentials.Request) (http.Header, error) {
			asked++
			require.Equal(t, background(), ctx, "the hook's context is the caller's, not a call's")
			return http.Header{"Authorization": {"Bearer fresh"}}, nil
		})
		c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10), stream.WithCredentials(hook))
		require.NoError(t, err)

		got, err := drain(t, c.Send(background(), hello()))
		require.NoError(t, err)
		require.Equal(t, a2a.StateCompleted, got.task.Status.State)
		require.Equal(t, 1, asked)
		require.Equal(t, []http.Header{nil, {"Authorization": {"Bearer fresh"}}}, b.calls("Subscribe"))
	})
}

// outerBinding is a binding whose GetTask asks another Client, made for
// NewClientFor too, with the context of its own call.
type outerBinding struct {
	memBinding
	inner *stream.Client
}

func (b outerBinding) GetTask(ctx context.Context, _ transport.Call, taskID string) (*a2a.Task, error) {
	return b.inner.GetTask(ctx, taskID)
}

// TestCallHeaderIsTheCallsOwn: a Client called with the context of
// another Client's call gives its binding its own headers, not the other
// call's.
func TestCallHeaderIsTheCallsOwn(t *testing.T) {
	inner := newHeaderBinding(newMemAgent(1), "")
	ic, err := stream.NewClientFor(inner, stream.WithVersion(a2a.V10), stream.WithHeader("X-Inner", "i"))
	require.NoError(t, err)
	oc, err := stream.NewClientFor(outerBinding{memBinding{newMemAgent(1)}, ic}, stream.WithVersion(a2a.V10),
		stream.WithHeader("Authorization", "Bearer outer"))
	require.NoError(t, err)

	_, err = oc.GetTask(background(), "t-1", stream.WithHeader("X-Outer-Call", "o"))
	require.NoError(t, err)
	require.Equal(t, []http.Header{{"X-Inner": {"i"}}}, inner.calls("GetTask"))
}

// mutatingBinding is a headerBinding whose streaming calls change the
// Call.Header they are given, as a binding may: it is the call's own copy.
type mutatingBinding struct{ *headerBinding }

func (b mutatingBinding) SendStream(ctx context.Context, call transport.Call, m *a2a.Message) (transport.EventReader, error) {
	r, err := b.headerBinding.SendStream(ctx, call, m)
	call.Header.Set("Authorization", "changed by the binding")
	call.Header.Set("X-Injected", "1")
	return r, err
}

// TestCallHeaderIsTheBindingsOwnCopy: a binding that changes the headers of
// one call changes nothing of the Client's or the stream's: the next call
// (a resubscribe after a drop, a get-task of the Client) gets them as they
// were.
func TestCallHeaderIsTheBindingsOwnCopy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mutatingBinding{newHeaderBinding(newMemAgent(2, "drop after 2"), "")}
		c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10), stream.WithHeader("Authorization", "Bearer service"))
		require.NoError(t, err)

		got, err := drain(t, c.Send(background(), hello(), stream.WithHeader("X-Call", "1")))
		require.NoError(t, err)
		require.Equal(t, a2a.StateCompleted, got.task.Status.State)
		want := http.Header{"Authorization": {"Bearer service"}, "X-Call": {"1"}}
		require.Equal(t, []http.Header{want}, b.calls("SendStream")[:1], "as given, before the binding changed it")
		require.NotEmpty(t, b.calls("Subscribe"))
		for _, h := range b.calls("Subscribe") {
			require.Equal(t, want, h)
		}

		_, err = c.GetTask(background(), "t-1")
		require.NoError(t, err)
		require.Equal(t, []http.Header{{"Authorization": {"Bearer service"}}}, b.calls("GetTask"))
	})
}

// reentrantBinding is a headerBinding whose SendStream first asks its own
// Client for the task, with the context of its call.
type reentrantBinding struct {
	*headerBinding
	c *stream.Client
}

func (b *reentrantBinding) SendStream(ctx context.Context, call transport.Call, m *a2a.Message) (transport.EventReader, error) {
	if _, err := b.c.GetTask(ctx, "t-1"); err != nil {
		return nil, err
	}
	return b.headerBinding.SendStream(ctx, call, m)
}

// TestCallHeaderOfAClientCalledFromItsOwnCall: a Client called with the
// context of one of its stream's calls makes that call with its own
// headers and its options, not the stream's: a context carries no
// configuration.
func TestCallHeaderOfAClientCalledFromItsOwnCall(t *testing.T) {
	b := &reentrantBinding{headerBinding: newHeaderBinding(newMemAgent(1), "")}
	c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10), stream.WithHeader("Authorization", "Bearer service"))
	require.NoError(t, err)
	b.c = c

	_, err = drain(t, c.Send(background(), hello(), stream.WithHeader("Authorization", "Bearer user")))
	require.NoError(t, err)
	require.Equal(t, []http.Header{{"Authorization": {"Bearer user"}}}, b.calls("SendStream"))
	require.Equal(t, []http.Header{{"Authorization": {"Bearer service"}}}, b.calls("GetTask"))
}

// What a Transport of another module (NewClientFor) tells the driver with
// this package's markers, as this package's HTTP bindings tell it from
// their own plumbing: the agent's "not authenticated" (ErrNotAuthenticated),
// a call that could not connect (CouldNotConnect), a call the agent
// answered before it failed (Responded); and the idle timeout it is given
// in Call.

// errUnauthenticated is a binding's "not authenticated", as a gRPC binding
// would return it for UNAUTHENTICATED.
var errUnauthenticated = fmt.Errorf("rpc error: code = Unauthenticated desc = token expired: %w", transport.ErrNotAuthenticated)

// A subscribe the binding answers with an error wrapping
// ErrNotAuthenticated asks the credentials hook, whose headers reach the
// next subscribe; without a hook it ends the stream at once, not retried
// as a drop.
func TestBindingsNotAuthenticatedAsksTheCredentialsHook(t *testing.T) {
	for _, withHook := range []bool{true, false} {
		t.Run(fmt.Sprintf("hook %v", withHook), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var (
					mu         sync.Mutex
					subscribes []http.Header
					causes     []error
				)
				b := &funcBinding{
					sendStream: func(context.Context, transport.Call, *a2a.Message) (transport.EventReader, error) {
						return &listReader{events: []a2a.Event{bTask(a2a.StateWorking)}, end: errors.New("connection reset")}, nil
					},
					subscribe: func(_ context.Context, call transport.Call, _ string) (transport.EventReader, error) {
						mu.Lock()
						defer mu.Unlock()
						subscribes = append(subscribes, call.Header)
						if call.Header.Get("Authorization") == "" {
							return nil, errUnauthenticated
						}
						return &listReader{events: []a2a.Event{bTask(a2a.StateWorking), bStatus(a2a.StateCompleted, "")}}, nil
					},
					getTask: func(context.Context, transport.Call, string) (*a2a.Task, error) { return bTask(a2a.StateWorking), nil },
				}
				opts := []stream.Option{stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Second})}
				if withHook {
					opts = append(opts, stream.WithCredentials(credentials.Func(func(_ context.Context, req *credentials.Request) (http.Header, error) {
						causes = append(causes, req.Cause)
						return http.Header{"Authorization": {"Bearer fresh"}}, nil
					})))
				}
				c, err := stream.NewClientFor(b, opts...)
				require.NoError(t, err)
				got, err := drain(t, c.Send(background(), hello()))

				if !withHook {
					require.ErrorIs(t, err, transport.ErrNotAuthenticated)
					require.Len(t, subscribes, 1, "not authenticated is not a drop: it is not retried")
					return
				}
				require.NoError(t, err)
				require.Equal(t, a2a.StateCompleted, got.task.Status.State)
				require.Len(t, causes, 1, "the hook is asked once")
				require.ErrorIs(t, causes[0], transport.ErrNotAuthenticated)
				require.Len(t, subscribes, 2)
				require.Equal(t, "Bearer fresh", subscribes[1].Get("Authorization"))
			})
		})
	}
}

// An *HTTPError of status 401, the "not authenticated" of this package's
// bindings, matches ErrNotAuthenticated, and one of 403 ErrPermissionDenied;
// no other status matches either.
func TestHTTPErrorOf401IsNotAuthenticated(t *testing.T) {
	require.ErrorIs(t, &transport.HTTPError{StatusCode: http.StatusUnauthorized}, transport.ErrNotAuthenticated)
	require.ErrorIs(t, fmt.Errorf("wrapped: %w", &transport.HTTPError{StatusCode: http.StatusUnauthorized}), transport.ErrNotAuthenticated)
	require.ErrorIs(t, &transport.HTTPError{StatusCode: http.StatusForbidden}, transport.ErrPermissionDenied)
	for _, code := range []int{http.StatusForbidden, http.StatusNotFound, http.StatusServiceUnavailable} {
		require.NotErrorIs(t, &transport.HTTPError{StatusCode: code}, transport.ErrNotAuthenticated, code)
	}
	for _, code := range []int{http.StatusUnauthorized, http.StatusNotFound, http.StatusServiceUnavailable} {
		require.NotErrorIs(t, &transport.HTTPError{StatusCode: code}, transport.ErrPermissionDenied, code)
	}
}

// A subscribe the binding answers with an error wrapping
// ErrPermissionDenied (gRPC's PERMISSION_DENIED) ends the stream at once:
// not retried as a drop, and not put to the credentials hook, since the
// agent knew who called.
func TestBindingsPermissionDeniedEndsTheStream(t *testing.T) {
	for name, denied := range map[string]error{
		"bare": fmt.Errorf("rpc error: code = PermissionDenied desc = not yours: %w", transport.ErrPermissionDenied),
		// A 403 whose A2A error says retryable, or names a refusal that
		// would otherwise fetch the task: permission denied all the same.
		"403, retryable": &transport.HTTPError{StatusCode: http.StatusForbidden,
			Err: &a2a.RPCError{Code: a2a.CodeInternalError, Message: "later", Data: json.RawMessage(`{"retryable":true}`)}},
		"403, task not found": &transport.HTTPError{StatusCode: http.StatusForbidden,
			Err: &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "not yours"}},
	} {
		t.Run(name, func(t *testing.T) { permissionDeniedEndsTheStream(t, denied) })
	}
}

func permissionDeniedEndsTheStream(t *testing.T, denied error) {
	synctest.Test(t, func(t *testing.T) {
		var subscribes, asked atomic.Int32
		b := &funcBinding{
			sendStream: func(context.Context, transport.Call, *a2a.Message) (transport.EventReader, error) {
				return &listReader{events: []a2a.Event{bTask(a2a.StateWorking)}, end: errors.New("connection reset")}, nil
			},
			subscribe: func(context.Context, transport.Call, string) (transport.EventReader, error) {
				subscribes.Add(1)
				return nil, denied
			},
			getTask: func(context.Context, transport.Call, string) (*a2a.Task, error) { return bTask(a2a.StateWorking), nil },
		}
		c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Second}),
			stream.WithCredentials(credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
				asked.Add(1)
				return http.Header{"Authorization": {"Bearer other"}}, nil
			})))
		require.NoError(t, err)
		_, err = drain(t, c.Send(background(), hello()))
		require.ErrorIs(t, err, transport.ErrPermissionDenied)
		require.EqualValues(t, 1, subscribes.Load(), "permission denied is not a drop: it is not retried")
		require.Zero(t, asked.Load(), "the credentials hook is not asked")
	})
}

// A binding whose calls fail with ErrClosed (its Transport was closed) or
// ErrMisconfigured (an option of the caller's that fails when a call is
// made) ends a stream at once, whether the send or a later subscribe finds
// it: no call is made again, as a call that never left otherwise would be,
// and the stream ends with the binding's error itself, not as a lost
// connection.
func TestBindingsClosedOrMisconfiguredEndsTheStreamAtOnce(t *testing.T) {
	for name, cannot := range map[string]error{
		"closed":        transport.NotSent(fmt.Errorf("%w: grpc: the client connection is closing", transport.ErrClosed)),
		"misconfigured": fmt.Errorf("a2agrpc: invalid option: WithDialOptions: a nil inside it: %w", transport.ErrMisconfigured),
	} {
		for _, atSend := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s at send %v", name, atSend), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var sends, subscribes atomic.Int32
					b := &funcBinding{
						sendStream: func(context.Context, transport.Call, *a2a.Message) (transport.EventReader, error) {
							sends.Add(1)
							if atSend {
								return nil, cannot
							}
							return &listReader{events: []a2a.Event{bTask(a2a.StateWorking)}, end: errors.New("connection reset")}, nil
						},
						subscribe: func(context.Context, transport.Call, string) (transport.EventReader, error) {
							subscribes.Add(1)
							return nil, cannot
						},
						getTask: func(context.Context, transport.Call, string) (*a2a.Task, error) { return nil, cannot },
					}
					c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Second}))
					require.NoError(t, err)
					_, err = drain(t, c.Send(background(), hello()))
					require.ErrorIs(t, err, cannot)
					var lost *reconnect.Error
					require.False(t, errors.As(err, &lost), "not a lost connection: %v", err)
					require.EqualValues(t, 1, sends.Load())
					if atSend {
						require.Zero(t, subscribes.Load())
					} else {
						require.EqualValues(t, 1, subscribes.Load(), "not a drop: nothing is made again")
					}
					_, err = c.GetTask(background(), "t-1")
					require.ErrorIs(t, err, cannot)
				})
			})
		}
	}
}

// A send the binding could not connect for is sent again within the
// budget, and a stream none of whose calls connected ends in a
// *reconnect.Error that matches reconnect.ErrCouldNotConnect and names
// the binding's address. A send lost after it left is never sent again; a
// call that never left but for another reason than the connection
// (NotSent) is sent again without the stream saying it could not connect;
// and a stream that reached the agent once does not say it.
func TestBindingsCouldNotConnectIsMatchedAndSentAgain(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:50051: connect: connection refused")
	cases := []struct {
		name string
		// send and subscribe answer every call; subscribe nil: never reached.
		send, subscribe func() (transport.EventReader, error)
		sends           int
		couldNotConnect bool
		unreachable     string
		noTask          bool
	}{
		{
			name: "could not connect",
			send: func() (transport.EventReader, error) {
				return nil, transport.CouldNotConnect("127.0.0.1:50051", refused)
			},
			sends:           3,
			couldNotConnect: true,
			unreachable:     "127.0.0.1:50051",
		},
		{
			name: "lost after it left",
			send: func() (transport.EventReader, error) {
				return nil, errors.New("rpc error: code = Unavailable desc = error reading from server: EOF")
			},
			sends:  1,
			noTask: true,
		},
		{
			name: "never left, for another reason",
			send: func() (transport.EventReader, error) {
				return nil, transport.NotSent(errors.New("client-side rate limit"))
			},
			sends: 3,
		},
		{
			name: "connected once, then could not",
			send: func() (transport.EventReader, error) {
				return &listReader{events: []a2a.Event{bTask(a2a.StateWorking)}, end: errors.New("connection reset")}, nil
			},
			subscribe: func() (transport.EventReader, error) {
				return nil, transport.CouldNotConnect("127.0.0.1:50051", refused)
			},
			sends: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var sends int
				b := &funcBinding{
					sendStream: func(context.Context, transport.Call, *a2a.Message) (transport.EventReader, error) {
						sends++
						return tc.send()
					},
				}
				if tc.subscribe != nil {
					b.subscribe = func(context.Context, transport.Call, string) (transport.EventReader, error) { return tc.subscribe() }
				}
				c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10),
					stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second}))
				require.NoError(t, err)
				_, err = drain(t, c.Send(background(), hello()))

				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, tc.sends, sends, "the message is sent again only while it provably never left")
				require.Equal(t, tc.couldNotConnect, errors.Is(err, reconnect.ErrCouldNotConnect), err.Error())
				require.Equal(t, tc.unreachable, re.Unreachable)
				require.Equal(t, tc.noTask, errors.Is(err, reconnect.ErrNoTask), err.Error())
				if tc.couldNotConnect {
					require.ErrorIs(t, err, refused, "the binding's error is the cause")
					require.Equal(t, "reconnect: could not connect to 127.0.0.1:50051, gave up after 2 attempts: "+refused.Error(), err.Error())
				}
			})
		})
	}
}

// CouldNotConnect(addr, nil) is nil; an empty address makes it NotSent:
// the call never left, but the binding named no agent to say it could not
// reach. Either way the binding's error stays visible to errors.Is and
// errors.As.
func TestCouldNotConnectWrapsTheBindingsError(t *testing.T) {
	require.NoError(t, transport.CouldNotConnect("127.0.0.1:50051", nil))
	cause := &a2a.RPCError{Code: a2a.CodeInternalError, Message: "unavailable"}
	for _, addr := range []string{"127.0.0.1:50051", ""} {
		err := transport.CouldNotConnect(addr, cause)
		require.ErrorIs(t, err, cause)
		require.Equal(t, cause.Error(), err.Error())
		require.NotErrorIs(t, err, reconnect.ErrCouldNotConnect, "one call's error does not say the stream could not connect")
	}
	require.NoError(t, transport.Responded(nil))
	require.ErrorIs(t, transport.Responded(cause), cause)
	require.Equal(t, cause.Error(), transport.Responded(cause).Error())
}

// A reply whose streaming send failed after the agent responded
// (Responded) may have been taken: when a resubscribe still shows the
// prompt, it is not sent again. Nor is one whose send failed with no word
// of a response, which may have reached the agent too, unless
// WithIdempotentSends says the agent takes a message ID twice as once: it
// is then sent again there, as the HTTP bindings do for a send that got no
// response.
func TestBindingsRespondedReplyIsNotSentAgain(t *testing.T) {
	cut := errors.New("rpc error: code = Unavailable desc = error reading from server: EOF")
	cases := []struct {
		name       string
		err        error
		idempotent bool
		replies    int
	}{
		{"no response", cut, false, 1},
		{"no response, to an idempotent agent", cut, true, 2},
		{"responded", transport.Responded(cut), false, 1},
		{"responded, to an idempotent agent", transport.Responded(cut), true, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				prompt := bStatus(a2a.StateInputRequired, "which city?")
				prompt.Status.Message.ID = "q-1"
				var replies int
				b := &funcBinding{
					sendStream: func(_ context.Context, _ transport.Call, m *a2a.Message) (transport.EventReader, error) {
						if m.TaskID == "" {
							return &listReader{events: []a2a.Event{bTask(a2a.StateSubmitted), prompt}}, nil
						}
						replies++
						if replies == 1 {
							return nil, tc.err
						}
						return &listReader{events: []a2a.Event{bStatus(a2a.StateWorking, ""), bStatus(a2a.StateCompleted, "")}}, nil
					},
					subscribe: func(context.Context, transport.Call, string) (transport.EventReader, error) {
						// The task as it stood before the reply: it still
						// shows the prompt, and lists no reply.
						snap := bTask(a2a.StateInputRequired)
						snap.Status = prompt.Status
						return &listReader{events: []a2a.Event{snap, bStatus(a2a.StateWorking, ""), bStatus(a2a.StateCompleted, "")}}, nil
					},
				}
				hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text("Lisbon"), nil })
				opts := []stream.Option{stream.WithVersion(a2a.V10), stream.WithHumanInput(hook),
					stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Second})}
				if tc.idempotent {
					opts = append(opts, stream.WithIdempotentSends())
				}
				c, err := stream.NewClientFor(b, opts...)
				require.NoError(t, err)
				got, err := drain(t, c.Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, a2a.StateCompleted, got.task.Status.State)
				require.Equal(t, tc.replies, replies)
			})
		})
	}
}

// A binding gets the idle timeout of its call in Call.IdleTimeout: the
// Client's, or the stream's own; GetTask and Cancel, which refuse a
// per-call WithIdleTimeout, get the Client's. A binding that times its
// reader with it drops a silent stream after that long.
func TestCallIdleTimeoutGivesABindingTheIdleTimeoutOfItsCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got []time.Duration
		b := &funcBinding{
			sendStream: func(_ context.Context, call transport.Call, _ *a2a.Message) (transport.EventReader, error) {
				got = append(got, call.IdleTimeout)
				return &listReader{events: []a2a.Event{bTask(a2a.StateSubmitted), bStatus(a2a.StateCompleted, "")}}, nil
			},
			getTask: func(_ context.Context, call transport.Call, _ string) (*a2a.Task, error) {
				got = append(got, call.IdleTimeout)
				return bTask(a2a.StateCompleted), nil
			},
		}
		c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10), stream.WithIdleTimeout(5*time.Second))
		require.NoError(t, err)
		_, err = c.Send(background(), hello()).Wait()
		require.NoError(t, err)
		_, err = c.Send(background(), hello(), stream.WithIdleTimeout(7*time.Second)).Wait()
		require.NoError(t, err)
		_, err = c.GetTask(background(), "t-1")
		require.NoError(t, err)
		require.Equal(t, []time.Duration{5 * time.Second, 7 * time.Second, 5 * time.Second}, got)

		none, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10))
		require.NoError(t, err)
		_, err = none.Send(background(), hello()).Wait()
		require.NoError(t, err)
		require.Equal(t, time.Duration(0), got[len(got)-1], "no idle timeout unless one is given")
	})

	synctest.Test(t, func(t *testing.T) {
		b := &funcBinding{
			sendStream: func(_ context.Context, call transport.Call, _ *a2a.Message) (transport.EventReader, error) {
				return &selfTimedReader{events: []a2a.Event{bTask(a2a.StateSubmitted)}, idle: call.IdleTimeout}, nil
			},
		}
		requireIdleTimeoutEndsSilence(t, b, stream.WithIdleTimeout(10*time.Second))
	})
}
