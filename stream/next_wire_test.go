package stream_test

// What follows each step, row by row: the table of follow (next.go), each
// row reached on a real wire by a scenario, and what the row says follows
// seen from outside: the calls the agent receives next, in order, the
// notices the stream tells, the time it takes (in a synctest bubble), the
// events it yields and how it ends. Every row runs on the four wires.
// A row is named as follow's table names it: "after: facts: move". The
// internal table test (next_table_test.go) pins the same rows on follow
// alone; a maintainer changing a row finds its wire test here.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// follows is what a row says follows, as a scenario observes it.
type follows struct {
	calls   []callKind          // the calls the agent received, in order
	notices []stream.NoticeKind // the notices told, in order
	elapsed time.Duration       // from the first call to the stream's end
	events  []string            // the events the stream yielded (see yielded)
	ends    func(t *testing.T, err error)
}

// scenario runs a stream that reaches its row on wire w, telling ns its
// notices, and returns the agent whose calls count, what the application
// collected and the stream's error.
type scenario func(t *testing.T, w wire, ns *noticeLog) (*wireAgent, *collected, error)

var whatFollows = []struct {
	name string
	run  scenario
	want follows
}{
	// after any step
	{"any: err set (a broken server): end with err",
		sendTo(answers{kindStream: legOf(snap(a2a.StateWorking), &a2a.Task{ID: "t-9", ContextID: "c-1"})}),
		follows{calls: seq(kindStream), events: yields("status working"), ends: endsAs[*transport.ProtocolError]}},

	// after begin
	{"begin: the checkpoint says poll: switch to polling, then the route's resume",
		resumeFrom(pollingCheckpoint, answers{kindGet: workingThenCompleted}),
		follows{calls: seq(kindGet, kindGet), notices: kinds(stream.Polling), elapsed: time.Second,
			events: yields("artifact a1", "status completed"), ends: endsWell}},
	{"begin: the card says poll: switch to polling, then the route's send",
		func(t *testing.T, w wire, ns *noticeLog) (*wireAgent, *collected, error) {
			agent := newWireAgent(w, answers{kindSend: answersResult(snap(a2a.StateWorking)), kindGet: answersTask(snap(a2a.StateCompleted, "done"))})
			got, err := drain(t, cardSaysPoll(t, agent).Send(bounded(t), hello(), ns.option()))
			return agent, got, err
		},
		follows{calls: seq(kindSend, kindGet), notices: kinds(stream.Polling), elapsed: time.Second,
			events: yields("status working", "artifact a1", "status completed"), ends: endsWell}},
	{"begin: a message to send: the route's send",
		sendTo(answers{kindStream: legOf(snap(a2a.StateCompleted, "done"))}),
		follows{calls: seq(kindStream), events: yields("artifact a1", "status completed"), ends: endsWell}},
	{"begin: none (Subscribe): the route's resume",
		subscribeTo(answers{kindSubscribe: legOf(snap(a2a.StateCompleted, "done"))}),
		follows{calls: seq(kindSubscribe), events: yields("artifact a1", "status completed"), ends: endsWell}},

	// after a leg opened, and its events
	{"open: a leg opened: read it",
		sendTo(answers{kindStream: legOf(snap(a2a.StateWorking), artEvent("a1", false, "done"), snap(a2a.StateCompleted, "done"))}),
		follows{calls: seq(kindStream), events: yields("status working", "artifact a1", "status completed"), ends: endsWell}},
	{"arrive: gap open, the event halts the task: hold it back; fetch (fetchGap)",
		func(t *testing.T, w wire, ns *noticeLog) (*wireAgent, *collected, error) {
			return sendTo(answers{
				kindStream:    sendsWorking,
				kindSubscribe: legOf(statusEvent(w.v, a2a.StateCompleted, nil)),
				kindGet:       answersTask(snap(a2a.StateCompleted, "done")),
			})(t, w, ns)
		},
		follows{calls: seq(kindStream, kindSubscribe, kindGet), notices: kinds(stream.Reconnecting, stream.Resumed),
			elapsed: backoff, events: yields("status working", "artifact a1", "status completed"), ends: endsWell}},
	{"arrive: otherwise: deliver it",
		sendTo(answers{kindStream: legOf(snap(a2a.StateWorking), snap(a2a.StateCompleted, "done"))}),
		follows{calls: seq(kindStream), events: yields("status working", "artifact a1", "status completed"), ends: endsWell}},

	// after a wait
	{"wait: the poll interval waited: poll",
		sendTo(answers{kindStream: refusedWith(a2a.CodeUnsupportedOperation), kindSend: answersResult(snap(a2a.StateWorking)),
			kindGet: answersTask(snap(a2a.StateCompleted, "done"))}),
		follows{calls: seq(kindStream, kindSend, kindGet), notices: kinds(stream.Polling), elapsed: time.Second,
			events: yields("status working", "artifact a1", "status completed"), ends: endsWell}},
	{"backoff: an attempt's backoff waited: make the attempt's call again",
		sendTo(answers{kindStream: sendsWorking, kindSubscribe: legOf(snap(a2a.StateCompleted, "done"))}),
		follows{calls: seq(kindStream, kindSubscribe), notices: kinds(stream.Reconnecting, stream.Resumed),
			elapsed: backoff, events: yields("status working", "artifact a1", "status completed"), ends: endsWell}},

	// after the budget is spent (reconnect.Default: 3 attempts, 500 ms apart)
	{"spent: the attempt re-sends a message: end: *reconnect.Error",
		sendTo(answers{kindStream: unavailable}, stream.WithIdempotentSends()),
		follows{calls: seq(kindStream, kindStream, kindStream, kindStream),
			notices: kinds(stream.Reconnecting, stream.Reconnecting, stream.Reconnecting),
			elapsed: 3 * backoff, ends: endsAs[*reconnect.Error]}},
	{"spent: the attempt asks whether an error ended the task (fetchAfterError): end in that error",
		sendTo(answers{kindStream: sendsWorking, kindSubscribe: refusedWith(a2a.CodeInternalError), kindGet: unavailable}),
		follows{calls: seq(kindStream, kindSubscribe, kindGet, kindGet, kindGet),
			notices: kinds(stream.Reconnecting, stream.Reconnecting, stream.Reconnecting),
			elapsed: 3 * backoff, events: yields("status working"), ends: endsInCode(a2a.CodeInternalError)}},
	// The row's other branch (the event held back no longer halts when
	// delivered, "else end: *reconnect.Error") needs the task to move on
	// while every call fails; no scenario here reaches it.
	{"spent: a halting event held back: deliver it: halt if it halts",
		func(t *testing.T, w wire, ns *noticeLog) (*wireAgent, *collected, error) {
			final := legOf(statusEvent(w.v, a2a.StateCompleted, nil))
			return sendTo(answers{
				kindStream: sendsWorking,
				kindSubscribe: func(ww *wireWriter, c wireCall) {
					if c.n == 0 {
						final(ww, c)
						return
					}
					unavailable(ww, c)
				},
				kindGet: unavailable,
			})(t, w, ns)
		},
		follows{calls: seq(kindStream, kindSubscribe, kindGet, kindSubscribe, kindSubscribe),
			notices: kinds(stream.Reconnecting, stream.Resumed, stream.Reconnecting, stream.Reconnecting),
			elapsed: 3 * backoff, events: yields("status working", "status completed"), ends: endsWell}},
	{"spent: otherwise: end: *reconnect.Error",
		sendTo(answers{kindStream: sendsWorking, kindSubscribe: unavailable}),
		follows{calls: seq(kindStream, kindSubscribe, kindSubscribe, kindSubscribe),
			notices: kinds(stream.Reconnecting, stream.Reconnecting, stream.Reconnecting),
			elapsed: 3 * backoff, events: yields("status working"), ends: endsAs[*reconnect.Error]}},

	// after the task halted
	{"halt: completed: done",
		sendTo(answers{kindStream: legOf(snap(a2a.StateCompleted, "done"))}),
		follows{calls: seq(kindStream), events: yields("artifact a1", "status completed"), ends: endsWell}},
	{"halt: another terminal state: end: its terminal error",
		sendTo(answers{kindStream: legOf(snap(a2a.StateFailed))}),
		follows{calls: seq(kindStream), events: yields("status failed"), ends: endsAs[*terminal.FailedError]}},
	{"halt: input-required: ask the human",
		sendTo(answers{kindStream: askedThen(legOf(snap(a2a.StateCompleted, "done")))}, answerParis),
		follows{calls: seq(kindStream, kindStream), events: yields("status input-required", "artifact a1", "status completed"), ends: endsWell}},
	{"halt: auth-required: ask for credentials",
		sendTo(answers{kindStream: legOf(snap(a2a.StateAuthRequired)), kindSubscribe: withToken(legOf(snap(a2a.StateCompleted, "done")))},
			giveToken),
		follows{calls: seq(kindStream, kindSubscribe), events: yields("status auth-required", "artifact a1", "status completed"), ends: endsWell}},

	// after the switch to polling
	// The stall clock starts again as polling begins, so the limit is
	// spent there only when WithNotify's callback, told of the switch,
	// takes it all.
	{"switched: polling began, the stall limit spent: end: *StalledError",
		func(t *testing.T, w wire, ns *noticeLog) (*wireAgent, *collected, error) {
			slow := stream.WithNotify(func(n stream.Notice) {
				ns.ns = append(ns.ns, n)
				if n.Kind == stream.Polling {
					time.Sleep(time.Minute)
				}
			})
			return sendTo(noStreamAfterDrop(answersTask(snap(a2a.StateWorking))), slow, stream.WithStallTimeout(time.Minute))(t, w, &noticeLog{})
		},
		follows{calls: seq(kindStream, kindSubscribe, kindGet), notices: kinds(stream.Reconnecting, stream.Resumed, stream.Polling),
			elapsed: backoff + time.Minute, events: yields("status working"), ends: endsAs[*stream.StalledError]}},
	{"switched: polling began: wait the poll interval",
		sendTo(noStreamAfterDrop(workingThenCompleted)),
		follows{calls: seq(kindStream, kindSubscribe, kindGet, kindGet), notices: kinds(stream.Reconnecting, stream.Resumed, stream.Polling),
			elapsed: backoff + time.Second, events: yields("status working", "artifact a1", "status completed"), ends: endsWell}},

	// after a hook answered
	{"asked: the human-input hook replied: send the reply (the polling route's: a unary send)",
		sendTo(answers{kindStream: refusedWith(a2a.CodeUnsupportedOperation), kindSend: askedThen(answersResult(snap(a2a.StateWorking))),
			kindGet: answersTask(snap(a2a.StateCompleted, "done"))}, answerParis),
		follows{calls: seq(kindStream, kindSend, kindSend, kindGet), notices: kinds(stream.Polling), elapsed: time.Second,
			events: yields("status input-required", "status working", "artifact a1", "status completed"), ends: endsWell}},
	{"credentials: the credentials hook gave them: the route's resume (polling: a get-task at once)",
		sendTo(answers{kindStream: refusedWith(a2a.CodeUnsupportedOperation), kindSend: answersResult(snap(a2a.StateAuthRequired)),
			kindGet: withToken(answersTask(snap(a2a.StateCompleted, "done")))}, giveToken),
		follows{calls: seq(kindStream, kindSend, kindGet), notices: kinds(stream.Polling),
			events: yields("status auth-required", "artifact a1", "status completed"), ends: endsWell}},

	// after news: an event, a fetch, a poll, a resume
	{"answered: a message answer and no task: done",
		sendTo(answers{kindStream: legOf(&a2a.Message{ID: "m-1", Role: a2a.RoleAgent, Parts: textParts("hi")})}),
		follows{calls: seq(kindStream), events: yields("message"), ends: endsWell}},
	{"fetch: asked about an error; the task ended: halt (its typed ending)",
		sendTo(answers{kindStream: sendsWorking, kindSubscribe: refusedWith(a2a.CodeInternalError), kindGet: answersTask(snap(a2a.StateFailed))}),
		follows{calls: seq(kindStream, kindSubscribe, kindGet), notices: kinds(stream.Reconnecting), elapsed: backoff,
			events: yields("status working", "status failed"), ends: endsAs[*terminal.FailedError]}},
	{"fetch: asked about an error; it did not: end in that error",
		sendTo(answers{kindStream: sendsWorking, kindSubscribe: refusedWith(a2a.CodeInternalError), kindGet: answersTask(snap(a2a.StateWorking))}),
		follows{calls: seq(kindStream, kindSubscribe, kindGet), notices: kinds(stream.Reconnecting), elapsed: backoff,
			events: yields("status working"), ends: endsInCode(a2a.CodeInternalError)}},
	{"any: the task halts: halt (after a unary send, no poll)",
		sendTo(answers{kindStream: refusedWith(a2a.CodeUnsupportedOperation), kindSend: answersResult(snap(a2a.StateCompleted, "done"))}),
		follows{calls: seq(kindStream, kindSend), notices: kinds(stream.Polling), events: yields("artifact a1", "status completed"), ends: endsWell}},
	{"any: the reply got no response, the agent still shows its prompt and takes a message ID twice as once: send the same reply again",
		func(t *testing.T, w wire, ns *noticeLog) (*wireAgent, *collected, error) {
			agent, got, err := sendTo(replyCutBeforeAnyResponse(), answerParis, stream.WithIdempotentSends())(t, w, ns)
			sent := agent.received()
			require.Len(t, sent, 4, "the question's send, the reply's, the subscribe, the reply's again")
			require.Equal(t, sent[1].msg.ID, sent[3].msg.ID, "the same reply")
			return agent, got, err
		},
		follows{calls: seq(kindStream, kindStream, kindSubscribe, kindStream), notices: kinds(stream.Reconnecting, stream.Resumed),
			elapsed: backoff, events: yields("status input-required", "artifact a1", "status completed"), ends: endsWell}},
	{"any: the reply got no response (it may have reached the agent), the agent still shows its prompt: never send it again; follow the task until the budget is spent",
		func(t *testing.T, w wire, ns *noticeLog) (*wireAgent, *collected, error) {
			agent, got, err := sendTo(replyCutBeforeAnyResponse(), answerParis)(t, w, ns)
			sends := 0
			for _, c := range agent.received() {
				if c.msg != nil {
					sends++
				}
			}
			require.Equal(t, 2, sends, "the question's send and the reply's, once")
			return agent, got, err
		},
		follows{calls: seq(kindStream, kindStream, kindSubscribe, kindGet, kindSubscribe, kindGet, kindSubscribe, kindGet),
			notices: kinds(stream.Reconnecting, stream.Resumed, stream.Reconnecting, stream.Resumed, stream.Reconnecting, stream.Resumed),
			elapsed: 3 * backoff, events: yields("status input-required"), ends: endsAs[*reconnect.Error]}},
	{"event: otherwise: read on",
		sendTo(answers{kindStream: legOf(snap(a2a.StateSubmitted), snap(a2a.StateWorking), snap(a2a.StateCompleted, "done"))}),
		follows{calls: seq(kindStream), events: yields("status submitted", "status working", "artifact a1", "status completed"), ends: endsWell}},
	{"poll: the stall limit spent: end: *StalledError",
		sendTo(answers{kindStream: refusedWith(a2a.CodeUnsupportedOperation), kindSend: answersResult(snap(a2a.StateWorking)),
			kindGet: answersTask(snap(a2a.StateWorking))}, stream.WithStallTimeout(3*time.Second)),
		follows{calls: seq(kindStream, kindSend, kindGet, kindGet, kindGet), notices: kinds(stream.Polling), elapsed: 3 * time.Second,
			events: yields("status working"), ends: endsAs[*stream.StalledError]}},
	{"poll: otherwise: wait the poll interval",
		sendTo(answers{kindStream: refusedWith(a2a.CodeUnsupportedOperation), kindSend: answersResult(snap(a2a.StateWorking)),
			kindGet: workingThenCompleted}),
		follows{calls: seq(kindStream, kindSend, kindGet, kindGet), notices: kinds(stream.Polling), elapsed: 2 * time.Second,
			events: yields("status working", "artifact a1", "status completed"), ends: endsWell}},
	{"resume: the stream polls: as poll",
		resumeFrom(pollingCheckpoint, answers{kindGet: workingThenCompleted}),
		follows{calls: seq(kindGet, kindGet), notices: kinds(stream.Polling), elapsed: time.Second,
			events: yields("artifact a1", "status completed"), ends: endsWell}},
	{"resume: otherwise: subscribe",
		resumeFrom(streamingCheckpoint, answers{kindGet: answersTask(snap(a2a.StateWorking)), kindSubscribe: legOf(snap(a2a.StateCompleted, "done"))}),
		follows{calls: seq(kindGet, kindSubscribe), events: yields("artifact a1", "status completed"), ends: endsWell}},
	{"fetch: the server cannot stream the task (fetchNoStream): switch to polling (its first poll waits what the answer asked)",
		sendTo(noStreamAfterDrop(func(ww *wireWriter, c wireCall) {
			if c.n == 0 {
				ww.w.Header().Set("Retry-After", "5")
			}
			workingThenCompleted(ww, c)
		})),
		follows{calls: seq(kindStream, kindSubscribe, kindGet, kindGet), notices: kinds(stream.Reconnecting, stream.Resumed, stream.Polling),
			elapsed: backoff + 5*time.Second, events: yields("status working", "artifact a1", "status completed"), ends: endsWell}},
	// The send's leg goes silent at 0, is cut at 10 s (a drop: only a
	// subscription is silent), waits 10 s; the subscription is cut at 30 s,
	// and the fetch finds nothing new for 30 s. The leg's own stall timer
	// (25 s of reads waited) had 15 s left, past the idle timeout.
	{"fetch: silent, and the task runs; stall spent: end: *StalledError",
		func(t *testing.T, w wire, ns *noticeLog) (*wireAgent, *collected, error) {
			agent := silentAgent(w, func() bool { return false })
			return runSend(t, agent, ns, stream.WithIdleTimeout(10*time.Second), stream.WithStallTimeout(25*time.Second),
				stream.WithReconnect(reconnect.Policy{Backoff: 10 * time.Second}))
		},
		follows{calls: seq(kindStream, kindSubscribe, kindGet), notices: kinds(stream.Reconnecting, stream.Resumed),
			elapsed: 30 * time.Second, events: yields("status working", "artifact a1"), ends: endsAs[*stream.StalledError]}},
	// One attempt in the budget, yet two subscriptions after drops: the
	// silent one cost nothing. Cut at 10 s, then 20.5 s; done from 21 s.
	{"fetch: silent, and the task runs: an attempt that costs nothing: wait, then resume",
		func(t *testing.T, w wire, ns *noticeLog) (*wireAgent, *collected, error) {
			start := time.Now()
			agent := silentAgent(w, func() bool { return time.Since(start) >= 21*time.Second })
			return runSend(t, agent, ns, stream.WithIdleTimeout(10*time.Second), stream.WithReconnect(reconnect.Policy{MaxAttempts: 1}))
		},
		follows{calls: seq(kindStream, kindSubscribe, kindGet, kindSubscribe),
			notices: kinds(stream.Reconnecting, stream.Resumed, stream.Reconnecting, stream.Resumed),
			elapsed: 21 * time.Second, events: yields("status working", "artifact a1", "artifact a1", "status completed"), ends: endsWell}},
	{"fetch: otherwise (a refused subscribe): an attempt: wait, then resume",
		sendTo(answers{kindStream: sendsWorking, kindSubscribe: func(ww *wireWriter, c wireCall) {
			if c.n == 0 {
				ww.rpcError(a2a.CodeTaskNotFound, "no live stream")
				return
			}
			legOf(snap(a2a.StateCompleted, "done"))(ww, c)
		}, kindGet: answersTask(snap(a2a.StateWorking))}),
		follows{calls: seq(kindStream, kindSubscribe, kindGet, kindSubscribe),
			notices: kinds(stream.Reconnecting, stream.Resumed, stream.Reconnecting, stream.Resumed),
			elapsed: 2 * backoff, events: yields("status working", "artifact a1", "status completed"), ends: endsWell}},
}

func TestWhatFollowsEachStepOnEveryWire(t *testing.T) {
	t.Parallel()
	for _, row := range whatFollows {
		for _, w := range wires() {
			t.Run(row.name+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var ns noticeLog
					start := time.Now()
					agent, got, err := row.run(t, w, &ns)
					elapsed := time.Since(start)
					row.want.ends(t, err)
					require.Equal(t, row.want.calls, callsOf(agent), "the calls the agent received")
					require.Equal(t, row.want.notices, ns.kinds(), "the notices told")
					require.Equal(t, row.want.elapsed, elapsed, "the time the stream took")
					require.Equal(t, row.want.events, yielded(got), "the events yielded")
				})
			})
		}
	}
}

// answers is how a wireAgent answers each kind of call.
type answers = map[callKind]func(*wireWriter, wireCall)

// sendTo is the scenario that sends hello to an agent answering on, with
// opts, and drains the stream.
// replyCutBeforeAnyResponse is an agent that asks for a city, cuts the
// reply's send before any response, shows the prompt to every subscribe,
// and completes the task on a later send.
func replyCutBeforeAnyResponse() answers {
	return answers{
		kindStream: func(ww *wireWriter, c wireCall) {
			switch c.n {
			case 0:
				legOf(askingCity())(ww, c)
			case 1:
				cutHere() // no response: the client cannot tell whether the agent took it
			default:
				legOf(snap(a2a.StateCompleted, "done"))(ww, c)
			}
		},
		kindSubscribe: legOf(askingCity()),
		kindGet:       answersTask(askingCity()),
	}
}

func sendTo(on answers, opts ...stream.Option) scenario {
	return func(t *testing.T, w wire, ns *noticeLog) (*wireAgent, *collected, error) {
		return runSend(t, newWireAgent(w, on), ns, opts...)
	}
}

// runSend sends hello to agent, with opts, and drains the stream.
func runSend(t *testing.T, agent *wireAgent, ns *noticeLog, opts ...stream.Option) (*wireAgent, *collected, error) {
	t.Helper()
	got, err := drain(t, agent.client(t).Send(bounded(t), hello(), append([]stream.Option{ns.option()}, opts...)...))
	return agent, got, err
}

// subscribeTo is the scenario that subscribes to t-1 on an agent answering
// on.
func subscribeTo(on answers) scenario {
	return func(t *testing.T, w wire, ns *noticeLog) (*wireAgent, *collected, error) {
		agent := newWireAgent(w, on)
		got, err := drain(t, agent.client(t).Subscribe(bounded(t), "t-1", ns.option()))
		return agent, got, err
	}
}

// resumeFrom is the scenario that resumes, from the checkpoint cp takes on
// wire w, on an agent answering on.
func resumeFrom(cp func(t *testing.T, w wire) *stream.Checkpoint, on answers) scenario {
	return func(t *testing.T, w wire, ns *noticeLog) (*wireAgent, *collected, error) {
		from := cp(t, w)
		agent := newWireAgent(w, on)
		got, err := drain(t, agent.client(t).Resume(bounded(t), from, ns.option()))
		return agent, got, err
	}
}

// pollingCheckpoint is the checkpoint of a stream that polls (its agent
// refused to stream), taken at its first event, the working task.
func pollingCheckpoint(t *testing.T, w wire) *stream.Checkpoint {
	return checkpointAtFirst(t, newWireAgent(w, answers{
		kindStream: refusedWith(a2a.CodeUnsupportedOperation),
		kindSend:   answersResult(snap(a2a.StateWorking)),
	}))
}

// streamingCheckpoint is the checkpoint of a stream that streams, taken at
// its first event, the working task.
func streamingCheckpoint(t *testing.T, w wire) *stream.Checkpoint {
	return checkpointAtFirst(t, newWireAgent(w, answers{kindStream: sendsWorking}))
}

func checkpointAtFirst(t *testing.T, agent *wireAgent) *stream.Checkpoint {
	t.Helper()
	s := agent.client(t).Send(bounded(t), hello())
	defer s.Close()
	require.True(t, s.Next(), "the working task: %v", s.Err())
	return s.Checkpoint()
}

// cardSaysPoll resolves a Client of agent from a card that names its wire
// and says that it cannot stream.
func cardSaysPoll(t *testing.T, agent *wireAgent) *stream.Client {
	t.Helper()
	card := fmt.Sprintf(`{"name":"n","url":"http://agent.test/","preferredTransport":%q,"protocolVersion":"0.3.0","capabilities":{"streaming":false}}`, agent.b)
	if agent.v == a2a.V10 {
		card = fmt.Sprintf(`{"name":"n","supportedInterfaces":[{"url":"http://agent.test/","protocolBinding":%q,"protocolVersion":"1.0"}],"capabilities":{"streaming":false}}`, agent.b)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, card)
	})
	mux.Handle("/", agent)
	c, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(a2atest.NewClient(mux)))
	require.NoError(t, err)
	return c
}

// noStreamAfterDrop answers the send with a working task, ends its stream,
// refuses the subscribe with unsupported operation (the server cannot
// stream the task), and answers each get-task with get.
func noStreamAfterDrop(get func(*wireWriter, wireCall)) answers {
	return answers{kindStream: sendsWorking, kindSubscribe: refusedWith(a2a.CodeUnsupportedOperation), kindGet: get}
}

// legOf answers a streaming call with evs, then ends the stream.
func legOf(evs ...a2a.Event) func(*wireWriter, wireCall) {
	return func(ww *wireWriter, _ wireCall) {
		ww.sse()
		for _, ev := range evs {
			ww.event(ev)
		}
	}
}

// answersTask answers a get-task with t.
func answersTask(t *a2a.Task) func(*wireWriter, wireCall) {
	return func(ww *wireWriter, _ wireCall) { ww.task(t) }
}

// answersResult answers a unary send with t.
func answersResult(t *a2a.Task) func(*wireWriter, wireCall) {
	return func(ww *wireWriter, _ wireCall) { ww.result(t) }
}

// refusedWith answers with the wire's error for code.
func refusedWith(code int) func(*wireWriter, wireCall) {
	return func(ww *wireWriter, _ wireCall) { ww.rpcError(code, "refused") }
}

// askingCity is the task asking "which city?" (prompt q-1).
func askingCity() *a2a.Task {
	t := snap(a2a.StateInputRequired)
	t.Status.Message = agentMsg("q-1", "which city?")
	return t
}

// askedThen answers the first send with the task asking, and the reply
// with then.
func askedThen(then func(*wireWriter, wireCall)) func(*wireWriter, wireCall) {
	return func(ww *wireWriter, c wireCall) {
		switch {
		case c.n > 0:
			then(ww, c)
		case c.kind == kindStream:
			legOf(askingCity())(ww, c)
		default:
			ww.result(askingCity())
		}
	}
}

// answerParis answers every prompt "Paris".
var answerParis = stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
	return hitl.Text("Paris"), nil
}))

// giveToken gives the credentials "Authorization: Bearer fresh".
var giveToken = stream.WithCredentials(credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
	return http.Header{"Authorization": {"Bearer fresh"}}, nil
}))

// withToken answers with then a call that carries giveToken's credentials,
// and refuses any other with 401.
func withToken(then func(*wireWriter, wireCall)) func(*wireWriter, wireCall) {
	return func(ww *wireWriter, c wireCall) {
		if c.header.Get("Authorization") != "Bearer fresh" {
			http.Error(ww.w, "no credentials", http.StatusUnauthorized)
			return
		}
		then(ww, c)
	}
}

// yielded describes the events the application got: "task working",
// "status completed", "artifact a1", "message".
func yielded(got *collected) []string {
	var out []string
	for _, ev := range got.events {
		switch e := ev.(type) {
		case *a2a.Task:
			out = append(out, "task "+string(e.Status.State))
		case *a2a.StatusUpdate:
			out = append(out, "status "+string(e.Status.State))
		case *a2a.ArtifactUpdate:
			out = append(out, "artifact "+e.Artifact.ID)
		case *a2a.Message:
			out = append(out, "message")
		}
	}
	return out
}

// yields is the events of a row, in order (see yielded).
func yields(evs ...string) []string { return evs }

// seq is the calls of a row, in order.
func seq(ks ...callKind) []callKind { return ks }

// kinds is the notices of a row, in order.
func kinds(ks ...stream.NoticeKind) []stream.NoticeKind { return ks }

func endsWell(t *testing.T, err error) {
	t.Helper()
	require.NoError(t, err)
}

// endsAs requires err to be an E.
func endsAs[E error](t *testing.T, err error) {
	t.Helper()
	var target E
	require.ErrorAs(t, err, &target)
}

// endsInCode requires err to be the A2A error of code, and no spent
// budget.
func endsInCode(code int) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var rpcErr *a2a.RPCError
		require.ErrorAs(t, err, &rpcErr)
		require.Equal(t, code, rpcErr.Code)
		var re *reconnect.Error
		require.NotErrorAs(t, err, &re)
	}
}

// callsOf is the kinds of the calls agent received, in order.
func callsOf(a *wireAgent) []callKind {
	var calls []callKind
	for _, c := range a.received() {
		calls = append(calls, c.kind)
	}
	return calls
}
