package stream_test

// The trace hook (trace.go), by behaviour, on the four wires: what a
// stream cut twice, a prompt answered, a send made again and an ending
// tell a Trace, and that no header value, token or message text reaches
// one.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// traceLog records every call of a Trace, in order.
type traceLog struct {
	starts    []stream.AttemptInfo
	connected []stream.AttemptInfo
	firsts    []stream.AttemptInfo
	dones     []stream.AttemptDoneInfo
	waits     []stream.WaitInfo
	gaps      []stream.GapInfo
	asks      []stream.AskInfo
	cps       []stream.CheckpointInfo
	ends      []stream.DoneInfo
	// all is every call's argument, formatted with %+v.
	all []string
}

func (l *traceLog) note(v any) { l.all = append(l.all, fmt.Sprintf("%+v", v)) }

func (l *traceLog) trace() *stream.Trace {
	return &stream.Trace{
		AttemptStart: func(a stream.AttemptInfo) { l.starts = append(l.starts, a); l.note(a) },
		Connected:    func(a stream.AttemptInfo) { l.connected = append(l.connected, a); l.note(a) },
		FirstEvent:   func(a stream.AttemptInfo) { l.firsts = append(l.firsts, a); l.note(a) },
		AttemptDone:  func(d stream.AttemptDoneInfo) { l.dones = append(l.dones, d); l.note(d) },
		Wait:         func(w stream.WaitInfo) { l.waits = append(l.waits, w); l.note(w) },
		Gap:          func(g stream.GapInfo) { l.gaps = append(l.gaps, g); l.note(g) },
		Ask:          func(a stream.AskInfo) { l.asks = append(l.asks, a); l.note(a) },
		Checkpoint:   func(c stream.CheckpointInfo) { l.cps = append(l.cps, c); l.note(c) },
		Done:         func(d stream.DoneInfo) { l.ends = append(l.ends, d); l.note(d) },
	}
}

func (l *traceLog) option() stream.Option { return stream.WithTrace(l.trace()) }

// startKinds is the kinds of the calls started, in order.
func (l *traceLog) startKinds() []stream.AttemptKind {
	var ks []stream.AttemptKind
	for _, a := range l.starts {
		ks = append(ks, a.Kind)
	}
	return ks
}

// outcomes is the outcomes of the calls ended, in order.
func (l *traceLog) outcomes() []string {
	var os []string
	for _, d := range l.dones {
		os = append(os, d.Outcome)
	}
	return os
}

// resends counts the calls started that send a message again.
func (l *traceLog) resends() int {
	n := 0
	for _, a := range l.starts {
		if a.Resend {
			n++
		}
	}
	return n
}

// onEveryWire runs f on each of the four wires, in a synctest bubble.
func onEveryWire(t *testing.T, f func(t *testing.T, w wire)) {
	t.Parallel()
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { f(t, w) })
		})
	}
}

func TestTraceOfAStreamCutTwice(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		// The send brings a working task and drops; the first resubscribe
		// brings the task's first part and drops; the second brings the end.
		agent := newWireAgent(w, answers{kindStream: sendsWorking, kindSubscribe: func(ww *wireWriter, c wireCall) {
			if c.n == 0 {
				legOf(snap(a2a.StateWorking, "one"))(ww, c)
				return
			}
			legOf(snap(a2a.StateCompleted, "one"))(ww, c)
		}})
		var tl traceLog
		_, _, err := runSend(t, agent, &noticeLog{}, tl.option())
		require.NoError(t, err)
		require.Equal(t, seq(kindStream, kindSubscribe, kindSubscribe), callsOf(agent))

		require.Equal(t, []stream.AttemptKind{stream.AttemptSend, stream.AttemptSubscribe, stream.AttemptSubscribe}, tl.startKinds())
		for i, a := range tl.starts {
			require.Equal(t, i+1, a.Call, "call numbers")
			require.True(t, a.Streaming)
			require.False(t, a.Resend)
			require.Equal(t, agent.b, a.Binding)
			require.Equal(t, w.v, a.Version)
		}
		require.Equal(t, []int{0, 1, 1}, []int{tl.starts[0].Attempt, tl.starts[1].Attempt, tl.starts[2].Attempt},
			"the reconnect attempt of each call: the first resubscribe's news started the budget again")
		require.Len(t, tl.connected, 3, "each call's stream opened")
		require.Len(t, tl.firsts, 3, "each call brought a first event")
		require.Equal(t, []string{"drop", "drop", "ok"}, tl.outcomes())
		for _, d := range tl.dones {
			require.Equal(t, 1, d.Events)
			require.Equal(t, "t-1", d.TaskID)
		}
		require.Error(t, tl.dones[0].Err)
		require.NoError(t, tl.dones[2].Err)

		require.Len(t, tl.waits, 2, "two reconnects scheduled")
		for _, wt := range tl.waits {
			require.Equal(t, stream.WaitBackoff, wt.Kind)
			require.Equal(t, 1, wt.Attempt)
			require.Equal(t, 3, wt.MaxAttempts)
			require.Equal(t, backoff, wt.Wait)
			require.Zero(t, wt.Asked)
			require.Error(t, wt.Cause)
		}
		require.Equal(t, []stream.GapInfo{
			{Kind: stream.GapOpened, TaskID: "t-1"}, {Kind: stream.GapHealed, TaskID: "t-1"},
			{Kind: stream.GapOpened, TaskID: "t-1"}, {Kind: stream.GapHealed, TaskID: "t-1"},
		}, tl.gaps)
		require.Empty(t, tl.asks)
		require.Equal(t, []stream.DoneInfo{{TaskID: "t-1", State: a2a.StateCompleted, Calls: 3}}, tl.ends, "one end")
		requireTraceWhole(t, &tl, err)
	})
}

func TestTraceOfAPromptAnswered(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		agent := newWireAgent(w, answers{kindStream: askedThen(legOf(snap(a2a.StateCompleted, "done")))})
		var tl traceLog
		_, _, err := runSend(t, agent, &noticeLog{}, answerParis, tl.option())
		require.NoError(t, err)
		require.Equal(t, []stream.AskInfo{
			{Kind: stream.AskHuman, TaskID: "t-1"},
			{Kind: stream.AskHuman, TaskID: "t-1", Returned: true},
		}, tl.asks, "asked once, answered once")
		require.Equal(t, []stream.AttemptKind{stream.AttemptSend, stream.AttemptReply}, tl.startKinds())
		require.Equal(t, []string{"ok", "ok"}, tl.outcomes())
		require.Zero(t, tl.resends(), "a reply is no resend")
		require.Len(t, tl.ends, 1)
		require.Equal(t, a2a.StateCompleted, tl.ends[0].State)
	})
}

func TestTraceOfAPromptWhoseHookFails(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		agent := newWireAgent(w, answers{kindStream: legOf(askingCity())})
		errGone := errors.New("the human went away")
		var tl traceLog
		_, _, err := runSend(t, agent, &noticeLog{}, tl.option(),
			stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return nil, errGone })))
		require.ErrorIs(t, err, errGone)
		require.Len(t, tl.asks, 2)
		require.False(t, tl.asks[0].Returned)
		require.True(t, tl.asks[1].Returned)
		require.ErrorIs(t, tl.asks[1].Err, errGone)
		require.Len(t, tl.ends, 1)
		require.Equal(t, a2a.StateInputRequired, tl.ends[0].State)
		require.ErrorIs(t, tl.ends[0].Err, errGone)
	})
}

func TestTraceOfASendMadeAgainHonouringRetryAfter(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		agent := newWireAgent(w, answers{kindStream: func(ww *wireWriter, c wireCall) {
			if c.n == 0 {
				ww.w.Header().Set("Retry-After", "2")
				ww.w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			legOf(snap(a2a.StateCompleted, "done"))(ww, c)
		}})
		var tl traceLog
		_, _, err := runSend(t, agent, &noticeLog{}, stream.WithIdempotentSends(), tl.option())
		require.NoError(t, err)
		require.Equal(t, []stream.AttemptKind{stream.AttemptSend, stream.AttemptSend}, tl.startKinds())
		require.Equal(t, 1, tl.resends(), "one resend")
		require.True(t, tl.starts[1].Resend)
		require.Equal(t, 1, tl.starts[1].Attempt)
		require.Equal(t, []string{"retry", "ok"}, tl.outcomes())
		require.Len(t, tl.waits, 1)
		require.Equal(t, stream.WaitBackoff, tl.waits[0].Kind)
		require.Equal(t, 2*time.Second, tl.waits[0].Asked, "the retry hint")
		require.Equal(t, 2*time.Second, tl.waits[0].Wait, "honoured: longer than the backoff")
		require.Len(t, tl.ends, 1)
	})
}

func TestTraceOfAnEnding(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		agent := newWireAgent(w, answers{kindStream: legOf(snap(a2a.StateWorking), snap(a2a.StateFailed))})
		var tl traceLog
		s := agent.client(t).Send(bounded(t), hello(), tl.option())
		_, err := drain(t, s)
		endsAs[*terminal.FailedError](t, err)
		require.NoError(t, s.Close())
		require.NoError(t, s.Close())
		require.Len(t, tl.ends, 1, "one end, Close after it tells nothing")
		require.Equal(t, a2a.StateFailed, tl.ends[0].State)
		endsAs[*terminal.FailedError](t, tl.ends[0].Err)
		require.False(t, tl.ends[0].Closed)
		require.Equal(t, 1, tl.ends[0].Calls)
		require.Equal(t, []string{"ok"}, tl.outcomes())
	})
}

func TestTraceIsGivenNoReasonText(t *testing.T) {
	const reason = "the private reason the agent gave"
	onEveryWire(t, func(t *testing.T, w wire) {
		failed := snap(a2a.StateFailed)
		failed.Status.Message = agentMsg("m-1", reason)
		agent := newWireAgent(w, answers{kindStream: legOf(snap(a2a.StateWorking), failed)})
		var tl traceLog
		s := agent.client(t).Send(bounded(t), hello(), tl.option())
		_, err := drain(t, s)
		require.ErrorContains(t, err, reason, "Err quotes the reason")
		require.Len(t, tl.ends, 1)
		var fe *terminal.FailedError
		require.ErrorAs(t, tl.ends[0].Err, &fe, "the typed ending, through the textless error")
		require.ErrorIs(t, tl.ends[0].Err, err)
		require.ErrorContains(t, tl.ends[0].Err, "failed")
		for _, text := range tl.all {
			require.NotContains(t, text, "private", "a trace's argument")
		}
	})
}

func TestTraceOfAStreamClosed(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		agent := newWireAgent(w, answers{kindStream: legOf(snap(a2a.StateWorking), snap(a2a.StateCompleted))})
		var tl traceLog
		s := agent.client(t).Send(bounded(t), hello(), tl.option())
		require.True(t, s.Next())
		cp := s.Checkpoint()
		require.Equal(t, "t-1", cp.TaskID())
		require.Equal(t, []stream.CheckpointInfo{{TaskID: "t-1"}}, tl.cps)
		require.NoError(t, s.Close())
		require.Equal(t, []string{"closed"}, tl.outcomes())
		require.Equal(t, []stream.DoneInfo{{TaskID: "t-1", State: a2a.StateWorking, Calls: 1, Closed: true}}, tl.ends)
	})
}

func TestTraceOfAPoll(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		agent := newWireAgent(w, answers{kindStream: refusedWith(a2a.CodeUnsupportedOperation),
			kindSend: answersResult(snap(a2a.StateWorking)), kindGet: answersTask(snap(a2a.StateCompleted, "done"))})
		var tl traceLog
		_, _, err := runSend(t, agent, &noticeLog{}, tl.option())
		require.NoError(t, err)
		require.Equal(t, []stream.AttemptKind{stream.AttemptSend, stream.AttemptSend, stream.AttemptPoll}, tl.startKinds())
		require.Equal(t, []bool{true, false, false}, []bool{tl.starts[0].Streaming, tl.starts[1].Streaming, tl.starts[2].Streaming})
		require.Equal(t, 1, tl.resends(), "the unary send of the message a streaming send could not make")
		require.Equal(t, []string{"unsupported", "ok", "ok"}, tl.outcomes())
		require.Equal(t, []stream.WaitInfo{{Kind: stream.WaitPoll, TaskID: "t-1", Wait: time.Second}}, tl.waits)
		require.Len(t, tl.ends, 1)
	})
}

func TestTraceIsGivenNoSecret(t *testing.T) {
	const (
		token      = "Bearer tok-7b1f-SECRET"
		freshToken = "Bearer fresh-9c2e-SECRET"
		said       = "hello from the user, private words"
		answered   = "Paris, the private answer"
		asked      = "which city?"
	)
	onEveryWire(t, func(t *testing.T, w wire) {
		// The send asks a question; the reply's stream drops; the
		// resubscribe is refused with 401 until the credentials hook gives
		// a token; then the task completes.
		agent := newWireAgent(w, answers{
			kindStream: askedThen(sendsWorking),
			kindSubscribe: func(ww *wireWriter, c wireCall) {
				if c.header.Get("Authorization") != freshToken {
					http.Error(ww.w, "no credentials", http.StatusUnauthorized)
					return
				}
				legOf(snap(a2a.StateCompleted, "done"))(ww, c)
			},
		})
		var tl traceLog
		s := agent.client(t).Send(bounded(t), a2a.NewTextMessage(a2a.RoleUser, said), tl.option(),
			stream.WithHeader("Authorization", token),
			stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text(answered), nil })),
			stream.WithCredentials(credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
				return http.Header{"Authorization": {freshToken}}, nil
			})),
			stream.WithCheckpointBeforeReply(func(context.Context, *stream.Checkpoint) error { return nil }))
		for s.Next() {
			s.Checkpoint()
		}
		require.NoError(t, s.Err())
		requireTraceWhole(t, &tl, s.Err())
		require.Equal(t, []stream.AttemptKind{stream.AttemptSend, stream.AttemptReply, stream.AttemptSubscribe, stream.AttemptSubscribe},
			tl.startKinds())
		require.Equal(t, []string{"ok", "drop", "credentials", "ok"}, tl.outcomes())
		require.Equal(t, []stream.AskKind{stream.AskHuman, stream.AskHuman, stream.AskCredentials, stream.AskCredentials},
			[]stream.AskKind{tl.asks[0].Kind, tl.asks[1].Kind, tl.asks[2].Kind, tl.asks[3].Kind})
		require.Contains(t, tl.cps, stream.CheckpointInfo{TaskID: "t-1", BeforeReply: true}, "the checkpoint before the reply")
		require.NotEmpty(t, tl.all)
		for _, text := range tl.all {
			for _, secret := range []string{"SECRET", "tok-7b1f", "fresh-9c2e", "private", asked, "Bearer"} {
				require.NotContains(t, text, secret, "a trace's argument")
			}
			require.False(t, strings.Contains(strings.ToLower(text), "authorization: "), text)
		}
	})
}

func TestTraceComposes(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		agent := newWireAgent(w, answers{kindStream: legOf(snap(a2a.StateCompleted, "done"))})
		var order []string
		client := &stream.Trace{Done: func(stream.DoneInfo) { order = append(order, "client's end") }}
		call := &stream.Trace{
			AttemptStart: func(stream.AttemptInfo) { order = append(order, "call's start") },
			Done:         func(stream.DoneInfo) { order = append(order, "call's end") },
		}
		again := &stream.Trace{Done: func(stream.DoneInfo) { order = append(order, "call's second end") }}
		s := agent.client(t, stream.WithTrace(client)).Send(bounded(t), hello(), stream.WithTrace(call), stream.WithTrace(again))
		_, err := drain(t, s)
		require.NoError(t, err)
		require.Equal(t, []string{"call's start", "client's end", "call's end", "call's second end"}, order,
			"each Trace given is called, the one given first first")
		order = nil
		_, err = drain(t, agent.client(t, stream.WithTrace(client)).Send(bounded(t), hello()))
		require.NoError(t, err)
		require.Equal(t, []string{"client's end"}, order, "a call's Trace does not change the Client's")
	})
}

func TestTraceNilIsRefused(t *testing.T) {
	t.Parallel()
	_, err := stream.NewClient("http://agent.test/", stream.WithTrace(nil))
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	require.ErrorContains(t, err, "WithTrace")
}

func TestTraceOfAGapHealedByAGetTask(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		// The resubscribe brings the ending alone: held back until a
		// get-task shows what the gap hid.
		agent := newWireAgent(w, answers{
			kindStream:    sendsWorking,
			kindSubscribe: legOf(statusEvent(w.v, a2a.StateCompleted, nil)),
			kindGet:       answersTask(snap(a2a.StateCompleted, "done")),
		})
		var tl traceLog
		_, _, err := runSend(t, agent, &noticeLog{}, tl.option())
		require.NoError(t, err)
		require.Equal(t, []stream.AttemptKind{stream.AttemptSend, stream.AttemptSubscribe, stream.AttemptGetTask}, tl.startKinds())
		require.Equal(t, []string{"drop", "ok", "ok"}, tl.outcomes())
		require.Equal(t, []stream.GapInfo{{Kind: stream.GapOpened, TaskID: "t-1"}, {Kind: stream.GapHealed, TaskID: "t-1", Fetched: true}}, tl.gaps)
		require.Len(t, tl.ends, 1)
	})
}

func TestTraceOfAGapNeverHealed(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		// As above, but every later call fails: the budget is spent, and
		// the ending held back is delivered as received.
		final := legOf(statusEvent(w.v, a2a.StateCompleted, nil))
		agent := newWireAgent(w, answers{
			kindStream: sendsWorking,
			kindSubscribe: func(ww *wireWriter, c wireCall) {
				if c.n == 0 {
					final(ww, c)
					return
				}
				unavailable(ww, c)
			},
			kindGet: unavailable,
		})
		var tl traceLog
		_, _, err := runSend(t, agent, &noticeLog{}, tl.option())
		require.NoError(t, err)
		require.Equal(t, []stream.GapInfo{{Kind: stream.GapOpened, TaskID: "t-1"}, {Kind: stream.GapUnhealed, TaskID: "t-1"}}, tl.gaps)
		require.Len(t, tl.waits, 3, "three reconnects scheduled, the budget")
		require.Len(t, tl.ends, 1)
		require.Equal(t, a2a.StateCompleted, tl.ends[0].State)
		require.Len(t, tl.dones, len(tl.starts), "every call started ended")
	})
}

// requireTraceWhole requires of a Trace's record, for a stream that ended
// in err, what holds of every stream: each call started ends before the
// next starts, numbered from 1, with an outcome; the stream ends once, in
// err, having counted its calls.
func requireTraceWhole(t *testing.T, tl *traceLog, err error) {
	t.Helper()
	require.Len(t, tl.dones, len(tl.starts), "every call started ended")
	for i, a := range tl.starts {
		require.Equal(t, i+1, a.Call)
		require.Equal(t, a.Call, tl.dones[i].Call, "each call ends before the next starts")
		require.Equal(t, a.Kind, tl.dones[i].Kind)
		require.NotEmpty(t, tl.dones[i].Outcome)
		require.NotEqual(t, "unknown", tl.dones[i].Outcome)
	}
	require.Len(t, tl.ends, 1, "the stream ends once")
	require.Equal(t, len(tl.starts), tl.ends[0].Calls)
	if err == nil {
		require.NoError(t, tl.ends[0].Err)
	} else {
		require.ErrorIs(t, tl.ends[0].Err, err, "the end is Err's")
	}
}
