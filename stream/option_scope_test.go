package stream_test

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// The entry points that take Options, named as a refusal names them.
const (
	atNewClient     = "NewClient"
	atNewRESTClient = "NewRESTClient"
	atResolve       = "Resolve"
	atNewClientFor  = "NewClientFor"
	atSend          = "Send"
	atSubscribe     = "Subscribe"
	atResume        = "Resume"
	atGetTask       = "GetTask"
	atCancel        = "Cancel"
	atSendFor       = "Send of a Client of NewClientFor"
	atSubscribeFor  = "Subscribe of a Client of NewClientFor"
	atResumeFor     = "Resume of a Client of NewClientFor"
	atGetTaskFor    = "GetTask of a Client of NewClientFor"
	atCancelFor     = "Cancel of a Client of NewClientFor"
)

// scopedOption is an option with a good value and the entry points where
// it applies: everywhere else it is refused.
type scopedOption struct {
	name    string
	option  stream.Option
	applies []string
}

// scopedOptions is every option of the package, with where it applies.
func scopedOptions(hc *http.Client) []scopedOption {
	httpConstructors := []string{atNewClient, atNewRESTClient, atResolve}
	constructors := append(slices.Clone(httpConstructors), atNewClientFor)
	streams := []string{atSend, atSubscribe, atResume, atSendFor, atSubscribeFor, atResumeFor}
	httpCalls := []string{atSend, atSubscribe, atResume, atGetTask, atCancel}
	everywhere := slices.Concat(constructors, httpCalls, []string{atSendFor, atSubscribeFor, atResumeFor, atGetTaskFor, atCancelFor})
	driver := slices.Concat(constructors, streams)
	return []scopedOption{
		{"WithHTTPClient", stream.WithHTTPClient(hc), httpConstructors},
		{"WithVersion", stream.WithVersion(a2a.V10), constructors},
		{"WithTrustedOrigins", stream.WithTrustedOrigins("http://other.test"), httpConstructors},
		{"WithBreaker", stream.WithBreaker(allowAll{}), httpConstructors},
		{"WithBinding", stream.WithBinding(a2a.BindingJSONRPC), []string{atResolve}},
		{"WithCardCache", stream.WithCardCache(agentcard.NewCache()), []string{atResolve}},
		{"WithHeader", stream.WithHeader("X-Team", "travel"), everywhere},
		{"WithMaxEventSize", stream.WithMaxEventSize(1 << 20), slices.Concat(httpConstructors, httpCalls)},
		{"WithConnectTimeout", stream.WithConnectTimeout(time.Second), slices.Concat(httpConstructors, httpCalls)},
		{"WithIdleTimeout", stream.WithIdleTimeout(time.Minute), slices.Concat(driver, []string{atGetTask, atCancel})},
		{"WithLogger", stream.WithLogger(slog.New(slog.DiscardHandler)), slices.Concat(driver, []string{atGetTask, atCancel})},
		{"WithReconnect", stream.WithReconnect(reconnect.Never()), driver},
		{"WithPollInterval", stream.WithPollInterval(time.Second), driver},
		{"WithStallTimeout", stream.WithStallTimeout(time.Minute), driver},
		{"WithIdempotentSends", stream.WithIdempotentSends(), driver},
		{"WithHumanInput", stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text("yes"), nil })), driver},
		{"WithInputTimeout", stream.WithInputTimeout(time.Minute), driver},
		{"WithCheckpointBeforeReply", stream.WithCheckpointBeforeReply(func(context.Context, *stream.Checkpoint) error { return nil }), driver},
		{"WithNotify", stream.WithNotify(func(stream.Notice) {}), driver},
		{"WithCredentials", stream.WithCredentials(stream.CredentialsFunc(func(context.Context, *stream.AuthRequest) (http.Header, error) { return nil, nil })), driver},
		{"WithFailureReader", stream.WithFailureReader(terminal.ReadStructured), driver},
	}
}

// allowAll is a Breaker that lets every request through.
type allowAll struct{}

func (allowAll) Allow() (func(error), error) { return func(error) {}, nil }

// countingBinding is a Transport of another module that counts its calls and
// answers each with method-not-found.
type countingBinding struct{ calls *atomic.Int64 }

func (b countingBinding) SendStream(context.Context, stream.Call, *a2a.Message) (stream.EventReader, error) {
	b.calls.Add(1)
	return nil, errNoMethod
}

func (b countingBinding) SendUnary(context.Context, stream.Call, *a2a.Message) (a2a.Event, error) {
	b.calls.Add(1)
	return nil, errNoMethod
}

func (b countingBinding) Subscribe(context.Context, stream.Call, string) (stream.EventReader, error) {
	b.calls.Add(1)
	return nil, errNoMethod
}

func (b countingBinding) GetTask(context.Context, stream.Call, string) (*a2a.Task, error) {
	b.calls.Add(1)
	return nil, errNoMethod
}

func (b countingBinding) Cancel(context.Context, stream.Call, string) (*a2a.Task, error) {
	b.calls.Add(1)
	return nil, errNoMethod
}

// Every option is refused, with ErrInvalidOption naming the option and the
// entry point, wherever it does not apply (a constructor, Resolve, or a
// call of either kind of Client), before anything is sent;
// where it applies it is accepted.
func TestOptionsAreRefusedWhereTheyDoNotApply(t *testing.T) {
	var sent atomic.Int64 // requests and calls of a binding, all entry points together
	hc := &http.Client{Transport: a2atest.NewTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		http.NotFound(w, r)
	}))}
	client, err := stream.NewClient(endpoint, stream.WithHTTPClient(hc), stream.WithVersion(a2a.V10))
	require.NoError(t, err)
	foreign, err := stream.NewClientFor(countingBinding{&sent}, stream.WithVersion(a2a.V10))
	require.NoError(t, err)
	ctx := background()
	streamErr := func(s *stream.Stream) error { // its refusal, without reading it
		defer s.Close()
		return s.Err()
	}
	entries := map[string]func(stream.Option) error{
		atNewClient: func(o stream.Option) error { _, err := stream.NewClient(endpoint, o); return err },
		atNewRESTClient: func(o stream.Option) error {
			_, err := stream.NewRESTClient(endpoint, o)
			return err
		},
		atResolve: func(o stream.Option) error {
			_, err := stream.Resolve(ctx, endpoint, stream.WithHTTPClient(hc), o)
			return err
		},
		atNewClientFor: func(o stream.Option) error {
			_, err := stream.NewClientFor(countingBinding{&sent}, o)
			return err
		},
		atSend:         func(o stream.Option) error { return streamErr(client.Send(ctx, hello(), o)) },
		atSubscribe:    func(o stream.Option) error { return streamErr(client.Subscribe(ctx, "t-1", o)) },
		atResume:       func(o stream.Option) error { return streamErr(client.Resume(ctx, nil, o)) },
		atGetTask:      func(o stream.Option) error { _, err := client.GetTask(ctx, "t-1", o); return err },
		atCancel:       func(o stream.Option) error { _, err := client.Cancel(ctx, "t-1", o); return err },
		atSendFor:      func(o stream.Option) error { return streamErr(foreign.Send(ctx, hello(), o)) },
		atSubscribeFor: func(o stream.Option) error { return streamErr(foreign.Subscribe(ctx, "t-1", o)) },
		atResumeFor:    func(o stream.Option) error { return streamErr(foreign.Resume(ctx, nil, o)) },
		atGetTaskFor:   func(o stream.Option) error { _, err := foreign.GetTask(ctx, "t-1", o); return err },
		atCancelFor:    func(o stream.Option) error { _, err := foreign.Cancel(ctx, "t-1", o); return err },
	}
	for _, so := range scopedOptions(hc) {
		for at, run := range entries {
			t.Run(so.name+" to "+at, func(t *testing.T) {
				before := sent.Load()
				err := run(so.option)
				if slices.Contains(so.applies, at) {
					require.NotErrorIs(t, err, stream.ErrInvalidOption, "%s applies to %s", so.name, at)
					return
				}
				require.ErrorIs(t, err, stream.ErrInvalidOption, "%s does not apply to %s", so.name, at)
				require.Contains(t, err.Error(), so.name+" does not apply to "+at)
				require.NotContains(t, err.Error(), "places", "the refusal says where %s applies", so.name)
				require.Equal(t, before, sent.Load(), "nothing sent")
			})
		}
	}
}
