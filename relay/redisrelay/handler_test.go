package redisrelay_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
	"github.com/a2astream/a2astream/stream"
)

// killableStore is a store on srv through a client that gives up fast
// when srv is killed, and the client.
func killableStore(t *testing.T, srv *redistest.Server) (relay.Store, *redis.Client) {
	c := srv.Client(t, &redis.Options{MaxRetries: -1, DialTimeout: 200 * time.Millisecond, ReadTimeout: 2 * time.Second})
	st, err := redisrelay.New(c, redisrelay.WithWake(50*time.Millisecond))
	require.NoError(t, err)
	return st, c
}

const secretAgentURL = "http://planner.internal:58213/a2a/secret-path"

func handlerOn(t *testing.T, store relay.Store, opts ...relay.HandlerOption) http.Handler {
	h, err := relay.NewHandler(store, func(r *http.Request) (string, bool) {
		id := r.PathValue("id")
		return id, id == "a" || id == "b"
	}, opts...)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/s/{id}/", h)
	return mux
}

func serve(t *testing.T, h http.Handler, method, target, ct, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Header(), rec.Body.String()
}

type rawEvent struct{ ID, Name, Data, Retry string }

type rawReader struct {
	sc  *bufio.Scanner
	raw strings.Builder
}

func (r *rawReader) next() (rawEvent, bool) {
	var e rawEvent
	any := false
	for r.sc.Scan() {
		line := r.sc.Text()
		r.raw.WriteString(line + "\n")
		if line == "" {
			if any {
				return e, true
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		f, v, _ := strings.Cut(line, ":")
		v = strings.TrimPrefix(v, " ")
		any = true
		switch f {
		case "id":
			e.ID = v
		case "event":
			e.Name = v
		case "data":
			e.Data = v
		case "retry":
			e.Retry = v
		}
	}
	return e, false
}

func (r *rawReader) rest() []rawEvent {
	var out []rawEvent
	for {
		e, ok := r.next()
		if !ok {
			return out
		}
		out = append(out, e)
	}
}

func openEvents(t *testing.T, ctx context.Context, client *http.Client, lastID string) (*http.Response, *rawReader) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://relay.test/s/a/events", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 8<<20)
	return resp, &rawReader{sc: sc}
}

// readAllEvents reads the whole stream, bounded by 20 s.
func readAllEvents(t *testing.T, client *http.Client, lastID string) (int, []rawEvent, string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	resp, rd := openEvents(t, ctx, client, lastID)
	evs := rd.rest()
	return resp.StatusCode, evs, rd.raw.String(), ctx.Err() == nil
}

func namesOf(evs []rawEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

// questionLog opens key with an open question at Seq 2.
func questionLog(t *testing.T, store relay.Store, key string) relay.Log {
	log, err := store.Open(t.Context(), key)
	require.NoError(t, err)
	f, err := log.Acquire(t.Context(), "manual", time.Hour)
	require.NoError(t, err)
	require.NoError(t, log.Commit(t.Context(), f, nil,
		relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working","taskId":"t1"}`)},
		relay.Entry{Seq: 2, Name: relay.EventInput, Data: []byte(`{"prompt":2,"text":"Your name?","question":"text:q"}`)}))
	return log
}

func cancelRequested(t *testing.T, log relay.Log) bool {
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	err := log.AwaitCancel(ctx)
	if err == nil {
		return true
	}
	require.ErrorIs(t, err, context.DeadlineExceeded)
	return false
}

func answerStored(t *testing.T, log relay.Log, prompt uint64) bool {
	_, ok, err := log.LoadAnswer(t.Context(), prompt)
	require.NoError(t, err)
	return ok
}

// On Redis, refused posts store nothing, and nothing posted to stream a
// reaches stream b.
func TestRedisRefusedPostsRecordNothing(t *testing.T) {
	srv := redistest.Start(t)
	store, _ := killableStore(t, srv)
	la := questionLog(t, store, "a")
	lb := questionLog(t, store, "b")
	h := handlerOn(t, store)
	good := `{"prompt":2,"text":"Ada"}`
	k := map[string]string{"Idempotency-Key": "k1"}
	cases := []struct {
		name, ct, body string
		hdr            map[string]string
		want           int
	}{
		{"form", "application/x-www-form-urlencoded", "prompt=2&text=Ada", k, 415},
		{"text/plain", "text/plain", good, k, 415},
		{"multipart", "multipart/form-data; boundary=x", good, k, 415},
		{"no content type", "", good, k, 415},
		{"jsonx", "application/jsonx", good, k, 415},
		{"cross-site", "application/json", good, map[string]string{"Idempotency-Key": "k1", "Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site", "application/json", good, map[string]string{"Idempotency-Key": "k1", "Sec-Fetch-Site": "same-site"}, 403},
		{"Origin null", "application/json", good, map[string]string{"Idempotency-Key": "k1", "Origin": "null"}, 403},
		{"Origin other port", "application/json", good, map[string]string{"Idempotency-Key": "k1", "Origin": "http://relay.test:81"}, 403},
		{"epoch of b", "application/json", fmt.Sprintf(`{"prompt":2,"text":"Ada","epoch":%q}`, lb.Epoch()), k, 410},
		{"10 MiB", "application/json", `{"prompt":2,"text":"` + strings.Repeat("a", 10<<20) + `"}`, k, 0},
		{"prompt 0", "application/json", `{"prompt":0,"text":"Ada"}`, k, 0},
		{"prompt 1", "application/json", `{"prompt":1,"text":"Ada"}`, k, 0},
		{"prompt ahead", "application/json", `{"prompt":3,"text":"Ada"}`, k, 0},
	}
	for _, c := range cases {
		code, _, body := serve(t, h, "POST", "http://relay.test/s/a/answer", c.ct, c.body, c.hdr)
		if c.want != 0 {
			require.Equal(t, c.want, code, "%s: %s", c.name, body)
		} else {
			require.True(t, code >= 400 && code < 500, "%s: %d %s", c.name, code, body)
		}
		require.False(t, answerStored(t, la, 2), "%s: stored", c.name)
		if c.want == 415 || c.want == 403 {
			cbody := "{}"
			code, _, body = serve(t, h, "POST", "http://relay.test/s/a/cancel", c.ct, cbody, c.hdr)
			require.Equal(t, c.want, code, "cancel %s: %s", c.name, body)
			require.False(t, cancelRequested(t, la), "cancel %s: recorded", c.name)
		}
	}
	require.False(t, answerStored(t, lb, 2))

	code, _, body := serve(t, h, "POST", "http://relay.test/s/a/answer", "Application/JSON; charset=utf-8", good, k)
	require.Equal(t, 200, code, body)
	code, _, body = serve(t, h, "POST", "http://relay.test/s/a/cancel", "application/json", "", nil)
	require.Equal(t, 202, code, body)
	require.True(t, answerStored(t, la, 2))
	require.True(t, cancelRequested(t, la))
	require.False(t, answerStored(t, lb, 2), "b got a's answer")
	require.False(t, cancelRequested(t, lb), "b got a's cancel")
}

// On Redis, with WithChunkSize(64), a 56 KiB multi-byte answer is cut into
// appending pieces of whole runes of at most 64 bytes, and reaches the
// agent whole.
func TestRedisLongMultiByteAnswer(t *testing.T) {
	srv := redistest.Start(t)
	store, _ := killableStore(t, srv)
	answer := "a"
	for len(answer) < 56<<10-8 {
		answer += "😀é日本"
	}
	agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working(""), a2atest.AskInput("name?"),
		a2atest.Chunk("x", "thanks", false, true), a2atest.Finish(a2a.StateCompleted, "")))
	client, err := stream.NewClient(secretAgentURL, stream.WithHTTPClient(agent.Client()))
	require.NoError(t, err)
	log, err := store.Open(t.Context(), "a")
	require.NoError(t, err)
	fence, err := log.Acquire(t.Context(), "d", time.Minute)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- relay.Drive(ctx, log, fence, relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hi")), relay.WithChunkSize(64))
	}()
	h := handlerOn(t, store)
	// Wait for the question through a browser's eyes.
	rctx, rcancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer rcancel()
	_, rd := openEvents(t, rctx, a2atest.NewClient(h), "")
	var prompt uint64
	for prompt == 0 {
		e, ok := rd.next()
		require.True(t, ok, "no question: %s", rd.raw.String())
		if e.Name == relay.EventInput {
			var in relay.InputData
			require.NoError(t, json.Unmarshal([]byte(e.Data), &in))
			prompt = in.Prompt
		}
	}
	body, err := json.Marshal(map[string]any{"prompt": prompt, "text": answer, "epoch": log.Epoch()})
	require.NoError(t, err)
	code, _, resp := serve(t, h, "POST", "http://relay.test/s/a/answer", "application/json", string(body), map[string]string{"Idempotency-Key": "k"})
	require.Equal(t, 200, code, "%.200s", resp)

	var got strings.Builder
	n := 0
	for {
		e, ok := rd.next()
		require.True(t, ok, "the stream did not end")
		if e.Name == relay.EventAnswered {
			var a relay.AnsweredData
			require.NoError(t, json.Unmarshal([]byte(e.Data), &a))
			require.Equal(t, prompt, a.Prompt)
			require.LessOrEqual(t, len(a.Text), 64)
			require.True(t, utf8.ValidString(a.Text), "piece %d cuts a rune: %q", n, a.Text)
			require.Equal(t, n > 0, a.Append, "piece %d", n)
			got.WriteString(a.Text)
			n++
		}
		if e.Name == relay.EventEnd || e.Name == relay.EventFailure {
			require.Equal(t, relay.EventEnd, e.Name, e.Data)
			break
		}
	}
	require.Equal(t, answer, got.String())
	require.NoError(t, <-done)
	follow := ""
	for _, r := range agent.Requests() {
		if r.Message != nil && r.TaskID != "" {
			follow = r.Message.Text()
		}
	}
	require.Equal(t, answer, follow)
}

// On Redis: odd Last-Event-IDs get gone and a complete stream; a page of a
// log Redis lost (FLUSHALL) ends with gone "lost" and failure "lost".
func TestRedisLastEventIDsAndALostLog(t *testing.T) {
	srv := redistest.Start(t)
	store, rc := killableStore(t, srv)
	log, err := store.Open(t.Context(), "a")
	require.NoError(t, err)
	f, err := log.Acquire(t.Context(), "manual", time.Hour)
	require.NoError(t, err)
	require.NoError(t, log.Commit(t.Context(), f, nil,
		relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working","taskId":"t1"}`)},
		relay.Entry{Seq: 2, Name: relay.EventArtifact, Data: []byte(`{"pane":"artifact:x","id":"x","text":"hi"}`)},
		relay.Entry{Seq: 3, Name: relay.EventEnd, Data: []byte(`{"state":"completed","text":"completed"}`)}))
	client := a2atest.NewClient(handlerOn(t, store))
	ep := log.Epoch()
	for id, reason := range map[string]string{
		"garbage":                          "unparsable",
		ep + "-99999999999999999999999":    "unparsable",
		"other-3":                          "epoch",
		strings.Repeat("e", 100000) + "-1": "epoch",
		ep + "-4":                          "ahead",
		ep + "-18446744073709551615":       "ahead",
	} {
		status, evs, raw, ended := readAllEvents(t, client, id)
		require.Equal(t, 200, status, "%.60s", id)
		require.True(t, ended, "%.60s", id)
		require.Equal(t, []string{relay.EventGone, relay.EventStatus, relay.EventArtifact, relay.EventEnd}, namesOf(evs), "%.60s: %s", id, raw)
		var g relay.GoneData
		require.NoError(t, json.Unmarshal([]byte(evs[0].Data), &g))
		require.Equal(t, reason, g.Reason, "%.60s", id)
	}
	status, _, _, _ := readAllEvents(t, client, ep+"-3")
	require.Equal(t, 204, status)

	require.NoError(t, rc.FlushAll(t.Context()).Err())
	for _, id := range []string{ep + "-1", ep + "-3"} {
		status, evs, raw, ended := readAllEvents(t, client, id)
		require.Equal(t, 200, status)
		require.True(t, ended, "the page of a lost log hangs: %s", raw)
		require.Equal(t, []string{relay.EventGone, relay.EventFailure}, namesOf(evs), raw)
		require.Contains(t, evs[1].Data, `"kind":"lost"`)
	}
}

// When redis-server dies, a live event stream ends with retry:, a new
// EventSource gets 200 with retry:, and posts get 503 with Retry-After.
func TestRedisDiesUnderALiveStream(t *testing.T) {
	srv := redistest.Start(t)
	store, _ := killableStore(t, srv)
	questionLog(t, store, "a")
	h := handlerOn(t, store)
	client := a2atest.NewClient(h)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	resp, rd := openEvents(t, ctx, client, "")
	require.Equal(t, 200, resp.StatusCode)
	e1, _ := rd.next()
	e2, _ := rd.next()
	require.Equal(t, []string{relay.EventStatus, relay.EventInput}, []string{e1.Name, e2.Name})
	srv.Kill()
	rest := rd.rest()
	require.NoError(t, ctx.Err(), "the live stream did not end within 30 s of Redis's death: %s", rd.raw.String())
	require.NotEmpty(t, rest, rd.raw.String())
	require.NotEmpty(t, rest[len(rest)-1].Retry, "the cut stream ended without retry: %s", rd.raw.String())

	status, evs, raw, ended := readAllEvents(t, client, e2.ID)
	require.Equal(t, 200, status, raw)
	require.True(t, ended, raw)
	require.Len(t, evs, 1, raw)
	require.Equal(t, "2000", evs[0].Retry, raw)

	code, hdr, body := serve(t, h, "POST", "http://relay.test/s/a/answer", "application/json", `{"prompt":2,"text":"x"}`, map[string]string{"Idempotency-Key": "k"})
	require.Equal(t, 503, code, body)
	require.Equal(t, "2", hdr.Get("Retry-After"))
	require.NotContains(t, body, "127.0.0.1", "the store's address reaches the browser")
	code, hdr, body = serve(t, h, "POST", "http://relay.test/s/a/cancel", "application/json", ``, nil)
	require.Equal(t, 503, code, body)
	require.Equal(t, "2", hdr.Get("Retry-After"))
	require.NotContains(t, body, "127.0.0.1", "the store's address reaches the browser")
	code, _, body = serve(t, h, "GET", "http://relay.test/s/a/events", "", "", nil)
	require.Equal(t, 503, code, body)
	require.NotContains(t, body, "127.0.0.1", "the store's address reaches the browser")
}
