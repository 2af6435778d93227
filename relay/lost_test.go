package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/relay"
)

// When the store lost a stream's log, no driver can resume it: the new
// log has neither an entry nor a checkpoint. A page that comes back with
// an ID of the lost log is sent away with gone (reason "lost") and told
// that the stream was lost, in a failure event of kind "lost" that ends
// the response; it is not left waiting for events that never come. A
// reconnect with the lost event's ID gets 204, which stops EventSource;
// one with the gone event's ID gets the lost event again.
func TestAPageOfALostLogIsToldTheStreamWasLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st := newMemoryStore(t)
		l, err := st.Open(ctx, "k")
		require.NoError(t, err)
		f, err := l.Acquire(ctx, "driver", time.Hour)
		require.NoError(t, err)
		require.NoError(t, l.Commit(ctx, f, []byte("a checkpoint"),
			relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)},
			relay.Entry{Seq: 2, Name: relay.EventArtifact, Data: []byte(`{"pane":"artifact:a1","id":"a1","text":"half an answer"}`)}))
		old := relay.ID{Epoch: l.Epoch(), Seq: 2}.String()
		st.Delete("k") // the store lost the log
		mux := http.NewServeMux()
		mux.Handle("/s/{key}/", newHandler(t, st, func(*http.Request) (string, bool) { return "k", true }))
		client := a2atest.NewClient(mux)

		requireLost(t, client, old)
	})
}

// requireLost checks what a page of the lost log whose last event ID was
// old is served by client.
func requireLost(t *testing.T, client *http.Client, old string) {
	t.Helper()
	code, evs, ended := readFor(t, client, old, time.Minute)
	require.Equal(t, http.StatusOK, code)
	require.True(t, ended, "the response ends; it got %d events", len(evs))
	require.Len(t, evs, 2)
	require.Equal(t, relay.EventGone, evs[0].Name)
	var g relay.GoneData
	require.NoError(t, json.Unmarshal(evs[0].Data, &g))
	require.Equal(t, "lost", g.Reason)
	require.Equal(t, relay.EventFailure, evs[1].Name)
	var e relay.FailureData
	require.NoError(t, json.Unmarshal(evs[1].Data, &e))
	require.Equal(t, "lost", e.Kind)
	require.NotEmpty(t, e.Text)
	sc := fold(t, evs)
	require.NotNil(t, sc.End, "the screen shows the stream ended")

	code, evs, ended = readFor(t, client, evs[0].ID, time.Minute)
	require.Equal(t, http.StatusOK, code)
	require.True(t, ended)
	require.Len(t, evs, 1, "a page sent away with gone that reconnects is told the stream was lost")
	require.Equal(t, relay.EventFailure, evs[0].Name)

	code, _, _ = readFor(t, client, evs[0].ID, time.Minute)
	require.Equal(t, http.StatusNoContent, code, "the lost event's ID is the last")
}

// readFor GETs the events of stream "k" with lastID as Last-Event-ID, for
// at most d, and returns the status, the events read, and whether the
// response ended by itself within d.
func readFor(t *testing.T, client *http.Client, lastID string, d time.Duration) (int, []event, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://relay.test/s/k/events", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	dec := sse.NewDecoder(resp.Body, 1<<20)
	var evs []event
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return resp.StatusCode, evs, true
		}
		if err != nil {
			require.Error(t, ctx.Err(), "the response failed: %v", err)
			return resp.StatusCode, evs, false
		}
		evs = append(evs, event{ID: string(ev.ID), Name: ev.Type, Data: append([]byte(nil), ev.Data...)})
	}
}
