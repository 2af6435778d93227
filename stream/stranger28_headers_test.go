package stream_test

// Stranger round 28, headers withheld and "could not connect", over real
// sockets on 127.0.0.1: a card that names another origin gets no header,
// each stream says so once (names, never values, in the notice and the
// debug log), a redirect to another origin carries no header, an http
// origin is not trusted where https was named, and an unreachable agent's
// error names its URL once, redacted.

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
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// s28Recorder records the headers of every request a server got.
type s28Recorder struct {
	skipCards bool // card requests (to the named origin) are not recorded
	mu        sync.Mutex
	reqs      []http.Header
	urls      []string
}

func (r *s28Recorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if r.skipCards && s28IsCard(req.URL.Path) {
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

func (r *s28Recorder) headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.reqs...)
}

func s28IsCard(p string) bool { return strings.HasPrefix(p, "/.well-known/") }

// s28CardNaming serves agent's card as if reached at host, and sends
// everything else to next (nil: 404).
func s28CardNaming(agent *a2atest.Agent, host string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s28IsCard(r.URL.Path) {
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
	s28Secret1 = "Bearer s28-service-secret"
	s28Secret2 = "s28-key-secret"
	s28Secret3 = "s28-call-secret"
)

func s28Script() a2atest.Option {
	return a2atest.WithScript(a2atest.Working(""), a2atest.Pause(20*time.Millisecond),
		a2atest.Chunk("a1", "hello", false, true), a2atest.Finish(a2a.StateCompleted, ""))
}

type s28Origins struct {
	name           string
	named          string // the base URL the caller gives Resolve
	endpointOrigin string
	client         *http.Client
	endpoint       *s28Recorder
}

// s28Setups builds, for wire w, the ways a card names another origin.
func s28Setups(t *testing.T, w s28Wire) []s28Origins {
	var out []s28Origins
	newAgent := func() *a2atest.Agent {
		return w.agent(s28Script(), a2atest.WithNewTaskFault(a2atest.CutAfterEvents(2)))
	}
	// another port: the card at A names B.
	{
		agent := newAgent()
		rec := &s28Recorder{}
		b := httptest.NewServer(rec.wrap(agent))
		t.Cleanup(b.Close)
		bu, _ := url.Parse(b.URL)
		a := httptest.NewServer(s28CardNaming(agent, bu.Host, nil))
		t.Cleanup(a.Close)
		out = append(out, s28Origins{"another port", a.URL + "/", "http://" + bu.Host, &http.Client{}, rec})
	}
	// localhost named, the card names 127.0.0.1 on the same port.
	{
		agent := newAgent()
		rec := &s28Recorder{skipCards: true}
		var port string
		srv := httptest.NewServer(rec.wrap(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			s28CardNaming(agent, "127.0.0.1:"+port, agent).ServeHTTP(rw, r)
		})))
		t.Cleanup(srv.Close)
		u, _ := url.Parse(srv.URL)
		port = u.Port()
		out = append(out, s28Origins{"localhost vs 127.0.0.1", "http://localhost:" + port + "/", "http://127.0.0.1:" + port, &http.Client{}, rec})
	}
	// https named, the card names http.
	{
		agent := newAgent()
		rec := &s28Recorder{}
		b := httptest.NewServer(rec.wrap(agent))
		t.Cleanup(b.Close)
		bu, _ := url.Parse(b.URL)
		a := httptest.NewTLSServer(s28CardNaming(agent, bu.Host, nil))
		t.Cleanup(a.Close)
		c := a.Client()
		out = append(out, s28Origins{"https to http", a.URL + "/", "http://" + bu.Host, c, rec})
	}
	return out
}

func TestStranger28HeadersWithheldFromAnotherOriginOverRealSockets(t *testing.T) {
	t.Parallel()
	for _, w := range s28Wires() {
		for _, o := range s28Setups(t, w) {
			t.Run(w.String()+"/"+o.name, func(t *testing.T) {
				var logBuf bytes.Buffer
				var logMu sync.Mutex
				logger := slog.New(slog.NewTextHandler(&s28SyncWriter{w: &logBuf, mu: &logMu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				c, err := stream.Resolve(ctx, o.named, stream.WithHTTPClient(o.client), stream.WithVersion(w.v), stream.WithBinding(w.b),
					stream.WithLogger(logger), stream.WithHeader("Authorization", s28Secret1), stream.WithHeader("X-Api-Key", s28Secret2),
					stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: 5 * time.Millisecond}))
				require.NoError(t, err)
				for i := range 2 {
					var notices []stream.Notice
					s := c.Send(ctx, s28Msg(), stream.WithHeader("X-Call-Token", s28Secret3),
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

type s28SyncWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (s *s28SyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// A redirect of the named origin's endpoint to another origin carries no
// header and no Referer.
func TestStranger28RedirectToAnotherOriginCarriesNoHeader(t *testing.T) {
	t.Parallel()
	for _, w := range s28Wires() {
		for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
			t.Run(fmt.Sprintf("%s/%d", w, code), func(t *testing.T) {
				agent := w.agent(s28Script())
				recB := &s28Recorder{}
				b := httptest.NewServer(recB.wrap(agent))
				defer b.Close()
				recA := &s28Recorder{}
				var aHost string
				a := httptest.NewServer(recA.wrap(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					if s28IsCard(r.URL.Path) {
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
					stream.WithBinding(w.b), stream.WithHeader("Authorization", s28Secret1))
				require.NoError(t, err)
				_, err = c.Send(ctx, s28Msg(), stream.WithHeader("X-Call-Token", s28Secret3)).Wait()
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
					sawAuth = sawAuth || h.Get("Authorization") == s28Secret1
				}
				require.True(t, sawAuth)
			})
		}
	}
}

// An http origin is never trusted where the caller named https; an https
// one (or the same scheme) is.
func TestStranger28TrustedHTTPOriginRefusedWhereHTTPSWasNamed(t *testing.T) {
	for _, w := range s28Wires() {
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
func TestStranger28ResolveRefusesATrustedHTTPOriginBeforeSending(t *testing.T) {
	for _, w := range s28Wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := w.agent()
			rec := &s28Recorder{}
			var host string
			srv := httptest.NewTLSServer(rec.wrap(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				s28CardNaming(agent, host, agent).ServeHTTP(rw, r)
			})))
			defer srv.Close()
			u, _ := url.Parse(srv.URL)
			host = u.Host
			_, err := stream.Resolve(t.Context(), srv.URL, stream.WithHTTPClient(srv.Client()), stream.WithVersion(w.v), stream.WithBinding(w.b),
				stream.WithTrustedOrigins("http://127.0.0.1:9999"))
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.Empty(t, rec.headers(), "nothing is sent")
			// an unreachable https host: the option's refusal, not "could not connect"
			_, err = stream.Resolve(t.Context(), "https://"+s28ClosedPort(t)+"/", stream.WithTrustedOrigins("http://127.0.0.1:9999"))
			require.ErrorIs(t, err, stream.ErrInvalidOption, "%v", err)
		})
	}
}

// A trusted origin gets the headers, and no notice is given.
func TestStranger28TrustedOriginGetsTheHeadersWithoutANotice(t *testing.T) {
	for _, w := range s28Wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := w.agent(s28Script())
			rec := &s28Recorder{}
			b := httptest.NewServer(rec.wrap(agent))
			defer b.Close()
			bu, _ := url.Parse(b.URL)
			a := httptest.NewServer(s28CardNaming(agent, bu.Host, nil))
			defer a.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			c, err := stream.Resolve(ctx, a.URL, stream.WithHTTPClient(&http.Client{}), stream.WithVersion(w.v), stream.WithBinding(w.b),
				stream.WithHeader("Authorization", s28Secret1), stream.WithTrustedOrigins(b.URL))
			require.NoError(t, err)
			var notices []stream.Notice
			_, err = c.Send(ctx, s28Msg(), stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) })).Wait()
			require.NoError(t, err)
			for _, n := range notices {
				require.NotEqual(t, stream.HeadersWithheld, n.Kind)
			}
			for _, h := range rec.headers() {
				require.Equal(t, s28Secret1, h.Get("Authorization"))
			}
		})
	}
}

// s28ClosedPort returns an address on 127.0.0.1 where nothing listens.
func s28ClosedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// "could not connect" names the URL once, its user, password and query
// values redacted, on every wire, for the agent and for its card.
func TestStranger28CouldNotConnectNamesTheURLOnceRedacted(t *testing.T) {
	addr := s28ClosedPort(t)
	for _, w := range s28Wires() {
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
				s := c.Send(ctx, s28Msg())
				e := s28Drain(s)
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
