package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
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
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// Security. Credentials: headers set with WithHeader go to the agent's own origin only
// (scheme, host and port), and no error text or log line of the library
// carries a header value, a request body, a URL password or the value of a
// URL query parameter (an API key in the endpoint's query string).
//
// The rule is about the library's own words. Text a server sends and the
// library quotes as such (the message of a JSON-RPC error, which
// *a2a.RPCError.Error includes) is the server's: a server that echoes a
// credential in its error message leaks it itself.
// TestServerWordsAreQuotedAsTheServers pins down exactly that.

const (
	secretToken = "hdr-SECRET-7f3a"
	secretKey   = "key-SECRET-91c2"
	secretText  = "msg-SECRET-5e8d"
	secretReply = "reply-SECRET-0b44"
	secretQuery = "query-SECRET-3d71"
)

var secrets = []string{secretToken, secretKey, secretText, secretReply, secretQuery}

// secretEndpoint carries an API key in its query string, as some agents
// want it.
const secretEndpoint = "http://agent.test/rpc?api_key=" + secretQuery

// shownEndpoint is secretEndpoint as error texts show it.
const shownEndpoint = "http://agent.test/rpc?api_key=xxxxx"

// requireRedactedURLError checks that err holds the transport's *url.Error,
// still a *url.Error, with the endpoint redacted and its cause reachable.
func requireRedactedURLError(t *testing.T, err error, cause error) {
	t.Helper()
	var ue *url.Error
	require.ErrorAs(t, err, &ue)
	require.Equal(t, shownEndpoint, ue.URL)
	require.ErrorIs(t, err, cause)
}

func withSecretHeaders() []stream.Option {
	return []stream.Option{
		stream.WithHeader("Authorization", "Bearer "+secretToken),
		stream.WithHeader("X-Api-Key", secretKey),
	}
}

func secretMessage() *a2a.Message {
	return a2a.NewTextMessage(a2a.RoleUser, "please summarise "+secretText)
}

// echo dumps the request as a careless server would in an error page: the
// request line, every header and the body.
func echo(r *http.Request) string {
	b, err := httputil.DumpRequest(r, true)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// oneLine makes s fit on one SSE data line.
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

// requireEchoed checks that a server really saw (and echoed) the secrets, so
// that their absence from the error text means something.
func requireEchoed(t *testing.T, s string) {
	t.Helper()
	require.Contains(t, s, secretToken)
	require.Contains(t, s, secretKey)
}

// errorTexts returns the Error text of err and of every error it wraps.
func errorTexts(err error) []string {
	var out []string
	queue := []error{err}
	for len(queue) > 0 {
		e := queue[0]
		queue = queue[1:]
		if e == nil {
			continue
		}
		out = append(out, e.Error(), fmt.Sprintf("%v", e))
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			queue = append(queue, u.Unwrap())
		case interface{ Unwrap() []error }:
			queue = append(queue, u.Unwrap()...)
		}
	}
	return out
}

// requireNoSecrets checks every error text in err's chain, every notice
// cause and every log line.
func requireNoSecrets(t *testing.T, err error, notices []error, logs string) {
	t.Helper()
	texts := errorTexts(err)
	for _, c := range notices {
		texts = append(texts, errorTexts(c)...)
	}
	for _, s := range secrets {
		for _, text := range texts {
			require.NotContains(t, text, s, "an error text carries a secret")
		}
		for _, line := range strings.Split(logs, "\n") {
			require.NotContains(t, line, s, "a log line carries a secret")
		}
	}
}

// secretRun is what a failure scenario leaves: the error, the causes of the
// reconnect notices, and the logs.
type secretRun struct {
	err     error
	notices []error
	logs    *logCapture
}

// client returns a client of secretEndpoint with the secret headers, a
// Debug logger and a notice recorder.
func (r *secretRun) client(t *testing.T, h http.Handler, v a2a.Version, opts ...stream.Option) *stream.Client {
	t.Helper()
	r.logs = &logCapture{}
	all := append(withSecretHeaders(), stream.WithHTTPClient(a2atest.NewClient(h)), stream.WithVersion(v),
		stream.WithLogger(r.logs.logger()), stream.WithNotify(func(n stream.Notice) {
			if n.Cause != nil {
				r.notices = append(r.notices, n.Cause)
			}
		}))
	c, err := stream.NewClient(secretEndpoint, append(all, opts...)...)
	require.NoError(t, err)
	return c
}

// send drives one Send of the secret message to its end.
func (r *secretRun) send(t *testing.T, h http.Handler, v a2a.Version, opts ...stream.Option) *collected {
	t.Helper()
	got, err := drain(t, r.client(t, h, v, opts...).Send(background(), secretMessage()))
	r.err = err
	return got
}

func TestNoSecretsInErrorsOrLogs(t *testing.T) {
	type scenario struct {
		name  string
		run   func(t *testing.T, v a2a.Version, r *secretRun)
		check func(t *testing.T, err error) // the precise typed error
	}
	isHTTP := func(code int) func(t *testing.T, err error) {
		return func(t *testing.T, err error) {
			var he *transport.HTTPError
			require.ErrorAs(t, err, &he)
			require.Equal(t, code, he.StatusCode)
			requireEchoed(t, string(he.Body))
			require.Contains(t, string(he.Body), "api_key="+secretQuery, "the API key went out")
		}
	}
	isProtocol := func(reason string) func(t *testing.T, err error) {
		return func(t *testing.T, err error) {
			var pe *transport.ProtocolError
			require.ErrorAs(t, err, &pe)
			require.Contains(t, pe.Reason, reason)
		}
	}
	isReconnect := func(attempts int) func(t *testing.T, err error) {
		return func(t *testing.T, err error) {
			var re *reconnect.Error
			require.ErrorAs(t, err, &re)
			require.Equal(t, attempts, re.Attempts)
		}
	}
	isHITL := func(target error) func(t *testing.T, err error) {
		return func(t *testing.T, err error) {
			var he *hitl.Error
			require.ErrorAs(t, err, &he)
			require.ErrorIs(t, err, target)
		}
	}
	hookFailed := errors.New("the user closed the dialog")
	// askingAgent asks for input; its follow-up send is answered with 400
	// and an echo of the request, the reply included.
	askingAgent := func(v a2a.Version) http.Handler {
		agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Asking()...))
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(secretReply)) {
				http.Error(w, echo(r), http.StatusBadRequest)
				return
			}
			agent.ServeHTTP(w, r)
		})
	}
	scenarios := []scenario{
		{"HTTP 401 echoing the request", func(t *testing.T, v a2a.Version, r *secretRun) {
			r.send(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				http.Error(w, echo(req), http.StatusUnauthorized)
			}), v)
		}, isHTTP(401)},
		{"HTML 200 echoing the request", func(t *testing.T, v a2a.Version, r *secretRun) {
			r.send(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, "<html><pre>"+echo(req)+"</pre></html>")
			}), v)
		}, isProtocol("unexpected content type")},
		{"malformed JSON echoing the request", func(t *testing.T, v a2a.Version, r *secretRun) {
			r.send(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				sseHeaders(w)
				fmt.Fprint(w, "data: "+oneLine(echo(req))+"\n\n")
			}), v)
		}, isProtocol("malformed JSON-RPC response")},
		{"unknown result echoing the request", func(t *testing.T, v a2a.Version, r *secretRun) {
			r.send(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				e, _ := json.Marshal(echo(req))
				sseHeaders(w)
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{\"echo\":%s}}\n\n", e)
			}), v)
		}, isProtocol("malformed result")},
		{"wrong response ID, result echoing the request", func(t *testing.T, v a2a.Version, r *secretRun) {
			r.send(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				task := firstTask.Clone()
				task.Metadata = map[string]any{"echo": echo(req)}
				sseHeaders(w)
				sseEvent(w, json.RawMessage(`"someone-else"`), v, task)
			}), v)
		}, isProtocol("does not match")},
		{"oversized event made of the echo", func(t *testing.T, v a2a.Version, r *secretRun) {
			r.send(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				sseHeaders(w)
				fmt.Fprint(w, "data: "+strings.Repeat(oneLine(echo(req)), 20)+"\n\n")
			}), v, stream.WithMaxEventSize(4096))
		}, isProtocol("event too large")},
		{"RPC error whose data echoes the request", func(t *testing.T, v a2a.Version, r *secretRun) {
			r.send(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				id := requestID(req)
				data, _ := json.Marshal(map[string]string{"request": echo(req)})
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"internal error","data":%s}}`, id, data)
			}), v)
		}, func(t *testing.T, err error) {
			var rpcErr *a2a.RPCError
			require.ErrorAs(t, err, &rpcErr)
			requireEchoed(t, string(rpcErr.Data))
		}},
		{"resubscribes answered 503 with the echo, budget spent", func(t *testing.T, v a2a.Version, r *secretRun) {
			n := 0
			r.send(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				n++
				if n == 1 {
					id := requestID(req)
					firstLegThenCut(w, id, v)
				}
				http.Error(w, echo(req), http.StatusServiceUnavailable)
			}), v, stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Millisecond}))
			require.Len(t, r.notices, 2, "the drop, then the first 503")
			require.Contains(t, r.logs.String(), "reconnecting")
		}, isReconnect(2)},
		{"refused resubscribe, get-task answered 400 with the echo", func(t *testing.T, v a2a.Version, r *secretRun) {
			n := 0
			r.send(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				n++
				switch n {
				case 1:
					firstLegThenCut(w, requestID(req), v)
				case 2:
					jsonRPCError(w, requestID(req), a2a.CodeTaskNotFound, "task not found")
				default:
					http.Error(w, echo(req), http.StatusBadRequest)
				}
			}), v)
			require.Contains(t, r.logs.String(), "resubscribe refused")
		}, isHTTP(400)},
		{"transport error before any event", func(t *testing.T, v a2a.Version, r *secretRun) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v))
			r.send(t, agent, v, stream.WithHTTPClient(&http.Client{Transport: &resetTransport{}}))
		}, func(t *testing.T, err error) {
			isReconnect(0)(t, err)
			requireRedactedURLError(t, err, errReset)
		}},
		{"transport errors on every resubscribe and get-task, budget spent", func(t *testing.T, v a2a.Version, r *secretRun) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
				a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
			rt := &resetTransport{next: a2atest.NewTransport(agent), fail: func(n int) bool { return n > 1 }}
			r.send(t, agent, v, stream.WithHTTPClient(&http.Client{Transport: rt}),
				stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Millisecond}))
			require.Len(t, r.notices, 2, "the drop, then the first reset")
			requireRedactedURLError(t, r.notices[1], errReset)
		}, func(t *testing.T, err error) {
			isReconnect(2)(t, err)
			requireRedactedURLError(t, err, errReset)
		}},
		{"idle timeouts before the response headers", func(t *testing.T, v a2a.Version, r *secretRun) {
			n := 0
			r.send(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				n++
				if n == 1 {
					firstLegThenCut(w, requestID(req), v)
				}
				<-req.Context().Done()
			}), v, stream.WithIdleTimeout(time.Second), stream.WithReconnect(reconnect.Policy{MaxAttempts: 1, Backoff: time.Millisecond}))
			require.Contains(t, r.logs.String(), "subscription silent")
			require.Contains(t, r.logs.String(), "api_key=xxxxx", "the cause is logged, redacted")
		}, func(t *testing.T, err error) {
			// The URL error keeps the request, redacted; its cause is the
			// idle timeout, not a cancel of the caller's.
			requireRedactedURLError(t, err, transport.ErrIdleTimeout)
			require.NotErrorIs(t, err, context.Canceled)
		}},
		{"redirect loop keeping the query", func(t *testing.T, v a2a.Version, r *secretRun) {
			r.send(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				http.Redirect(w, req, req.URL.String(), http.StatusTemporaryRedirect)
			}), v)
		}, func(t *testing.T, err error) {
			var ue *url.Error
			require.ErrorAs(t, err, &ue)
			require.Equal(t, "/rpc?api_key=xxxxx", ue.URL, "net/http shows the last Location as it came")
			require.ErrorContains(t, err, "stopped after 10 redirects")
		}},
		{"input required, no hook", func(t *testing.T, v a2a.Version, r *secretRun) {
			r.send(t, askingAgent(v), v)
		}, isHITL(hitl.ErrNoHook)},
		{"input required, hook fails", func(t *testing.T, v a2a.Version, r *secretRun) {
			r.send(t, askingAgent(v), v, stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
				return nil, hookFailed
			})))
		}, isHITL(hookFailed)},
		{"input required, hook times out", func(t *testing.T, v a2a.Version, r *secretRun) {
			r.send(t, askingAgent(v), v, stream.WithInputTimeout(time.Second),
				stream.WithHumanInput(hitl.Func(func(ctx context.Context, _ *hitl.Request) ([]a2a.Part, error) {
					<-ctx.Done()
					return nil, ctx.Err()
				})))
		}, isHITL(context.DeadlineExceeded)},
		{"the reply's send answered 400 with the echo", func(t *testing.T, v a2a.Version, r *secretRun) {
			r.send(t, askingAgent(v), v, stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
				return hitl.Text("my answer is " + secretReply), nil
			})))
		}, func(t *testing.T, err error) {
			isHTTP(400)(t, err)
			var he *transport.HTTPError
			require.ErrorAs(t, err, &he)
			require.Contains(t, string(he.Body), secretReply)
		}},
		{"task failed", func(t *testing.T, v a2a.Version, r *secretRun) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateFailed, "upstream timed out")))
			r.send(t, agent, v)
		}, func(t *testing.T, err error) {
			var fe *terminal.FailedError
			require.ErrorAs(t, err, &fe)
			var texts []string
			for _, m := range fe.Task.History {
				texts = append(texts, m.Text())
			}
			require.Contains(t, texts, "please summarise "+secretText, "the task carries the history; the error text does not")
		}},
		{"cancelled context", func(t *testing.T, v a2a.Version, r *secretRun) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.Hang()))
			ctx, cancel := context.WithTimeout(background(), time.Second)
			defer cancel()
			_, r.err = drain(t, r.client(t, agent, v).Send(ctx, secretMessage()))
		}, func(t *testing.T, err error) { require.ErrorIs(t, err, context.DeadlineExceeded) }},
		{"get-task and cancel answered 500 with the echo", func(t *testing.T, v a2a.Version, r *secretRun) {
			h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				http.Error(w, echo(req), http.StatusInternalServerError)
			})
			c := r.client(t, h, v)
			_, err := c.GetTask(background(), "t-1")
			isHTTP(500)(t, err)
			requireNoSecrets(t, err, nil, "")
			_, r.err = c.Cancel(background(), "t-1")
		}, isHTTP(500)},
		{"get-task and cancel failing in the transport", func(t *testing.T, v a2a.Version, r *secretRun) {
			c := r.client(t, http.NotFoundHandler(), v, stream.WithHTTPClient(&http.Client{Transport: &resetTransport{}}))
			_, err := c.GetTask(background(), "t-1")
			requireRedactedURLError(t, err, errReset)
			requireNoSecrets(t, err, nil, "")
			_, r.err = c.Cancel(background(), "t-1")
		}, func(t *testing.T, err error) { requireRedactedURLError(t, err, errReset) }},
	}
	for _, v := range versions {
		for _, sc := range scenarios {
			t.Run(string(v)+"/"+sc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					r := &secretRun{}
					sc.run(t, v, r)
					require.Error(t, r.err)
					sc.check(t, r.err)
					requireNoSecrets(t, r.err, r.notices, r.logs.String())
				})
			})
		}
	}
}

// requestID reads the JSON-RPC ID of req and puts its body back.
func requestID(req *http.Request) json.RawMessage {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		panic(err)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		panic(err)
	}
	return m.ID
}

func TestNoSecretsInCardErrors(t *testing.T) {
	cards := []struct {
		name  string
		serve func(w http.ResponseWriter, r *http.Request)
		check func(t *testing.T, err error)
	}{
		{"HTTP 500 echoing the request", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, echo(r), http.StatusInternalServerError)
		}, func(t *testing.T, err error) {
			var he *transport.HTTPError
			require.ErrorAs(t, err, &he)
			requireEchoed(t, string(he.Body))
		}},
		{"malformed card holding the echo", func(w http.ResponseWriter, r *http.Request) {
			e, _ := json.Marshal(echo(r))
			fmt.Fprintf(w, `{"name":%s,"supportedInterfaces":5}`, e)
		}, func(t *testing.T, err error) {
			var ice *agentcard.InvalidError
			require.ErrorAs(t, err, &ice)
			require.Equal(t, "malformed JSON", ice.Reason)
		}},
		{"card without an interface, named after the echo", func(w http.ResponseWriter, r *http.Request) {
			e, _ := json.Marshal(echo(r))
			fmt.Fprintf(w, `{"name":%s,"description":%s}`, e, e)
		}, func(t *testing.T, err error) {
			var ice *agentcard.InvalidError
			require.ErrorAs(t, err, &ice)
			require.Contains(t, ice.Reason, "no JSON-RPC or HTTP+JSON interface")
		}},
		{"endless card", func(w http.ResponseWriter, r *http.Request) {
			e, _ := json.Marshal(echo(r))
			fmt.Fprintf(w, `{"name":%s,"description":"`, e)
			for {
				if _, err := w.Write(bytes.Repeat([]byte(oneLine(echo(r))), 64)); err != nil {
					return
				}
			}
		}, func(t *testing.T, err error) {
			var ice *agentcard.InvalidError
			require.ErrorAs(t, err, &ice)
			require.Equal(t, "reading the card", ice.Reason)
		}},
	}
	for _, c := range cards {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var paths []string
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					paths = append(paths, r.URL.Path)
					c.serve(w, r)
				})
				_, err := stream.Resolve(background(), "http://agent.test/?api_key="+secretQuery,
					append(withSecretHeaders(), stream.WithHTTPClient(a2atest.NewClient(h)))...)
				c.check(t, err)
				require.Equal(t, []string{agentcard.Path}, paths)
				requireNoSecrets(t, err, nil, "")
			})
		})
	}
}

// TestServerWordsAreQuotedAsTheServers documents the one exception: the
// message of a JSON-RPC error is the server's text, quoted as is by
// RPCError.Error and by the debug log of a refused resubscribe, up to its
// first 256 bytes. If a server echoes a credential there, it is the server
// that leaks it; the library adds nothing of its own around it.
func TestServerWordsAreQuotedAsTheServers(t *testing.T) {
	t.Parallel()
	// quoted is a message as RPCError.Error quotes it (ASCII here).
	quoted := func(msg string) string {
		if len(msg) <= 256 {
			return msg
		}
		return msg[:256] + "…"
	}
	for _, v := range versions {
		for _, pad := range []int{0, 1 << 20} {
			t.Run(fmt.Sprintf("%s/padded %d", v, pad), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var serverSaid []string
					r := &secretRun{}
					n := 0
					r.send(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
						n++
						id := requestID(req)
						msg := "bad token " + req.Header.Get("Authorization") + strings.Repeat(".", pad)
						serverSaid = append(serverSaid, msg)
						switch n {
						case 1:
							firstLegThenCut(w, id, v)
						case 2: // a refused resubscribe: logged at debug level
							jsonRPCError(w, id, a2a.CodeTaskNotFound, msg)
						default: // the get-task: returned as the error
							jsonRPCError(w, id, a2a.CodeInternalError, msg)
						}
					}), v)
					var rpcErr *a2a.RPCError
					require.ErrorAs(t, r.err, &rpcErr)
					require.Equal(t, "bad token Bearer "+secretToken+strings.Repeat(".", pad), rpcErr.Message, "the field keeps the message whole")
					require.Equal(t, "a2a: json-rpc error -32603 (internal error): "+quoted(rpcErr.Message), r.err.Error(),
						"the server's message, bounded, and nothing else of the request")
					logs := r.logs.String()
					require.Contains(t, logs, secretToken, "the refusal's message is logged as the server sent it")
					require.Less(t, len(logs), 4096, "the logs quote the message bounded too")
					// Without the server's own words, nothing is left.
					for _, said := range serverSaid {
						logs = strings.ReplaceAll(logs, quoted(said), "")
					}
					requireNoSecrets(t, errors.New(strings.ReplaceAll(r.err.Error(), quoted(rpcErr.Message), "")), nil, logs)
				})
			})
		}
	}
}

// TestCardErrorsHideURLPasswords: a password in the base URL is sent as a
// Basic Authorization header, so it is a credential like any other and must
// not appear in an InvalidCardError.
func TestCardErrorsHideURLPasswords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var gotUser, gotPass string
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotUser, gotPass, _ = r.BasicAuth()
			fmt.Fprint(w, `{"name":"x"}`)
		})
		_, err := stream.Resolve(background(), "http://user:"+secretToken+"@agent.test",
			stream.WithHTTPClient(a2atest.NewClient(h)))
		var ice *agentcard.InvalidError
		require.ErrorAs(t, err, &ice)
		require.Equal(t, "user", gotUser)
		require.Equal(t, secretToken, gotPass, "the password went out as a credential")
		requireNoSecrets(t, err, nil, "")
		require.NotContains(t, ice.URL, secretToken)
	})
}

// TestURLQueryValuesAreRedacted: an API key in the query string of a base
// URL, of a card's URL, or of the endpoint a card names, is a credential
// like a password. No error text of a Client, Resolve or FetchCard carries
// it; the keys stay readable.
func TestURLQueryValuesAreRedacted(t *testing.T) {
	const secretBase = "http://user:" + secretToken + "@agent.test/?api_key=" + secretQuery + "&x&=" + secretKey
	type result struct {
		err   error
		shown string // the URL as the error must show it
	}
	cases := []struct {
		name string
		run  func(t *testing.T) result
	}{
		{"NewClient of a non-HTTP endpoint", func(t *testing.T) result {
			_, err := stream.NewClient("ftp://agent.test/rpc?api_key=" + secretQuery + "#" + secretKey)
			return result{err, `"ftp://agent.test/rpc?api_key=xxxxx#xxxxx"`}
		}},
		{"Resolve of a non-HTTP base URL", func(t *testing.T) result {
			_, err := stream.Resolve(background(), "ftp://user:"+secretToken+"@agent.test/?api_key="+secretQuery)
			return result{err, `"ftp://xxxxx:xxxxx@agent.test/?api_key=xxxxx"`}
		}},
		{"a card naming a non-HTTP endpoint", func(t *testing.T) result {
			h := serveCard(cardFor(a2a.V10, "ftp://agent.test/rpc?api_key="+secretQuery))
			_, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(a2atest.NewClient(h)))
			return result{err, `"ftp://agent.test/rpc?api_key=xxxxx"`}
		}},
		{"the card request failing in the transport", func(t *testing.T) result {
			_, err := stream.Resolve(background(), secretBase, stream.WithHTTPClient(&http.Client{Transport: &resetTransport{}}))
			require.ErrorIs(t, err, errReset)
			var ue *url.Error
			require.ErrorAs(t, err, &ue)
			return result{err, `"http://xxxxx:xxxxx@agent.test/.well-known/agent-card.json?api_key=xxxxx&xxxxx&=xxxxx"`}
		}},
		{"a signed card URL, the card malformed", func(t *testing.T) result {
			rec := &targetRecorder{h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"name":`)
			})}
			_, err := agentcard.Fetch(background(), "http://agent.test/cards/x.json?sig="+secretQuery, agentcard.WithHTTPClient(a2atest.NewClient(rec)))
			require.Equal(t, []string{"GET /cards/x.json?sig=" + secretQuery}, rec.since(0), "the card request keeps its signature")
			var invalid *agentcard.InvalidError
			require.ErrorAs(t, err, &invalid)
			require.Equal(t, "http://agent.test/cards/x.json?sig=xxxxx", invalid.URL)
			return result{err, "http://agent.test/cards/x.json?sig=xxxxx: malformed JSON"}
		}},
		{"a keyed REST base URL, the send failing", func(t *testing.T) result {
			c, err := stream.NewRESTClient("http://agent.test/api?code="+secretQuery, stream.WithVersion(a2a.V10),
				stream.WithHTTPClient(&http.Client{Transport: &resetTransport{}}))
			require.NoError(t, err)
			_, err = drain(t, c.Send(background(), hello()))
			require.ErrorIs(t, err, errReset)
			return result{err, `"http://agent.test/api/message:stream?code=xxxxx"`}
		}},
		{"a keyed REST base URL, get-task failing", func(t *testing.T) result {
			c, err := stream.NewRESTClient("http://agent.test/api?code="+secretQuery, stream.WithVersion(a2a.V03),
				stream.WithHTTPClient(&http.Client{Transport: &resetTransport{}}))
			require.NoError(t, err)
			_, err = c.GetTask(background(), "t-1")
			require.ErrorIs(t, err, errReset)
			return result{err, `"http://agent.test/api/v1/tasks/t-1?code=xxxxx&historyLength=xxxxx"`}
		}},
		{"the card redirected in a loop keeping a query", func(t *testing.T) result {
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, r.URL.Path+"?api_key="+secretQuery, http.StatusFound)
			})
			_, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(a2atest.NewClient(h)))
			var ue *url.Error
			require.ErrorAs(t, err, &ue)
			return result{err, `"/.well-known/agent-card.json?api_key=xxxxx"`}
		}},
		{"a card naming an endpoint with a query, the send failing", func(t *testing.T) result {
			card := serveCard(cardFor(a2a.V10, secretEndpoint))
			rt := &resetTransport{next: a2atest.NewTransport(card), fail: func(n int) bool { return n > 1 }}
			c, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: rt}))
			require.NoError(t, err)
			require.Equal(t, secretEndpoint, c.Endpoint(), "the caller's own view keeps the key")
			_, err = drain(t, c.Send(background(), hello()))
			requireRedactedURLError(t, err, errReset)
			return result{err, `"` + shownEndpoint + `"`}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := c.run(t)
				require.Error(t, r.err)
				requireNoSecrets(t, r.err, nil, "")
				require.Contains(t, r.err.Error(), r.shown)
			})
		})
	}
}

// originSpy routes requests by origin and records, for each, the origin, the
// path and the credentials it carried.
type originSpy struct {
	mu     sync.Mutex
	routes map[string]http.Handler // by scheme://host
	fall   http.Handler
	seen   []spied
}

type spied struct {
	origin, path, auth, key string
}

func (s *originSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	o := r.URL.Scheme + "://" + r.URL.Host
	s.mu.Lock()
	s.seen = append(s.seen, spied{o, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key")})
	h := s.routes[o]
	s.mu.Unlock()
	if h == nil {
		h = s.fall
	}
	return a2atest.NewTransport(h).RoundTrip(r)
}

// requireCredentials checks that every request to origin carried (or did not
// carry) both secret headers, and that there was at least one.
func (s *originSpy) requireCredentials(t *testing.T, origin string, want bool) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.seen {
		if r.origin != origin {
			continue
		}
		n++
		if want {
			require.Equal(t, "Bearer "+secretToken, r.auth, "%s%s", r.origin, r.path)
			require.Equal(t, secretKey, r.key, "%s%s", r.origin, r.path)
		} else {
			require.Empty(t, r.auth, "no credential to %s%s", r.origin, r.path)
			require.Empty(t, r.key, "no credential to %s%s", r.origin, r.path)
		}
	}
	require.NotZero(t, n, "no request reached %s", origin)
}

func TestCredentialsDoNotFollowACardRedirect(t *testing.T) {
	for _, v := range versions {
		for _, endpoint := range []string{"http://agent.test/", "http://cdn.test/rpc"} {
			t.Run(string(v)+"/endpoint "+endpoint, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					// agent.test redirects its card to a CDN on another host.
					agent := a2atest.NewAgent(a2atest.WithVersions(v))
					cdn := http.NewServeMux()
					cdn.Handle("/cards/agent.json", serveCard(cardFor(v, endpoint)))
					cdn.Handle("/rpc", agent)
					home := http.NewServeMux()
					home.Handle(agentcard.Path, http.RedirectHandler("http://cdn.test/cards/agent.json", http.StatusFound))
					home.Handle("/", agent)
					spy := &originSpy{routes: map[string]http.Handler{"http://agent.test": home, "http://cdn.test": cdn}}
					client, err := stream.Resolve(background(), "http://agent.test",
						append(withSecretHeaders(), stream.WithHTTPClient(&http.Client{Transport: spy}))...)
					require.NoError(t, err)
					require.Equal(t, endpoint, client.Endpoint())
					require.Equal(t, v, client.Version())
					_, err = drain(t, client.Send(background(), hello()))
					require.NoError(t, err)
					require.Len(t, agent.Requests(), 1)
					spy.requireCredentials(t, "http://cdn.test", false)
					if endpoint == "http://agent.test/" {
						// The card request and the send: the caller's origin.
						spy.requireCredentials(t, "http://agent.test", true)
					}
				})
			})
		}
	}
}

func TestCredentialsStayOnTheCardsOrigin(t *testing.T) {
	endpoints := []struct {
		endpoint, origin string
		same             bool
	}{
		{"https://agent.test/", "https://agent.test", false},
		{"http://agent.test:8080/", "http://agent.test:8080", false},
		{"http://api.agent.test/", "http://api.agent.test", false},
		{"//elsewhere.test/rpc", "http://elsewhere.test", false},
		{"/rpc", "http://agent.test", true},
		{"http://agent.test/rpc", "http://agent.test", true},
	}
	for _, v := range versions {
		for _, e := range endpoints {
			t.Run(string(v)+"/"+e.endpoint, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
						a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
					home := http.NewServeMux()
					home.Handle(agentcard.Path, serveCard(cardFor(v, e.endpoint)))
					home.Handle("/", agent)
					spy := &originSpy{routes: map[string]http.Handler{"http://agent.test": home}, fall: agent}
					client, err := stream.Resolve(background(), "http://agent.test",
						append(withSecretHeaders(), stream.WithHTTPClient(&http.Client{Transport: spy}))...)
					require.NoError(t, err)
					s := client.Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					wirematrix.RequireSameAsServer(t, agent, s, got.fold)
					// Send, resubscribe and get-task all went to the endpoint.
					require.Len(t, agent.Requests(), 3)
					spy.requireCredentials(t, e.origin, e.same)
					if !e.same {
						spy.mu.Lock()
						require.Equal(t, agentcard.Path, spy.seen[0].path)
						require.Equal(t, "Bearer "+secretToken, spy.seen[0].auth, "the card request is the caller's origin")
						spy.mu.Unlock()
					}
				})
			})
		}
	}
}

// redirectAllButSends serves the sends of agent and redirects every other
// JSON-RPC call (the resubscribe, the get-task) to target with a 307, which
// keeps the method and the body.
func redirectAllButSends(agent http.Handler, target string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !bytes.Contains(body, []byte(`"message"`)) {
			http.Redirect(w, r, target+"/", http.StatusTemporaryRedirect)
			return
		}
		agent.ServeHTTP(w, r)
	})
}

func TestCredentialsDoNotFollowRedirectsOfAnyCall(t *testing.T) {
	targets := []string{"http://elsewhere.test", "http://api.agent.test", "http://agent.test:8443", "https://agent.test"}
	for _, v := range versions {
		for _, target := range targets {
			t.Run(string(v)+"/"+target, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					// The origin redirects the resubscribe and the get-task
					// (a 307 keeps method and body) to another origin.
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
						a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
					home := redirectAllButSends(agent, target)
					spy := &originSpy{routes: map[string]http.Handler{"http://agent.test": home}, fall: agent}
					c, err := stream.NewClient("http://agent.test/", append(withSecretHeaders(), stream.WithVersion(v),
						stream.WithHTTPClient(&http.Client{Transport: spy}))...)
					require.NoError(t, err)
					s := c.Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					wirematrix.RequireSameAsServer(t, agent, s, got.fold)
					require.Len(t, agent.Requests(), 3, "send, resubscribe and get-task")
					require.Equal(t, 1, wirematrix.Resubscribes(agent))
					require.Equal(t, 1, gets(agent))
					spy.requireCredentials(t, "http://agent.test", true)
					spy.requireCredentials(t, target, false)
				})
			})
		}
	}
}

func TestHeadersStayOnTheAgentsOrigin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The card points to an endpoint on another host: the credential
		// goes with the card request only.
		agent := a2atest.NewAgent()
		card := `{"name":"x","supportedInterfaces":[{"url":"http://elsewhere.test/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`
		cardAgent := a2atest.NewAgent(a2atest.WithCardJSON([]byte(card)))
		spy := &headerSpy{seen: map[string][]string{}, next: roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			if r.URL.Host == "agent.test" {
				return a2atest.NewTransport(cardAgent).RoundTrip(r)
			}
			return a2atest.NewTransport(agent).RoundTrip(r)
		})}
		client, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: spy}),
			stream.WithHeader("Authorization", "Bearer secret"))
		require.NoError(t, err)
		_, err = drain(t, client.Send(background(), hello()))
		require.NoError(t, err)
		require.Equal(t, []string{"Bearer secret"}, spy.seen["agent.test"])
		require.Equal(t, []string{""}, spy.seen["elsewhere.test"], "no credential to another host")

		// Same origin: every request carries it.
		spy.seen = map[string][]string{}
		same, err := stream.NewClient("http://elsewhere.test/", stream.WithHTTPClient(&http.Client{Transport: spy}),
			stream.WithHeader("Authorization", "Bearer secret"))
		require.NoError(t, err)
		_, err = drain(t, same.Send(background(), hello()))
		require.NoError(t, err)
		require.Equal(t, []string{"Bearer secret"}, spy.seen["elsewhere.test"])
	})
}

func TestHeadersAreDroppedOnCrossOriginRedirects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent()
		redirector := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://elsewhere.test/", http.StatusTemporaryRedirect)
		})
		spy := &headerSpy{seen: map[string][]string{}, next: roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			if r.URL.Host == "agent.test" {
				return a2atest.NewTransport(redirector).RoundTrip(r)
			}
			return a2atest.NewTransport(agent).RoundTrip(r)
		})}
		c, err := stream.NewClient("http://agent.test/", stream.WithVersion(a2a.V10),
			stream.WithHTTPClient(&http.Client{Transport: spy}), stream.WithHeader("X-Api-Key", "k"))
		require.NoError(t, err)
		_, err = drain(t, c.Send(background(), hello()))
		require.NoError(t, err)
		require.Len(t, spy.seen["elsewhere.test"], 1)
		for _, r := range agent.Requests() {
			require.Empty(t, r.Header.Get("X-Api-Key"), "a custom header must not follow a redirect to another host")
		}
	})
}

// A per-call header does not follow a redirect to another origin, as the
// Client's headers do not: another host, or the same host over http where
// the caller named https.
func TestPerCallCredentialsDoNotFollowRedirects(t *testing.T) {
	const home = "https://agent.test"
	for _, target := range []string{"https://elsewhere.test", "http://agent.test"} {
		t.Run(target, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V10), a2atest.WithScript(wirematrix.Paced()...),
					a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
				spy := &originSpy{routes: map[string]http.Handler{home: redirectAllButSends(agent, target)}, fall: agent}
				c, err := stream.NewClient(home+"/", stream.WithVersion(a2a.V10), stream.WithHTTPClient(&http.Client{Transport: spy}))
				require.NoError(t, err)
				_, err = drain(t, c.Send(background(), hello(), withSecretHeaders()...))
				require.NoError(t, err)
				spy.requireCredentials(t, home, true)
				spy.requireCredentials(t, target, false)
			})
		})
	}
}

func TestEndlessRedirectsFailLikeNetHTTP(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// With WithHeader the client installs its own redirect policy; it
		// must stop after 10 redirects with an error, as net/http's default
		// does, not hand back the 11th redirect as if it were the answer.
		hops := 0
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hops++
			http.Redirect(w, r, "/again", http.StatusTemporaryRedirect)
		})
		_, err := drain(t, newClient(t, h, a2a.V10, stream.WithHeader("X-Api-Key", "k")).Send(background(), hello()))
		require.Error(t, err)
		var httpErr *transport.HTTPError
		require.False(t, errors.As(err, &httpErr), "a redirect is not the agent's answer: %v", err)
		var re *reconnect.Error
		require.ErrorAs(t, err, &re, "no response: the message may not have arrived, and no task is known")
		require.Equal(t, 10, hops, "the original request and 9 redirects, as net/http counts")
	})
}

func TestErrorTextQuotesServerDataBriefly(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		huge := strings.Repeat("i", 1<<20)
		h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
			sseHeaders(w)
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%q,\"result\":{\"kind\":\"message\"}}\n\n", huge)
		})
		_, err := drain(t, newClient(t, h, a2a.V10, stream.WithReconnect(reconnect.Never())).Send(background(), hello()))
		var pe *transport.ProtocolError
		require.ErrorAs(t, err, &pe)
		require.Less(t, len(err.Error()), 400, "a megabyte of server data is not copied into the error text")
	})
}

// cardOf returns a card of version v whose only interface is endpoint, in
// binding b.
func cardOf(v a2a.Version, b a2a.Binding, endpoint string) string {
	if v == a2a.V03 {
		return fmt.Sprintf(`{"name":"x","url":%q,"preferredTransport":%q,"protocolVersion":"0.3.0"}`, endpoint, string(b))
	}
	return fmt.Sprintf(`{"name":"x","supportedInterfaces":[{"url":%q,"protocolBinding":%q,"protocolVersion":"1.0"}]}`, endpoint, string(b))
}

// Headers given to one call follow the Client's origin rule: they go only to
// the origin the caller named in Resolve, never to another origin that the
// card names, and never from https down to http on the same host. Every
// call of the stream (send, resubscribe, get-task) and GetTask and Cancel
// are checked, on both bindings and both versions.
func TestPerCallCredentialsStayOnTheCallersOrigin(t *testing.T) {
	const named = "https://agent.test"
	endpoints := []struct {
		endpoint, origin string
		same             bool
	}{
		{"https://evil.test/", "https://evil.test", false},
		{"http://agent.test/", "http://agent.test", false},
		{"https://agent.test:8443/", "https://agent.test:8443", false},
		{"https://agent.test/", named, true},
	}
	for _, v := range versions {
		for _, b := range bothBindings {
			for _, e := range endpoints {
				t.Run(string(v)+"/"+string(b)+"/"+e.endpoint, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithScript(wirematrix.Paced()...),
							a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
						home := http.NewServeMux()
						home.Handle(agentcard.Path, serveCard(cardOf(v, b, e.endpoint)))
						home.Handle("/", agent)
						spy := &originSpy{routes: map[string]http.Handler{named: home}, fall: agent}
						client, err := stream.Resolve(background(), named, stream.WithHTTPClient(&http.Client{Transport: spy}))
						require.NoError(t, err)
						require.Equal(t, b, client.Binding())
						s := client.Send(background(), hello(), withSecretHeaders()...)
						got, err := drain(t, s)
						require.NoError(t, err)
						wirematrix.RequireSameAsServer(t, agent, s, got.fold)
						require.Equal(t, 1, wirematrix.Resubscribes(agent))
						_, err = client.GetTask(background(), s.Task().ID, withSecretHeaders()...)
						require.NoError(t, err)
						_, _ = client.Cancel(background(), s.Task().ID, withSecretHeaders()...)

						spy.mu.Lock()
						defer spy.mu.Unlock()
						n := 0
						for _, r := range spy.seen {
							if r.path == agentcard.Path {
								require.Empty(t, r.auth, "the card request was given no header")
								continue
							}
							n++
							require.Equal(t, e.origin, r.origin, "every call goes to the card's endpoint")
							if e.same {
								require.Equal(t, "Bearer "+secretToken, r.auth, "%s%s", r.origin, r.path)
								require.Equal(t, secretKey, r.key, "%s%s", r.origin, r.path)
							} else {
								require.Empty(t, r.auth, "no credential to %s%s", r.origin, r.path)
								require.Empty(t, r.key, "no credential to %s%s", r.origin, r.path)
							}
						}
						require.Equal(t, 5, n, "send, resubscribe, get-task, GetTask and Cancel")
					})
				})
			}
		}
	}
}

// TestErrorsAndLogsHoldNoSecret: whatever the failure (no such
// host, a 5xx page, a 503 with Retry-After, a cut, malformed JSON, a wrong
// content type, a redirect loop), no error text and no log line holds a
// header value, a URL password or a query value, on every call kind and
// wire.
func TestErrorsAndLogsHoldNoSecret(t *testing.T) {
	t.Parallel()
	failures := map[string]http.HandlerFunc{
		"html-500": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(500)
			fmt.Fprintf(w, "<html>%s</html>", r.URL.String())
		},
		"503-retry-after": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(503)
		},
		"cut": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.Write([]byte("data: {\"jso"))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		},
		"bad-json": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte("{not json"))
		},
		"wrong-type": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("PNG"))
		},
		"redirect-loop": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.RequestURI(), http.StatusTemporaryRedirect)
		},
		"no-such-host": nil,
	}
	for _, w := range wires() {
		for name, h := range failures {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					mo := newOriginRouter()
					if h != nil {
						mo.serve("https://agent.test", h)
					}
					log := &logCapture{}
					c := keyedLoggedClient(t, w, mo.client(), log)
					ctx := context.Background()
					_, err := c.Send(ctx, hello(), stream.WithHeader("X-Call-Token", "call-secret")).Wait()
					require.Error(t, err)
					requireNoSecret(t, err, log, "send")
					_, err = c.Subscribe(ctx, "t-1", stream.WithHeader("X-Call-Token", "call-secret")).Wait()
					require.Error(t, err)
					requireNoSecret(t, err, log, "subscribe")
					_, err = c.GetTask(ctx, "t-1", stream.WithHeader("X-Call-Token", "call-secret"))
					require.Error(t, err)
					requireNoSecret(t, err, log, "get")
					_, err = c.Cancel(ctx, "t-1", stream.WithHeader("X-Call-Token", "call-secret"))
					require.Error(t, err)
					requireNoSecret(t, err, log, "cancel")
					require.NotEmpty(t, mo.recorded())
				})
			})
		}
	}
}

// TestCardErrorsHoldNoSecret: Resolve and FetchCard of a keyed or
// signed card URL (a .json URL with ?sig=, a base URL with ?code=, a URL
// password) that fails hold no secret in their error text or logs.
func TestCardErrorsHoldNoSecret(t *testing.T) {
	bases := []string{
		"https://agent.test/cards/a.json?sig=sig-secret",
		"https://agent.test/?code=code-secret",
		"https://agent.test/agents/x?code=code-secret",
		"https://user:pw-secret@agent.test/",
	}
	answers := map[string]http.HandlerFunc{
		"404":      http.NotFound,
		"html-500": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "<html>oops</html>", 500) },
		"not-json": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>hello</html>")) },
		"no-iface": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"name":"x","supportedInterfaces":[]}`)) },
		"redirects": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.RequestURI(), http.StatusFound)
		},
		"unknown-host": nil,
	}
	for _, base := range bases {
		for name, h := range answers {
			t.Run(name+"/"+base, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					mo := newOriginRouter()
					if h != nil {
						mo.serve("https://agent.test", h)
					}
					log := &logCapture{}
					_, err := stream.Resolve(context.Background(), base, stream.WithHTTPClient(mo.client()), stream.WithLogger(log.logger()),
						stream.WithHeader("Authorization", "Bearer service-secret"))
					require.Error(t, err)
					requireNoSecret(t, err, log, "resolve")
					var ice *agentcard.InvalidError
					if errors.As(err, &ice) {
						require.NotContains(t, ice.Reason, "secret")
					}
					_, err = agentcard.Fetch(context.Background(), base, agentcard.WithHTTPClient(mo.client()),
						agentcard.WithHeader("Authorization", "Bearer service-secret"))
					if name != "no-iface" { // agentcard.Fetch chooses no interface
						require.Error(t, err)
					}
					requireNoSecret(t, err, log, "fetch card")
				})
			})
		}
	}
}

// TestInvalidHeaderErrorHoldsNoValue: a header value refused for a
// line break is not quoted in the refusal, from a constructor or per call.
func TestInvalidHeaderErrorHoldsNoValue(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := scriptedAgent(w)
			bad := stream.WithHeader("Authorization", "Bearer tok-secret\r\nX-Evil: 1")
			_, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()), bad)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.NotContains(t, err.Error(), "secret")
			_, err = stream.Resolve(context.Background(), "http://agent.test/", stream.WithHTTPClient(agent.Client()), bad)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.NotContains(t, err.Error(), "secret")
			c, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()), stream.WithVersion(w.v))
			require.NoError(t, err)
			_, err = c.Send(context.Background(), hello(), bad).Wait()
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.NotContains(t, err.Error(), "secret")
			_, err = c.GetTask(context.Background(), "t-1", bad)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.NotContains(t, err.Error(), "secret")
			require.Empty(t, agent.Requests(), "nothing is sent")
		})
	}
}

var _ = strings.Contains
