package relay_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// A question the stream stopped waiting on (no answer came in time) is
// closed: an answer posted after gets 410, and nothing is stored, as a
// post after the question's entry was trimmed.
func TestAnswerToAQuestionClosedUnansweredGets410(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(askScript()...)}, stream: []stream.Option{stream.WithInputTimeout(time.Minute)}})
		rd := r.connect("")
		in, _ := untilInput(t, rd)
		rest := rd.rest()
		require.NoError(t, r.wait())
		name, kind := lastOf(t, rest)
		require.Equal(t, relay.EventFailure, name)
		require.Equal(t, "no-answer", kind)

		code, out := r.post("answer", "key-1", map[string]any{"prompt": in.Prompt, "text": "Paris"})
		require.Equal(t, http.StatusGone, code)
		require.NotEmpty(t, out["error"])
		_, ok, err := r.log.LoadAnswer(t.Context(), in.Prompt)
		require.NoError(t, err)
		require.False(t, ok, "the late answer is not stored")
	})
}

// lastOf returns the last event's name, and its kind when it is an error.
func lastOf(t *testing.T, evs []event) (string, string) {
	t.Helper()
	require.NotEmpty(t, evs)
	last := evs[len(evs)-1]
	if last.Name != relay.EventFailure {
		return last.Name, ""
	}
	var e relay.FailureData
	require.NoError(t, json.Unmarshal(last.Data, &e))
	return last.Name, e.Kind
}

// A question is closed by its answer, by a question asked after it (a
// driver that took the stream over was asked another), and by the
// stream's end; only the first holds an answer. While the question is
// open, notices and status changes after it leave it open.
func TestAnswerIsTakenOnlyWhileItsQuestionIsOpen(t *testing.T) {
	input := `{"prompt":2,"text":"Which city?"}`
	for _, tt := range []struct {
		name  string
		after []relay.Entry // after the question, entry 2
		code  int
	}{
		{"open", nil, http.StatusOK},
		{"open, with a notice and a status after it", []relay.Entry{
			{Name: relay.EventNotice, Data: []byte(`{"kind":"resumed","text":"resumed"}`)},
			{Name: relay.EventStatus, Data: []byte(`{"state":"input-required"}`)},
		}, http.StatusOK},
		{"another question asked", []relay.Entry{
			{Name: relay.EventInput, Data: []byte(`{"prompt":3,"text":"Which day?"}`)},
		}, http.StatusGone},
		{"the stream ended in an error", []relay.Entry{
			{Name: relay.EventNotice, Data: []byte(`{"kind":"resumed","text":"resumed"}`)},
			{Name: relay.EventFailure, Data: []byte(`{"kind":"canceled","text":"canceled"}`)},
		}, http.StatusGone},
		{"the stream ended", []relay.Entry{
			{Name: relay.EventEnd, Data: []byte(`{"state":"completed","text":"completed"}`)},
		}, http.StatusGone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			st := newMemoryStore(t)
			l, err := st.Open(ctx, "k")
			require.NoError(t, err)
			f, err := l.Acquire(ctx, "driver", time.Hour)
			require.NoError(t, err)
			entries := []relay.Entry{
				{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"input-required"}`)},
				{Seq: 2, Name: relay.EventInput, Data: []byte(input)},
			}
			for i, e := range tt.after {
				e.Seq = uint64(3 + i)
				entries = append(entries, e)
			}
			require.NoError(t, l.Commit(ctx, f, nil, entries...))
			code := postAnswer(t, st, `{"prompt":2,"text":"Paris"}`)
			require.Equal(t, tt.code, code)
			_, ok, err := l.LoadAnswer(ctx, 2)
			require.NoError(t, err)
			require.Equal(t, tt.code == http.StatusOK, ok, "an answer is stored only to an open question")
		})
	}
}

// postAnswer posts body to the answer route of stream "k" of st.
func postAnswer(t *testing.T, st relay.Store, body string) int {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/s/{key}/", newHandler(t, st, func(*http.Request) (string, bool) { return "k", true }))
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "http://relay.test/s/k/answer", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "key-1")
	resp, err := a2atest.NewClient(mux).Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return resp.StatusCode
}
