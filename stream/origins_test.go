package stream_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// everyCall makes every kind of call with a per-call credential:
// a streamed send whose task asks a question (and the reply), get-task,
// subscribe, cancel, and Stream.Cancel.
func everyCall(t *testing.T, c *stream.Client) {
	t.Helper()
	ctx := context.Background()
	call := stream.WithHeader("X-Call-Token", "per-call-secret")
	user := stream.WithHeader("Authorization", "Bearer user-secret")
	task, err := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "ask me"), call, user, stream.WithHumanInput(answerLisbon)).Wait()
	require.NoError(t, err)
	require.Equal(t, a2a.StateCompleted, task.Status.State)

	got, err := c.GetTask(ctx, task.ID, call, user)
	require.NoError(t, err)
	require.Equal(t, task.ID, got.ID)

	_, _ = c.Subscribe(ctx, task.ID, call, user).Wait()
	_, _ = c.Cancel(ctx, task.ID, call, user) // refused: the task ended; the request went out

	s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "slow"), call, user)
	defer s.Close()
	require.True(t, s.Next())
	require.NoError(t, s.Cancel(ctx))
	for s.Next() {
	}
	require.Error(t, s.Err())
}

// foreignURLs are endpoints an agent card may name that are not the
// origin https://agent.test the caller named.
var foreignURLs = []string{
	"https://other.test/",           // another host
	"http://agent.test/",            // https down to http
	"https://agent.test:8443/",      // another port
	"https://sub.agent.test/",       // a subdomain (net/http forwards Authorization there on redirects)
	"https://agent.test.evil.test/", // a look-alike
	"https://agent.test@evil.test/", // userinfo that looks like the host
}

// TestCardNamesForeignEndpointGetsNoHeader: Resolve's headers and
// every call's go only to the origin given to Resolve; a card that names
// another origin gets none, on every call kind and every wire.
func TestCardNamesForeignEndpointGetsNoHeader(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, foreign := range foreignURLs {
			t.Run(w.String()+"/"+foreign, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := scriptedAgent(w)
					mo := newOriginRouter()
					mo.serve("https://agent.test", withCard(cardJSON(w.v, w.b, foreign, true), nil))
					mo.serve(foreign, agent)
					c, err := stream.Resolve(context.Background(), "https://agent.test", stream.WithHTTPClient(mo.client()),
						stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret"))
					require.NoError(t, err)
					everyCall(t, c)
					inside, outside := requireNoCredentialsOutside(t, mo, "https://agent.test")
					require.Equal(t, 1, inside, "only the card request goes to the origin named")
					require.GreaterOrEqual(t, outside, 7)
					card := mo.recorded()[0]
					require.Equal(t, "Bearer service-secret", card.header.Get("Authorization"), "the card request carries Resolve's headers")
				})
			})
		}
	}
}

// TestSameOriginEndpointGetsHeaders is the control: an endpoint on
// the origin named gets the Client's headers and each call's.
func TestSameOriginEndpointGetsHeaders(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := scriptedAgent(w)
				mo := newOriginRouter()
				mo.serve("https://agent.test", withCard(cardJSON(w.v, w.b, "https://agent.test/", true), agent))
				c, err := stream.Resolve(context.Background(), "https://agent.test", stream.WithHTTPClient(mo.client()),
					stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret"))
				require.NoError(t, err)
				everyCall(t, c)
				hops := mo.recorded()
				require.Greater(t, len(hops), 7)
				for _, h := range hops[1:] {
					require.Equal(t, "key-secret", h.header.Get("X-Api-Key"), "%s %s", h.method, h.url)
					require.Equal(t, "Bearer user-secret", h.header.Get("Authorization"), "%s %s: the call's token replaces the Client's", h.method, h.url)
					require.Equal(t, []string{"Bearer user-secret"}, h.header.Values("Authorization"))
				}
			})
		})
	}
}

var _ = http.StatusOK

// TestRedirectToAnotherOriginCarriesNoHeader: no header follows a
// redirect to another origin, whatever the call: the card request, a
// streamed send, a unary send (agent that cannot stream), a subscribe,
// a get-task, a cancel; for a Client from Resolve and one from
// NewClient/NewRESTClient.
func TestRedirectToAnotherOriginCarriesNoHeader(t *testing.T) {
	t.Parallel()
	kinds := []callKind{"card", kindStream, kindSend, kindSubscribe, kindGet, kindCancel}
	for _, w := range wires() {
		for _, k := range kinds {
			for _, target := range redirectTargets {
				for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
					for _, direct := range []bool{false, true} {
						if direct && k == "card" {
							continue
						}
						name := fmt.Sprintf("%s/%s/%s/%d/direct=%v", w, k, target, code, direct)
						t.Run(name, func(t *testing.T) {
							synctest.Test(t, func(t *testing.T) {
								streaming := k != kindSend
								var more []a2atest.Option
								if !streaming {
									more = append(more, a2atest.WithoutStreaming())
								}
								agent := scriptedAgent(w, more...)
								card := cardJSON(w.v, w.b, "https://agent.test/", streaming)
								mo := newOriginRouter()
								mo.serve("https://agent.test", redirectKind(w.v, w.b, k, code, target, withCard(card, agent)))
								mo.serve(target, withCard(card, agent))
								opts := []stream.Option{stream.WithHTTPClient(mo.client()),
									stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret"),
									stream.WithPollInterval(time.Second)}
								var (
									c   *stream.Client
									err error
								)
								if direct {
									c = bindingClient(t, w.b, "https://agent.test", append(opts, stream.WithVersion(w.v))...)
								} else {
									c, err = stream.Resolve(context.Background(), "https://agent.test", opts...)
								}
								if err == nil {
									everyCallLoose(t, c)
								}
								_, outside := requireNoCredentialsOutside(t, mo, "https://agent.test")
								require.Positive(t, outside, "the redirect was followed (or the test proves nothing)")
							})
						})
					}
				}
			}
		}
	}
}

// everyCallLoose makes every kind of call as everyCall does, without
// requiring the calls to succeed (a client may refuse to follow a redirect).
func everyCallLoose(t *testing.T, c *stream.Client) {
	ctx := context.Background()
	call := stream.WithHeader("X-Call-Token", "per-call-secret")
	user := stream.WithHeader("Authorization", "Bearer user-secret")
	task, _ := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "ask me"), call, user, stream.WithHumanInput(answerLisbon)).Wait()
	if task == nil {
		return
	}
	_, _ = c.GetTask(ctx, task.ID, call, user)
	_, _ = c.Subscribe(ctx, task.ID, call, user).Wait()
	_, _ = c.Cancel(ctx, task.ID, call, user)
	s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "slow"), call, user)
	defer s.Close()
	if s.Next() {
		_ = s.Cancel(ctx)
	}
	for s.Next() {
	}
}

// TestForeignPolledEndpointGetsNoHeader: an agent that cannot
// stream, named by its card on another origin, is sent to and polled with
// no header.
func TestForeignPolledEndpointGetsNoHeader(t *testing.T) {
	for _, w := range wires() {
		for _, foreign := range foreignURLs {
			t.Run(w.String()+"/"+foreign, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := scriptedAgent(w, a2atest.WithoutStreaming())
					mo := newOriginRouter()
					mo.serve("https://agent.test", withCard(cardJSON(w.v, w.b, foreign, false), nil))
					mo.serve(foreign, agent)
					c, err := stream.Resolve(context.Background(), "https://agent.test", stream.WithHTTPClient(mo.client()),
						stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret"))
					require.NoError(t, err)
					everyCall(t, c)
					inside, outside := requireNoCredentialsOutside(t, mo, "https://agent.test")
					require.Equal(t, 1, inside)
					require.GreaterOrEqual(t, outside, 7)
				})
			})
		}
	}
}

// TestCardRedirectsCarryNoHeader: the legacy card path (after a
// 404 on the current one) redirected to another origin gets no header; nor
// does a card URL ending in .json.
func TestCardRedirectsCarryNoHeader(t *testing.T) {
	for _, tc := range []struct{ name, base string }{
		{"legacy", "https://agent.test"},
		{"legacy-under-path", "https://agent.test/agents/a"},
		{"json-url", "https://agent.test/cards/a.json"},
	} {
		for _, target := range redirectTargets {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					card := cardJSON(a2a.V10, a2a.BindingJSONRPC, "https://agent.test/", true)
					mo := newOriginRouter()
					mo.serve("https://agent.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if strings.HasSuffix(r.URL.Path, "/agent-card.json") {
							http.NotFound(w, r)
							return
						}
						http.Redirect(w, r, target+"/moved/card.json", http.StatusTemporaryRedirect)
					}))
					mo.serve(target, withCard(card, nil))
					_, err := stream.Resolve(context.Background(), tc.base, stream.WithHTTPClient(mo.client()),
						stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret"))
					_, outside := requireNoCredentialsOutside(t, mo, "https://agent.test")
					if err == nil {
						require.Positive(t, outside)
					}
					_, err = agentcard.Fetch(context.Background(), tc.base, agentcard.WithHTTPClient(mo.client()),
						agentcard.WithHeader("Authorization", "Bearer service-secret"))
					requireNoCredentialsOutside(t, mo, "https://agent.test")
					if err != nil {
						require.NotContains(t, err.Error(), "secret")
					}
				})
			})
		}
	}
}

// TestSubscribeGetFallbackRedirectCarriesNoHeader: over HTTP+JSON,
// a subscribe whose POST gets 405 is sent again as GET; a redirect of that
// GET to another origin gets no header.
func TestSubscribeGetFallbackRedirectCarriesNoHeader(t *testing.T) {
	for _, v := range versions {
		for _, target := range redirectTargets {
			t.Run(string(v)+"/"+target, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					w := wire{v, a2a.BindingHTTPJSON}
					agent := scriptedAgent(w)
					card := cardJSON(v, w.b, "https://agent.test/", true)
					var gets int
					mo := newOriginRouter()
					mo.serve("https://agent.test", withCard(card, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
						if strings.HasSuffix(r.URL.Path, ":subscribe") {
							if r.Method == http.MethodPost {
								http.Error(rw, "Method Not Allowed", http.StatusMethodNotAllowed)
								return
							}
							gets++
							http.Redirect(rw, r, target+r.URL.RequestURI(), http.StatusFound)
							return
						}
						agent.ServeHTTP(rw, r)
					})))
					mo.serve(target, agent)
					c, err := stream.Resolve(context.Background(), "https://agent.test", stream.WithHTTPClient(mo.client()),
						stream.WithHeader("Authorization", "Bearer service-secret"))
					require.NoError(t, err)
					s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "slow"))
					require.True(t, s.Next())
					id := s.Task().ID
					s.Close()
					sub := c.Subscribe(context.Background(), id, stream.WithHeader("X-Call-Token", "per-call-secret"))
					require.True(t, sub.Next())
					sub.Close()
					require.Positive(t, gets, "the GET fallback was taken")
					_, outside := requireNoCredentialsOutside(t, mo, "https://agent.test")
					require.Positive(t, outside)
				})
			})
		}
	}
}

// TestKeyedBaseQueryStaysHome: the query of the URL given to
// Resolve (an API key, ?code=) goes with the card request; it must not go
// to an endpoint on another origin that the card names, on any wire.
func TestKeyedBaseQueryStaysHome(t *testing.T) {
	for _, w := range wires() {
		for _, foreign := range foreignURLs[:3] {
			t.Run(w.String()+"/"+foreign, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := scriptedAgent(w)
					mo := newOriginRouter()
					mo.serve("https://agent.test", withCard(cardJSON(w.v, w.b, foreign, true), nil))
					mo.serve(foreign, agent)
					c, err := stream.Resolve(context.Background(), "https://agent.test/?code=code-secret", stream.WithHTTPClient(mo.client()))
					require.NoError(t, err)
					require.Contains(t, mo.recorded()[0].url.RawQuery, "code=code-secret", "the card request keeps the query")
					everyCall(t, c)
					requireNoCredentialsOutside(t, mo, "https://agent.test")
				})
			})
		}
	}
}

// TestRedirectRefererCarriesNoKey: the query of a keyed URL is a
// credential (the library redacts it from errors and logs); a redirect to
// another origin must not hand it over, in the Referer that net/http's
// client adds to a redirected request or anywhere else, on any call kind.
func TestRedirectRefererCarriesNoKey(t *testing.T) {
	kinds := []callKind{"card", kindStream, kindSend, kindSubscribe, kindGet, kindCancel}
	for _, w := range wires() {
		for _, k := range kinds {
			name := fmt.Sprintf("%s/%s", w, k)
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					streaming := k != kindSend
					var more []a2atest.Option
					if !streaming {
						more = append(more, a2atest.WithoutStreaming())
					}
					if k != "card" {
						more = append(more, a2atest.WithRESTBase("/api"))
					}
					agent := scriptedAgent(w, more...)
					card := cardJSON(w.v, w.b, "https://agent.test/", streaming)
					mo := newOriginRouter()
					const target = "https://evil.test"
					// The server's Location drops the key: only the client can leak it.
					mo.serve("https://agent.test", redirectPathOnly(w.v, w.b, k, target, withCard(card, agent)))
					mo.serve(target, withCard(card, agent))
					opts := []stream.Option{stream.WithHTTPClient(mo.client()), stream.WithPollInterval(time.Second)}
					var (
						c   *stream.Client
						err error
					)
					switch {
					case k == "card":
						c, err = stream.Resolve(context.Background(), "https://agent.test/cards/a.json?sig=sig-secret", opts...)
					case w.b == a2a.BindingJSONRPC:
						c, err = stream.NewClient("https://agent.test/?code=code-secret", append(opts, stream.WithVersion(w.v))...)
					default:
						c, err = stream.NewRESTClient("https://agent.test/api?code=code-secret", append(opts, stream.WithVersion(w.v))...)
					}
					if err == nil {
						everyCallLoose(t, c)
					}
					_, outside := requireNoCredentialsOutside(t, mo, "https://agent.test")
					require.Positive(t, outside, "the redirect was followed (or the test proves nothing)")
				})
			})
		}
	}
}

// redirectPathOnly answers calls of kind k with a 307 to the same path on
// target, without the query, and passes everything else to next.
func redirectPathOnly(v a2a.Version, b a2a.Binding, k callKind, target string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if kindOf(v, b, r) == k {
			http.Redirect(w, r, target+r.URL.EscapedPath(), http.StatusTemporaryRedirect)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// TestPerCallHeaderReplacesCaseInsensitively: a per-call header
// replaces the Client's values of that header name, whatever the case the
// two were written in (header names are case-insensitive, RFC 9110 §5.1):
// the user's token goes instead of the service's, never both.
func TestPerCallHeaderReplacesCaseInsensitively(t *testing.T) {
	for _, w := range wires() {
		for _, names := range [][2]string{{"Authorization", "authorization"}, {"authorization", "AUTHORIZATION"}, {"x-api-key", "X-Api-Key"}} {
			t.Run(w.String()+"/"+names[0]+"/"+names[1], func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := scriptedAgent(w)
					mo := newOriginRouter().serve("https://agent.test", agent)
					c := bindingClient(t, w.b, "https://agent.test",
						stream.WithHTTPClient(mo.client()), stream.WithVersion(w.v), stream.WithHeader(names[0], "service-secret"))
					_, err := c.Send(context.Background(), hello(), stream.WithHeader(names[1], "user-secret")).Wait()
					require.NoError(t, err)
					_, err = c.GetTask(context.Background(), agent.TaskIDs()[0], stream.WithHeader(names[1], "user-secret"))
					require.NoError(t, err)
					for _, h := range mo.recorded() {
						require.Equal(t, []string{"user-secret"}, h.header.Values(names[0]), "%s %s: %v", h.method, h.url, h.header)
					}
				})
			})
		}
	}
}

// TestSameOriginSpelledOtherwiseGetsHeaders: WithHeader adds its
// header "to every request sent to the origin the caller named": an
// endpoint that a card spells with the default port made explicit, or the
// host or scheme in upper case, is that origin (RFC 6454 §4: scheme and
// host are compared lower-cased, the default port filled in); and so is
// the card's endpoint without the port when the base URL had it.
func TestSameOriginSpelledOtherwiseGetsHeaders(t *testing.T) {
	for _, w := range wires() {
		for _, tc := range []struct{ base, endpoint string }{
			{"https://agent.test", "https://agent.test:443/"},
			{"https://agent.test", "https://AGENT.test/"},
			{"https://agent.test", "HTTPS://agent.test/"},
			{"https://agent.test:443", "https://agent.test/"},
			{"https://Agent.Test", "https://agent.test/"},
			{"http://agent.test", "http://agent.test:80/"},
		} {
			t.Run(w.String()+"/"+tc.base+"->"+tc.endpoint, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := scriptedAgent(w)
					mo := newOriginRouter()
					mo.serve(tc.base, withCard(cardJSON(w.v, w.b, tc.endpoint, true), agent))
					c, err := stream.Resolve(context.Background(), tc.base, stream.WithHTTPClient(mo.client()),
						stream.WithHeader("X-Api-Key", "key-secret"))
					require.NoError(t, err)
					_, err = c.Send(context.Background(), hello()).Wait()
					require.NoError(t, err)
					hops := mo.recorded()
					require.Greater(t, len(hops), 1)
					for _, h := range hops {
						require.Equal(t, "key-secret", h.header.Get("X-Api-Key"), "%s %s is the origin named (%s)", h.method, h.url, tc.base)
					}
				})
			})
		}
	}
}

// TestHookCallsCarryNoOtherClientsHeaders: a human-input hook that
// calls another Client (another agent, on another origin) with the context
// it was given sends that Client's headers only: never the headers of the
// Client or the call whose stream asked the hook.
func TestHookCallsCarryNoOtherClientsHeaders(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agentA, agentB := scriptedAgent(w), scriptedAgent(w)
				mo := newOriginRouter().serve("https://a.test", agentA).serve("https://b.test", agentB)
				mk := func(base string, opts ...stream.Option) *stream.Client {
					return bindingClient(t, w.b, base, append([]stream.Option{stream.WithHTTPClient(mo.client()), stream.WithVersion(w.v)}, opts...)...)
				}
				a := mk("https://a.test", stream.WithHeader("X-Api-Key", "a-secret"))
				b := mk("https://b.test", stream.WithHeader("X-Api-Key", "b-key"))
				hook := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
					task, err := b.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "what city?")).Wait()
					if err != nil {
						return nil, err
					}
					if _, err := b.GetTask(ctx, task.ID); err != nil {
						return nil, err
					}
					return hitl.Text("Lisbon"), nil
				})
				_, err := a.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "ask me"), stream.WithHumanInput(hook),
					stream.WithHeader("Authorization", "Bearer a-user-secret")).Wait()
				require.NoError(t, err)
				sawB := 0
				for _, h := range mo.recorded() {
					if h.url.Host == "b.test" {
						sawB++
						require.Equal(t, []string{"b-key"}, h.header.Values("X-Api-Key"), "%s %s", h.method, h.url)
						require.Empty(t, h.header.Values("Authorization"), "%s %s", h.method, h.url)
					}
				}
				require.GreaterOrEqual(t, sawB, 2)
			})
		})
	}
}

// A poll redirected (307) to another host: README: "Headers set with
// WithHeader ... are never sent to another host."
func TestPollRedirectedToAnotherHostCarriesNoHeader(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), func(w http.ResponseWriter, _ *restServer) {
					w.Header().Set("Location", "http://evil.test/tasks/t-1")
					w.WriteHeader(http.StatusTemporaryRedirect)
				})
				var evilHeaders []http.Header
				var mu sync.Mutex
				evil := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					evilHeaders = append(evilHeaders, r.Header.Clone())
					mu.Unlock()
					srv.task(w, snap(a2a.StateCompleted, "x"))
				})
				both := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Host == "evil.test" {
						evil.ServeHTTP(w, r)
						return
					}
					srv.ServeHTTP(w, r)
				})
				c, err := stream.NewRESTClient("http://agent.test", stream.WithVersion(v),
					stream.WithHTTPClient(a2atest.NewClient(both)),
					stream.WithHeader("X-Api-Key", "sekrit"), stream.WithHeader("Authorization", "Bearer sekrit"))
				require.NoError(t, err)
				_, _ = drain(t, c.Send(background(), hello()))
				require.Equal(t, "sekrit", srv.header[0].Get("X-Api-Key"), "the agent's own origin gets the header")
				for _, h := range evilHeaders {
					require.Empty(t, h.Get("X-Api-Key"))
					require.Empty(t, h.Get("Authorization"))
				}
			})
		})
	}
}

// Headers withheld, said aloud: a card that names another origin than the
// one the caller gave gets none of the caller's headers (the origin
// promise), and each stream says so once, with a HeadersWithheld notice
// and a debug log line that name the headers (never their values) and both
// origins. WithTrustedOrigins names the other origins the caller trusts
// with its headers.

// withheldRun resolves the agent at named, whose card names endpoint, with
// the Client's headers and opts, runs two streams (each with a per-call
// header) to their end, and returns the notices each stream got and the
// debug log.
func withheldRun(t *testing.T, w wire, named, endpoint string, opts ...stream.Option) (notices [][]stream.Notice, log string, hops []hop) {
	t.Helper()
	agent := scriptedAgent(w)
	mo := newOriginRouter()
	if originOf(mustURL(t, named)) == originOf(mustURL(t, endpoint)) {
		mo.serve(named, withCard(cardJSON(w.v, w.b, endpoint, true), agent))
	} else {
		mo.serve(named, withCard(cardJSON(w.v, w.b, endpoint, true), nil))
		mo.serve(endpoint, agent)
	}
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	all := append([]stream.Option{stream.WithHTTPClient(mo.client()), stream.WithLogger(logger),
		stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret")}, opts...)
	c, err := stream.Resolve(context.Background(), named, all...)
	require.NoError(t, err)
	for range 2 {
		var got []stream.Notice
		s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "ask me"), stream.WithHeader("X-Call-Token", "per-call-secret"),
			stream.WithHumanInput(answerLisbon), stream.WithNotify(func(n stream.Notice) { got = append(got, n) }))
		_, err := s.Wait()
		require.NoError(t, err)
		notices = append(notices, got)
	}
	return notices, buf.String(), mo.recorded()
}

// withheldNotices returns the HeadersWithheld notices of ns.
func withheldNotices(ns []stream.Notice) []stream.Notice {
	var out []stream.Notice
	for _, n := range ns {
		if n.Kind == stream.HeadersWithheld {
			out = append(out, n)
		}
	}
	return out
}

// withheldLines returns the log's lines about withheld headers.
func withheldLines(log string) []string {
	var out []string
	for line := range strings.Lines(log) {
		if strings.Contains(line, "headers withheld") {
			out = append(out, line)
		}
	}
	return out
}

func TestHeadersWithheldFromAnotherOriginAreNoticedOncePerStream(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				notices, log, _ := withheldRun(t, w, "http://localhost:9999/", "http://127.0.0.1:9999/")
				for i, ns := range notices {
					got := withheldNotices(ns)
					require.Len(t, got, 1, "stream %d: one notice", i)
					n := got[0]
					require.Equal(t, []string{"Authorization", "X-Api-Key", "X-Call-Token"}, n.Headers)
					require.Equal(t, "http://localhost:9999", n.NamedOrigin)
					require.Equal(t, "http://127.0.0.1:9999", n.EndpointOrigin)
					require.Equal(t, "headers-withheld", n.Kind.String())
				}
				lines := withheldLines(log)
				require.Len(t, lines, 2, "one debug line per stream:\n%s", log)
				for _, line := range lines {
					for _, want := range []string{"Authorization", "X-Api-Key", "X-Call-Token", "http://localhost:9999", "http://127.0.0.1:9999"} {
						require.Contains(t, line, want)
					}
				}
				require.NotContains(t, log, "secret", "no header value in the log")
			})
		})
	}
}

// The control: an endpoint on the origin named gets the headers, and
// nothing is said.
func TestHeadersSentToTheOriginNamedAreNotNoticed(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				notices, log, _ := withheldRun(t, w, "http://localhost:9999/", "http://LOCALHOST:9999/")
				for _, ns := range notices {
					require.Empty(t, withheldNotices(ns))
				}
				require.Empty(t, withheldLines(log))
			})
		})
	}
}

// mustURL parses a URL of a test.
func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

// An origin the caller trusts (WithTrustedOrigins) gets the headers, the
// Client's and each call's, and nothing is said.
func TestTrustedOriginGetsTheHeaders(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				notices, log, hops := withheldRun(t, w, "http://localhost:9999/", "http://127.0.0.1:9999/",
					stream.WithTrustedOrigins("http://127.0.0.1:9999"))
				for _, ns := range notices {
					require.Empty(t, withheldNotices(ns))
				}
				require.Empty(t, withheldLines(log))
				calls := 0
				for _, h := range hops {
					if h.origin() != "http://127.0.0.1:9999" {
						continue
					}
					calls++
					require.Equal(t, "Bearer service-secret", h.header.Get("Authorization"), "%s %s", h.method, h.url)
					require.Equal(t, "key-secret", h.header.Get("X-Api-Key"))
					require.Equal(t, "per-call-secret", h.header.Get("X-Call-Token"))
				}
				require.GreaterOrEqual(t, calls, 4, "two sends and two replies")
			})
		})
	}
}

// WithTrustedOrigins takes origins only: an absolute http or https URL
// with a host and nothing after it but "/". Anything else is refused with
// ErrInvalidOption, and so is an http origin where the origin named is
// https: headers never go from https down to http. It is Client-wide.
func TestWithTrustedOriginsRefusesWhatIsNotAnOrigin(t *testing.T) {
	for _, bad := range []string{
		"", "127.0.0.1:9999", "localhost", "ftp://agent.test", "http://", "http:///path", "http://user:pw@agent.test",
		"http://agent.test/a2a", "http://agent.test?key=1", "http://agent.test#top", "http://agent.test:port", "mailto:a@agent.test",
	} {
		_, err := stream.NewClient("http://localhost:9999/", stream.WithTrustedOrigins(bad))
		require.ErrorIs(t, err, stream.ErrInvalidOption, "%q", bad)
		require.NotContains(t, err.Error(), "pw", "no password in the error")
	}
	for _, good := range []string{"http://127.0.0.1:9999", "http://127.0.0.1:9999/", "https://Agent.Example", "http://[::1]:9999"} {
		_, err := stream.NewClient("http://localhost:9999/", stream.WithTrustedOrigins(good))
		require.NoError(t, err, "%q", good)
	}

	_, err := stream.NewClient("https://agent.test/", stream.WithTrustedOrigins("http://agent.test"))
	require.ErrorIs(t, err, stream.ErrInvalidOption, "https down to http")
	_, err = stream.NewRESTClient("https://agent.test/", stream.WithTrustedOrigins("http://127.0.0.1:9999"))
	require.ErrorIs(t, err, stream.ErrInvalidOption, "https down to http")
	_, err = stream.NewClient("https://agent.test/", stream.WithTrustedOrigins("https://127.0.0.1:9999"))
	require.NoError(t, err)

	c, err := stream.NewClient("http://localhost:9999/")
	require.NoError(t, err)
	_, err = c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hi"), stream.WithTrustedOrigins("http://127.0.0.1:9999")).Wait()
	require.ErrorIs(t, err, stream.ErrInvalidOption, "Client-wide")
}

// Stranger round 28, headers withheld and "could not connect", over real
// sockets on 127.0.0.1: a card that names another origin gets no header,
// each stream says so once (names, never values, in the notice and the
// debug log), a redirect to another origin carries no header, an http
// origin is not trusted where https was named, and an unreachable agent's
// error names its URL once, redacted.

// headerRecorder records the headers of every request a server got.
type headerRecorder struct {
	skipCards bool // card requests (to the named origin) are not recorded
	mu        sync.Mutex
	reqs      []http.Header
	urls      []string
}

func (r *headerRecorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if r.skipCards && isCardPath(req.URL.Path) {
			h.ServeHTTP(w, req)
			return
		}
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Header.Clone())
		r.urls = append(r.urls, req.Method+" "+req.URL.String())
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	})
}

func (r *headerRecorder) headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.reqs...)
}

func isCardPath(p string) bool { return strings.HasPrefix(p, "/.well-known/") }

// cardNamingHost serves agent's card as if reached at host, and sends
// everything else to next (nil: 404).
func cardNamingHost(agent *a2atest.Agent, host string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isCardPath(r.URL.Path) {
			r2 := r.Clone(r.Context())
			r2.Host = host
			agent.ServeHTTP(w, r2)
			return
		}
		if next == nil {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

const (
	serviceSecret = "Bearer s28-service-secret"
	keySecret     = "s28-key-secret"
	callSecret    = "s28-call-secret"
)

func helloScript() a2atest.Option {
	return a2atest.WithScript(a2atest.Working(""), a2atest.Pause(20*time.Millisecond),
		a2atest.Chunk("a1", "hello", false, true), a2atest.Finish(a2a.StateCompleted, ""))
}

type originSetup struct {
	name           string
	named          string // the base URL the caller gives Resolve
	endpointOrigin string
	client         *http.Client
	endpoint       *headerRecorder
}

// originSetups builds, for wire w, the ways a card names another origin.
func originSetups(t *testing.T, w wire) []originSetup {
	var out []originSetup
	newAgent := func() *a2atest.Agent {
		return w.agent(helloScript(), a2atest.WithNewTaskFault(a2atest.CutAfterEvents(2)))
	}
	// another port: the card at A names B.
	{
		agent := newAgent()
		rec := &headerRecorder{}
		b := httptest.NewServer(rec.wrap(agent))
		t.Cleanup(b.Close)
		bu, _ := url.Parse(b.URL)
		a := httptest.NewServer(cardNamingHost(agent, bu.Host, nil))
		t.Cleanup(a.Close)
		out = append(out, originSetup{"another port", a.URL + "/", "http://" + bu.Host, &http.Client{}, rec})
	}
	// localhost named, the card names 127.0.0.1 on the same port.
	{
		agent := newAgent()
		rec := &headerRecorder{skipCards: true}
		var port string
		srv := httptest.NewServer(rec.wrap(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			cardNamingHost(agent, "127.0.0.1:"+port, agent).ServeHTTP(rw, r)
		})))
		t.Cleanup(srv.Close)
		u, _ := url.Parse(srv.URL)
		port = u.Port()
		out = append(out, originSetup{"localhost vs 127.0.0.1", "http://localhost:" + port + "/", "http://127.0.0.1:" + port, &http.Client{}, rec})
	}
	// https named, the card names http.
	{
		agent := newAgent()
		rec := &headerRecorder{}
		b := httptest.NewServer(rec.wrap(agent))
		t.Cleanup(b.Close)
		bu, _ := url.Parse(b.URL)
		a := httptest.NewTLSServer(cardNamingHost(agent, bu.Host, nil))
		t.Cleanup(a.Close)
		c := a.Client()
		out = append(out, originSetup{"https to http", a.URL + "/", "http://" + bu.Host, c, rec})
	}
	return out
}

func TestHeadersWithheldFromAnotherOriginOverRealSockets(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, o := range originSetups(t, w) {
			t.Run(w.String()+"/"+o.name, func(t *testing.T) {
				var logBuf bytes.Buffer
				var logMu sync.Mutex
				logger := slog.New(slog.NewTextHandler(&syncWriter{w: &logBuf, mu: &logMu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				c, err := stream.Resolve(ctx, o.named, stream.WithHTTPClient(o.client), stream.WithVersion(w.v), stream.WithBinding(w.b),
					stream.WithLogger(logger), stream.WithHeader("Authorization", serviceSecret), stream.WithHeader("X-Api-Key", keySecret),
					stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: 5 * time.Millisecond}))
				require.NoError(t, err)
				for i := range 2 {
					var notices []stream.Notice
					s := c.Send(ctx, hiMessage(), stream.WithHeader("X-Call-Token", callSecret),
						stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) }))
					task, err := s.Wait()
					require.NoError(t, err, "stream %d", i)
					require.Equal(t, "hello", task.Artifact("a1").Text())
					var withheld []stream.Notice
					var kinds []string
					for _, n := range notices {
						kinds = append(kinds, n.Kind.String())
						if n.Kind == stream.HeadersWithheld {
							withheld = append(withheld, n)
						}
						require.NotContains(t, fmt.Sprintf("%+v", n), "secret")
					}
					require.Contains(t, kinds, "reconnecting", "the stream was cut and resubscribed")
					require.Len(t, withheld, 1, "one notice per stream: %v", kinds)
					n := withheld[0]
					require.Equal(t, []string{"Authorization", "X-Api-Key", "X-Call-Token"}, n.Headers)
					require.Equal(t, strings.TrimSuffix(o.named, "/"), n.NamedOrigin)
					require.Equal(t, o.endpointOrigin, n.EndpointOrigin)
				}
				for _, h := range o.endpoint.headers() {
					require.Empty(t, h.Get("Authorization"))
					require.Empty(t, h.Get("X-Api-Key"))
					require.Empty(t, h.Get("X-Call-Token"))
				}
				require.NotEmpty(t, o.endpoint.headers())
				logMu.Lock()
				log := logBuf.String()
				logMu.Unlock()
				require.NotContains(t, log, "secret", "a header value in the debug log")
				var lines int
				for line := range strings.Lines(log) {
					if strings.Contains(line, "withheld") {
						lines++
						require.Contains(t, line, "Authorization")
					}
				}
				require.Equal(t, 2, lines, "one debug line per stream:\n%s", log)
			})
		}
	}
}

type syncWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// A redirect of the named origin's endpoint to another origin carries no
// header and no Referer.
func TestRedirectToAnotherOriginOverRealSocketsCarriesNoHeader(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
			t.Run(fmt.Sprintf("%s/%d", w, code), func(t *testing.T) {
				agent := w.agent(helloScript())
				recB := &headerRecorder{}
				b := httptest.NewServer(recB.wrap(agent))
				defer b.Close()
				recA := &headerRecorder{}
				var aHost string
				a := httptest.NewServer(recA.wrap(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					if isCardPath(r.URL.Path) {
						r2 := r.Clone(r.Context())
						r2.Host = aHost
						agent.ServeHTTP(rw, r2)
						return
					}
					http.Redirect(rw, r, b.URL+r.URL.RequestURI(), code)
				})))
				defer a.Close()
				au, _ := url.Parse(a.URL)
				aHost = au.Host
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				c, err := stream.Resolve(ctx, a.URL+"/?api_key=s28-query-secret", stream.WithHTTPClient(&http.Client{}), stream.WithVersion(w.v),
					stream.WithBinding(w.b), stream.WithHeader("Authorization", serviceSecret))
				require.NoError(t, err)
				_, err = c.Send(ctx, hiMessage(), stream.WithHeader("X-Call-Token", callSecret)).Wait()
				require.NoError(t, err)
				require.NotEmpty(t, recB.headers())
				for _, h := range recB.headers() {
					require.Empty(t, h.Get("Authorization"))
					require.Empty(t, h.Get("X-Call-Token"))
					require.NotContains(t, h.Get("Referer"), "secret")
					require.Empty(t, h.Get("Referer"))
				}
				// the named origin got them
				var sawAuth bool
				for _, h := range recA.headers() {
					sawAuth = sawAuth || h.Get("Authorization") == serviceSecret
				}
				require.True(t, sawAuth)
			})
		}
	}
}

// An http origin is never trusted where the caller named https; an https
// one (or the same scheme) is.
func TestTrustedHTTPOriginRefusedWhereHTTPSWasNamed(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			opts := []stream.Option{stream.WithHTTPClient(&http.Client{}), stream.WithVersion(w.v), stream.WithTrustedOrigins("http://127.0.0.1:9999")}
			var err error
			if w.b == a2a.BindingHTTPJSON {
				_, err = stream.NewRESTClient("https://agent.example/", opts...)
			} else {
				_, err = stream.NewClient("https://agent.example/a2a", opts...)
			}
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			// the trusted origin written otherwise: upper case, default port
			for _, o := range []string{"HTTP://127.0.0.1:9999", "http://127.0.0.1:9999/", "http://localhost"} {
				_, err = stream.NewClient("https://agent.example/a2a", stream.WithTrustedOrigins(o))
				require.ErrorIs(t, err, stream.ErrInvalidOption, o)
			}
			_, err = stream.NewClient("https://agent.example/a2a", stream.WithTrustedOrigins("https://other.example"))
			require.NoError(t, err)
			_, err = stream.NewClient("http://agent.example/a2a", stream.WithTrustedOrigins("http://127.0.0.1:9999"))
			require.NoError(t, err)
			// not an origin
			for _, o := range []string{"https://other.example/path", "https://other.example?x=1", "other.example", "ftp://other.example", "https://u:p@other.example", "https://other.example#f"} {
				_, err = stream.NewClient("https://agent.example/a2a", stream.WithTrustedOrigins(o))
				require.ErrorIs(t, err, stream.ErrInvalidOption, o)
			}
		})
	}
}

// Resolve is a constructor: an http origin trusted where https is named is
// refused, and nothing is sent (README, Options: "Bad values ... are refused
// by the constructor ... nothing is sent").
func TestResolveRefusesATrustedHTTPOriginBeforeSending(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := w.agent()
			rec := &headerRecorder{}
			var host string
			srv := httptest.NewTLSServer(rec.wrap(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				cardNamingHost(agent, host, agent).ServeHTTP(rw, r)
			})))
			defer srv.Close()
			u, _ := url.Parse(srv.URL)
			host = u.Host
			_, err := stream.Resolve(t.Context(), srv.URL, stream.WithHTTPClient(srv.Client()), stream.WithVersion(w.v), stream.WithBinding(w.b),
				stream.WithTrustedOrigins("http://127.0.0.1:9999"))
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.Empty(t, rec.headers(), "nothing is sent")
			// an unreachable https host: the option's refusal, not "could not connect"
			_, err = stream.Resolve(t.Context(), "https://"+closedPort(t)+"/", stream.WithTrustedOrigins("http://127.0.0.1:9999"))
			require.ErrorIs(t, err, stream.ErrInvalidOption, "%v", err)
		})
	}
}

// A trusted origin gets the headers, and no notice is given.
func TestTrustedOriginGetsTheHeadersWithoutANotice(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := w.agent(helloScript())
			rec := &headerRecorder{}
			b := httptest.NewServer(rec.wrap(agent))
			defer b.Close()
			bu, _ := url.Parse(b.URL)
			a := httptest.NewServer(cardNamingHost(agent, bu.Host, nil))
			defer a.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			c, err := stream.Resolve(ctx, a.URL, stream.WithHTTPClient(&http.Client{}), stream.WithVersion(w.v), stream.WithBinding(w.b),
				stream.WithHeader("Authorization", serviceSecret), stream.WithTrustedOrigins(b.URL))
			require.NoError(t, err)
			var notices []stream.Notice
			_, err = c.Send(ctx, hiMessage(), stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) })).Wait()
			require.NoError(t, err)
			for _, n := range notices {
				require.NotEqual(t, stream.HeadersWithheld, n.Kind)
			}
			for _, h := range rec.headers() {
				require.Equal(t, serviceSecret, h.Get("Authorization"))
			}
		})
	}
}

// closedPort returns an address on 127.0.0.1 where nothing listens.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// "could not connect" names the URL once, its user, password and query
// values redacted, on every wire, for the agent and for its card.
func TestCouldNotConnectNamesTheURLOnceRedacted(t *testing.T) {
	addr := closedPort(t)
	for _, w := range wires() {
		for _, base := range []string{
			"http://s28user:s28pass@" + addr + "/a2a?api_key=s28-query-secret&x=1",
			"http://" + addr + "/?token=s28-query-secret",
			"http://s28user@" + addr,
		} {
			t.Run(w.String()+"/"+base, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				check := func(what string, err error) {
					t.Helper()
					require.Error(t, err)
					require.ErrorIs(t, err, reconnect.ErrCouldNotConnect, what)
					text := err.Error()
					t.Logf("%s: %s", what, text)
					require.Equal(t, 1, strings.Count(text, "://"), "%s names the URL once: %s", what, text)
					require.NotContains(t, text, "s28pass")
					require.NotContains(t, text, "s28user")
					require.NotContains(t, text, "s28-query-secret")
					var ue *url.Error
					require.True(t, errors.As(err, &ue), "the *url.Error stays reachable")
					line := stream.EndingOf(err).String()
					require.Equal(t, 1, strings.Count(line, "://"), line)
					require.NotContains(t, line, "s28pass")
					require.NotContains(t, line, "s28-query-secret")
				}
				// the card
				_, err := stream.Resolve(ctx, base, stream.WithHTTPClient(&http.Client{}))
				check("Resolve", err)
				_, err = agentcard.Fetch(ctx, base, agentcard.WithHTTPClient(&http.Client{}))
				check("FetchCard", err)
				// the agent
				c := w.clientAt(t, base, &http.Client{}, stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Millisecond}))
				s := c.Send(ctx, hiMessage())
				e := drainEnding(s)
				check("Send", e.Err)
				var re *reconnect.Error
				require.ErrorAs(t, e.Err, &re)
				require.NotContains(t, re.Unreachable, "s28pass")
				require.NotContains(t, re.Unreachable, "s28-query-secret")
				_, err = c.GetTask(ctx, "t-1")
				require.Error(t, err)
				require.NotContains(t, err.Error(), "s28pass")
				require.NotContains(t, err.Error(), "s28-query-secret")
				require.LessOrEqual(t, strings.Count(err.Error(), "://"), 1, err.Error())
			})
		}
	}
}

// Stranger round 28b, WithTrustedOrigins: a bad value is refused before
// any request is made.

// Each of these is not "an absolute http or https URL with a host and
// nothing after it but "/"" (go doc stream.WithTrustedOrigins).
func s28bBadOrigins() map[string]string {
	return map[string]string{
		"empty":          "",
		"no scheme":      "agent.example",
		"scheme-less //": "//agent.example",
		"ftp":            "ftp://agent.example",
		"ws":             "ws://agent.example",
		"no host":        "http://",
		"no host https":  "https:///",
		"a path":         "http://agent.example/a2a",
		"two slashes":    "http://agent.example//",
		"a query":        "http://agent.example/?k=v",
		"a bare ?":       "http://agent.example?",
		"a fragment":     "http://agent.example#x",
		"star":           "*",
		"null":           "null",
		"opaque":         "http:agent.example",
		"a space":        "http://agent .example",
		"a newline":      "http://agent.example\n",
		"a bad port":     "http://agent.example:99999x",
	}
}

func s28bCountingServer(t *testing.T, tls bool) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, "no", http.StatusNotFound)
	})
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestBadTrustedOriginsAreRefusedBeforeAnyRequest(t *testing.T) {
	srv, n := s28bCountingServer(t, false)
	for name, bad := range s28bBadOrigins() {
		t.Run(name, func(t *testing.T) {
			opts := []stream.Option{stream.WithHTTPClient(srv.Client()), stream.WithTrustedOrigins("http://fine.example", bad)}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			_, err := stream.Resolve(ctx, srv.URL, opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption, "Resolve with %q", bad)
			_, err = stream.NewClient(srv.URL, opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption, "NewClient with %q", bad)
			_, err = stream.NewRESTClient(srv.URL, opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption, "NewRESTClient with %q", bad)
			require.Zero(t, n.Load(), "no request before refusing %q", bad)
		})
	}
}

// An http origin where the origin named is https is refused too, by
// Resolve before the card request.
func TestHTTPOriginUnderHTTPSIsRefusedBeforeAnyRequest(t *testing.T) {
	srv, n := s28bCountingServer(t, true)
	for _, bad := range []string{"http://agent.example", "http://127.0.0.1", srv.URL[:len("https")-1] + srv.URL[len("https"):]} {
		t.Run(bad, func(t *testing.T) {
			opts := []stream.Option{stream.WithHTTPClient(srv.Client()), stream.WithTrustedOrigins(bad)}
			_, err := stream.Resolve(t.Context(), srv.URL, opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption, "Resolve(%s) trusting %q", srv.URL, bad)
			_, err = stream.NewClient(srv.URL, opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			_, err = stream.NewRESTClient(srv.URL, opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.Zero(t, n.Load())
		})
	}
}

// Good values are taken (the refusals above are not of everything).
func TestGoodTrustedOriginsAreTaken(t *testing.T) {
	for _, good := range []string{"http://agent.example", "https://agent.example/", "http://127.0.0.1:9999", "https://[::1]:8443"} {
		_, err := stream.NewClient("http://named.example/", stream.WithTrustedOrigins(good))
		require.NoError(t, err, good)
	}
}

// WithTrustedOrigins is Client-wide: per call it is refused, as the
// stream's Err, and nothing is sent.
func TestTrustedOriginsPerCallIsRefusedWithoutARequest(t *testing.T) {
	srv, n := s28bCountingServer(t, false)
	c, err := stream.NewClient(srv.URL, stream.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	e := drainEnding(c.Send(t.Context(), hiMessage(), stream.WithTrustedOrigins("http://agent.example")))
	require.ErrorIs(t, e.Err, stream.ErrInvalidOption)
	require.Zero(t, n.Load())
}
