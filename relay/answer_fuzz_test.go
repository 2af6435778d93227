package relay_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// FuzzAnswerPost posts what a browser, or anyone, may send to the answer
// route of a stream whose entry 2 is an open question: the Handler answers
// with JSON and a 2xx or 4xx status, stores an answer only when it answers
// 200, and then the answer it names.
func FuzzAnswerPost(f *testing.F) {
	f.Add("application/json", "key-1", "", `{"prompt":2,"text":"Paris"}`)
	f.Add("application/json; charset=utf-8", "k", "http://relay.test", `{"prompt":2,"text":"Paris","epoch":"x"}`)
	f.Add("text/plain", "k", "", `{"prompt":2,"text":"Paris"}`)
	f.Add("application/json", "k", "https://evil.example", `{"prompt":2,"text":"Paris"}`)
	f.Add("application/json", "", "", `{"prompt":1,"text":"x"}`)
	f.Add("application/json", "k", "", `{"prompt":18446744073709551615,"text":"x"} trailing`)
	f.Add("application/json", "k", "", `{"prompt":2.5,"text":"\u2028"}`)
	f.Fuzz(func(t *testing.T, contentType, key, origin, body string) {
		ctx := context.Background()
		st := newMemoryStore(t)
		l, err := st.Open(ctx, "k")
		require.NoError(t, err)
		fence, err := l.Acquire(ctx, "driver", time.Hour)
		require.NoError(t, err)
		require.NoError(t, l.Commit(ctx, fence, nil,
			relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"input-required"}`)},
			relay.Entry{Seq: 2, Name: relay.EventInput, Data: []byte(`{"prompt":2,"text":"Which city?"}`)}))
		h := newHandler(t, st, func(*http.Request) (string, bool) { return "k", true })

		req := httptest.NewRequest(http.MethodPost, "http://relay.test/s/k/answer", strings.NewReader(body))
		for name, v := range map[string]string{"Content-Type": contentType, "Idempotency-Key": key, "Origin": origin} {
			if v != "" && !strings.ContainsAny(v, "\r\n\x00") {
				req.Header.Set(name, v)
			}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		require.GreaterOrEqual(t, rec.Code, 200)
		require.Less(t, rec.Code, 500, "%d %s", rec.Code, rec.Body)
		require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		var out struct {
			Prompt uint64 `json:"prompt"`
			Text   string `json:"text"`
			Error  string `json:"error"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), "%s", rec.Body)
		held, stored, err := l.LoadAnswer(ctx, 2)
		require.NoError(t, err)
		if rec.Code != http.StatusOK {
			require.NotEmpty(t, out.Error)
			require.False(t, stored, "a %d stored an answer", rec.Code)
			return
		}
		require.True(t, stored)
		require.Equal(t, uint64(2), out.Prompt)
		require.Equal(t, relay.Answer{Prompt: 2, Key: req.Header.Get("Idempotency-Key"), Text: out.Text}, held)
	})
}
