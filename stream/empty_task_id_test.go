package stream_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// emptyIDCalls are the Client's calls that name a task, each made with an
// empty task ID (and, for those that take one, a config ID), with the
// error it ends in.
func emptyIDCalls(c *stream.Client) map[string]error {
	ctx := background()
	errs := map[string]error{}
	_, errs["GetTask"] = c.GetTask(ctx, "")
	_, errs["Cancel"] = c.Cancel(ctx, "")
	s := c.Subscribe(ctx, "")
	for s.Next() {
	}
	errs["Subscribe"] = s.Err()
	_, errs["SetPushConfig"] = c.SetPushConfig(ctx, "", a2a.PushConfig{URL: "https://app.example/hook"})
	_, errs["GetPushConfig"] = c.GetPushConfig(ctx, "", "c")
	_, errs["ListPushConfigs"] = c.ListPushConfigs(ctx, "")
	errs["DeletePushConfig"] = c.DeletePushConfig(ctx, "", "c")
	return errs
}

// requireEmptyIDRefused checks the error of each call of emptyIDCalls: it
// matches ErrInvalidOption, names the call, and says what to pass.
func requireEmptyIDRefused(t *testing.T, errs map[string]error) {
	t.Helper()
	require.Len(t, errs, 7)
	for call, err := range errs {
		require.ErrorIs(t, err, stream.ErrInvalidOption, call)
		require.EqualError(t, err, "stream: "+call+": the task ID is empty; pass the ID of a task the agent made (a stream's Task().ID)")
	}
}

// GetTask, Cancel, Subscribe and the push-config calls refuse an empty task
// ID with an error matching ErrInvalidOption that names the call and says
// what to pass, and send nothing, on every wire and whether or not the
// Client's version is known yet.
func TestAnEmptyTaskIDIsRefusedAndNothingIsSent(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := w.agent()
			requireEmptyIDRefused(t, emptyIDCalls(clientOn(t, agent, w.v, w.b)))
			require.Empty(t, agent.Requests(), "nothing is sent")
		})
	}
	for _, b := range bothBindings {
		t.Run("negotiating/"+string(b), func(t *testing.T) {
			agent := wire{a2a.V10, b}.agent()
			c := bindingClient(t, b, "http://agent.test", stream.WithHTTPClient(agent.Client()))
			requireEmptyIDRefused(t, emptyIDCalls(c))
			require.Empty(t, agent.Requests(), "nothing is sent")
			require.Empty(t, c.Version(), "nothing was negotiated")
		})
	}
}

// A Client of NewClientFor refuses an empty task ID before its Transport
// is called.
func TestAnEmptyTaskIDNeverReachesTheTransport(t *testing.T) {
	called := 0
	count := func(context.Context, transport.Call, string) (*a2a.Task, error) {
		called++
		return nil, errNoMethod
	}
	c, err := stream.NewClientFor(&funcBinding{
		getTask: count,
		cancel:  count,
		subscribe: func(context.Context, transport.Call, string) (transport.EventReader, error) {
			called++
			return nil, errNoMethod
		},
	})
	require.NoError(t, err)
	errs := emptyIDCalls(c)
	for _, call := range []string{"GetTask", "Cancel", "Subscribe"} {
		require.ErrorIs(t, errs[call], stream.ErrInvalidOption, call)
		require.EqualError(t, errs[call], "stream: "+call+": the task ID is empty; pass the ID of a task the agent made (a stream's Task().ID)")
	}
	require.Zero(t, called, "the Transport is never called")
}

// A push-config call that takes a config ID refuses an empty one, naming
// the call and where the IDs are listed, and sends nothing.
func TestAnEmptyConfigIDIsRefusedAndNothingIsSent(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := w.agent()
			c := clientOn(t, agent, w.v, w.b)
			_, err := c.GetPushConfig(background(), "t-1", "")
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.EqualError(t, err, "stream: GetPushConfig: the config ID is empty; pass the ID of one of the task's configs (ListPushConfigs lists them)")
			err = c.DeletePushConfig(background(), "t-1", "")
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.EqualError(t, err, "stream: DeletePushConfig: the config ID is empty; pass the ID of one of the task's configs (ListPushConfigs lists them)")
			require.Empty(t, agent.Requests(), "nothing is sent")
		})
	}
}
