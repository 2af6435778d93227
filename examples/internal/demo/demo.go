// Package demo builds the in-process agents the examples run on when no
// agent URL is given. They are a2atest agents with scripts that show what
// the runtime does: a streamed answer, a dropped connection that heals by
// itself, a question for the human, and typed endings.
package demo

import (
	"net/http"
	"strings"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

// URL is the address the demo agents answer on. Requests never leave the
// process: the agents' HTTP clients call them directly.
const URL = "http://demo.agent/"

// Question is what the trip agent asks the human.
const Question = "Which city should the trip start from?"

// Answer is the answer the examples give Question when nobody can type one
// (stdin closed, as in CI).
const Answer = "Lisbon"

// Delay is the pause between two streamed words of the trip agent.
const Delay = 60 * time.Millisecond

// CutAfter is the number of events after which the trip agent cuts the
// first connection of every conversation, in the middle of its answer.
const CutAfter = 8

// TripAgent streams a short travel plan word by word. The first connection
// of each conversation is cut mid-answer, so the stream has to resume by
// itself; half-way it asks
// the human a question, and it ends with a completed task and a summary
// artifact.
func TripAgent() *a2atest.Agent { return PacedTripAgent(Delay) }

// PacedTripAgent is TripAgent with delay, instead of Delay, between two
// streamed words (and before its question and its summary).
func PacedTripAgent(delay time.Duration) *a2atest.Agent {
	return a2atest.NewAgent(
		a2atest.WithName("demo trip planner"),
		a2atest.WithVersions(a2a.V10, a2a.V03),
		a2atest.WithStyle(a2atest.SnapshotFirst),
		a2atest.WithScriptFunc(func(*a2a.Message) []a2atest.Step { return tripScript(delay) }),
		a2atest.WithNewTaskFault(a2atest.CutAfterEvents(CutAfter)),
	)
}

func tripScript(delay time.Duration) []a2atest.Step {
	steps := []a2atest.Step{a2atest.Working("Planning your trip…")}
	steps = append(steps, Words("answer", true, PlanStart, delay)...)
	steps = append(steps, a2atest.Pause(delay), a2atest.AskInput(Question))
	steps = append(steps, Words("answer", false, PlanEnd, delay)...)
	steps = append(steps,
		a2atest.Pause(delay),
		a2atest.Chunk("summary", "3 days · old town · museums · coast", false, true),
		a2atest.Finish(a2a.StateCompleted, "Have a good trip!"),
	)
	return steps
}

// PlanStart and PlanEnd are the two halves of the trip agent's answer,
// before and after its question; the answer is PlanStart+PlanEnd.
const (
	PlanStart = "Here is a three-day plan. Day one: a walk through the old town and a long lunch by the river. Day two: the museum quarter, then the night market. "
	PlanEnd   = "Day three: a train to the coast from your starting city, a swim, and dinner by the harbour."
)

// Words streams text into artifact id one word at a time, each word after
// a pause of delay. With open, the first chunk opens the artifact; every
// other chunk is appended.
func Words(id string, open bool, text string, delay time.Duration) []a2atest.Step {
	var steps []a2atest.Step
	for _, w := range strings.SplitAfter(text, " ") {
		if w == "" {
			continue
		}
		steps = append(steps, a2atest.Pause(delay), a2atest.Chunk(id, w, !open, false))
		open = false
	}
	return steps
}

// FailingAgent starts working and then fails with a reason.
func FailingAgent() *a2atest.Agent {
	return a2atest.NewAgent(a2atest.WithName("demo flaky backend"), a2atest.WithScript(
		a2atest.Working("Calling the upstream API…"),
		a2atest.Pause(Delay),
		a2atest.Chunk("log", "request sent; ", false, false),
		a2atest.Pause(Delay),
		a2atest.Finish(a2a.StateFailed, "upstream API timed out"),
	))
}

// RejectingAgent rejects every request.
func RejectingAgent() *a2atest.Agent {
	return a2atest.NewAgent(a2atest.WithName("demo picky agent"), a2atest.WithScript(
		a2atest.Finish(a2a.StateRejected, "I only answer questions about trains"),
	))
}

// Token is the credential the secured demo agent accepts.
const Token = "Bearer demo-token"

// SecuredAgent answers with auth-required unless the request carries the
// Authorization header Token; with it, the task completes.
func SecuredAgent() http.Handler {
	locked := a2atest.NewAgent(a2atest.WithName("demo calendar"), a2atest.WithScript(
		a2atest.Working("Opening your calendar…"),
		a2atest.AskAuth("Sign in to the calendar to continue."),
	))
	open := a2atest.NewAgent(a2atest.WithName("demo calendar"), a2atest.WithScript(
		a2atest.Working("Reading your calendar…"),
		a2atest.Pause(Delay),
		a2atest.Chunk("free", "Free slots: Tue 10:00, Thu 15:00", false, true),
		a2atest.Finish(a2a.StateCompleted, ""),
	))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == Token {
			open.ServeHTTP(w, r)
			return
		}
		locked.ServeHTTP(w, r)
	})
}

// QuickAgent completes at once with a short answer.
func QuickAgent() *a2atest.Agent {
	return a2atest.NewAgent(a2atest.WithName("demo weather"), a2atest.WithScript(
		a2atest.Working(""),
		a2atest.Chunk("forecast", "Sunny, 24°C.", false, true),
		a2atest.Finish(a2a.StateCompleted, ""),
	))
}

// UnreachableAgent starts every task and then becomes unreachable: the first
// streams streaming requests it receives (the sends, which arrive together)
// are cut after two events, and every later one (the resubscribes) is
// answered with HTTP 503 Service Unavailable. A client with the default
// reconnect policy gives up with a *reconnect.Error after three attempts.
//
// Faults apply in arrival order, so streams must be the number of messages
// sent to the agent at once; their resubscribes come only after the
// reconnect backoff.
func UnreachableAgent(streams int) *a2atest.Agent {
	faults := make([]a2atest.Fault, 0, streams*(1+unreachableRetries))
	for range streams {
		faults = append(faults, a2atest.CutAfterEvents(2))
	}
	for range streams * unreachableRetries {
		faults = append(faults, a2atest.HTTPStatus(http.StatusServiceUnavailable, "down for maintenance"))
	}
	return a2atest.NewAgent(
		a2atest.WithName("demo offline oracle"),
		a2atest.WithScript(
			a2atest.Working("Consulting the oracle…"),
			a2atest.Pause(Delay),
			a2atest.Chunk("answer", "The stars say yes.", false, true),
			a2atest.Finish(a2a.StateCompleted, ""),
		),
		a2atest.WithFaults(faults...),
	)
}

// unreachableRetries is how many resubscribes per stream UnreachableAgent
// answers with 503: far more than any reasonable reconnect budget.
const unreachableRetries = 32
