// Command oauth2 shows a stream that waits through auth-required with OAuth2
// credentials: the agent takes the question, then asks the client to sign in
// before it reads the user's calendar. A credentials hook (WithCredentials)
// gets a token from an OAuth2 token source (client credentials, against a
// token endpoint) and the stream continues the same task with it, never
// sending the question again.
//
// The token endpoint and the agent run in process:
//
//	cd examples/oauth2 && go run .
//
// It is a module of its own, so that golang.org/x/oauth2 stays out of the
// library's go.mod.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/stream"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "oauth2:", err)
		os.Exit(1)
	}
}

// The demo's client registration at the token endpoint.
const (
	clientID     = "calendar-client"
	clientSecret = "not-a-real-secret"
)

// run asks the calendar agent a question, signing in with OAuth2 when the
// agent asks for it, and writes the conversation to out.
func run(ctx context.Context, out io.Writer) error {
	issuer := &tokenEndpoint{}
	// Like @a2a-js/sdk, the agent keeps a subscription to a task that waits
	// for credentials open.
	agent := &calendarAgent{issuer: issuer, next: a2atest.NewAgent(a2atest.WithStayOpenOnInterrupt(), a2atest.WithScript(
		a2atest.Working("Checking your calendar."),
		a2atest.AskAuth("Sign in to read your calendar."),
		a2atest.Pause(20*time.Millisecond), // the agent reads the calendar
		a2atest.Chunk("answer", "You are free on Tuesday at 10:00.", false, true),
		a2atest.Finish(a2a.StateCompleted, ""),
	))}

	// The OAuth2 client: client credentials, against the token endpoint
	// reached in process. TokenSource caches the token until it expires.
	cc := &clientcredentials.Config{ClientID: clientID, ClientSecret: clientSecret,
		TokenURL: "http://auth.test/token", Scopes: []string{"calendar"}}
	ts := cc.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, a2atest.NewClient(issuer)))

	hook := tokenCredentials(ts)
	c, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(a2atest.NewClient(agent)),
		stream.WithVersion(a2a.V10), stream.WithInputTimeout(10*time.Second),
		stream.WithCredentials(credentials.Func(func(ctx context.Context, req *credentials.Request) (http.Header, error) {
			fmt.Fprintf(out, "credentials hook, attempt %d: asking the token endpoint\n", req.Attempt)
			return hook.Credentials(ctx, req)
		})))
	if err != nil {
		return err
	}

	question := a2a.NewTextMessage(a2a.RoleUser, "When am I free this week?")
	fmt.Fprintln(out, "you:", question.Text())
	s := c.Send(ctx, question)
	for ev, err := range s.All() {
		if err != nil {
			return err
		}
		switch e := ev.(type) {
		case *a2a.StatusUpdate:
			if text := e.Status.Message.Text(); text != "" {
				fmt.Fprintf(out, "agent (%s): %s\n", e.Status.State, text)
			} else {
				fmt.Fprintf(out, "agent (%s)\n", e.Status.State)
			}
		case *a2a.ArtifactUpdate:
			fmt.Fprintln(out, "agent:", e.Artifact.Text())
		}
	}
	fmt.Fprintf(out, "tokens issued: %d; calls refused for want of a token: %d\n", issuer.issued(), agent.refusedCalls())
	return nil
}

// tokenEndpoint is an OAuth2 token endpoint (RFC 6749 §4.4) that gives
// calendar tokens to the demo's client.
type tokenEndpoint struct {
	mu     sync.Mutex
	tokens []string
}

func (e *tokenEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if r.Method != http.MethodPost || r.PostFormValue("grant_type") != "client_credentials" {
		http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
		return
	}
	if !ok || id != clientID || secret != clientSecret {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":"invalid_client"}`)
		return
	}
	e.mu.Lock()
	tok := "calendar-token-" + strconv.Itoa(len(e.tokens)+1)
	e.tokens = append(e.tokens, tok)
	e.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600, "scope": "calendar"})
}

// valid reports whether an Authorization header carries a token it issued.
func (e *tokenEndpoint) valid(authorization string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, tok := range e.tokens {
		if authorization == "Bearer "+tok {
			return true
		}
	}
	return false
}

func (e *tokenEndpoint) issued() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.tokens)
}

// calendarAgent takes a message from anyone, but follows a task
// (SubscribeToTask, GetTask) only for a caller with a calendar token: it
// answers 401 otherwise.
type calendarAgent struct {
	issuer *tokenEndpoint
	next   http.Handler

	mu      sync.Mutex
	refused int
}

func (a *calendarAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var call struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &call)
	if call.Method != "SendStreamingMessage" && !a.issuer.valid(r.Header.Get("Authorization")) {
		a.mu.Lock()
		a.refused++
		a.mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Bearer scope="calendar"`)
		http.Error(w, "sign in first", http.StatusUnauthorized)
		return
	}
	a.next.ServeHTTP(w, r)
}

func (a *calendarAgent) refusedCalls() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.refused
}
