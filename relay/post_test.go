package relay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// The POST routes, with a body each accepts and the status of a post
// that is accepted.
var postRoutes = []struct {
	route string
	body  string
	ok    int
}{
	{"answer", `{"prompt":1,"text":"Paris"}`, http.StatusOK},
	{"cancel", `{}`, http.StatusAccepted},
}

// Browsers send text/plain, form and multipart posts to another site
// without a preflight, with the user's cookies: every state-changing
// route takes JSON only.
func TestStateChangingPostsTakeJSONOnly(t *testing.T) {
	for _, rt := range postRoutes {
		for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
			t.Run(rt.route+" "+ct, func(t *testing.T) {
				p := newPostRig(t)
				h := map[string]string{}
				if ct != "" {
					h["Content-Type"] = ct
				}
				require.Equal(t, http.StatusUnsupportedMediaType, p.post(t, rt.route, rt.body, h))
				require.Zero(t, p.recorded(), "nothing is recorded")
			})
		}
	}
}

// A post that a browser says comes from another site, or whose Origin is
// not the request's own, is refused, whatever its content type.
func TestCrossSitePostsAreRefused(t *testing.T) {
	for _, rt := range postRoutes {
		for name, h := range map[string]map[string]string{
			"Sec-Fetch-Site cross-site":            {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
			"Sec-Fetch-Site same-site":             {"Sec-Fetch-Site": "same-site", "Origin": "http://other.relay.test"},
			"Sec-Fetch-Site cross-site, no Origin": {"Sec-Fetch-Site": "cross-site"},
			"foreign Origin":                       {"Origin": "https://evil.example"},
			"foreign port":                         {"Origin": "http://relay.test:8443"},
			"null Origin":                          {"Origin": "null"},
		} {
			t.Run(rt.route+" "+name, func(t *testing.T) {
				p := newPostRig(t)
				h["Content-Type"] = "application/json"
				require.Equal(t, http.StatusForbidden, p.post(t, rt.route, rt.body, h))
				require.Zero(t, p.recorded(), "nothing is recorded")
			})
		}
	}
}

// The page's own posts, and those of programs that send no Origin, go
// through.
func TestSameOriginPostsAreAccepted(t *testing.T) {
	for _, rt := range postRoutes {
		for name, h := range map[string]map[string]string{
			"Sec-Fetch-Site same-origin": {"Sec-Fetch-Site": "same-origin", "Origin": "http://relay.test"},
			"own Origin":                 {"Origin": "http://relay.test"},
			"no Origin":                  {},
		} {
			t.Run(rt.route+" "+name, func(t *testing.T) {
				p := newPostRig(t)
				h["Content-Type"] = "application/json"
				require.Equal(t, rt.ok, p.post(t, rt.route, rt.body, h))
				require.Equal(t, 1, p.recorded())
			})
		}
	}
}

// An origin the application trusts may post from another site; others
// may not.
func TestTrustedOriginMayPostFromAnotherSite(t *testing.T) {
	trusted := relay.WithTrustedOrigins("https://app.example", "http://localhost:3000")
	_, err := relay.NewHandler(newMemoryStore(t), func(*http.Request) (string, bool) { return "k", true }, trusted)
	require.NoError(t, err)
	for _, rt := range postRoutes {
		t.Run(rt.route, func(t *testing.T) {
			p := newPostRig(t, trusted)
			for _, origin := range []string{"https://app.example", "http://localhost:3000"} {
				h := map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site", "Origin": origin}
				require.Equal(t, rt.ok, p.post(t, rt.route, rt.body, h), origin)
			}
			h := map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site", "Origin": "https://app.example.evil"}
			require.Equal(t, http.StatusForbidden, p.post(t, rt.route, rt.body, h))
			require.Equal(t, 2, p.recorded())
		})
	}
}

func TestWithTrustedOriginsRefusesWhatIsNotAnOrigin(t *testing.T) {
	for _, origin := range []string{"", "app.example", "https://", "https://app.example/", "https://app.example/chat", "https://app.example?x=1", "https://app.example#top", "*", "null"} {
		h, err := relay.NewHandler(newMemoryStore(t), func(*http.Request) (string, bool) { return "k", true },
			relay.WithTrustedOrigins("https://app.example", origin))
		require.ErrorIs(t, err, relay.ErrInvalidOption, "%q", origin)
		require.Nil(t, h)
	}
}

// Every refused post to the answer route of an open question gets its
// status, and nothing is stored.
func TestRefusedAnswersStoreNothing(t *testing.T) {
	for _, c := range refusals() {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := newMemoryStore(t)
				log := questionLog(t, store, "a")
				h := handlerAB(t, store)
				code, _, body := serve(t, h, c.method, "http://relay.test/s/a/answer", c.ct, c.body, c.hdr)
				if c.want != 0 {
					require.Equal(t, c.want, code, "body %s", body)
				} else {
					require.GreaterOrEqual(t, code, 400, "body %s", body)
					require.Less(t, code, 500, "body %s", body)
				}
				_, ok := loadAnswer(t, log, 2)
				require.False(t, ok, "an answer was stored for a refused post (%d %s)", code, body)
				// And a good post afterwards is still taken: the question stayed open.
				code, _, body = serve(t, h, "POST", "http://relay.test/s/a/answer", "application/json", goodAnswer, map[string]string{"Idempotency-Key": "k2"})
				require.Equal(t, http.StatusOK, code, body)
			})
		})
	}
}

// The same refusals on the cancel route record no cancel.
func TestRefusedCancelsRecordNothing(t *testing.T) {
	cases := refusals()
	cases = append(cases,
		refusal{"cancel body array", "POST", "application/json", nil, `[]`, 0},
		refusal{"cancel body a string", "POST", "application/json", nil, `"cancel"`, 0},
		refusal{"cancel body not JSON", "POST", "application/json", nil, `cancel=1`, 0},
	)
	for _, c := range cases {
		if strings.HasPrefix(c.name, "prompt") || strings.HasPrefix(c.name, "text ") || strings.Contains(c.name, "Idempotency") ||
			c.name == "epoch of another log" || c.name == "body null" || c.name == "body empty" || c.name == "body just over 64 KiB" ||
			c.name == "body array" || c.name == "body not JSON" {
			continue // answer-only
		}
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := newMemoryStore(t)
				log := questionLog(t, store, "a")
				h := handlerAB(t, store)
				body := c.body
				if body == goodAnswer {
					body = `{}`
				}
				code, _, resp := serve(t, h, c.method, "http://relay.test/s/a/cancel", c.ct, body, c.hdr)
				if c.want != 0 {
					require.Equal(t, c.want, code, "body %s", resp)
				} else {
					require.GreaterOrEqual(t, code, 400, "body %s", resp)
					require.Less(t, code, 500, "body %s", resp)
				}
				require.False(t, cancelRequested(t, log), "a cancel was recorded for a refused post (%d %s)", code, resp)
			})
		})
	}
}

// What the docs accept is taken: JSON with parameters and any casing of the
// media type (RFC 9110: media types are case-insensitive), same-origin and
// user-initiated (none) fetches, the page's own Origin, and a program with
// neither header.
func TestAcceptedPostsAreTaken(t *testing.T) {
	cases := []struct {
		name string
		ct   string
		hdr  map[string]string
	}{
		{"plain", "application/json", nil},
		{"charset", "application/json; charset=utf-8", nil},
		{"odd casing and params", "Application/JSON; charset=utf-8", nil},
		{"no space before param", "application/json;charset=UTF-8", nil},
		{"Sec-Fetch-Site same-origin", "application/json", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://relay.test"}},
		{"Sec-Fetch-Site none", "application/json", map[string]string{"Sec-Fetch-Site": "none"}},
		{"own Origin", "application/json", map[string]string{"Origin": "http://relay.test"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := newMemoryStore(t)
				log := questionLog(t, store, "a")
				h := handlerAB(t, store)
				hdr := map[string]string{"Idempotency-Key": "k1"}
				for k, v := range c.hdr {
					hdr[k] = v
				}
				code, _, body := serve(t, h, "POST", "http://relay.test/s/a/answer", c.ct, fmt.Sprintf(`{"prompt":2,"text":"Ada","epoch":%q}`, log.Epoch()), hdr)
				require.Equal(t, http.StatusOK, code, body)
				a, ok := loadAnswer(t, log, 2)
				require.True(t, ok)
				require.Equal(t, relay.Answer{Prompt: 2, Key: "k1", Text: "Ada"}, a)

				code, _, body = serve(t, h, "POST", "http://relay.test/s/a/cancel", c.ct, `{}`, c.hdr)
				require.Equal(t, http.StatusAccepted, code, body)
				require.True(t, cancelRequested(t, log))
			})
		})
	}
}

func TestTrustedOrigins(t *testing.T) {
	for _, bad := range []string{"https://app.example/", "https://app.example/path", "app.example", "*", "null",
		"https://app.example?x=1", "https://app.example#f", "https://", "//app.example", ""} {
		_, err := relay.NewHandler(newMemoryStore(t), func(*http.Request) (string, bool) { return "a", true }, relay.WithTrustedOrigins(bad))
		require.ErrorIs(t, err, relay.ErrInvalidOption, "WithTrustedOrigins(%q)", bad)
	}
	opt := relay.WithTrustedOrigins("https://app.example", "http://localhost:3000")
	_, err := relay.NewHandler(newMemoryStore(t), func(*http.Request) (string, bool) { return "a", true }, opt)
	require.NoError(t, err)

	cases := []struct {
		hdr  map[string]string
		want int
	}{
		{map[string]string{"Origin": "https://app.example", "Sec-Fetch-Site": "cross-site"}, 200},
		{map[string]string{"Origin": "http://localhost:3000", "Sec-Fetch-Site": "same-site"}, 200},
		{map[string]string{"Origin": "https://app.example"}, 200},
		{map[string]string{"Origin": "https://app.example.evil", "Sec-Fetch-Site": "cross-site"}, 403},
		{map[string]string{"Origin": "http://app.example", "Sec-Fetch-Site": "cross-site"}, 403},
		{map[string]string{"Origin": "https://app.example:444", "Sec-Fetch-Site": "cross-site"}, 403},
		{map[string]string{"Origin": "http://localhost:3001", "Sec-Fetch-Site": "same-site"}, 403},
		{map[string]string{"Origin": "https://app.example/", "Sec-Fetch-Site": "cross-site"}, 403},
		{map[string]string{"Origin": "null", "Sec-Fetch-Site": "cross-site"}, 403},
		{map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := newMemoryStore(t)
				log := questionLog(t, store, "a")
				h := handlerAB(t, store, opt)
				hdr := map[string]string{"Idempotency-Key": "k1"}
				for k, v := range c.hdr {
					hdr[k] = v
				}
				code, _, body := serve(t, h, "POST", "http://relay.test/s/a/answer", "application/json", goodAnswer, hdr)
				require.Equal(t, c.want, code, "%v: %s", c.hdr, body)
				_, ok := loadAnswer(t, log, 2)
				require.Equal(t, c.want == 200, ok)
				code, _, body = serve(t, h, "POST", "http://relay.test/s/a/cancel", "application/json", "", c.hdr)
				if c.want == 200 {
					require.Equal(t, http.StatusAccepted, code, body)
				} else {
					require.Equal(t, c.want, code, body)
				}
				require.Equal(t, c.want == 200, cancelRequested(t, log))
			})
		})
	}
}

// A replayed key with another body does not change, nor claim to have
// stored, another answer; another key gets 409 with the answer held.
func TestReplayedIdempotencyKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newMemoryStore(t)
		log := questionLog(t, store, "a")
		h := handlerAB(t, store)
		post := func(key, body string) (int, map[string]any) {
			code, _, resp := serve(t, h, "POST", "http://relay.test/s/a/answer", "application/json", body, map[string]string{"Idempotency-Key": key})
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(resp), &m), "%d %q", code, resp)
			return code, m
		}
		code, m := post("k1", goodAnswer)
		require.Equal(t, 200, code, m)
		require.Equal(t, "Ada", m["text"])
		code, m = post("k1", goodAnswer)
		require.Equal(t, 200, code, m)
		require.Equal(t, "Ada", m["text"])

		code, m = post("k1", `{"prompt":2,"text":"Mallory"}`)
		if code == 200 {
			require.Equal(t, "Ada", m["text"], "200 for the same key with another text must name the answer stored")
		} else {
			require.Equal(t, 409, code, m)
		}
		code, m = post("k2", `{"prompt":2,"text":"Mallory"}`)
		require.Equal(t, 409, code, m)
		require.Equal(t, "Ada", m["answer"].(map[string]any)["text"], m)
		code, m = post("k2", goodAnswer)
		require.Equal(t, 409, code, m)

		a, ok := loadAnswer(t, log, 2)
		require.True(t, ok)
		require.Equal(t, relay.Answer{Prompt: 2, Key: "k1", Text: "Ada"}, a)
	})
}

// Whatever a post with odd JSON gets, a 200 names exactly what was stored.
func TestOddJSONIsStoredAsAnswered(t *testing.T) {
	for _, body := range []string{
		`{"prompt":2,"text":"Ada","text":"Eve"}`,
		`{"prompt":1,"prompt":2,"text":"Ada"}`,
		`{"prompt":2,"text":"Ada","unknown":true}`,
		`{"Prompt":2,"TEXT":"Ada"}`,
		`{"prompt":2,"text":"Ada"} {"prompt":2,"text":"Eve"}`,
		`{"prompt":2,"text":"Ada"}garbage`,
		`{"prompt":2e0,"text":"Ada"}`,
		`{"prompt":2,"text":"A\u0000da"}`,
		`{"prompt":2,"text":"\ud800"}`,
		`{"prompt":2,"text":""}`,
	} {
		t.Run(body, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := newMemoryStore(t)
				log := questionLog(t, store, "a")
				h := handlerAB(t, store)
				code, _, resp := serve(t, h, "POST", "http://relay.test/s/a/answer", "application/json", body, map[string]string{"Idempotency-Key": "k1"})
				a, ok := loadAnswer(t, log, 2)
				t.Logf("%s -> %d %s", body, code, resp)
				if code != 200 {
					require.GreaterOrEqual(t, code, 400)
					require.Less(t, code, 500)
					require.False(t, ok, "refused with %d but stored %+v", code, a)
					return
				}
				require.True(t, ok)
				var m struct {
					Prompt uint64 `json:"prompt"`
					Text   string `json:"text"`
				}
				require.NoError(t, json.Unmarshal([]byte(resp), &m))
				require.Equal(t, a.Prompt, m.Prompt)
				require.Equal(t, a.Text, m.Text)
			})
		})
	}
}

// An answer to a question closed unanswered (by the end of the stream, or
// by another question) gets 410 and nothing is stored.
func TestAnswerAfterTheQuestionClosed(t *testing.T) {
	status := func(seq uint64) relay.Entry {
		return relay.Entry{Seq: seq, Name: relay.EventStatus, Data: []byte(`{"state":"working","taskId":"t1"}`)}
	}
	input := func(seq uint64, q string) relay.Entry {
		return relay.Entry{Seq: seq, Name: relay.EventInput, Data: []byte(fmt.Sprintf(`{"prompt":%d,"text":"?","question":%q}`, seq, q))}
	}
	cases := map[string][]relay.Entry{
		"end": {status(1), input(2, "text:a"),
			{Seq: 3, Name: relay.EventEnd, Data: []byte(`{"state":"completed","text":"completed"}`)}},
		"failure no-answer": {status(1), input(2, "text:a"),
			{Seq: 3, Name: relay.EventFailure, Data: []byte(`{"kind":"no-answer","text":"no answer"}`)}},
		"failure canceled": {status(1), input(2, "text:a"), status(3),
			{Seq: 4, Name: relay.EventFailure, Data: []byte(`{"kind":"canceled","state":"canceled","text":"canceled"}`)}},
		"another question": {status(1), input(2, "text:a"), status(3), input(4, "text:b")},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := newMemoryStore(t)
				log, _ := manualLog(t, store, "a", entries...)
				h := handlerAB(t, store)
				code, _, body := serve(t, h, "POST", "http://relay.test/s/a/answer", "application/json",
					fmt.Sprintf(`{"prompt":2,"text":"late","epoch":%q}`, log.Epoch()), map[string]string{"Idempotency-Key": "k"})
				require.Equal(t, http.StatusGone, code, body)
				_, ok := loadAnswer(t, log, 2)
				require.False(t, ok)
			})
		})
	}
}

// Nothing posted to stream a reaches stream b, even when it names b's
// prompt and b's epoch.
func TestPostsToOneStreamNeverReachAnother(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newMemoryStore(t)
		la := questionLog(t, store, "a")
		lb := questionLog(t, store, "b")
		h := handlerAB(t, store)

		code, _, body := serve(t, h, "POST", "http://relay.test/s/a/answer", "application/json",
			fmt.Sprintf(`{"prompt":2,"text":"for b","epoch":%q}`, lb.Epoch()), map[string]string{"Idempotency-Key": "k"})
		require.Equal(t, http.StatusGone, code, body)
		code, _, body = serve(t, h, "POST", "http://relay.test/s/a/answer", "application/json", goodAnswer, map[string]string{"Idempotency-Key": "k"})
		require.Equal(t, http.StatusOK, code, body)
		code, _, body = serve(t, h, "POST", "http://relay.test/s/a/cancel", "application/json", `{"key":"b","stream":"b"}`, nil)
		require.Equal(t, http.StatusAccepted, code, body)

		_, ok := loadAnswer(t, lb, 2)
		require.False(t, ok, "b got a's answer")
		require.False(t, cancelRequested(t, lb), "b got a's cancel")
		require.True(t, cancelRequested(t, la))

		// Keys the KeyFunc refuses, and paths that try to climb to b.
		for _, target := range []string{"http://relay.test/s/c/answer", "http://relay.test/s/a/../b/answer", "http://relay.test/s/a%2F..%2Fb/answer", "http://relay.test/s//b/answer"} {
			code, _, body := serve(t, h, "POST", target, "application/json", goodAnswer, map[string]string{"Idempotency-Key": "k9"})
			require.NotEqual(t, http.StatusOK, code, "%s: %s", target, body)
		}
		_, ok = loadAnswer(t, lb, 2)
		require.False(t, ok, "b got an answer")
		_ = a2a.StateWorking
	})
}

// Driven: a question closed by the input timeout, or by a cancel, takes no
// answer (410, nothing stored); a cancel of stream a leaves stream b, asked
// the same prompt, running to its end with its own answer.
func TestDrivenClosedQuestionsAndIsolation(t *testing.T) {
	script := func() *a2atest.Agent {
		return a2atest.NewAgent(a2atest.WithScript(a2atest.Working(""), a2atest.AskInput("Your name?"),
			a2atest.Chunk("x", "thanks", false, true), a2atest.Finish(a2a.StateCompleted, "")))
	}
	post := func(t *testing.T, h http.Handler, key string, log relay.Log, prompt uint64, text string) (int, string) {
		code, _, body := serve(t, h, "POST", "http://relay.test/s/"+key+"/answer", "application/json",
			fmt.Sprintf(`{"prompt":%d,"text":%q,"epoch":%q}`, prompt, text, log.Epoch()), map[string]string{"Idempotency-Key": "k-" + text})
		return code, body
	}
	lastName := func(t *testing.T, log relay.Log) (string, string) {
		es := allEntries(t, log)
		return es[len(es)-1].Name, string(es[len(es)-1].Data)
	}
	t.Run("input timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			store := newMemoryStore(t)
			log, done := driveAgent(t, store, "a", script(), []stream.Option{stream.WithInputTimeout(time.Minute)})
			in := awaitInput(t, log)
			require.NoError(t, <-done)
			name, data := lastName(t, log)
			require.Equal(t, relay.EventFailure, name, data)
			code, body := post(t, handlerAB(t, store), "a", log, in.Prompt, "late")
			require.Equal(t, http.StatusGone, code, body)
			_, ok := loadAnswer(t, log, in.Prompt)
			require.False(t, ok)
		})
	})
	t.Run("cancel of a, not of b", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			store := newMemoryStore(t)
			h := handlerAB(t, store)
			la, doneA := driveAgent(t, store, "a", script(), nil)
			lb, doneB := driveAgent(t, store, "b", script(), nil)
			inA := awaitInput(t, la)
			inB := awaitInput(t, lb)
			require.Equal(t, inA.Prompt, inB.Prompt)
			code, _, body := serve(t, h, "POST", "http://relay.test/s/a/cancel", "application/json", "", nil)
			require.Equal(t, http.StatusAccepted, code, body)
			require.NoError(t, <-doneA)
			name, data := lastName(t, la)
			require.Equal(t, relay.EventFailure, name, data)
			require.Contains(t, data, "canceled")
			code, body = post(t, h, "a", la, inA.Prompt, "late")
			require.Equal(t, http.StatusGone, code, body)

			code, body = post(t, h, "b", lb, inB.Prompt, "Bob")
			require.Equal(t, http.StatusOK, code, body)
			require.NoError(t, <-doneB)
			name, data = lastName(t, lb)
			require.Equal(t, relay.EventEnd, name, data)
			a, ok := loadAnswer(t, lb, inB.Prompt)
			require.True(t, ok)
			require.Equal(t, "Bob", a.Text)
			_, ok = loadAnswer(t, la, inA.Prompt)
			require.False(t, ok)
		})
	})
}

// The documented bounds are inclusive: an Idempotency-Key of 256 bytes and
// a body of exactly 64 KiB are taken.
func TestBoundsAreInclusive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newMemoryStore(t)
		log := questionLog(t, store, "a")
		h := handlerAB(t, store)
		head, tail := `{"prompt":2,"text":"`, `"}`
		text := strings.Repeat("b", 64<<10-len(head)-len(tail))
		body := head + text + tail
		require.Len(t, body, 64<<10)
		key := strings.Repeat("k", 256)
		code, _, resp := serve(t, h, "POST", "http://relay.test/s/a/answer", "application/json", body, map[string]string{"Idempotency-Key": key})
		require.Equal(t, http.StatusOK, code, "%.200s", resp)
		a, ok := loadAnswer(t, log, 2)
		require.True(t, ok)
		require.Equal(t, relay.Answer{Prompt: 2, Key: key, Text: text}, a)
	})
}

// Handler's doc: from a browser that sends no Sec-Fetch-Site, the Origin's
// host and port are compared with the request's Host, and its scheme is
// not (a proxy that ends TLS makes the two differ). A limit: a page of the
// same host under the other scheme may post, on both routes. Browsers that
// send Sec-Fetch-Site (every current one) are held to the exact origin.
func TestOriginOfAnotherSchemeIsTakenWithoutSecFetchSiteLimit(t *testing.T) {
	for _, route := range []string{"answer", "cancel"} {
		t.Run(route, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := newMemoryStore(t)
				questionLog(t, store, "a")
				h := handlerAB(t, store)
				body := goodAnswer
				if route == "cancel" {
					body = `{}`
				}
				hdr := map[string]string{"Idempotency-Key": "k1", "Origin": "https://relay.test"}
				code, _, got := serve(t, h, "POST", "http://relay.test/s/a/"+route, "application/json", body, hdr)
				require.Less(t, code, 300, "the scheme is not compared: %s", got)
				hdr["Sec-Fetch-Site"] = "cross-site"
				code, _, got = serve(t, h, "POST", "http://relay.test/s/a/"+route, "application/json", body, hdr)
				require.Equal(t, http.StatusForbidden, code, "Sec-Fetch-Site is exact: %s", got)
			})
		})
	}
}

// countingStore is a MemoryStore whose logs count the answers posted and
// the cancels requested.
type countingStore struct {
	*relay.MemoryStore
	answers, cancels atomic.Int32
}

func (s *countingStore) Open(ctx context.Context, key string) (relay.Log, error) {
	l, err := s.MemoryStore.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	return &countingLog{Log: l, s: s}, nil
}

type countingLog struct {
	relay.Log
	s *countingStore
}

func (l *countingLog) PostAnswer(ctx context.Context, a relay.Answer) (relay.Answer, error) {
	l.s.answers.Add(1)
	return l.Log.PostAnswer(ctx, a)
}

func (l *countingLog) RequestCancel(ctx context.Context) error {
	l.s.cancels.Add(1)
	return l.Log.RequestCancel(ctx)
}

// postRig is a Handler at http://relay.test/s/k/ over a log whose entry 1
// is an open question, so that an answer to prompt 1 and a cancel are
// accepted when the request is.
type postRig struct {
	store  *countingStore
	client *http.Client
}

func newPostRig(t *testing.T, opts ...relay.HandlerOption) *postRig {
	t.Helper()
	ctx := t.Context()
	st := &countingStore{MemoryStore: newMemoryStore(t)}
	l, err := st.MemoryStore.Open(ctx, "k")
	require.NoError(t, err)
	f, err := l.Acquire(ctx, "driver", time.Hour)
	require.NoError(t, err)
	require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: 1, Name: relay.EventInput, Data: []byte(`{"prompt":1,"text":"Which city?"}`)}))
	mux := http.NewServeMux()
	mux.Handle("/s/{key}/", newHandler(t, st, func(r *http.Request) (string, bool) { return r.PathValue("key"), r.PathValue("key") == "k" }, opts...))
	return &postRig{store: st, client: a2atest.NewClient(mux)}
}

// post posts body to the route with these headers, and returns the status.
func (p *postRig) post(t *testing.T, route, body string, header map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://relay.test/s/k/"+route, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Idempotency-Key", "key-1")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := p.client.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return resp.StatusCode
}

// recorded reports how many answers and cancels reached the store.
func (p *postRig) recorded() int { return int(p.store.answers.Load() + p.store.cancels.Load()) }

type refusal struct {
	name   string
	method string
	ct     string
	hdr    map[string]string
	body   string // for the answer route; "%E" is replaced by the log's epoch
	want   int    // 0: any 4xx
}

func refusals() []refusal {
	j := "application/json"
	key := map[string]string{"Idempotency-Key": "k1"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{"Idempotency-Key": "k1"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	return []refusal{
		{"form", "POST", "application/x-www-form-urlencoded", key, "prompt=2&text=Ada", 415},
		{"form with JSON body", "POST", "application/x-www-form-urlencoded", key, goodAnswer, 415},
		{"text/plain", "POST", "text/plain", key, goodAnswer, 415},
		{"text/plain with charset", "POST", "text/plain; charset=utf-8", key, goodAnswer, 415},
		{"multipart", "POST", "multipart/form-data; boundary=xyz", key, goodAnswer, 415},
		{"no content type", "POST", "", key, goodAnswer, 415},
		{"json-patch+json", "POST", "application/json-patch+json", key, goodAnswer, 415},
		{"jsonx", "POST", "application/jsonx", key, goodAnswer, 415},
		{"text/plain then json param", "POST", "text/plain; application/json", key, goodAnswer, 415},
		{"text/json", "POST", "text/json", key, goodAnswer, 415},
		{"Origin null", "POST", j, with("Origin", "null"), goodAnswer, 403},
		{"Origin other port", "POST", j, with("Origin", "http://relay.test:8080"), goodAnswer, 403},
		{"Origin other host", "POST", j, with("Origin", "http://evil.example"), goodAnswer, 403},
		{"Origin suffix host", "POST", j, with("Origin", "http://relay.test.evil.example"), goodAnswer, 403},
		{"Origin sibling subdomain", "POST", j, with("Origin", "http://a.relay.test"), goodAnswer, 403},
		{"Sec-Fetch-Site cross-site", "POST", j, with("Sec-Fetch-Site", "cross-site"), goodAnswer, 403},
		{"Sec-Fetch-Site same-site", "POST", j, with("Sec-Fetch-Site", "same-site"), goodAnswer, 403},
		{"Sec-Fetch-Site cross-site, same Origin", "POST", j, with("Sec-Fetch-Site", "cross-site", "Origin", "http://relay.test"), goodAnswer, 403},
		{"Sec-Fetch-Site same-site, same Origin", "POST", j, with("Sec-Fetch-Site", "same-site", "Origin", "http://relay.test"), goodAnswer, 403},
		{"no Idempotency-Key", "POST", j, nil, goodAnswer, 0},
		{"Idempotency-Key of 257 bytes", "POST", j, map[string]string{"Idempotency-Key": strings.Repeat("k", 257)}, goodAnswer, 0},
		{"epoch of another log", "POST", j, key, `{"prompt":2,"text":"Ada","epoch":"not-this-log"}`, 410},
		{"prompt 0", "POST", j, key, `{"prompt":0,"text":"Ada"}`, 0},
		{"prompt negative", "POST", j, key, `{"prompt":-2,"text":"Ada"}`, 0},
		{"prompt of a status entry", "POST", j, key, `{"prompt":1,"text":"Ada"}`, 0},
		{"prompt past the tail", "POST", j, key, `{"prompt":99,"text":"Ada"}`, 0},
		{"prompt as a string", "POST", j, key, `{"prompt":"2","text":"Ada"}`, 0},
		{"prompt fractional", "POST", j, key, `{"prompt":2.5,"text":"Ada"}`, 0},
		{"prompt overflowing uint64", "POST", j, key, `{"prompt":18446744073709551618,"text":"Ada"}`, 0},
		{"prompt overflowing to 2", "POST", j, key, `{"prompt":18446744073709551618,"text":"Ada"}`, 0},
		{"text a number", "POST", j, key, `{"prompt":2,"text":5}`, 0},
		{"body null", "POST", j, key, `null`, 0},
		{"body array", "POST", j, key, `[{"prompt":2,"text":"Ada"}]`, 0},
		{"body not JSON", "POST", j, key, `prompt=2&text=Ada`, 0},
		{"body empty", "POST", j, key, ``, 0},
		{"body of 10 MiB", "POST", j, key, `{"prompt":2,"text":"` + strings.Repeat("a", 10<<20) + `"}`, 0},
		{"body just over 64 KiB", "POST", j, key, `{"prompt":2,"text":"` + strings.Repeat("a", 64<<10) + `"}`, 0},
		{"PUT", "PUT", j, key, goodAnswer, 0},
		{"PATCH", "PATCH", j, key, goodAnswer, 0},
		{"DELETE", "DELETE", j, key, goodAnswer, 0},
		{"OPTIONS", "OPTIONS", j, key, goodAnswer, 0},
	}
}
