// Command breaker is an agent, digest, that asks three agents the same
// question at once and needs two answers (in one round, all three). It
// shows circuit breaking and quorums for callers, and what an agent
// answers its own caller when its quorum is out of reach:
//
//   - each agent has one circuit breaker, gobreaker's TwoStepCircuitBreaker
//     (github.com/sony/gobreaker/v2), given to its Client with
//     stream.WithBreaker; every Client of that agent would share it. After
//     two failures in a row the circuit opens, and calls to the agent fail
//     at once with transport.ErrCircuitOpen, without a request; a minute later
//     one probe goes through (half-open);
//   - fanout.Quorum runs the calls concurrently, returns as soon as enough
//     succeeded (or as soon as that is out of reach), cancels the calls it
//     no longer needs, and reports every failure: the program sorts them
//     by type with errors.Is and errors.As;
//   - when the quorum is out of reach, digest answers its own caller with
//     the JSON-RPC error that chain.Error builds from the failure
//     that decided it: an internal error whose data names digest and the
//     downstream agent, with the downstream agent's HTTP status and retry
//     hint. Its caller decodes the error as any JSON-RPC client would and
//     reads the chain back with chain.Of. The error is written in A2A
//     0.3, whose data nests one link in the next; in 1.0 the same links are
//     google.rpc.ErrorInfo details.
//
// The agents run in process: flaky answers every request with HTTP 503 and
// Retry-After: 60; weather and news answer once flaky's call of the round
// has ended, but in the round that needs all three they think longer than
// anyone waits (so every run ends the same way). Run it
// from this directory (it is a module of its own, so that the library does
// not depend on gobreaker):
//
//	go run .
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chain"
	"github.com/a2astream/a2astream/fanout"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "breaker:", err)
		os.Exit(1)
	}
}

// thinking holds the answers of weather and news, so that every run ends
// the same way: in a round, they answer once flaky's call has ended (its
// request failed, or its breaker refused it), and in a slow round not at
// all (they are cancelled first). Without
// it, which call ends first, and so which calls a round needs, would be up
// to the scheduler.
type thinking struct {
	mu   sync.Mutex
	done chan struct{} // closed when the answers of the round may go out
}

// newRound starts a round: the answers are held.
func (t *thinking) newRound() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done = make(chan struct{})
}

// stop lets the answers of the round go out.
func (t *thinking) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	close(t.done)
}

// hold returns h, answering once the round's thinking stopped, and not at
// all when the request is cancelled first.
func (t *thinking) hold(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.mu.Lock()
		done := t.done
		t.mu.Unlock()
		select {
		case <-done:
			h.ServeHTTP(w, r)
		case <-r.Context().Done():
		}
	})
}

// agent is one agent the program asks, with its Client and its breaker.
type agent struct {
	name    string
	breaker *gobreaker.TwoStepCircuitBreaker[any]
	client  *stream.Client
	served  *atomic.Int32 // the requests that reached the agent
}

// newAgent returns the agent called name served by h, with a breaker of its
// own.
func newAgent(name string, h http.Handler) (*agent, error) {
	served := new(atomic.Int32)
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		h.ServeHTTP(w, r)
	})
	b := gobreaker.NewTwoStepCircuitBreaker[any](gobreaker.Settings{
		Name:        name,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 2 },
		Timeout:     time.Minute, // then half-open: one probe
		// A call that fanout.Quorum (or the caller) cancelled says nothing
		// about the agent.
		IsExcluded: func(err error) bool { return errors.Is(err, context.Canceled) },
	})
	c, err := stream.NewClient("http://"+name+".agents.example/",
		stream.WithHTTPClient(a2atest.NewClient(counted)), stream.WithBreaker(b))
	if err != nil {
		return nil, err
	}
	return &agent{name: name, breaker: b, client: c, served: served}, nil
}

// answering is an agent that answers text.
func answering(text string) http.Handler {
	return a2atest.NewAgent(a2atest.WithScript(
		a2atest.Chunk("answer", text, false, true),
		a2atest.Finish(a2a.StateCompleted, ""),
	))
}

// unavailable is an agent that answers every request with HTTP 503,
// asking to be called again in a minute.
var unavailable = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Retry-After", "60")
	http.Error(w, "overloaded", http.StatusServiceUnavailable)
})

// ask returns the call that asks a the question: the answer is the text of
// the task's artifacts.
func (a *agent) ask(question string) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		task, err := a.client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, question)).Wait()
		if err != nil {
			return "", err
		}
		var texts []string
		for _, art := range task.Artifacts {
			texts = append(texts, art.Text())
		}
		return strings.Join(texts, " "), nil
	}
}

// self is this agent's name in the errors it answers its own caller with.
const self = "digest"

// run makes three rounds of questions, needing two answers, then all
// three, then two, and prints how each call ended and, when the quorum was
// out of reach, the error digest answers its caller with and the chain the
// caller reads in it.
func run(ctx context.Context, w io.Writer) error {
	think := new(thinking)
	var agents []*agent
	for _, spec := range []struct {
		name string
		h    http.Handler
	}{
		{"weather", think.hold(answering("Sunny, 24°C."))},
		{"news", think.hold(answering("Markets are calm."))},
		{"flaky", unavailable},
	} {
		a, err := newAgent(spec.name, spec.h)
		if err != nil {
			return err
		}
		agents = append(agents, a)
	}

	rounds := []struct {
		need int
		slow bool // weather and news think longer than anyone waits
	}{{need: 2}, {need: 3, slow: true}, {need: 2}}
	for n, round := range rounds {
		think.newRound()
		calls := make([]func(context.Context) (string, error), len(agents))
		for i, a := range agents {
			calls[i] = a.ask("What is new today?")
		}
		if !round.slow {
			askFlaky := calls[2]
			calls[2] = func(ctx context.Context) (string, error) {
				defer think.stop()
				return askFlaky(ctx)
			}
		}
		results, err := fanout.Quorum(ctx, round.need, calls...)
		fmt.Fprintf(w, "round %d, %d answers needed: %s\n", n+1, round.need, verdict(err))
		for i, res := range results {
			fmt.Fprintf(w, "  %-8s circuit %-7s %s\n", agents[i].name, agents[i].breaker.State(), describe(res))
		}
		if err == nil {
			continue
		}
		i := decisive(results)
		if i < 0 {
			return err
		}
		if err := answerCaller(w, n+1, chain.Error(results[i].Err, a2a.V03, self, agents[i].name)); err != nil {
			return err
		}
	}
	flaky := agents[2]
	fmt.Fprintf(w, "%s received %d requests in %d rounds\n", flaky.name, flaky.served.Load(), len(rounds))
	return nil
}

// decisive returns the index of the failure that put a quorum out of
// reach: the first call, in the order of the calls, that failed by itself
// rather than being cancelled as not needed; -1 when there is none (the
// fan-out's own context ended).
func decisive(results []fanout.Result[string]) int {
	for i, r := range results {
		if r.Err != nil && !errors.Is(r.Err, fanout.ErrNotNeeded) && !errors.Is(r.Err, context.Canceled) {
			return i
		}
	}
	return -1
}

// response is a JSON-RPC error response.
type response struct {
	JSONRPC string        `json:"jsonrpc"`
	ID      int           `json:"id"`
	Error   *a2a.RPCError `json:"error"`
}

// answerCaller prints the JSON-RPC response digest answers request id of
// its caller with, and then the chain that caller reads in it: it decodes
// the response as any JSON-RPC client would, and chain.Of reads the
// links.
func answerCaller(w io.Writer, id int, answer *a2a.RPCError) error {
	body, err := json.Marshal(response{JSONRPC: "2.0", ID: id, Error: answer})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  %s answers its caller: %s\n", self, body)

	var got struct {
		Error *a2a.RPCError `json:"error"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		return err
	}
	fmt.Fprintln(w, "  the caller reads the chain:")
	for _, l := range chain.Of(got.Error) {
		fmt.Fprintf(w, "    %s: code %d, %q", l.Agent, l.Code, l.Message)
		if l.HTTPStatus != 0 {
			fmt.Fprintf(w, ", HTTP %d", l.HTTPStatus)
		}
		if l.Retryable {
			fmt.Fprintf(w, ", retryable after %v", l.RetryAfter)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// verdict says how a fan-out ended.
func verdict(err error) string {
	var qe *fanout.QuorumError
	if err == nil {
		return "quorum reached"
	}
	if errors.As(err, &qe) {
		return fmt.Sprintf("quorum not reached, %d answered", qe.Succeeded)
	}
	return "error: " + err.Error()
}

// describe says how one call ended, by the type of its error.
func describe(r fanout.Result[string]) string {
	var (
		httpErr *transport.HTTPError
		failed  *terminal.FailedError
		gaveUp  *reconnect.Error
	)
	switch err := r.Err; {
	case err == nil:
		return "answered: " + r.Value
	case errors.Is(err, transport.ErrCircuitOpen):
		return "skipped: its circuit is open"
	case errors.Is(err, fanout.ErrNotNeeded):
		return "cancelled: not needed"
	case errors.As(err, &httpErr):
		return "failed: HTTP " + httpErr.Status
	case errors.As(err, &failed):
		return "the task failed"
	case errors.As(err, &gaveUp):
		return fmt.Sprintf("unreachable after %d attempts", gaveUp.Attempts)
	default:
		return "error: " + err.Error()
	}
}
