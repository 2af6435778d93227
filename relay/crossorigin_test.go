package relay_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
)

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
