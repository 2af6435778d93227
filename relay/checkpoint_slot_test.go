package relay_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// The checkpoint slot holds only stream checkpoints: before Run starts a
// stream it stores the checkpoint of a stream that knows no task yet,
// which parses (a replica that takes the log over reads it as "started,
// no task known"), not a text of the relay's own.
func TestRunMarksAStartWithACheckpointThatParsesAndNamesNoTask(t *testing.T) {
	log, err := newMemoryStore(t).Open(t.Context(), "k")
	require.NoError(t, err)
	var (
		cp    []byte
		got   *stream.Checkpoint
		sends int
	)
	// The agent reads the log's checkpoint as the message arrives, and
	// answers 400, which ends the stream.
	agent := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sends++
		cp, err = log.LoadCheckpoint(r.Context())
		require.NoError(t, err)
		got, err = stream.ParseCheckpoint(cp)
		return &http.Response{StatusCode: http.StatusBadRequest, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})
	client, cerr := stream.NewClient("http://agent.test/", stream.WithHTTPClient(&http.Client{Transport: agent}))
	require.NoError(t, cerr)
	require.NoError(t, relay.Run(t.Context(), log, "starter", relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello")), relay.WithLease(time.Minute)))
	require.Equal(t, 1, sends, "the message was sent once")
	require.NotNil(t, cp, "Run stored a mark before it started the stream")
	require.NoError(t, err, "the mark is a stream checkpoint")
	require.Empty(t, got.TaskID(), "the mark names no task")
}
