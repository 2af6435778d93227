package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// The relay's own options cannot be lost: Drive calls the Source's client
// with the application's options and then its own, so a stream the relay
// drives asks its question through the relay (an EventInput, answered by
// a post) even when the application gave a human-input hook, a notify
// function and a checkpoint hook of its own, on every wire. With the
// StartFunc this replaces, a function that did not pass its options on
// left the stream without the relay's hook: it ended at its first
// question.
func TestARelayedStreamAsksThroughTheRelayWhateverTheSourcesOptions(t *testing.T) {
	for _, w := range upstreams {
		t.Run(w.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRunRig(t, w.v, w.rest, a2atest.WithScript(askScript()...))
				var appHook, appNotify, appCheckpoint int
				src := relay.Send(r.client, a2a.NewTextMessage(a2a.RoleUser, "hello"),
					stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
						appHook++
						return nil, errors.New("the application's hook")
					})),
					stream.WithNotify(func(stream.Notice) { appNotify++ }),
					stream.WithCheckpointBeforeReply(func(context.Context, *stream.Checkpoint) error { appCheckpoint++; return nil }))
				done := make(chan error, 1)
				go func() { done <- relay.Run(t.Context(), r.log, "a", src) }()

				synctest.Wait() // the driver waits for the answer
				asked := entriesNamed(t, r.log, relay.EventInput)
				require.Len(t, asked, 1, "the question was asked through the relay")
				in := inputOf(t, asked[0])
				require.Equal(t, "Which city?", in.Text)
				_, err := r.log.PostAnswer(t.Context(), relay.Answer{Prompt: in.Prompt, Key: "k1", Text: "Paris"})
				require.NoError(t, err)
				require.NoError(t, <-done)

				require.Equal(t, relay.EventEnd, lastEntry(t, r.log).Name, "the stream completed")
				require.Len(t, entriesNamed(t, r.log, relay.EventAnswered), 1)
				require.Equal(t, []string{"Paris"}, followUps(r.agent), "the answer posted to the relay reached the agent")
				require.Zero(t, appHook, "the relay's human-input hook, given last, wins")
				require.Zero(t, appCheckpoint, "the relay's checkpoint hook, given last, wins")
				require.Zero(t, appNotify, "the relay's notify function, given last, wins")
			})
		})
	}
}

// Drive resumes a stream whose log's checkpoint names its task, whatever
// its Source: a Drive that takes a stream over (here after its first
// driver stopped at a question) sends nothing again, keeps the question's
// prompt, and relays the rest of the task once. Before, Drive started the
// stream its StartFunc gave, and a caller that took a stream over without
// Run had to write a StartFunc that resumed it.
func TestDriveResumesFromTheLogsCheckpointWhateverTheSource(t *testing.T) {
	for _, c := range []struct {
		name string
		src  func(client *stream.Client) relay.Source
	}{
		{"Send", func(client *stream.Client) relay.Source {
			return relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello again"))
		}},
		{"Resume", func(client *stream.Client) relay.Source { return relay.Resume(client) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRunRig(t, a2a.V03, false, a2atest.WithScript(askScript()...))
				ctx := t.Context()
				first, err := r.log.Acquire(ctx, "first", time.Minute)
				require.NoError(t, err)
				ctx1, stop1 := context.WithCancel(ctx)
				done := make(chan error, 1)
				go func() {
					done <- relay.Drive(ctx1, r.log, first, relay.Send(r.client, a2a.NewTextMessage(a2a.RoleUser, "hello")))
				}()
				synctest.Wait() // the first driver waits for the answer
				asked := entriesNamed(t, r.log, relay.EventInput)
				require.Len(t, asked, 1)
				stop1()
				require.ErrorIs(t, <-done, context.Canceled)
				require.NoError(t, r.log.Release(ctx, first))

				second, err := r.log.Acquire(ctx, "second", time.Minute)
				require.NoError(t, err)
				go func() { done <- relay.Drive(ctx, r.log, second, c.src(r.client)) }()
				synctest.Wait()
				in := inputOf(t, asked[0])
				_, err = r.log.PostAnswer(ctx, relay.Answer{Prompt: in.Prompt, Key: "k1", Text: "Paris"})
				require.NoError(t, err)
				require.NoError(t, <-done)

				require.Equal(t, 1, sendsOf(r.agent)-len(followUps(r.agent)), "the message was sent once")
				require.Equal(t, []string{"Paris"}, followUps(r.agent))
				require.Len(t, entriesNamed(t, r.log, relay.EventInput), 1, "the question kept its prompt")
				require.Equal(t, relay.EventEnd, lastEntry(t, r.log).Name)
				require.Equal(t, "booked", fold(t, eventsOf(t, r.log)).Pane("artifact:a1").Text(), "the rest of the task, once")
			})
		})
	}
}

// A checkpoint that does not parse is neither resumed nor started over
// by Drive (the message may have reached the agent): Drive returns the
// parse error, calls no agent and appends nothing.
func TestDriveOnACheckpointThatDoesNotParseOpensNothing(t *testing.T) {
	ctx := t.Context()
	log, err := newMemoryStore(t).Open(ctx, "k")
	require.NoError(t, err)
	fence, err := log.Acquire(ctx, "d", time.Minute)
	require.NoError(t, err)
	require.NoError(t, log.Commit(ctx, fence, []byte("not a checkpoint")))
	err = relay.Drive(ctx, log, fence, relay.Send(unreachedClient(t, "Drive opened a stream of a foreign checkpoint"), a2a.NewTextMessage(a2a.RoleUser, "hello")))
	var cpErr *stream.CheckpointError
	require.ErrorAs(t, err, &cpErr)
	tail, err := log.Tail(ctx)
	require.NoError(t, err)
	require.Zero(t, tail)
}

// WithDriving tells when this replica drives: Run calls it once it holds
// the lease and opens the stream, with a context that ends when it stops
// driving (here, when the stream ended).
func TestWithDrivingTellsWhenThisReplicaDrives(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRunRig(t, a2a.V10, false, a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Second), a2atest.Finish(a2a.StateCompleted, "")))
		var (
			calls     int
			drivingC  context.Context
			sendsThen int
		)
		err := relay.Run(t.Context(), r.log, "a", r.start(), relay.WithDriving(func(ctx context.Context) {
			calls++
			drivingC = ctx
			sendsThen = sendsOf(r.agent)
		}))
		require.NoError(t, err)
		require.Equal(t, 1, calls)
		require.Zero(t, sendsThen, "called before the stream opened")
		require.Error(t, drivingC.Err(), "its context ended when Run stopped driving")
		require.Equal(t, 1, sendsOf(r.agent))
	})
}

// entriesNamed returns the entries of log with this name.
func entriesNamed(t *testing.T, log relay.Log, name string) []relay.Entry {
	t.Helper()
	es, err := log.Read(t.Context(), 0, 10000)
	require.NoError(t, err)
	var named []relay.Entry
	for _, e := range es {
		if e.Name == name {
			named = append(named, e)
		}
	}
	return named
}

// inputOf decodes an EventInput entry.
func inputOf(t *testing.T, e relay.Entry) relay.InputData {
	t.Helper()
	var in relay.InputData
	require.NoError(t, json.Unmarshal(e.Data, &in))
	return in
}

// eventsOf is the log's entries as the events a reader gets.
func eventsOf(t *testing.T, log relay.Log) []event {
	t.Helper()
	es, err := log.Read(t.Context(), 0, 10000)
	require.NoError(t, err)
	evs := make([]event, 0, len(es))
	for _, e := range es {
		evs = append(evs, event{ID: relay.ID{Epoch: log.Epoch(), Seq: e.Seq}.String(), Name: e.Name, Data: e.Data})
	}
	return evs
}
