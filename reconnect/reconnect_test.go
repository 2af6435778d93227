package reconnect_test

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/reconnect"
)

func TestDefault(t *testing.T) {
	want := reconnect.Policy{MaxAttempts: 3, Backoff: 500 * time.Millisecond}
	if got := reconnect.Default(); got != want {
		t.Fatalf("got %+v; want %+v", got, want)
	}
}

func TestError(t *testing.T) {
	e := &reconnect.Error{Attempts: 3, Err: io.ErrUnexpectedEOF, Task: &a2a.Task{ID: "t-1"}}
	if got, want := e.Error(), "reconnect: task t-1: gave up after 3 attempts: unexpected EOF"; got != want {
		t.Fatalf("got %q; want %q", got, want)
	}
	require.ErrorIs(t, e, io.ErrUnexpectedEOF)
	early := &reconnect.Error{Err: io.ErrUnexpectedEOF}
	if got, want := early.Error(), "reconnect: connection lost before any task was known: unexpected EOF"; got != want {
		t.Fatalf("got %q; want %q", got, want)
	}
	var re *reconnect.Error
	require.True(t, errors.As(early, &re))
	require.ErrorIs(t, early, reconnect.ErrNoTask)
	require.NotErrorIs(t, e, reconnect.ErrNoTask, "a budget spent on a known task")

	off := &reconnect.Error{Err: io.ErrUnexpectedEOF, Task: &a2a.Task{ID: "t-1"}}
	require.Equal(t, "reconnect: task t-1: connection lost, and the policy allows no reconnect: unexpected EOF", off.Error())
	require.NotErrorIs(t, off, reconnect.ErrNoTask, "a task was known; the policy said never")
}

// An Error that knows only the task's ID (a Subscribe that never connected)
// names it, and is not ErrNoTask.
func TestErrorWithATaskIDOnly(t *testing.T) {
	e := &reconnect.Error{Attempts: 3, Err: io.ErrUnexpectedEOF, TaskID: "t-1"}
	require.Equal(t, "reconnect: task t-1: gave up after 3 attempts: unexpected EOF", e.Error())
	require.NotErrorIs(t, e, reconnect.ErrNoTask)
	off := &reconnect.Error{Err: io.ErrUnexpectedEOF, TaskID: "t-1"}
	require.Equal(t, "reconnect: task t-1: connection lost, and the policy allows no reconnect: unexpected EOF", off.Error())
	require.NotErrorIs(t, off, reconnect.ErrNoTask)
}

func TestErrorOfAnAgentNeverConnectedTo(t *testing.T) {
	cases := []struct {
		name string
		e    *reconnect.Error
		want string
	}{
		{"no task, no reconnect", &reconnect.Error{Err: io.ErrUnexpectedEOF, Unreachable: "http://agent.test/a2a"},
			"reconnect: could not connect to http://agent.test/a2a: unexpected EOF"},
		{"no task, budget spent", &reconnect.Error{Attempts: 3, Err: io.ErrUnexpectedEOF, Unreachable: "http://agent.test/a2a"},
			"reconnect: could not connect to http://agent.test/a2a, gave up after 3 attempts: unexpected EOF"},
		{"a task", &reconnect.Error{Attempts: 3, Err: io.ErrUnexpectedEOF, TaskID: "t-1", Unreachable: "http://agent.test/a2a"},
			"reconnect: task t-1: could not connect to http://agent.test/a2a, gave up after 3 attempts: unexpected EOF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.e.Error())
			require.ErrorIs(t, tc.e, reconnect.ErrCouldNotConnect)
			require.NotErrorIs(t, tc.e, reconnect.ErrNoTask)
			require.ErrorIs(t, tc.e, io.ErrUnexpectedEOF)
		})
	}
	require.NotErrorIs(t, &reconnect.Error{Err: io.ErrUnexpectedEOF}, reconnect.ErrCouldNotConnect)
}

// An Error of an agent never connected to names its URL once: the request
// that a *url.Error in Err names again is left out of the text, wrapped or
// not; the wrapper's own words stay, and the *url.Error stays reachable.
// A lost connection's text keeps its request: it names no URL otherwise.
func TestErrorOfAnAgentNeverConnectedToNamesItsURLOnce(t *testing.T) {
	dial := &url.Error{Op: "Post", URL: "http://agent.test/a2a/message:stream", Err: errors.New("dial tcp: connection refused")}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"bare", dial, "reconnect: could not connect to http://agent.test/a2a, gave up after 2 attempts: dial tcp: connection refused"},
		{"wrapped", fmt.Errorf("no connection within the connect timeout (1s): %w", dial),
			"reconnect: could not connect to http://agent.test/a2a, gave up after 2 attempts: no connection within the connect timeout (1s): dial tcp: connection refused"},
		{"a URL that needs quoting", &url.Error{Op: "Get", URL: "http://agent.test/a\"b", Err: io.ErrUnexpectedEOF},
			"reconnect: could not connect to http://agent.test/a2a, gave up after 2 attempts: unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &reconnect.Error{Attempts: 2, Err: tc.err, Unreachable: "http://agent.test/a2a"}
			require.Equal(t, tc.want, e.Error())
			var ue *url.Error
			require.ErrorAs(t, e, &ue)
		})
	}
	lost := &reconnect.Error{Attempts: 2, TaskID: "t-1", Err: dial}
	require.Equal(t, `reconnect: task t-1: gave up after 2 attempts: Post "http://agent.test/a2a/message:stream": dial tcp: connection refused`, lost.Error())
}
