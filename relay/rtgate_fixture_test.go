package relay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// pathKey is the KeyFunc of the tests' handlers: the stream is the path's
// second part, /s/<key>/events, and every key is known.
func pathKey(r *http.Request) (string, bool) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if len(parts) < 3 || parts[0] != "s" || parts[1] == "" {
		return "", false
	}
	return parts[1], true
}

// textEntry is a message entry whose data holds text.
func textEntry(seq uint64, text string) relay.Entry {
	data, err := json.Marshal(relay.MessageData{Pane: "message:m", ID: "m", Kind: "message", Role: "agent", Text: text, Append: true})
	if err != nil {
		panic(err)
	}
	return relay.Entry{Seq: seq, Name: relay.EventMessage, Data: data}
}

// endEntry is the stream's last entry.
func endEntry(seq uint64) relay.Entry {
	data, err := json.Marshal(relay.EndData{State: "completed", Text: "completed"})
	if err != nil {
		panic(err)
	}
	return relay.Entry{Seq: seq, Name: relay.EventEnd, Data: data}
}

// writer appends to one log as its driver, holding its lease.
type writer struct {
	t     testing.TB
	log   relay.Log
	fence relay.Fence
	tail  uint64
}

func newWriter(t testing.TB, store relay.Store, key string) *writer {
	t.Helper()
	ctx := context.Background()
	log, err := store.Open(ctx, key)
	require.NoError(t, err)
	fence, err := log.Acquire(ctx, "driver", time.Hour)
	require.NoError(t, err)
	tail, err := log.Tail(ctx)
	require.NoError(t, err)
	return &writer{t: t, log: log, fence: fence, tail: tail}
}

// texts commits one entry for each text, in one commit.
func (w *writer) texts(texts ...string) {
	w.t.Helper()
	es := make([]relay.Entry, len(texts))
	for i, s := range texts {
		w.tail++
		es[i] = textEntry(w.tail, s)
	}
	require.NoError(w.t, w.log.Commit(context.Background(), w.fence, nil, es...))
}

// many commits n entries of short numbered texts, in commits of 50.
func (w *writer) many(n int) {
	w.t.Helper()
	for n > 0 {
		k := min(n, 50)
		texts := make([]string, k)
		for i := range texts {
			texts[i] = fmt.Sprintf("word %d ", w.tail+uint64(i)+1)
		}
		w.texts(texts...)
		n -= k
	}
}

// end commits the stream's ending.
func (w *writer) end() {
	w.t.Helper()
	w.tail++
	require.NoError(w.t, w.log.Commit(context.Background(), w.fence, nil, endEntry(w.tail)))
}

// id is the event ID of seq in this log.
func (w *writer) id(seq uint64) string { return relay.ID{Epoch: w.log.Epoch(), Seq: seq}.String() }
