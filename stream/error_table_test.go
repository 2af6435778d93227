package stream_test

// The error table: what a stream does with each JSON-RPC and A2A error code
// and each HTTP status, by the call that got it (send, reply, subscribe,
// get, poll, cancel), on the four wires. Clients fix their version: a
// negotiating one may fall back to 0.3 first (see negotiation_test.go).
//
// A code row answers the call with the wire's error for that code (a
// JSON-RPC error, or the HTTP+JSON error body with the status the code
// maps to); a status row answers it with that status and a plain body that
// names no A2A error. The failing call fails once (a REST subscribe
// answered 405 is made again with GET, which fails too), so a row that
// retries ends well, and one that ends shows it at once.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// action is what the runtime does with an error on one call.
type action int

const (
	// ends: the stream ends in the error; nothing is made again.
	ends action = iota + 1
	// asks: the stream fetches the task first, and ends in the error
	// unless the task has ended (then its typed ending); here it has not.
	asks
	// retries: a failed attempt; after the backoff (or the wait the
	// server asked for, if longer) the stream resubscribes, or fetches
	// the task again while it polls.
	retries
	// fetches: a refused subscribe; the stream fetches the task and, as
	// it still runs, subscribes again as the next attempt.
	fetches
	// polls: the stream follows the task by polling from then on: a unary
	// send, then get-task every poll interval.
	polls
	// returns: the call returns the error to its caller; the stream goes
	// on.
	returns

	// busy marks a send the agent may have taken: it acts as the action it
	// is combined with, and with WithIdempotentSends the same message is
	// sent again after the backoff.
	busy action = 1 << 4
)

// failure is how the failing call is answered.
type failure struct {
	code      int // an A2A or JSON-RPC error code, in the wire's error shape
	status    int // or an HTTP status, with a plain body
	retrySecs int // a code marked retryable, after that many seconds
}

func errCode(c int) failure                { return failure{code: c} }
func errRetryable(c int, secs int) failure { return failure{code: c, retrySecs: secs} }
func errStatus(s int) failure              { return failure{status: s} }

func (a failure) String() string {
	switch {
	case a.status != 0:
		return fmt.Sprintf("HTTP %d", a.status)
	case a.retrySecs > 0:
		return fmt.Sprintf("%d retryable", a.code)
	}
	return fmt.Sprint(a.code)
}

// write answers the call with a on wire w.
func (a failure) write(ww *wireWriter, w wire) {
	switch {
	case a.status != 0:
		http.Error(ww.w, http.StatusText(a.status), a.status)
	case a.retrySecs > 0:
		ww.rpcErrorData(a.code, "refused", retryDataFor(w.v, a.code, a.retrySecs))
	default:
		ww.rpcError(a.code, "refused")
	}
}

// match requires err to be the error of a: the A2A error of its code, or
// a *transport.HTTPError of its status that names no A2A error.
func (a failure) match(t *testing.T, err error) {
	t.Helper()
	var rpcErr *a2a.RPCError
	if a.status != 0 {
		var httpErr *transport.HTTPError
		require.ErrorAs(t, err, &httpErr)
		require.Equal(t, a.status, httpErr.StatusCode)
		require.False(t, errors.As(err, &rpcErr), "a plain body names no A2A error: %v", err)
		return
	}
	require.ErrorAs(t, err, &rpcErr)
	require.Equal(t, a.code, rpcErr.Code)
	require.Equal(t, a.retrySecs > 0, rpcErr.Retryable())
}

// errorTable is the table of the README's "Errors, call by call".
var errorTable = []struct {
	answer                                    failure
	send, reply, subscribe, get, poll, cancel action
}{
	{errCode(a2a.CodeParseError), ends, asks, asks, ends, ends, returns},
	{errCode(a2a.CodeInvalidRequest), ends, asks, asks, ends, ends, returns},
	{errCode(a2a.CodeMethodNotFound), polls, polls, polls, ends, ends, returns},
	{errCode(a2a.CodeInvalidParams), ends, asks, fetches, ends, ends, returns},
	{errCode(a2a.CodeInternalError), ends, asks, asks, ends, ends, returns},
	{errCode(a2a.CodeTaskNotFound), ends, asks, fetches, ends, ends, returns},
	{errCode(a2a.CodeTaskNotCancelable), ends, asks, asks, ends, ends, returns},
	{errCode(a2a.CodePushNotificationNotSupported), ends, asks, asks, ends, ends, returns},
	{errCode(a2a.CodeUnsupportedOperation), polls, polls, polls, ends, ends, returns},
	{errCode(a2a.CodeContentTypeNotSupported), ends, asks, asks, ends, ends, returns},
	{errCode(a2a.CodeInvalidAgentResponse), ends, asks, asks, ends, ends, returns},
	{errCode(a2a.CodeExtendedAgentCardNotConfigured), ends, asks, asks, ends, ends, returns},
	{errCode(a2a.CodeExtensionSupportRequired), ends, asks, asks, ends, ends, returns},
	{errCode(a2a.CodeVersionNotSupported), ends, asks, asks, ends, ends, returns},

	// Marked retryable: a row retries where it would end, but a caller's
	// error is never retried, and a refusal or an unsupported call keeps
	// its meaning.
	{errRetryable(a2a.CodeInternalError, 2), ends | busy, asks | busy, retries, retries, retries, returns},
	{errRetryable(a2a.CodeTaskNotFound, 2), ends | busy, asks | busy, fetches, retries, retries, returns},
	{errRetryable(a2a.CodeUnsupportedOperation, 2), polls, polls, polls, retries, retries, returns},
	{errRetryable(a2a.CodeParseError, 2), ends, asks, asks, ends, ends, returns},
	{errRetryable(a2a.CodeInvalidRequest, 2), ends, asks, asks, ends, ends, returns},
	{errRetryable(a2a.CodeInvalidParams, 2), ends, asks, fetches, ends, ends, returns},

	{errStatus(http.StatusBadRequest), ends, ends, ends, ends, ends, returns},
	{errStatus(http.StatusUnauthorized), ends, ends, ends, ends, ends, returns},
	{errStatus(http.StatusForbidden), ends, ends, ends, ends, ends, returns},
	{errStatus(http.StatusNotFound), ends, ends, polls, ends, ends, returns},
	{errStatus(http.StatusMethodNotAllowed), polls, polls, polls, ends, ends, returns},
	{errStatus(http.StatusRequestTimeout), ends, ends, retries, retries, retries, returns},
	{errStatus(http.StatusConflict), ends, ends, fetches, ends, ends, returns},
	{errStatus(http.StatusRequestEntityTooLarge), ends, ends, ends, ends, ends, returns},
	{errStatus(http.StatusUnsupportedMediaType), ends, ends, ends, ends, ends, returns},
	{errStatus(http.StatusUnprocessableEntity), ends, ends, fetches, ends, ends, returns},
	{errStatus(http.StatusTooManyRequests), ends | busy, ends | busy, retries, retries, retries, returns},
	{errStatus(http.StatusInternalServerError), ends, ends, retries, retries, retries, returns},
	{errStatus(http.StatusNotImplemented), polls, polls, polls, ends, ends, returns},
	{errStatus(http.StatusBadGateway), ends, ends, retries, retries, retries, returns},
	{errStatus(http.StatusServiceUnavailable), ends | busy, ends | busy, retries, retries, retries, returns},
	{errStatus(http.StatusGatewayTimeout), ends, ends, retries, retries, retries, returns},
}

func TestErrorTableByCallOnEveryWire(t *testing.T) {
	t.Parallel()
	for _, row := range errorTable {
		calls := []struct {
			name string
			act  action
		}{
			{"send", row.send}, {"reply", row.reply}, {"subscribe", row.subscribe},
			{"get", row.get}, {"poll", row.poll}, {"cancel", row.cancel},
		}
		for _, w := range wires() {
			for _, c := range calls {
				configs := []bool{false}
				if c.name == "send" || c.name == "reply" {
					// Only a busy send is sent again with
					// WithIdempotentSends.
					configs = append(configs, true)
				}
				for _, idempotent := range configs {
					name := fmt.Sprintf("%s/%s/%s", row.answer, w, c.name)
					if idempotent {
						name += "/idempotent"
					}
					t.Run(name, func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							want := expect(w, c.name, c.act, row.answer, idempotent)
							require.NotNil(t, want.calls, "the %s scenario has no action %d", c.name, c.act)
							var opts []stream.Option
							if idempotent {
								opts = append(opts, stream.WithIdempotentSends())
							}
							got := scenarios[c.name](t, w, row.answer, opts...)
							require.Equal(t, want.calls, got.calls, "calls the agent received")
							require.Equal(t, want.waits, got.waits, "waits of the Reconnecting notices")
							require.Equal(t, want.polling, got.polling, "Polling notices")
							require.Equal(t, want.elapsed, got.elapsed, "time the stream took")
							if want.ended {
								row.answer.match(t, got.err)
							} else {
								require.NoError(t, got.err)
							}
							require.Len(t, got.returned, want.returned, "errors returned to the caller")
							for _, err := range got.returned {
								row.answer.match(t, err)
							}
						})
					})
				}
			}
		}
	}
}

// observed is what a scenario saw.
type observed struct {
	err      error            // the stream's
	returned []error          // errors calls returned to the caller
	calls    map[callKind]int // calls the agent received, by kind
	waits    []time.Duration  // of the Reconnecting notices
	polling  int              // Polling notices
	elapsed  time.Duration    // from the first call to the stream's end
}

// expectation is what a scenario must observe.
type expectation struct {
	ended    bool // the stream ends in the failure's error, else well
	returned int  // errors returned to the caller, each the failure's
	calls    map[callKind]int
	waits    []time.Duration
	polling  int
	elapsed  time.Duration
}

// failures is how many requests the failing call's failure fails: two for a
// subscribe over HTTP+JSON answered 405 (its POST, then its GET), else one.
func failures(w wire, call string, a failure) int {
	if w.b == a2a.BindingHTTPJSON && call == "subscribe" && a.status == http.StatusMethodNotAllowed {
		return 2
	}
	return 1
}

// expect returns what the scenario of call must observe on wire w when the
// runtime's action on failure a is act.
func expect(w wire, call string, act action, a failure, idempotent bool) expectation {
	wait := max(backoff, time.Duration(a.retrySecs)*time.Second)
	poll := stream.DefaultPollInterval
	k := failures(w, call, a)
	var o expectation
	resent := act&busy != 0 && idempotent
	act &^= busy
	o.ended = !resent && (act == ends || act == asks)
	switch call {
	case "send":
		switch {
		case resent:
			o.calls = map[callKind]int{kindStream: 2}
			o.waits = []time.Duration{wait}
			o.elapsed = wait
		case act == ends:
			o.calls = map[callKind]int{kindStream: 1}
		case act == polls:
			o.calls = map[callKind]int{kindStream: 1, kindSend: 1, kindGet: 1}
			o.polling, o.elapsed = 1, poll
		}
	case "reply":
		switch {
		case resent:
			o.calls = map[callKind]int{kindStream: 3}
			o.waits = []time.Duration{wait}
			o.elapsed = wait
		case act == ends:
			o.calls = map[callKind]int{kindStream: 2}
		case act == asks:
			o.calls = map[callKind]int{kindStream: 2, kindGet: 1}
		case act == polls:
			o.calls = map[callKind]int{kindStream: 2, kindSend: 1, kindGet: 2}
			o.polling, o.elapsed = 1, 2*poll
		}
	case "subscribe":
		o.waits = []time.Duration{backoff}
		o.elapsed = backoff
		switch act {
		case ends:
			o.calls = map[callKind]int{kindStream: 1, kindSubscribe: k}
		case asks:
			o.calls = map[callKind]int{kindStream: 1, kindSubscribe: k, kindGet: 1}
		case retries:
			o.calls = map[callKind]int{kindStream: 1, kindSubscribe: k + 1}
			o.waits = append(o.waits, wait)
			o.elapsed += wait
		case fetches:
			o.calls = map[callKind]int{kindStream: 1, kindSubscribe: k + 1, kindGet: 1}
			o.waits = append(o.waits, backoff)
			o.elapsed += backoff
		case polls:
			o.calls = map[callKind]int{kindStream: 1, kindSubscribe: k, kindGet: 2}
			o.polling = 1
			o.elapsed += poll
		}
	case "get":
		o.waits = []time.Duration{backoff}
		o.elapsed = backoff
		switch act {
		case ends:
			o.calls = map[callKind]int{kindStream: 1, kindSubscribe: 1, kindGet: 1}
		case asks:
			o.calls = map[callKind]int{kindStream: 1, kindSubscribe: 1, kindGet: 2}
		case retries:
			o.calls = map[callKind]int{kindStream: 1, kindSubscribe: 2, kindGet: 1}
			o.waits = append(o.waits, wait)
			o.elapsed += wait
		}
	case "poll":
		o.polling, o.elapsed = 1, poll
		switch act {
		case ends:
			o.calls = map[callKind]int{kindStream: 1, kindSend: 1, kindGet: 1}
		case asks:
			o.calls = map[callKind]int{kindStream: 1, kindSend: 1, kindGet: 2}
		case retries:
			o.calls = map[callKind]int{kindStream: 1, kindSend: 1, kindGet: 3}
			o.waits = []time.Duration{wait}
			o.elapsed += wait + poll
		}
	case "cancel":
		if act == returns {
			o.calls = map[callKind]int{kindGet: 1, kindStream: 1, kindCancel: 1, kindSubscribe: 1}
			o.returned = 2
			o.waits = []time.Duration{backoff}
			o.elapsed = backoff
		}
	}
	return o
}

// scenarios runs a stream whose named call is answered with a, and returns
// what it observed.
var scenarios = map[string]func(t *testing.T, w wire, a failure, opts ...stream.Option) observed{
	// send: the first streaming send fails. An agent that is then sent
	// the message with a unary call answers working, and completed on
	// get-task.
	"send": func(t *testing.T, w wire, a failure, opts ...stream.Option) observed {
		agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
			kindStream: func(ww *wireWriter, c wireCall) {
				if c.n < failures(w, "send", a) {
					a.write(ww, w)
					return
				}
				ww.sse()
				ww.event(snap(a2a.StateCompleted, "done"))
			},
			kindSend: func(ww *wireWriter, _ wireCall) { ww.result(snap(a2a.StateWorking)) },
			kindGet:  func(ww *wireWriter, _ wireCall) { ww.task(snap(a2a.StateCompleted, "done")) },
		})
		return runStream(t, agent, opts...)
	},
	// reply: the agent asks for input; the send of the human's reply
	// fails. get-task answers working, then completed.
	"reply": func(t *testing.T, w wire, a failure, opts ...stream.Option) observed {
		asking := snap(a2a.StateInputRequired)
		asking.Status.Message = agentMsg("q-1", "which city?")
		agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
			kindStream: func(ww *wireWriter, c wireCall) {
				switch {
				case c.n == 0:
					ww.sse()
					ww.event(asking)
				case c.n <= failures(w, "reply", a):
					a.write(ww, w)
				default:
					ww.sse()
					ww.event(snap(a2a.StateCompleted, "done"))
				}
			},
			kindSend: func(ww *wireWriter, _ wireCall) { ww.result(snap(a2a.StateWorking)) },
			kindGet:  workingThenCompleted,
		})
		hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text("Paris"), nil })
		return runStream(t, agent, append(opts, stream.WithHumanInput(hook))...)
	},
	// subscribe: the first stream sends a working task and ends; the
	// resubscribe fails. get-task answers working, then completed.
	"subscribe": func(t *testing.T, w wire, a failure, opts ...stream.Option) observed {
		agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
			kindStream: sendsWorking,
			kindSubscribe: func(ww *wireWriter, c wireCall) {
				if c.n < failures(w, "subscribe", a) {
					a.write(ww, w)
					return
				}
				ww.sse()
				ww.event(snap(a2a.StateCompleted, "done"))
			},
			kindGet: workingThenCompleted,
		})
		return runStream(t, agent, opts...)
	},
	// get: the first stream sends a working task and ends; the
	// resubscribe is refused (-32001), and the get-task that follows
	// fails. A later get-task answers working; a later subscribe, the
	// completed task.
	"get": func(t *testing.T, w wire, a failure, opts ...stream.Option) observed {
		agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
			kindStream: sendsWorking,
			kindSubscribe: func(ww *wireWriter, c wireCall) {
				if c.n == 0 {
					ww.rpcError(a2a.CodeTaskNotFound, "no live stream")
					return
				}
				ww.sse()
				ww.event(snap(a2a.StateCompleted, "done"))
			},
			kindGet: func(ww *wireWriter, c wireCall) {
				if c.n < failures(w, "get", a) {
					a.write(ww, w)
					return
				}
				ww.task(snap(a2a.StateWorking))
			},
		})
		return runStream(t, agent, opts...)
	},
	// poll: the agent refuses to stream (-32004); the unary send answers
	// working; the first poll fails, the next answers working, then
	// completed.
	"poll": func(t *testing.T, w wire, a failure, opts ...stream.Option) observed {
		agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
			kindStream: func(ww *wireWriter, _ wireCall) {
				ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
			},
			kindSend: func(ww *wireWriter, _ wireCall) { ww.result(snap(a2a.StateWorking)) },
			kindGet: func(ww *wireWriter, c wireCall) {
				k := failures(w, "poll", a)
				switch {
				case c.n < k:
					a.write(ww, w)
				case c.n == k:
					ww.task(snap(a2a.StateWorking))
				default:
					ww.task(snap(a2a.StateCompleted, "done"))
				}
			},
		})
		return runStream(t, agent, opts...)
	},
	// cancel: Client.GetTask, then Stream.Cancel once the stream has its
	// task, are answered with a; the stream goes on (its first leg ends,
	// the resubscribe brings the completed task).
	"cancel": func(t *testing.T, w wire, a failure, opts ...stream.Option) observed {
		agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
			kindStream: sendsWorking,
			kindSubscribe: func(ww *wireWriter, _ wireCall) {
				ww.sse()
				ww.event(snap(a2a.StateCompleted, "done"))
			},
			kindGet:    func(ww *wireWriter, _ wireCall) { a.write(ww, w) },
			kindCancel: func(ww *wireWriter, _ wireCall) { a.write(ww, w) },
		})
		var ns noticeLog
		c := agent.client(t, append(opts, ns.option())...)
		start := time.Now()
		_, getErr := c.GetTask(background(), "t-1")
		s := c.Send(background(), hello())
		require.True(t, s.Next(), "the working task: %v", s.Err())
		cancelErr := s.Cancel(background())
		got, err := drain(t, s)
		require.NoError(t, err)
		require.Equal(t, "done", got.text("a1"))
		return observe(agent, &ns, start, err, getErr, cancelErr)
	},
}

// runStream sends hello to the agent and drains the stream; a stream that
// ends well has the completed task's text.
func runStream(t *testing.T, agent *wireAgent, opts ...stream.Option) observed {
	t.Helper()
	var ns noticeLog
	c := agent.client(t, append(opts, ns.option())...)
	start := time.Now()
	got, err := drain(t, c.Send(background(), hello()))
	if err == nil {
		require.Equal(t, "done", got.text("a1"))
	}
	return observe(agent, &ns, start, err)
}

// observe gathers what a scenario saw; returned are the errors calls
// returned to the caller.
func observe(agent *wireAgent, ns *noticeLog, start time.Time, err error, returned ...error) observed {
	o := observed{err: err, returned: returned, calls: map[callKind]int{}, elapsed: time.Since(start)}
	for _, k := range []callKind{kindStream, kindSend, kindSubscribe, kindGet, kindCancel} {
		if n := agent.count(k); n > 0 {
			o.calls[k] = n
		}
	}
	for _, n := range ns.ns {
		switch n.Kind {
		case stream.Reconnecting:
			o.waits = append(o.waits, n.Wait)
		case stream.Polling:
			o.polling++
		}
	}
	return o
}
