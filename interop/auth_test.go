package interop_test

// Waiting through auth-required, against the retry peer (peers/retry) in
// its -auth mode through the cutting proxy, on every wire: the task stops
// in auth-required after the first chunk of "story" and goes on only once a
// subscribe or get-task carries the token. With a credentials hook
// (stream.WithCredentials) that gives it, the same task goes on and the run
// ends as the uncut stream scenario does, the message sent once, the token
// sent only on the calls after the hook, cut or polled; without a hook the
// run ends in *terminal.AuthRequiredError; with a wrong token the agent
// never moves on and the run ends when the reconnect budget is spent.

import (
	"context"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/interop/proxy"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// peerToken is the token the retry peer's -auth mode asks for.
const peerToken = "interop-token"

// signIn is the agent's status message in auth-required.
const signIn = "Please sign in"

// authFlags are the retry peer's flags for the -auth mode, then more.
func authFlags(more ...string) []string {
	return append([]string{"-auth", peerToken}, more...)
}

// tokenHook is a credentials hook that gives "Authorization: Bearer
// token" and records each of its calls: the request, and the calls the
// agent had received by then (read from the peer, not through the proxy).
type tokenHook struct {
	p      *peer
	token  string
	reqs   []credentials.Request
	before []agentCall // the agent's calls when the hook was first called
	err    error       // reading the agent's calls failed
	// then, when set, is called with before once it is read.
	then func(before []agentCall)
}

func (c *tokenHook) option() stream.Option {
	return stream.WithCredentials(credentials.Func(func(ctx context.Context, req *credentials.Request) (http.Header, error) {
		c.reqs = append(c.reqs, *req)
		if len(c.reqs) == 1 {
			c.before, c.err = c.p.calls(ctx)
			if c.err == nil && c.then != nil {
				c.then(c.before)
			}
		}
		return http.Header{"Authorization": {"Bearer " + c.token}}, nil
	}))
}

// requireAskedOnce checks that the hook was called once, for the task in
// auth-required with the agent's message, and read the agent's calls.
func (c *tokenHook) requireAskedOnce(t *testing.T) {
	t.Helper()
	require.NoError(t, c.err)
	require.Len(t, c.reqs, 1, "the hook was called once: the stale auth-required is not asked again")
	req := c.reqs[0]
	require.Equal(t, 1, req.Attempt)
	require.Equal(t, signIn, req.Text())
	require.NotNil(t, req.Task)
	require.Equal(t, a2a.StateAuthRequired, req.Task.Status.State)
	require.Equal(t, []artifact{{"story", []string{"Once upon a time, "}}}, view(req.Task.Artifacts))
}

// requireTokenAfterTheHook checks that no call the agent received before
// the hook carried an Authorization header, the send among them, and that
// every call after it carried the hook's token, at least one.
func (c *tokenHook) requireTokenAfterTheHook(t *testing.T, calls []agentCall) {
	t.Helper()
	require.NotEmpty(t, c.before)
	require.Equal(t, "send", c.before[0].Call)
	for _, cl := range c.before {
		require.Empty(t, cl.Authorization, "a call before the hook carried credentials: %+v", c.before)
	}
	require.Greater(t, len(calls), len(c.before), "calls after the hook")
	require.Equal(t, c.before, calls[:len(c.before)])
	for _, cl := range calls[len(c.before):] {
		require.NotEqual(t, "send", cl.Call, "the message is never sent again")
		require.Equal(t, "Bearer "+c.token, cl.Authorization, "every call after the hook carries its token: %+v", calls)
	}
}

// callsOf returns the agent's calls of that kind.
func callsOf(calls []agentCall, kind string) []agentCall {
	var out []agentCall
	for _, cl := range calls {
		if cl.Call == kind {
			out = append(out, cl)
		}
	}
	return out
}

func TestAuthRequiredGoesOnWithTheCredentialsHook(t *testing.T) {
	eachWire(t, authFlags(), func(t *testing.T, w wire, p *peer) {
		sc := scenarioNamed(t, "stream")
		creds := &tokenHook{p: p, token: peerToken}
		got, rl := run(t, p, sc, faults{client: []stream.Option{creds.option()}})
		logRun(t, rl)
		require.Equal(t, withText(sc.want), got)
		checkSends(t, rl.px, sc)
		creds.requireAskedOnce(t)
		c := p.counts(t)
		require.Len(t, c.Sends, 1)
		creds.requireTokenAfterTheHook(t, c.Calls)
		// The stream subscribes with the token, and the rest of the task
		// comes on that subscribe.
		require.Equal(t, []string{"send", "subscribe"}, callKinds(c.Calls))
		require.Empty(t, reconnects(rl.notices), "going on after auth-required is not a reconnect")
	})
}

func TestAuthRequiredGoesOnAfterACutOfTheSignedInSubscribe(t *testing.T) {
	// The send's stream passes; the subscribe that carries the token is cut
	// after its snapshot and working.
	eachWire(t, authFlags(), func(t *testing.T, w wire, p *peer) {
		sc := scenarioNamed(t, "stream")
		creds := &tokenHook{p: p, token: peerToken}
		got, rl := run(t, p, sc, faults{plan: []proxy.Fault{{}, cut(2, 0)}, client: []stream.Option{creds.option()}})
		logRun(t, rl)
		require.Equal(t, withText(sc.want), got)
		recs := rl.px.Records()
		require.GreaterOrEqual(t, len(recs), 2)
		require.True(t, recs[1].Fired, "the cut of the signed-in subscribe fired")
		checkSends(t, rl.px, sc)
		creds.requireAskedOnce(t)
		c := p.counts(t)
		require.Len(t, c.Sends, 1)
		creds.requireTokenAfterTheHook(t, c.Calls)
		require.Equal(t, []string{"send", "subscribe", "subscribe"}, callKinds(c.Calls), "the cut subscribe, and one after it")
		re := reconnects(rl.notices)
		require.Len(t, re, 1)
		require.Equal(t, reconnectBackoff, re[0].Wait)
	})
}

func TestAuthRequiredGoesOnWhenPolled(t *testing.T) {
	// The card says the agent cannot stream: the stream sends unary and
	// polls; the polls after the hook carry the token.
	t.Run("every-poll-answered", func(t *testing.T) {
		eachWire(t, authFlags("-no-streaming"), func(t *testing.T, w wire, p *peer) {
			sc := scenarioNamed(t, "stream")
			creds := &tokenHook{p: p, token: peerToken}
			got, rl := run(t, p, sc, faults{client: []stream.Option{creds.option()}})
			logRun(t, rl)
			require.Equal(t, withText(sc.want), got)
			checkSends(t, rl.px, sc)
			creds.requireAskedOnce(t)
			c := p.counts(t)
			require.Len(t, c.Sends, 1)
			require.Zero(t, c.Subscribes)
			creds.requireTokenAfterTheHook(t, c.Calls)
			require.Empty(t, reconnects(rl.notices))
		})
	})
	// The first poll that carries the token reaches the agent, which goes
	// on, and its answer is lost: the next poll carries the token again.
	t.Run("first-signed-in-poll-dropped", func(t *testing.T) {
		eachWire(t, authFlags("-no-streaming"), func(t *testing.T, w wire, p *peer) {
			sc := scenarioNamed(t, "stream")
			creds := &tokenHook{p: p, token: peerToken}
			// The index of the first signed-in poll, from 1: the polls the
			// agent had received when the hook was called, and one.
			var dropAt atomic.Int64
			creds.then = func(before []agentCall) { dropAt.Store(int64(len(callsOf(before, "get")) + 1)) }
			got, rl := run(t, p, sc, faults{
				polls: func(n int) proxy.Drop {
					if int64(n+1) == dropAt.Load() {
						return proxy.Drop{Action: proxy.ResetResponse, AfterBytes: 40}
					}
					return proxy.Drop{}
				},
				client: []stream.Option{creds.option()},
			})
			logRun(t, rl)
			require.Equal(t, withText(sc.want), got)
			require.True(t, droppedAPoll(rl.px), "the first signed-in poll was dropped")
			checkSends(t, rl.px, sc)
			creds.requireAskedOnce(t)
			c := p.counts(t)
			require.Len(t, c.Sends, 1)
			creds.requireTokenAfterTheHook(t, c.Calls)
			re := reconnects(rl.notices)
			require.Len(t, re, 1)
			require.Equal(t, reconnectBackoff, re[0].Wait)
		})
	})
}

func TestAuthRequiredWithoutAHookEnds(t *testing.T) {
	for _, mode := range []struct {
		name  string
		flags []string
	}{
		{"streamed", authFlags()},
		{"polled", authFlags("-no-streaming")},
	} {
		t.Run(mode.name, func(t *testing.T) {
			eachWire(t, mode.flags, func(t *testing.T, w wire, p *peer) {
				sc := scenarioNamed(t, "stream")
				got, rl := run(t, p, sc, faults{})
				logRun(t, rl)
				var authErr *terminal.AuthRequiredError
				require.ErrorAs(t, rl.err, &authErr)
				require.Equal(t, withText(outcome{
					Err: "auth-required", State: a2a.StateAuthRequired, StatusText: signIn,
					Artifacts: []artifact{{"story", []string{"Once upon a time, "}}},
				}), got)
				checkSends(t, rl.px, sc)
				c := p.counts(t)
				require.Len(t, c.Sends, 1)
				for _, cl := range c.Calls {
					require.Empty(t, cl.Authorization, "no call carried credentials: %+v", c.Calls)
				}
			})
		})
	}
}

func TestAuthRequiredWithAWrongTokenIsNotAskedAgain(t *testing.T) {
	// The hook gives a token the agent does not take: every call after it
	// carries that token and sees the same auth-required, which is not a
	// new request, so the hook is not called again.
	//
	// Streamed, each subscribe is a failed attempt (0.3: the stream ends
	// after the snapshot; 1.0: it stays open and the idle timeout ends it),
	// and the run ends once the reconnect budget is spent.
	t.Run("streamed", func(t *testing.T) {
		eachWire(t, authFlags(), func(t *testing.T, w wire, p *peer) {
			sc := scenarioNamed(t, "stream")
			creds := &tokenHook{p: p, token: "not-the-token"}
			got, rl := run(t, p, sc, faults{client: []stream.Option{creds.option()}})
			logRun(t, rl)
			var re *reconnect.Error
			require.ErrorAs(t, rl.err, &re)
			require.Equal(t, 3, re.Attempts)
			require.Equal(t, a2a.StateAuthRequired, got.State)
			checkSends(t, rl.px, sc)
			creds.requireAskedOnce(t)
			c := p.counts(t)
			require.Len(t, c.Sends, 1)
			creds.requireTokenAfterTheHook(t, c.Calls)
			require.Len(t, callsOf(c.Calls, "subscribe"), 4, "the subscribe after the hook, then one per attempt")
			for _, n := range reconnects(rl.notices) {
				require.Equal(t, reconnectBackoff, n.Wait)
			}
			require.Len(t, reconnects(rl.notices), 3)
		})
	})
	// Polled, every poll succeeds and shows nothing new, which costs no
	// attempt: the stall timeout ends the run.
	t.Run("polled", func(t *testing.T) {
		eachWire(t, authFlags("-no-streaming"), func(t *testing.T, w wire, p *peer) {
			sc := scenarioNamed(t, "stream")
			creds := &tokenHook{p: p, token: "not-the-token"}
			got, rl := run(t, p, sc, faults{client: []stream.Option{creds.option(), stream.WithStallTimeout(time.Second)}})
			logRun(t, rl)
			var stalled *stream.StalledError
			require.ErrorAs(t, rl.err, &stalled)
			require.Equal(t, time.Second, stalled.After)
			require.Equal(t, a2a.StateAuthRequired, got.State)
			checkSends(t, rl.px, sc)
			creds.requireAskedOnce(t)
			c := p.counts(t)
			require.Len(t, c.Sends, 1)
			require.Zero(t, c.Subscribes)
			creds.requireTokenAfterTheHook(t, c.Calls)
			require.Empty(t, reconnects(rl.notices))
		})
	})
}

// droppedAPoll reports whether the proxy dropped a poll.
func droppedAPoll(px *proxy.Proxy) bool {
	return slices.ContainsFunc(px.Requests(), func(r proxy.Request) bool { return r.Dropped })
}

// callKinds returns the kinds of the agent's calls, in order.
func callKinds(calls []agentCall) []string {
	var out []string
	for _, cl := range calls {
		out = append(out, cl.Call)
	}
	return out
}
