package stream_test

// A Transport of another module (NewClientFor) at the edges: the headers of
// its calls after auth-required and between Clients that share it, calls
// that return nothing, readers that go on after io.EOF, return nil events
// or ignore their context, and NotSent.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// funcBinding answers each call with its function; a call without one is
// refused as a method the agent does not have.
type funcBinding struct {
	sendStream func(ctx context.Context, call stream.Call, m *a2a.Message) (stream.EventReader, error)
	subscribe  func(ctx context.Context, call stream.Call, taskID string) (stream.EventReader, error)
	sendUnary  func(ctx context.Context, call stream.Call, m *a2a.Message) (a2a.Event, error)
	getTask    func(ctx context.Context, call stream.Call, taskID string) (*a2a.Task, error)
	cancel     func(ctx context.Context, call stream.Call, taskID string) (*a2a.Task, error)
}

var errNoMethod = &a2a.RPCError{Code: a2a.CodeMethodNotFound, Message: "method not found"}

func (b *funcBinding) SendStream(ctx context.Context, call stream.Call, m *a2a.Message) (stream.EventReader, error) {
	if b.sendStream == nil {
		return nil, errNoMethod
	}
	return b.sendStream(ctx, call, m)
}

func (b *funcBinding) Subscribe(ctx context.Context, call stream.Call, id string) (stream.EventReader, error) {
	if b.subscribe == nil {
		return nil, errNoMethod
	}
	return b.subscribe(ctx, call, id)
}

func (b *funcBinding) SendUnary(ctx context.Context, call stream.Call, m *a2a.Message) (a2a.Event, error) {
	if b.sendUnary == nil {
		return nil, errNoMethod
	}
	return b.sendUnary(ctx, call, m)
}

func (b *funcBinding) GetTask(ctx context.Context, call stream.Call, id string) (*a2a.Task, error) {
	if b.getTask == nil {
		return nil, errNoMethod
	}
	return b.getTask(ctx, call, id)
}

func (b *funcBinding) Cancel(ctx context.Context, call stream.Call, id string) (*a2a.Task, error) {
	if b.cancel == nil {
		return nil, errNoMethod
	}
	return b.cancel(ctx, call, id)
}

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
		note := func(name string, call stream.Call) {
			mu.Lock()
			defer mu.Unlock()
			seen[name] = append(seen[name], call.Header)
		}
		b := &funcBinding{
			sendStream: func(ctx context.Context, call stream.Call, m *a2a.Message) (stream.EventReader, error) {
				note("send", call)
				return &listReader{events: []a2a.Event{bTask(a2a.StateSubmitted), bArt("one ", false), bStatus(a2a.StateAuthRequired, "sign in")}}, nil
			},
			subscribe: func(ctx context.Context, call stream.Call, id string) (stream.EventReader, error) {
				note("subscribe", call)
				task := bTask(a2a.StateWorking)
				task.Artifacts = []a2a.Artifact{{ID: "a-1", Parts: []a2a.Part{a2a.TextPart("one ")}}}
				return &listReader{events: []a2a.Event{task, bArt("two", true), bStatus(a2a.StateCompleted, "")}}, nil
			},
			getTask: func(ctx context.Context, call stream.Call, id string) (*a2a.Task, error) {
				note("get", call)
				return bTask(a2a.StateWorking), nil
			},
		}
		hook := stream.CredentialsFunc(func(ctx context.Context, req *stream.AuthRequest) (http.Header, error) {
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
			sendStream: func(ctx context.Context, call stream.Call, m *a2a.Message) (stream.EventReader, error) {
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
			c, err := stream.NewClientFor(&funcBinding{sendStream: func(context.Context, stream.Call, *a2a.Message) (stream.EventReader, error) { return nil, nil }},
				stream.WithVersion(a2a.V10))
			require.NoError(t, err)
			_, err = c.Send(background(), hello()).Wait()
			return err
		},
		"SendUnary": func(t *testing.T) error {
			c, err := stream.NewClientFor(&funcBinding{
				sendStream: func(context.Context, stream.Call, *a2a.Message) (stream.EventReader, error) {
					return nil, &a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "no streaming"}
				},
				sendUnary: func(context.Context, stream.Call, *a2a.Message) (a2a.Event, error) { return nil, nil },
			}, stream.WithVersion(a2a.V10))
			require.NoError(t, err)
			_, err = c.Send(background(), hello()).Wait()
			return err
		},
		"Subscribe": func(t *testing.T) error {
			c, err := stream.NewClientFor(&funcBinding{
				subscribe: func(context.Context, stream.Call, string) (stream.EventReader, error) { return nil, nil },
				getTask:   func(context.Context, stream.Call, string) (*a2a.Task, error) { return bTask(a2a.StateWorking), nil },
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
			c, err := stream.NewClientFor(&funcBinding{getTask: func(context.Context, stream.Call, string) (*a2a.Task, error) { return nil, nil }},
				stream.WithVersion(a2a.V10))
			require.NoError(t, err)
			task, err := c.GetTask(background(), "t-1")
			if err == nil {
				require.NotNil(t, task, "GetTask returned neither a task nor an error")
			}
			return err
		},
		"Cancel": func(t *testing.T) error {
			c, err := stream.NewClientFor(&funcBinding{cancel: func(context.Context, stream.Call, string) (*a2a.Task, error) { return nil, nil }},
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
				sendStream: func(context.Context, stream.Call, *a2a.Message) (stream.EventReader, error) {
					return nil, &a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "no streaming"}
				},
				sendUnary: func(context.Context, stream.Call, *a2a.Message) (a2a.Event, error) {
					return bTask(a2a.StateSubmitted), nil
				},
				getTask: func(context.Context, stream.Call, string) (*a2a.Task, error) { return nil, nil },
			}, stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second}))
			require.NoError(t, err)
			_, err = c.Send(background(), hello()).Wait()
			return err
		},
		"Stream.Cancel": func(t *testing.T) error {
			c, err := stream.NewClientFor(&funcBinding{
				sendStream: func(context.Context, stream.Call, *a2a.Message) (stream.EventReader, error) {
					return &blockingReader{events: []a2a.Event{bTask(a2a.StateWorking)}, done: make(chan struct{})}, nil
				},
				cancel: func(context.Context, stream.Call, string) (*a2a.Task, error) { return nil, nil },
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
		c, err := stream.NewClientFor(&funcBinding{sendStream: func(context.Context, stream.Call, *a2a.Message) (stream.EventReader, error) {
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
			sendStream: func(context.Context, stream.Call, *a2a.Message) (stream.EventReader, error) { return first, nil },
			subscribe: func(context.Context, stream.Call, string) (stream.EventReader, error) {
				task := bTask(a2a.StateWorking)
				task.Artifacts = []a2a.Artifact{{ID: "a-1", Parts: []a2a.Part{a2a.TextPart("one ")}}}
				second = &listReader{events: []a2a.Event{task, bArt("two", true), bStatus(a2a.StateCompleted, "")}}
				return second, nil
			},
			getTask: func(context.Context, stream.Call, string) (*a2a.Task, error) {
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
			sendStream: func(ctx context.Context, _ stream.Call, _ *a2a.Message) (stream.EventReader, error) {
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
	return nil, fmt.Errorf("no event for %s: %w", r.idle, stream.ErrIdleTimeout)
}

func (r *selfTimedReader) Close() {}

// requireIdleTimeoutEndsSilence completes b's silent send through a
// resubscribe made 10 s after the send's last event.
func requireIdleTimeoutEndsSilence(t *testing.T, b *funcBinding, opts ...stream.Option) {
	t.Helper()
	var subscribedAfter time.Duration
	start := time.Now()
	b.subscribe = func(context.Context, stream.Call, string) (stream.EventReader, error) {
		subscribedAfter = time.Since(start)
		return &listReader{events: []a2a.Event{bTask(a2a.StateWorking), bStatus(a2a.StateCompleted, "")}}, nil
	}
	b.getTask = func(context.Context, stream.Call, string) (*a2a.Task, error) { return bTask(a2a.StateWorking), nil }
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
	require.NoError(t, stream.NotSent(nil))
	cause := &a2a.RPCError{Code: a2a.CodeInternalError, Message: "no route"}
	err := stream.NotSent(cause)
	require.ErrorIs(t, err, cause)
	var re *a2a.RPCError
	require.ErrorAs(t, err, &re)
	require.Same(t, cause, re)
	_, isTerminal := terminalState(err)
	require.False(t, isTerminal)
}
