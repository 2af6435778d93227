package stream_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

// sgScript picks a task's script by the first message's text: "ask"
// asks a question, "slow" works for an hour, anything else finishes.
func sgScript(msg *a2a.Message) []a2atest.Step {
	switch {
	case strings.Contains(msg.Text(), "ask"):
		return []a2atest.Step{a2atest.Working("thinking"), a2atest.AskInput("Which city?"),
			a2atest.Chunk("a1", "done", false, true), a2atest.Finish(a2a.StateCompleted, "ok")}
	case strings.Contains(msg.Text(), "slow"):
		return []a2atest.Step{a2atest.Working("thinking"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "ok")}
	}
	return []a2atest.Step{a2atest.Working(""), a2atest.Chunk("a1", "done", false, true), a2atest.Finish(a2a.StateCompleted, "ok")}
}

func sgAgent(w wire, more ...a2atest.Option) *a2atest.Agent {
	opts := append([]a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScriptFunc(sgScript)}, more...)
	return a2atest.NewAgent(opts...)
}

var sgLisbon = hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text("Lisbon"), nil })

// sgEveryCall makes every kind of call with a per-call credential:
// a streamed send whose task asks a question (and the reply), get-task,
// subscribe, cancel, and Stream.Cancel.
func sgEveryCall(t *testing.T, c *stream.Client) {
	t.Helper()
	ctx := context.Background()
	call := stream.WithHeader("X-Call-Token", "per-call-secret")
	user := stream.WithHeader("Authorization", "Bearer user-secret")
	task, err := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "ask me"), call, user, stream.WithHumanInput(sgLisbon)).Wait()
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

// sgForeign are endpoints an agent card may name that are not the
// origin https://agent.test the caller named.
var sgForeign = []string{
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
	for _, w := range wires() {
		for _, foreign := range sgForeign {
			t.Run(w.String()+"/"+foreign, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := sgAgent(w)
					mo := newSGOrigins()
					mo.serve("https://agent.test", sgCardServer(sgCardJSON(w.v, w.b, foreign, true), nil))
					mo.serve(foreign, agent)
					c, err := stream.Resolve(context.Background(), "https://agent.test", stream.WithHTTPClient(mo.client()),
						stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret"))
					require.NoError(t, err)
					sgEveryCall(t, c)
					inside, outside := sgRequireNoCredentialsOutside(t, mo, "https://agent.test")
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
				agent := sgAgent(w)
				mo := newSGOrigins()
				mo.serve("https://agent.test", sgCardServer(sgCardJSON(w.v, w.b, "https://agent.test/", true), agent))
				c, err := stream.Resolve(context.Background(), "https://agent.test", stream.WithHTTPClient(mo.client()),
					stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret"))
				require.NoError(t, err)
				sgEveryCall(t, c)
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

// sgRedirectTargets are origins a redirect from https://agent.test may
// point at; none is the origin the caller named.
var sgRedirectTargets = []string{
	"https://evil.test",
	"http://agent.test",       // https down to http
	"https://agent.test:8443", // another port
	"https://sub.agent.test",  // net/http's own rule forwards Authorization to a subdomain
}

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
			for _, target := range sgRedirectTargets {
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
								agent := sgAgent(w, more...)
								card := sgCardJSON(w.v, w.b, "https://agent.test/", streaming)
								mo := newSGOrigins()
								mo.serve("https://agent.test", sgRedirectKind(w.v, w.b, k, code, target, sgCardServer(card, agent)))
								mo.serve(target, sgCardServer(card, agent))
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
									sgEveryCallLoose(t, c)
								}
								_, outside := sgRequireNoCredentialsOutside(t, mo, "https://agent.test")
								require.Positive(t, outside, "the redirect was followed (or the test proves nothing)")
							})
						})
					}
				}
			}
		}
	}
}

// sgEveryCallLoose makes every kind of call as sgEveryCall does, without
// requiring the calls to succeed (a client may refuse to follow a redirect).
func sgEveryCallLoose(t *testing.T, c *stream.Client) {
	ctx := context.Background()
	call := stream.WithHeader("X-Call-Token", "per-call-secret")
	user := stream.WithHeader("Authorization", "Bearer user-secret")
	task, _ := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "ask me"), call, user, stream.WithHumanInput(sgLisbon)).Wait()
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
		for _, foreign := range sgForeign {
			t.Run(w.String()+"/"+foreign, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := sgAgent(w, a2atest.WithoutStreaming())
					mo := newSGOrigins()
					mo.serve("https://agent.test", sgCardServer(sgCardJSON(w.v, w.b, foreign, false), nil))
					mo.serve(foreign, agent)
					c, err := stream.Resolve(context.Background(), "https://agent.test", stream.WithHTTPClient(mo.client()),
						stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret"))
					require.NoError(t, err)
					sgEveryCall(t, c)
					inside, outside := sgRequireNoCredentialsOutside(t, mo, "https://agent.test")
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
		for _, target := range sgRedirectTargets {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					card := sgCardJSON(a2a.V10, a2a.BindingJSONRPC, "https://agent.test/", true)
					mo := newSGOrigins()
					mo.serve("https://agent.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if strings.HasSuffix(r.URL.Path, "/agent-card.json") {
							http.NotFound(w, r)
							return
						}
						http.Redirect(w, r, target+"/moved/card.json", http.StatusTemporaryRedirect)
					}))
					mo.serve(target, sgCardServer(card, nil))
					_, err := stream.Resolve(context.Background(), tc.base, stream.WithHTTPClient(mo.client()),
						stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret"))
					_, outside := sgRequireNoCredentialsOutside(t, mo, "https://agent.test")
					if err == nil {
						require.Positive(t, outside)
					}
					_, err = agentcard.Fetch(context.Background(), tc.base, agentcard.WithHTTPClient(mo.client()),
						agentcard.WithHeader("Authorization", "Bearer service-secret"))
					sgRequireNoCredentialsOutside(t, mo, "https://agent.test")
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
		for _, target := range sgRedirectTargets {
			t.Run(string(v)+"/"+target, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					w := wire{v, a2a.BindingHTTPJSON}
					agent := sgAgent(w)
					card := sgCardJSON(v, w.b, "https://agent.test/", true)
					var gets int
					mo := newSGOrigins()
					mo.serve("https://agent.test", sgCardServer(card, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
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
					_, outside := sgRequireNoCredentialsOutside(t, mo, "https://agent.test")
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
		for _, foreign := range sgForeign[:3] {
			t.Run(w.String()+"/"+foreign, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := sgAgent(w)
					mo := newSGOrigins()
					mo.serve("https://agent.test", sgCardServer(sgCardJSON(w.v, w.b, foreign, true), nil))
					mo.serve(foreign, agent)
					c, err := stream.Resolve(context.Background(), "https://agent.test/?code=code-secret", stream.WithHTTPClient(mo.client()))
					require.NoError(t, err)
					require.Contains(t, mo.recorded()[0].url.RawQuery, "code=code-secret", "the card request keeps the query")
					sgEveryCall(t, c)
					sgRequireNoCredentialsOutside(t, mo, "https://agent.test")
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
					agent := sgAgent(w, more...)
					card := sgCardJSON(w.v, w.b, "https://agent.test/", streaming)
					mo := newSGOrigins()
					const target = "https://evil.test"
					// The server's Location drops the key: only the client can leak it.
					mo.serve("https://agent.test", sgRedirectPathOnly(w.v, w.b, k, target, sgCardServer(card, agent)))
					mo.serve(target, sgCardServer(card, agent))
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
						sgEveryCallLoose(t, c)
					}
					_, outside := sgRequireNoCredentialsOutside(t, mo, "https://agent.test")
					require.Positive(t, outside, "the redirect was followed (or the test proves nothing)")
				})
			})
		}
	}
}

// sgRedirectPathOnly answers calls of kind k with a 307 to the same path on
// target, without the query, and passes everything else to next.
func sgRedirectPathOnly(v a2a.Version, b a2a.Binding, k callKind, target string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sgKindOf(v, b, r) == k {
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
					agent := sgAgent(w)
					mo := newSGOrigins().serve("https://agent.test", agent)
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
					agent := sgAgent(w)
					mo := newSGOrigins()
					mo.serve(tc.base, sgCardServer(sgCardJSON(w.v, w.b, tc.endpoint, true), agent))
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
				agentA, agentB := sgAgent(w), sgAgent(w)
				mo := newSGOrigins().serve("https://a.test", agentA).serve("https://b.test", agentB)
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
