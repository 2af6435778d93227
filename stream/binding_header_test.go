package stream_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// headerBinding is a memBinding that records, for each call, the headers
// of its stream.Call, and refuses a subscribe with 401 while those lack
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

func (b *headerBinding) note(method string, call stream.Call) http.Header {
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

func (b *headerBinding) SendStream(ctx context.Context, call stream.Call, m *a2a.Message) (stream.EventReader, error) {
	b.note("SendStream", call)
	return b.memBinding.SendStream(ctx, call, m)
}

func (b *headerBinding) Subscribe(ctx context.Context, call stream.Call, taskID string) (stream.EventReader, error) {
	if h := b.note("Subscribe", call); b.want != "" && h.Get("Authorization") != b.want {
		return nil, &stream.HTTPError{StatusCode: http.StatusUnauthorized, Status: "401 Unauthorized"}
	}
	return b.memBinding.Subscribe(ctx, call, taskID)
}

func (b *headerBinding) GetTask(ctx context.Context, call stream.Call, taskID string) (*a2a.Task, error) {
	b.note("GetTask", call)
	return b.memBinding.GetTask(ctx, call, taskID)
}

func (b *headerBinding) Cancel(ctx context.Context, call stream.Call, taskID string) (*a2a.Task, error) {
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
		hook := stream.CredentialsFunc(func(ctx context.Context, req *stream.AuthRequest) (http.Header, error) {
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

func (b outerBinding) GetTask(ctx context.Context, _ stream.Call, taskID string) (*a2a.Task, error) {
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

func (b mutatingBinding) SendStream(ctx context.Context, call stream.Call, m *a2a.Message) (stream.EventReader, error) {
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

func (b *reentrantBinding) SendStream(ctx context.Context, call stream.Call, m *a2a.Message) (stream.EventReader, error) {
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
