// Command breaker asks three agents the same question at once and needs two
// answers. It shows circuit breaking for callers:
//
//   - each agent has one circuit breaker, gobreaker's TwoStepCircuitBreaker
//     (github.com/sony/gobreaker/v2), given to its Client with
//     stream.WithBreaker; every Client of that agent would share it. After
//     two failures in a row the circuit opens, and calls to the agent fail
//     at once with stream.ErrCircuitOpen, without a request; a minute later
//     one probe goes through (half-open);
//   - stream.FanOut runs the calls concurrently, returns as soon as two
//     succeeded (or as soon as two can no longer succeed), cancels the calls
//     it no longer needs, and reports every failure: the program sorts them
//     by type with errors.Is and errors.As.
//
// The agents run in process: weather and news answer after a short pause,
// flaky answers every request with HTTP 503. Run it from this directory (it
// is a module of its own, so that the library does not depend on gobreaker):
//
//	go run .
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "breaker:", err)
		os.Exit(1)
	}
}

// pause is how long the answering agents think before they answer: far
// longer than flaky takes to fail, so the rounds always end the same way.
const pause = 100 * time.Millisecond

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
		// A call that FanOut (or the caller) cancelled says nothing about
		// the agent.
		IsExcluded: func(err error) bool { return errors.Is(err, context.Canceled) },
	})
	c, err := stream.NewClient("http://"+name+".agents.example/",
		stream.WithHTTPClient(a2atest.NewClient(counted)), stream.WithBreaker(b))
	if err != nil {
		return nil, err
	}
	return &agent{name: name, breaker: b, client: c, served: served}, nil
}

// answering is an agent that answers text after pause.
func answering(text string) http.Handler {
	return a2atest.NewAgent(a2atest.WithScript(
		a2atest.Pause(pause),
		a2atest.Chunk("answer", text, false, true),
		a2atest.Finish(a2a.StateCompleted, ""),
	))
}

// unavailable is an agent that answers every request with HTTP 503.
var unavailable = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
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

// run makes four rounds of questions, the first three needing two answers
// and the last all three, and prints how each call ended.
func run(ctx context.Context, w io.Writer) error {
	var agents []*agent
	for _, spec := range []struct {
		name string
		h    http.Handler
	}{
		{"weather", answering("Sunny, 24°C.")},
		{"news", answering("Markets are calm.")},
		{"flaky", unavailable},
	} {
		a, err := newAgent(spec.name, spec.h)
		if err != nil {
			return err
		}
		agents = append(agents, a)
	}

	for round, need := range []int{2, 2, 2, 3} {
		calls := make([]func(context.Context) (string, error), len(agents))
		for i, a := range agents {
			calls[i] = a.ask("What is new today?")
		}
		results, err := stream.FanOut(ctx, need, calls...)
		fmt.Fprintf(w, "round %d, %d answers needed: %s\n", round+1, need, verdict(err))
		for i, r := range results {
			fmt.Fprintf(w, "  %-8s circuit %-7s %s\n", agents[i].name, agents[i].breaker.State(), describe(r))
		}
	}
	flaky := agents[2]
	fmt.Fprintf(w, "%s received %d requests in 4 rounds\n", flaky.name, flaky.served.Load())
	return nil
}

// verdict says how a fan-out ended.
func verdict(err error) string {
	var qe *stream.QuorumError
	switch {
	case err == nil:
		return "quorum reached"
	case errors.As(err, &qe) && errors.Is(err, stream.ErrCircuitOpen):
		return fmt.Sprintf("quorum not reached, %d answered (an open circuit among the causes)", qe.Succeeded)
	case errors.As(err, &qe):
		return fmt.Sprintf("quorum not reached, %d answered", qe.Succeeded)
	}
	return "error: " + err.Error()
}

// describe says how one call ended, by the type of its error.
func describe(r stream.Result[string]) string {
	var (
		httpErr *stream.HTTPError
		failed  *terminal.FailedError
		gaveUp  *reconnect.Error
	)
	switch err := r.Err; {
	case err == nil:
		return "answered: " + r.Value
	case errors.Is(err, stream.ErrCircuitOpen):
		return "skipped: its circuit is open"
	case errors.Is(err, stream.ErrNotNeeded):
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
