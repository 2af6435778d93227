package a2atest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

// returnAtOnce is the send configuration that asks a unary send in v to be
// answered at once.
func returnAtOnce(v a2a.Version) string {
	if v == a2a.V03 {
		return `{"blocking":false}`
	}
	return `{"returnImmediately":true}`
}

// sendParamsWith is sendParams with a configuration object ("" for none).
func sendParamsWith(t *testing.T, v a2a.Version, text, taskID, config string) string {
	t.Helper()
	p := sendParams(t, v, text, taskID)
	if config == "" {
		return p
	}
	return strings.TrimSuffix(p, "}") + `,"configuration":` + config + `}`
}

// unaryTask decodes a unary send's result, which must be a Task.
func unaryTask(t *testing.T, resp *http.Response) *a2a.Task {
	t.Helper()
	ev, err := a2a.Codec{}.DecodeEvent(unaryResult(t, resp))
	require.NoError(t, err)
	task, ok := ev.(*a2a.Task)
	require.True(t, ok, "result %s", kind(ev))
	return task
}

// getTask polls the task with tasks/get or GetTask.
func getTask(t *testing.T, agent *a2atest.Agent, v a2a.Version, id string) *a2a.Task {
	t.Helper()
	task, err := a2a.Codec{}.DecodeTask(unaryResult(t, call(t.Context(), t, agent.Client(), v, "get", idParams(id))))
	require.NoError(t, err)
	return task
}

// TestUnarySendNonBlocking checks that a non-blocking send answers at once
// with the task as of its arrival, zero-delay steps applied, while the
// script goes on on the agent's clock, as get-task then shows.
func TestUnarySendNonBlocking(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), pausedScript())
				start := time.Now()
				resp := call(t.Context(), t, agent.Client(), v, "send", sendParamsWith(t, v, "hi", "", returnAtOnce(v)))
				require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
				task := unaryTask(t, resp)
				require.Zero(t, time.Since(start))
				require.Equal(t, a2a.StateWorking, task.Status.State, "Working(\"starting\") has no delay")
				require.Empty(t, task.Artifacts)
				require.Len(t, task.History, 2)
				require.Equal(t, "hi", task.History[0].Text())
				require.Equal(t, []string{task.ID}, agent.TaskIDs())

				advance(time.Second)
				got := getTask(t, agent, v, task.ID)
				require.Equal(t, a2a.StateWorking, got.Status.State)
				require.Equal(t, "x", got.Artifacts[0].Text())
				advance(2 * time.Second)
				got = getTask(t, agent, v, task.ID)
				require.Equal(t, a2a.StateCompleted, got.Status.State)
				require.Equal(t, "xy", got.Artifacts[0].Text())

				reqs := agent.Requests()
				require.Len(t, reqs, 3)
				require.Equal(t, methodName(v, "send"), reqs[0].Method)
				require.True(t, reqs[0].NonBlocking)
				require.Equal(t, "hi", reqs[0].Message.Text())
				require.False(t, reqs[1].NonBlocking, "a get is not a send")
			})
		})
	}
}

// TestUnarySendNonBlockingAtArrival checks what "as of arrival" means for
// scripts that start with and without a pause.
func TestUnarySendNonBlockingAtArrival(t *testing.T) {
	tests := []struct {
		name   string
		script []a2atest.Step
		want   a2a.TaskState
	}{
		{"the default script is over at once", a2atest.DefaultScript(), a2a.StateCompleted},
		{"a leading pause leaves it submitted", []a2atest.Step{a2atest.Pause(time.Millisecond), a2atest.Working("")}, a2a.StateSubmitted},
		{"an empty script leaves it submitted", nil, a2a.StateSubmitted},
		{"input-required at once", []a2atest.Step{a2atest.AskInput("?")}, a2a.StateInputRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithScript(tt.script...))
				task := unaryTask(t, call(t.Context(), t, agent.Client(), a2a.V10, "send", sendParamsWith(t, a2a.V10, "hi", "", returnAtOnce(a2a.V10))))
				require.Equal(t, tt.want, task.Status.State)
			})
		})
	}
}

// TestUnarySendBlocking checks that a blocking send (the default) answers
// when the task settles, as real servers do, each version reading only its
// own configuration field.
func TestUnarySendBlocking(t *testing.T) {
	tests := []struct {
		name   string
		v      a2a.Version
		config string
	}{
		{"0.3 default", a2a.V03, ""},
		{"0.3 blocking true", a2a.V03, `{"blocking":true}`},
		{"0.3 ignores returnImmediately", a2a.V03, `{"returnImmediately":true}`},
		{"1.0 default", a2a.V10, ""},
		{"1.0 returnImmediately false", a2a.V10, `{"returnImmediately":false}`},
		{"1.0 ignores blocking", a2a.V10, `{"blocking":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(tt.v), pausedScript())
				start := time.Now()
				task := unaryTask(t, call(t.Context(), t, agent.Client(), tt.v, "send", sendParamsWith(t, tt.v, "hi", "", tt.config)))
				require.Equal(t, 3*time.Second, time.Since(start))
				require.Equal(t, a2a.StateCompleted, task.Status.State)
				require.Equal(t, "xy", task.Artifacts[0].Text())
				require.Equal(t, "done", task.Status.Message.Text())
				require.False(t, agent.Requests()[0].NonBlocking)
			})
		})
	}
}

// TestUnarySendBlockingSettles checks where a blocking send stops waiting.
func TestUnarySendBlockingSettles(t *testing.T) {
	tests := []struct {
		name     string
		script   []a2atest.Step
		after    time.Duration
		want     a2a.TaskState
		wantText string // the status message's text
	}{
		{"input-required", []a2atest.Step{a2atest.Working(""), a2atest.Pause(time.Second), a2atest.AskInput("which one?"),
			a2atest.Finish(a2a.StateCompleted, "")}, time.Second, a2a.StateInputRequired, "which one?"},
		// auth-required settles the send, as @a2a-js/sdk 1.x answers at
		// its snapshot, although the script goes on.
		{"auth-required", []a2atest.Step{a2atest.Working(""), a2atest.Pause(time.Second), a2atest.AskAuth("log in"),
			a2atest.Finish(a2a.StateCompleted, "")}, time.Second, a2a.StateAuthRequired, "log in"},
		{"failed", []a2atest.Step{a2atest.Pause(2 * time.Second), a2atest.Finish(a2a.StateFailed, "no")}, 2 * time.Second, a2a.StateFailed, "no"},
		// A script that runs out without settling ends the wait, as an
		// @a2a-js/sdk executor that returns does.
		{"the script runs out", []a2atest.Step{a2atest.Working(""), a2atest.Pause(2 * time.Second), a2atest.Working("still here")},
			2 * time.Second, a2a.StateWorking, "still here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithScript(tt.script...))
				start := time.Now()
				task := unaryTask(t, call(t.Context(), t, agent.Client(), a2a.V10, "send", sendParams(t, a2a.V10, "hi", "")))
				require.Equal(t, tt.after, time.Since(start))
				require.Equal(t, tt.want, task.Status.State)
				require.Equal(t, tt.wantText, task.Status.Message.Text())
			})
		})
	}
	t.Run("a reply", func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Reply("just this")))
		ev, err := a2a.Codec{}.DecodeEvent(unaryResult(t, call(t.Context(), t, agent.Client(), a2a.V10, "send", sendParams(t, a2a.V10, "hi", ""))))
		require.NoError(t, err)
		require.Equal(t, "M(just this)", kind(ev))
	})
	t.Run("auth-required then completed, seen by get", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithScript(a2atest.AskAuth("log in"), a2atest.Pause(time.Second), a2atest.Finish(a2a.StateCompleted, "")))
			task := unaryTask(t, call(t.Context(), t, agent.Client(), a2a.V10, "send", sendParams(t, a2a.V10, "hi", "")))
			require.Equal(t, a2a.StateAuthRequired, task.Status.State)
			advance(time.Second)
			require.Equal(t, a2a.StateCompleted, getTask(t, agent, a2a.V10, task.ID).Status.State)
		})
	})
}

// TestUnarySendBlockingCanceled checks that a task canceled while a blocking
// send waits settles the send on its canceled status.
func TestUnarySendBlockingCanceled(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), pausedScript())
				start := time.Now()
				params := sendParams(t, v, "hi", "")
				type result struct {
					resp *http.Response
					err  error
				}
				done := make(chan result)
				go func() {
					resp, err := rawCall(t.Context(), agent.Client(), v, "send", params)
					done <- result{resp, err}
				}()
				advance(1500 * time.Millisecond)
				ids := agent.TaskIDs()
				require.Len(t, ids, 1)
				unaryResult(t, call(t.Context(), t, agent.Client(), v, "cancel", idParams(ids[0])))
				r := <-done
				require.NoError(t, r.err)
				t.Cleanup(func() { _ = r.resp.Body.Close() })
				task := unaryTask(t, r.resp)
				require.Equal(t, 1500*time.Millisecond, time.Since(start))
				require.Equal(t, a2a.StateCanceled, task.Status.State)
				require.Equal(t, "x", task.Artifacts[0].Text())
			})
		})
	}
}

// TestUnarySendBlockingClientGoesAway checks that a blocking send whose
// client gives up answers nothing, and that the task runs on.
func TestUnarySendBlockingClientGoesAway(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(pausedScript())
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err := rawCall(ctx, agent.Client(), a2a.V10, "send", sendParams(t, a2a.V10, "hi", ""))
		require.ErrorIs(t, err, context.DeadlineExceeded)

		id := agent.TaskIDs()[0]
		advance(2 * time.Second)
		require.Equal(t, a2a.StateCompleted, getTask(t, agent, a2a.V10, id).Status.State)
	})
}

// TestUnaryFollowUp checks a follow-up message for an input-required task
// sent with a unary send, non-blocking and blocking.
func TestUnaryFollowUp(t *testing.T) {
	script := a2atest.WithScript(
		a2atest.Working(""),
		a2atest.AskInput("which one?"),
		a2atest.Working("on it"),
		a2atest.Pause(2*time.Second),
		a2atest.Chunk("a1", "the blue one", false, true),
		a2atest.Finish(a2a.StateCompleted, ""),
	)
	for _, v := range bothVersions() {
		for _, nonBlocking := range []bool{true, false} {
			name := string(v) + "/blocking"
			config := ""
			if nonBlocking {
				name, config = string(v)+"/non-blocking", returnAtOnce(v)
			}
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithoutStreaming(), script)
					c := agent.Client()
					start := time.Now()
					task := unaryTask(t, call(t.Context(), t, c, v, "send", sendParamsWith(t, v, "hi", "", config)))
					require.Equal(t, a2a.StateInputRequired, task.Status.State)
					require.Zero(t, time.Since(start))

					task = unaryTask(t, call(t.Context(), t, c, v, "send", sendParamsWith(t, v, "blue", task.ID, config)))
					if nonBlocking {
						require.Zero(t, time.Since(start))
						require.Equal(t, a2a.StateWorking, task.Status.State)
						require.Equal(t, "on it", task.Status.Message.Text())
						require.Empty(t, task.Artifacts)
						advance(2 * time.Second)
						task = getTask(t, agent, v, task.ID)
					}
					require.Equal(t, 2*time.Second, time.Since(start))
					require.Equal(t, a2a.StateCompleted, task.Status.State)
					require.Equal(t, "the blue one", task.Artifacts[0].Text())
					var texts []string
					for _, m := range task.History {
						texts = append(texts, string(m.Role)+":"+m.Text())
					}
					require.Equal(t, []string{"user:hi", "agent:which one?", "user:blue", "agent:on it"}, texts)

					reqs := agent.Requests()
					require.Equal(t, task.ID, reqs[1].TaskID)
					require.Equal(t, nonBlocking, reqs[1].NonBlocking)

					// A terminal task refuses more, as for streaming sends.
					resp := call(t.Context(), t, c, v, "send", sendParamsWith(t, v, "again", task.ID, config))
					if v == a2a.V03 {
						requireUnaryError(t, resp, a2a.CodeInvalidParams)
					} else {
						requireUnaryError(t, resp, a2a.CodeUnsupportedOperation)
					}
				})
			})
		}
	}
}

func TestUnarySendBadConfiguration(t *testing.T) {
	agent := a2atest.NewAgent()
	requireUnaryError(t, call(t.Context(), t, agent.Client(), a2a.V10, "send", sendParamsWith(t, a2a.V10, "hi", "", `{"returnImmediately":"yes"}`)), a2a.CodeInvalidParams)
	require.Empty(t, agent.TaskIDs())
}
