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

func TestAnswerPostedTwiceWithTheSameKeyIsAppliedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(askScript()...)}})
		rd := r.connect("")
		in, seen := untilInput(t, rd)
		require.Equal(t, "Which city?", in.Text)

		for range 2 {
			code, out := r.post("answer", "key-1", map[string]any{"prompt": in.Prompt, "text": "Paris"})
			require.Equal(t, http.StatusOK, code)
			require.Equal(t, map[string]any{"prompt": float64(in.Prompt), "text": "Paris"}, out)
		}
		code, out := r.post("answer", "key-2", map[string]any{"prompt": in.Prompt, "text": "Rome"})
		require.Equal(t, http.StatusConflict, code, "another key after a first answer")
		require.Equal(t, map[string]any{"prompt": float64(in.Prompt), "text": "Paris"}, out["answer"], "the 409 carries the answer held")

		rest := rd.rest()
		require.NoError(t, r.wait())
		require.Equal(t, []string{"Paris"}, followUps(r.agent), "the agent got the answer once")
		var answered []relay.AnsweredData
		for _, ev := range rest {
			if ev.Name == relay.EventAnswered {
				var a relay.AnsweredData
				require.NoError(t, json.Unmarshal(ev.Data, &a))
				answered = append(answered, a)
			}
		}
		require.Equal(t, []relay.AnsweredData{{Prompt: in.Prompt, Text: "Paris"}}, answered)
		require.Equal(t, relay.EventEnd, rest[len(rest)-1].Name)

		sc := fold(t, append(seen, rest...))
		require.Nil(t, sc.Question, "the question is closed")
		require.Equal(t, "Paris", sc.Pane("answer:"+itoa(in.Prompt)).Text())
		require.Equal(t, "booked", sc.Pane("artifact:a1").Text())

		// Once answered, the same key still gets its 200, another its 409.
		code, _ = r.post("answer", "key-1", map[string]any{"prompt": in.Prompt, "text": "Paris"})
		require.Equal(t, http.StatusOK, code)
		code, _ = r.post("answer", "key-3", map[string]any{"prompt": in.Prompt, "text": "Oslo"})
		require.Equal(t, http.StatusConflict, code)
	})
}

func TestBadRequestsGet4xxWithAJSONError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(askScript()...)}})
		in, _ := untilInput(t, r.connect(""))

		for _, tt := range []struct {
			name, action, key, contentType, body string
			code                                 int
		}{
			{"no idempotency key", "answer", "", "application/json", `{"prompt":` + itoa(in.Prompt) + `,"text":"x"}`, 400},
			{"bad JSON", "answer", "k", "application/json", `{"prompt":`, 400},
			{"a string for the prompt", "answer", "k", "application/json", `{"prompt":"1","text":"x"}`, 400},
			{"not JSON", "answer", "k", "text/plain", `prompt=1`, 415},
			{"no prompt", "answer", "k", "application/json", `{"text":"x"}`, 400},
			{"empty answer", "answer", "k", "application/json", `{"prompt":` + itoa(in.Prompt) + `,"text":"  "}`, 400},
			{"a prompt that is no question", "answer", "k", "application/json", `{"prompt":1,"text":"x"}`, 404},
			{"a prompt past the tail", "answer", "k", "application/json", `{"prompt":99999,"text":"x"}`, 404},
			{"a prompt at the top of uint64", "answer", "k", "application/json", `{"prompt":18446744073709551615,"text":"x"}`, 404},
			{"an idempotency key of 300 bytes", "answer", strings.Repeat("k", 300), "application/json", `{"prompt":` + itoa(in.Prompt) + `,"text":"x"}`, 400},
			{"unknown action", "other", "k", "application/json", `{}`, 404},
		} {
			code, out := r.postRaw(tt.action, tt.key, tt.contentType, tt.body)
			require.Equal(t, tt.code, code, tt.name)
			require.NotEmpty(t, out["error"], tt.name)
		}

		for _, tt := range []struct {
			name, method, path string
			code               int
		}{
			{"unknown stream", http.MethodGet, "http://relay.test/s/other/events", 404},
			{"unknown method", http.MethodPut, "http://relay.test/s/k/events", 405},
		} {
			req, err := http.NewRequest(tt.method, tt.path, nil)
			require.NoError(t, err)
			resp, err := r.client.Do(req)
			require.NoError(t, err)
			var out map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&out), tt.name)
			require.NoError(t, resp.Body.Close())
			require.Equal(t, tt.code, resp.StatusCode, tt.name)
			require.NotEmpty(t, out["error"], tt.name)
		}
		require.Empty(t, followUps(r.agent), "no bad request reached the agent")
	})
}

// NewHandler refuses a nil store or key; a Handler it did not make (the
// zero Handler) answers every request with 500.
func TestHandlerWithoutStoreOrKeyIsRefusedAndTheZeroHandlerAnswers500(t *testing.T) {
	for _, c := range []struct {
		store relay.Store
		key   relay.KeyFunc
	}{
		{nil, func(*http.Request) (string, bool) { return "k", true }},
		{newMemoryStore(t), nil},
	} {
		h, err := relay.NewHandler(c.store, c.key)
		require.ErrorIs(t, err, relay.ErrInvalidOption)
		require.Nil(t, h)
	}
	code, out := doJSON(t, a2atest.NewClient(&relay.Handler{}), http.MethodGet, "http://relay.test/s/k/events")
	require.Equal(t, http.StatusInternalServerError, code)
	require.NotEmpty(t, out["error"])
}

// An answer posted by a page of a log that was lost and made afresh names
// the question by its prompt, which the new log may use for a question of
// its own: a post that names its epoch (the epoch of the question's event
// ID) is refused with 410 when the log is of another, and nothing is
// stored; one of the log's epoch is taken.
func TestAnswerToAPromptOfAnotherEpochGets410(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		store := newMemoryStore(t)
		ask := func(question string) relay.Log {
			l, err := store.Open(ctx, "k")
			require.NoError(t, err)
			f, err := l.Acquire(ctx, "driver", time.Hour)
			require.NoError(t, err)
			require.NoError(t, l.Commit(ctx, f, nil,
				relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"input-required"}`)},
				relay.Entry{Seq: 2, Name: relay.EventInput, Data: []byte(`{"prompt":2,"text":"` + question + `"}`)}))
			return l
		}
		old := ask("Which city?").Epoch()
		store.Delete("k")
		now := ask("Delete every file?")
		require.NotEqual(t, old, now.Epoch())

		mux := http.NewServeMux()
		mux.Handle("/s/{key}/", newHandler(t, store, func(*http.Request) (string, bool) { return "k", true }))
		client := a2atest.NewClient(mux)
		post := func(key string, body map[string]any) int {
			b, err := json.Marshal(body)
			require.NoError(t, err)
			req, err := http.NewRequest(http.MethodPost, "http://relay.test/s/k/answer", strings.NewReader(string(b)))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", key)
			resp, err := client.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			return resp.StatusCode
		}
		require.Equal(t, http.StatusGone, post("key-old", map[string]any{"prompt": 2, "text": "yes", "epoch": old}))
		_, ok, err := now.LoadAnswer(ctx, 2)
		require.NoError(t, err)
		require.False(t, ok, "the other epoch's answer is not stored")
		require.Equal(t, http.StatusOK, post("key-now", map[string]any{"prompt": 2, "text": "no", "epoch": now.Epoch()}))
		held, ok, err := now.LoadAnswer(ctx, 2)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "no", held.Text)
	})
}

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
