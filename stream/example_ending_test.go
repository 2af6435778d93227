package stream_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// ExampleStream_Ending prints one line about how each stream ended,
// whatever the ending: the task's own (completed, failed, rejected,
// canceled, a prompt nobody answered), a message answer, or one of the
// connection.
func ExampleStream_Ending() {
	agents := []struct {
		name  string
		agent *a2atest.Agent
	}{
		{"done", a2atest.NewAgent()},
		{"chatty", a2atest.NewAgent(a2atest.WithScript(a2atest.Reply("Hi there!")))},
		{"broken", a2atest.NewAgent(a2atest.WithScript(a2atest.Working("on it"), a2atest.Finish(a2a.StateFailed, "the flight API is down")))},
		{"picky", a2atest.NewAgent(a2atest.WithScript(a2atest.Finish(a2a.StateRejected, "I only book trains")))},
		{"curious", a2atest.NewAgent(a2atest.WithScript(a2atest.AskInput("Which city?")))},
		{"gone", a2atest.NewAgent(a2atest.WithFaults(a2atest.CutAfterEvents(0)))},
	}
	for _, a := range agents {
		client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(a.agent.Client()),
			stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Millisecond}))
		if err != nil {
			panic(err)
		}
		s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "Book me a flight"))
		_, _ = s.Wait() // a UI shows the events here, in a Next loop
		e := s.Ending()
		fmt.Printf("%s: %s\n", a.name, e)
		if e.Answer != nil {
			fmt.Printf("  the answer: %s\n", e.Answer.Text())
		}
		if e.State == a2a.StateFailed {
			fmt.Printf("  artifacts kept: %d\n", len(e.Task.Artifacts))
		}
	}
	// Output:
	// done: completed
	// chatty: answered
	//   the answer: Hi there!
	// broken: failed: the flight API is down
	//   artifacts kept: 0
	// picky: rejected: I only book trains
	// curious: input-required: no answer: hitl: no human-input hook configured
	// gone: ended: reconnect: connection lost before any task was known: unexpected EOF
}

// ExampleEndingOf reads the ending of an error whose stream is gone, such
// as Wait's.
func ExampleEndingOf() {
	agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working("on it"), a2atest.Finish(a2a.StateCanceled, "stopped by the operator")))
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		panic(err)
	}
	_, err = client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "go")).Wait()
	e := stream.EndingOf(err)
	fmt.Println(e.State, e.Task != nil)
	fmt.Println(e)
	// Output:
	// canceled true
	// canceled: stopped by the operator
}

// Example_endings reads the endings that are not the task's own: TaskOf
// gives the task as last known from any of them (nil when none was known),
// and errors.As and errors.Is tell them apart. Terminal states end in
// terminal errors (see Example_terminalError).
func Example_endings() {
	long := a2atest.WithScript(a2atest.Working("on it"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, ""))
	cases := []struct {
		name  string
		agent *a2atest.Agent
		opts  []stream.Option
	}{
		{"busy", a2atest.NewAgent(a2atest.WithFaults(
			a2atest.HTTPStatusWithHeader(http.StatusServiceUnavailable, "busy", http.Header{"Retry-After": {"30"}}))), nil},
		{"token expired", a2atest.NewAgent(long, a2atest.WithFaults(a2atest.CutAfterEvents(2), a2atest.HTTPStatus(http.StatusUnauthorized, "expired")),
			a2atest.WithGetFaults(a2atest.HTTPStatus(http.StatusUnauthorized, "expired"))), nil},
		{"closing early", a2atest.NewAgent(long, a2atest.WithFaults(a2atest.CloseAfterEvents(2),
			a2atest.CloseAfterEvents(0), a2atest.CloseAfterEvents(0))), nil},
		{"silent", a2atest.NewAgent(a2atest.WithFaults(a2atest.Hang(), a2atest.Hang(), a2atest.Hang())),
			[]stream.Option{stream.WithIdleTimeout(5 * time.Millisecond)}},
		{"too big", a2atest.NewAgent(), []stream.Option{stream.WithMaxEventSize(100)}},
		{"stuck", a2atest.NewAgent(long, a2atest.WithoutStreaming()),
			[]stream.Option{stream.WithPollInterval(time.Millisecond), stream.WithStallTimeout(20 * time.Millisecond)}},
	}
	for _, c := range cases {
		opts := append([]stream.Option{stream.WithHTTPClient(c.agent.Client()),
			stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Millisecond})}, c.opts...)
		client, err := stream.NewClient("http://agent.test/", opts...)
		if err != nil {
			panic(err)
		}
		_, err = client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "go")).Wait()
		fmt.Printf("%s: %s; task known: %v\n", c.name, ending(err), stream.EndingOf(err).Task != nil)
	}
	// Output:
	// busy: HTTP 503, retry in 30s; task known: false
	// token expired: HTTP 401 once the task was known; task known: true
	// closing early: gave up after 2 attempts (closed early: true); task known: true
	// silent: lost before any task (idle: true); task known: false
	// too big: protocol error: event too large; task known: false
	// stuck: no progress for 20ms; task known: true
}

// ending names an ending the way an application would tell its user.
func ending(err error) string {
	var (
		httpErr  *transport.HTTPError
		protoErr *transport.ProtocolError
		stalled  *stream.StalledError
		gaveUp   *reconnect.Error
	)
	switch {
	case stream.EndingOf(err).Task != nil && errors.As(err, &httpErr):
		return fmt.Sprintf("HTTP %d once the task was known", httpErr.StatusCode)
	case errors.As(err, &httpErr):
		wait, _ := httpErr.RetryAfter()
		return fmt.Sprintf("HTTP %d, retry in %s", httpErr.StatusCode, wait)
	case errors.As(err, &protoErr):
		return "protocol error: " + protoErr.Reason
	case errors.As(err, &stalled):
		return fmt.Sprintf("no progress for %s", stalled.After)
	case errors.Is(err, reconnect.ErrNoTask):
		return fmt.Sprintf("lost before any task (idle: %v)", errors.Is(err, transport.ErrIdleTimeout))
	case errors.As(err, &gaveUp):
		return fmt.Sprintf("gave up after %d attempts (closed early: %v)", gaveUp.Attempts, errors.Is(err, transport.ErrEndedEarly))
	}
	return fmt.Sprint(err)
}
