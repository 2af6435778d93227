package stream_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

var soak = flag.Int("soak", 0, "number of seeds TestSoak runs (0: a small fixed number, for the normal suite)")

// soakDefault is the number of seeds of the normal suite.
const soakDefault = 60

// soakTexts are the texts of artifact chunks: few and repetitive, so that
// identical parts at different positions are common.
var soakTexts = []string{"\n", "Day ", "one", " ", "\n", "x"}

// soakMixedStyles is the number of styles a mixed-style seed draws, one per
// resubscribe; later resubscribes get the last one again.
const soakMixedStyles = 6

// soakCase is one seed's scenario.
type soakCase struct {
	seed    uint64
	version a2a.Version
	style   a2atest.ResubscribeStyle   // the style of every resubscribe, if styles is nil
	styles  []a2atest.ResubscribeStyle // mixed-style seeds: the i-th resubscribe's style, the last repeating
	hitl    bool
	policy  reconnect.Policy
	script  []a2atest.Step
	arts    soakArtifacts // what the script produces, generation by generation
	faults  []a2atest.Fault
	// ability: the agent cannot stream (soakNoStreaming) or cannot
	// subscribe (soakNoResubscribe), so the stream polls; getFaults then
	// drop or refuse polls at random.
	ability   int
	getFaults []a2atest.Fault
	// rest: the agent serves only the HTTP+JSON binding, and the client
	// speaks it.
	rest bool
	// wild: the agent has every habit of the server in the wild
	// (a2atest.WithWildHabits): 0.3 JSON-RPC, record separators, untyped
	// snapshots only, its answer as one growing status message per turn,
	// errors with HTTP 400, a failure as an in-stream error, no resubscribe.
	wild bool
	// agentFails: the agent fails rather than its connection: the first
	// send's connection may be refused (an agent restarting), and a
	// streaming request after it answers an error marked retryable; polls
	// may too. The client sends with WithIdempotentSends.
	agentFails bool
}

const (
	soakNoStreaming = 1 + iota
	soakNoResubscribe
)

// mixed reports whether the seed runs in the mixed-style mode.
func (c *soakCase) mixed() bool { return c.styles != nil }

func (c *soakCase) String() string {
	steps := make([]string, len(c.script))
	for i, s := range c.script {
		steps[i] = s.String()
	}
	faults := make([]string, len(c.faults))
	for i, f := range c.faults {
		faults[i] = f.String()
	}
	style := "style=" + c.style.String()
	if c.mixed() {
		names := make([]string, len(c.styles))
		for i, s := range c.styles {
			names[i] = s.String()
		}
		style = "styles=" + strings.Join(names, ",") + " (one per resubscribe, the last repeating)"
	}
	ability := ""
	switch c.ability {
	case soakNoStreaming:
		ability = " agent=WithoutStreaming"
	case soakNoResubscribe:
		ability = " agent=WithoutResubscribe"
	}
	getFaults := make([]string, len(c.getFaults))
	for i, f := range c.getFaults {
		getFaults[i] = f.String()
	}
	if c.rest {
		ability += " binding=HTTP+JSON"
	}
	if c.wild {
		ability += " agent=WithWildHabits"
	}
	if c.agentFails {
		ability += " agent-fails (WithIdempotentSends)"
	}
	return fmt.Sprintf("seed=%d version=%s %s%s hitl=%v policy=%d×%v\n  script: %s\n  artifacts: %s\n  faults: %s\n  get faults: %s",
		c.seed, c.version, style, ability, c.hitl, c.policy.MaxAttempts, c.policy.Backoff,
		strings.Join(steps, ", "), c.arts.String(), strings.Join(faults, ", "), strings.Join(getFaults, ", "))
}

// newSoakCase draws a scenario from seed: wire version, resubscribe style,
// human input or not, a paced script over one to three artifacts, a reconnect
// policy, and faults for the first few streaming requests.
//
// One seed in three (seed%3 == 2) runs in the mixed-style mode: each
// resubscribe gets its own style, drawn from LiveOnly, SnapshotFirst and
// FullReplay, and a chunk for an artifact already opened is, one time in
// three, a real replacement (append:false) whose first part is a text no
// other chunk has ("v2-7": the artifact's second generation, from draw 7 of the loop below),
// sometimes followed by a common text. These draws come from a second
// generator, so the rest of a mixed seed's scenario, and every other seed's
// scenario, is what the seed drew before the mode existed.
func newSoakCase(seed uint64) *soakCase {
	rng := rand.New(rand.NewPCG(seed, 0x50a4))
	c := &soakCase{seed: seed, version: versions[rng.IntN(2)], style: wirematrix.Styles()[rng.IntN(3)], hitl: rng.IntN(2) == 0}
	var mixed *rand.Rand
	if seed%3 == 2 {
		mixed = rand.New(rand.NewPCG(seed, 0x313d))
		c.style = 0
		for range soakMixedStyles {
			c.styles = append(c.styles, wirematrix.Styles()[mixed.IntN(len(wirematrix.Styles()))])
		}
	}
	c.policy = reconnect.Policy{MaxAttempts: 1 + rng.IntN(3), Backoff: time.Duration(1+rng.IntN(10)) * 50 * time.Millisecond}

	arts := 1 + rng.IntN(3)
	opened := make([]bool, arts)
	steps := 3 + rng.IntN(12)
	ask := -1
	if c.hitl {
		ask = 1 + rng.IntN(steps-1)
	}
	events := 2 // the task, then working
	c.script = append(c.script, a2atest.Working("on it"))
	for i := range steps {
		if d := rng.IntN(4); d > 0 {
			c.script = append(c.script, a2atest.Pause(time.Duration(d)*wirematrix.Tick))
		}
		if i == ask {
			c.script = append(c.script, a2atest.AskInput("which city?"))
			events++
			continue
		}
		switch r := rng.IntN(10); {
		case r < 8:
			a := rng.IntN(arts)
			id := fmt.Sprint("a", a)
			// An artifact opens with append:false; subsequent chunks append.
			appendChunk := opened[a]
			opened[a] = true
			text := soakTexts[rng.IntN(len(soakTexts))]
			last := rng.IntN(4) == 0
			parts := []a2a.Part{a2a.TextPart(text)}
			if mixed != nil && appendChunk && mixed.IntN(3) == 0 {
				appendChunk = false
				parts = []a2a.Part{a2a.TextPart(fmt.Sprintf("v%d-%d", c.arts.generations(id)+1, i))}
				if mixed.IntN(2) == 0 {
					parts = append(parts, a2a.TextPart(text))
				}
			}
			c.script = append(c.script, a2atest.ArtifactChunk(a2a.Artifact{ID: id, Name: id, Parts: parts}, appendChunk, last))
			c.arts.add(id, parts, appendChunk)
		default:
			c.script = append(c.script, a2atest.Say(fmt.Sprint("aside ", i)))
		}
		events++
	}
	c.script = append(c.script, a2atest.Pause(wirematrix.Tick))
	if rng.IntN(10) == 0 {
		c.script = append(c.script, a2atest.Finish(a2a.StateFailed, "upstream failed"))
	} else {
		c.script = append(c.script, a2atest.Finish(a2a.StateCompleted, "done"))
	}
	events++

	for range rng.IntN(4) {
		switch r := rng.IntN(10); {
		case r < 4:
			c.faults = append(c.faults, a2atest.CutAfterEvents(1+rng.IntN(events)))
		case r < 7:
			c.faults = append(c.faults, a2atest.CutAfterBytes(rng.IntN(300*events)))
		case r < 9:
			c.faults = append(c.faults, a2atest.CloseAfterEvents(rng.IntN(events)))
		default:
			c.faults = append(c.faults, a2atest.Fault{})
		}
	}
	if rng.IntN(8) == 0 {
		// Spend the budget: a drop, then as many 503s as attempts.
		c.faults = append(c.faults[:0], a2atest.CutAfterEvents(1+rng.IntN(events)))
		for range c.policy.MaxAttempts {
			c.faults = append(c.faults, a2atest.HTTPStatus(503, "busy"))
		}
	}
	// One seed in five has an agent that cannot stream or cannot subscribe,
	// and polls that fail at random. A third generator draws this, so the
	// rest of the scenario is what the seed drew before.
	if abilities := rand.New(rand.NewPCG(seed, 0xab11)); abilities.IntN(5) == 0 {
		c.ability = 1 + abilities.IntN(2)
		c.getFaults = a2atest.RandomFaults(seed, 12, 0.3,
			a2atest.Drop(), a2atest.HTTPStatus(503, "busy"), a2atest.CutAfterBytes(20))
	}
	// One seed in three speaks HTTP+JSON, drawn from a fourth generator.
	c.rest = rand.New(rand.NewPCG(seed, 0x4e57)).IntN(3) == 0
	// One seed in six has the habits of the server in the wild, drawn from
	// a fifth generator: it speaks 0.3 JSON-RPC only.
	if rand.New(rand.NewPCG(seed, 0x3117)).IntN(6) == 0 {
		c.wild, c.rest, c.version = true, false, a2a.V03
	}
	// One seed in four has an agent that fails rather than its connection,
	// drawn from a sixth generator: half of them refuse the first send's
	// connection (the agent restarting), and each has one streaming request
	// after the send (a subscribe, a send made again, or a reply) answered
	// with an error marked retryable; the polls of one that polls fail with
	// retryable errors too.
	if fails := rand.New(rand.NewPCG(seed, 0xfa11)); fails.IntN(4) == 0 {
		c.agentFails = true
		if fails.IntN(2) == 0 {
			c.faults = append([]a2atest.Fault{a2atest.Refuse()}, c.faults...)
		}
		at := 1 + fails.IntN(len(c.faults)+1)
		for len(c.faults) < at {
			c.faults = append(c.faults, a2atest.Fault{})
		}
		shape := []a2atest.ErrorShape{a2atest.ErrorAsJSON, a2atest.ErrorAsEvent, a2atest.ErrorAsErrorEvent}[fails.IntN(3)]
		retry := a2atest.RetryableError(a2a.CodeInternalError, "model overloaded", time.Duration(1+fails.IntN(3))*time.Second, shape)
		c.faults = slices.Insert(c.faults, at, retry)
		if c.ability != 0 {
			c.getFaults = a2atest.RandomFaults(seed, 12, 0.3, a2atest.Drop(),
				a2atest.RetryableError(a2a.CodeInternalError, "database busy", time.Second, a2atest.ErrorAsJSON), a2atest.CutAfterBytes(20))
		}
	}
	return c
}

// soakStats counts the outcomes of a soak.
type soakStats struct {
	runs, mixed, polled, rest, wild, agentFails, completed, failedTask, budgetSpent, noTaskID, sendRefused int
	unconfirmedFailure                                                                                     int
	resubscribes, gets, asks                                                                               int
	refusedDials, retryableErrors                                                                          int
	replacements, heals, healedParts, stray                                                                int
}

func (s *soakStats) String() string {
	return fmt.Sprintf("runs %d (mixed-style %d, agent that cannot stream or subscribe %d, HTTP+JSON %d, wild habits %d, agent that fails %d): completed %d, failed task %d (and %d in-stream failures whose task could not be read), budget spent %d, dropped before the task ID %d, send refused %d; "+
		"resubscribes %d, get-tasks %d, human inputs %d, refused dials %d, retryable errors %d; real replacements delivered %d, "+
		"live-only heals %d (%d parts delivered again), parts delivered on a live-only hole %d",
		s.runs, s.mixed, s.polled, s.rest, s.wild, s.agentFails, s.completed, s.failedTask, s.unconfirmedFailure, s.budgetSpent, s.noTaskID, s.sendRefused,
		s.resubscribes, s.gets, s.asks, s.refusedDials, s.retryableErrors, s.replacements, s.heals, s.healedParts, s.stray)
}

// TestSoak is the chaos soak: each seed draws a scenario (newSoakCase) and
// runs it in its own synctest bubble. The stream must end with the server's
// artifacts part for part, its final state, each message once and no part
// twice except in the documented live-only heal (see soakArtifacts.audit); or, when
// the faults spend the budget, in a *reconnect.Error carrying the last task.
// One seed in three runs in the mixed-style mode (a style per resubscribe,
// real artifact replacements). Run more seeds with -soak N; rerun one with
// -run 'TestSoak/seed=N$' -soak N+1.
func TestSoak(t *testing.T) {
	t.Parallel()
	n := *soak
	if n <= 0 {
		n = soakDefault
	}
	var st soakStats
	for seed := range uint64(n) {
		c := newSoakCase(seed)
		if !t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runSoakCase(t, c, &st) })
		}) {
			t.Logf("failing %s", c)
		}
	}
	require.Equal(t, n, st.runs)
	t.Log(st.String())
}

func runSoakCase(t *testing.T, c *soakCase, st *soakStats) {
	style := a2atest.WithStyle(c.style)
	if c.mixed() {
		style = a2atest.WithStyles(c.styles...)
	}
	agentOpts := []a2atest.Option{a2atest.WithVersions(c.version), style,
		a2atest.WithScript(c.script...), a2atest.WithFaults(c.faults...), a2atest.WithGetFaults(c.getFaults...)}
	if c.rest {
		agentOpts = append(agentOpts, a2atest.WithBindings(a2a.BindingHTTPJSON))
	}
	switch c.ability {
	case soakNoStreaming:
		agentOpts = append(agentOpts, a2atest.WithoutStreaming())
	case soakNoResubscribe:
		agentOpts = append(agentOpts, a2atest.WithoutResubscribe())
	}
	if c.wild {
		agentOpts = append(agentOpts, a2atest.WithWildHabits("soak"))
		st.wild++
	}
	agent := a2atest.NewAgent(agentOpts...)
	asks := 0
	opts := []stream.Option{stream.WithReconnect(c.policy)}
	if c.agentFails {
		opts = append(opts, stream.WithIdempotentSends())
		st.agentFails++
	}
	if c.hitl {
		opts = append(opts, stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
			asks++
			return hitl.Text("Lisbon"), nil
		})))
	}
	msg := hello()
	// No scenario takes an hour: a stream still running then has hung.
	ctx, cancel := context.WithTimeout(background(), time.Hour)
	defer cancel()
	client := newClient(t, agent, c.version, opts...)
	if c.rest {
		var err error
		client, err = stream.NewRESTClient(endpoint, append([]stream.Option{stream.WithHTTPClient(agent.Client()), stream.WithVersion(c.version)}, opts...)...)
		require.NoError(t, err)
		st.rest++
	}
	// Odd seeds run with a Trace (trace.go), even ones without: both
	// paths of the driver soak.
	var tl traceLog
	var sendOpts []stream.Option
	if c.seed%2 == 1 {
		sendOpts = append(sendOpts, tl.option())
	}
	s := client.Send(ctx, msg, sendOpts...)
	got, err := drain(t, s)
	st.runs++
	if c.seed%2 == 1 {
		requireTraceWhole(t, &tl, err)
	}
	if c.mixed() {
		st.mixed++
	}
	if c.ability != 0 {
		st.polled++
	}
	st.resubscribes += wirematrix.Resubscribes(agent)
	for _, r := range agent.Requests() {
		switch {
		case r.Fault == a2atest.Refuse():
			st.refusedDials++
		case strings.HasPrefix(r.Fault.String(), "RetryableError"):
			st.retryableErrors++
		}
	}
	st.gets += gets(agent)
	st.asks += asks

	n := 0
	for _, r := range agent.Requests() {
		// An agent that cannot stream refuses the streaming send without
		// taking the message; the stream then sends it unary, once.
		refused := c.ability == soakNoStreaming && (r.Method == "message/stream" || r.Method == "SendStreamingMessage")
		// A refused connection never reached the agent; with
		// WithIdempotentSends a send whose answer a fault replaced (the
		// agent did not take it) is made again.
		unsent := r.Fault == a2atest.Refuse() || c.agentFails && replacesAnswer(r.Fault)
		if r.Message != nil && r.Message.ID == msg.ID && !refused && !unsent {
			n++
		}
	}
	// When the refusal of the streaming send was cut (a drop, or over
	// HTTP+JSON its 400 without the error body that says why), the stream
	// cannot know the message was not taken, so it does not send it again:
	// none taken.
	var (
		re0   *reconnect.Error
		http0 *transport.HTTPError
	)
	cutRefusal := c.ability == soakNoStreaming && n == 0 &&
		(errors.As(err, &re0) && re0.Attempts == 0 || errors.As(err, &http0) && http0.Err == nil)
	// The agent refused or answered "busy" to every send until the budget
	// was spent: it never took the message.
	neverTaken := c.agentFails && n == 0 && errors.As(err, &re0) && re0.Task == nil && re0.Attempts == c.policy.MaxAttempts
	if !cutRefusal && !neverTaken {
		require.Equal(t, 1, n, "the user's message is sent once (stream ended with %v)", err)
	}
	requireRepliesOnce(t, agent)
	require.NotErrorIs(t, err, context.DeadlineExceeded, "the stream hung")

	// Whatever the outcome, each part delivered stands for one the server
	// produced, and none is delivered twice except by a live-only heal.
	d, auditErr := c.arts.audit(got.events, liveOnlyLegs(agent))
	require.NoError(t, auditErr, "requests: %s", requestTrace(agent))
	st.replacements += d.replacements
	st.heals += d.heals
	st.healedParts += d.healedParts
	st.stray += d.stray

	var (
		re      *reconnect.Error
		httpErr *transport.HTTPError
		failed  *terminal.FailedError
		rpcErr  *a2a.RPCError
	)
	switch {
	case errors.As(err, &re) && re.Attempts == 0 && re.Task == nil:
		// Cut before the task ID was known: nothing to resume.
		require.Nil(t, s.Task())
		st.noTaskID++
		return
	case neverTaken:
		require.Nil(t, s.Task())
		st.sendRefused++
		return
	case errors.As(err, &re):
		require.Equal(t, c.policy.MaxAttempts, re.Attempts, "the budget is spent")
		require.NotNil(t, re.Task, "the last known task is carried")
		// The audit has checked that, without a live-only resubscribe, each
		// of these artifacts is a prefix of one of the server's generations.
		got.requireArtifacts(t, re.Task.Artifacts, "the task carried by the reconnect error")
		st.budgetSpent++
		return
	case errors.As(err, &httpErr):
		// A send (the first, or a reply) answered 503: never retried, since
		// the message may have been accepted.
		reqs := agent.Requests()
		last := reqs[len(reqs)-1]
		if (c.rest || c.wild) && httpErr.Err == nil && !last.Fault.IsZero() && httpErr.StatusCode == 400 {
			// Over HTTP+JSON, and from the wild agent over JSON-RPC, a
			// refusal is a 400 with an error body; a fault that closes the
			// answer before its first event leaves the bare status, which
			// the stream cannot tell from a bad request.
			st.sendRefused++
			return
		}
		if !cutRefusal {
			require.Equal(t, 503, httpErr.StatusCode, "%v; requests: %s", err, requestTrace(agent))
		}
		require.Contains(t, []string{"message/stream", "SendStreamingMessage"}, last.Method)
		st.sendRefused++
		return
	case errors.As(err, &failed):
		st.failedTask++
	case c.wild && errors.As(err, &rpcErr) && rpcErr.Code == a2a.CodeInternalError:
		// The wild agent's failure as an in-stream error, and every get-task
		// that would have shown the failed task dropped until the budget
		// ran out: the RPC error stays the ending, with the last task.
		require.Equal(t, a2a.StateFailed, agent.Task(s.Task().ID).Status.State)
		require.NotNil(t, stream.EndingOf(err).Task)
		st.unconfirmedFailure++
		return
	default:
		require.NoError(t, err)
		st.completed++
	}

	server := wirematrix.RequireSameAsServer(t, agent, s, got.fold)
	require.Equal(t, server.Status.State, s.Task().Status.State)
	require.Contains(t, got.messages, server.Status.Message.ID, "the final status message arrives")
	for _, m := range server.History {
		if m.Role == a2a.RoleAgent {
			require.Contains(t, got.messages, m.ID, "agent message %q", m.Text())
			require.Equal(t, m.Text(), got.shown[m.ID], "the application shows the server's last version of each message")
		}
	}
}

// liveOnlyLegs counts the resubscribes the agent answered in the LiveOnly
// style (those whose answer a fault replaced aside): only such a leg leaves
// a hole after a gap, which a heal fills by delivering parts again.
func liveOnlyLegs(agent *a2atest.Agent) int {
	n := 0
	for _, r := range agent.Requests() {
		if r.Style == a2atest.LiveOnly && !replacesAnswer(r.Fault) {
			n++
		}
	}
	return n
}

// requestTrace describes the streaming and get-task requests the agent
// received, with the style and fault each got, e.g. "SubscribeToTask
// FullReplay CutAfterEvents(2)".
func requestTrace(agent *a2atest.Agent) string {
	var out []string
	for _, r := range agent.Requests() {
		d := r.Method
		if r.Style != 0 {
			d += " " + r.Style.String()
		}
		if !r.Fault.IsZero() {
			d += " " + r.Fault.String()
		}
		out = append(out, d)
	}
	return strings.Join(out, "; ")
}

// replacesAnswer reports whether f answers instead of the agent, so the
// request was never processed.
func replacesAnswer(f a2atest.Fault) bool {
	s := f.String()
	return strings.HasPrefix(s, "HTTPStatus") || strings.HasPrefix(s, "RPCError") || strings.HasPrefix(s, "RetryableError") ||
		s == "Hang()" || s == "Refuse()"
}

// requireRepliesOnce checks that the agent took each reply to a prompt once:
// a reply may be sent again only when its first send never reached the agent
// (a fault that replaces the answer, such as an HTTP status).
func requireRepliesOnce(t *testing.T, agent *a2atest.Agent) {
	t.Helper()
	took := map[string]int{}
	for _, r := range agent.Requests() {
		if r.Message == nil || r.Message.TaskID == "" {
			continue
		}
		if replacesAnswer(r.Fault) {
			continue
		}
		took[r.Message.ID]++
	}
	for id, n := range took {
		require.Equal(t, 1, n, "the agent took reply %s %d times", id, n)
	}
}

// TestSoakReplyTakenIsNotSentAgain is the regression test of the soak's first
// finding (seeds 122, 363, 382, 396, 538, … of -soak 2000): the reply to a
// prompt is sent, the agent takes it, but the response is cut before its
// first event. The stream resubscribes and the snapshot still shows the
// prompt (the agent has not moved on yet), though its history holds the
// reply. The stream must not send the reply again: the agent would get the
// human's answer twice (and a2atest's agent, like a real one, would run the
// rest of the turn a second time).
func TestSoakReplyTakenIsNotSentAgain(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.SnapshotFirst),
					a2atest.WithScript(a2atest.Working(""), a2atest.Chunk("a1", "draft ", false, false),
						a2atest.AskInput("which city?"),
						a2atest.Pause(700*time.Millisecond), a2atest.Chunk("a1", "final", true, true),
						a2atest.Finish(a2a.StateCompleted, "done")),
					a2atest.WithFaults(a2atest.Fault{}, a2atest.CutAfterBytes(10)))
				ctx, cancel := context.WithTimeout(background(), time.Minute)
				defer cancel()
				s := newClient(t, agent, v,
					stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
						return hitl.Text("Lisbon"), nil
					}))).Send(ctx, hello())
				got, err := drain(t, s)
				requireRepliesOnce(t, agent)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Equal(t, "draft final", got.text("a1"))
			})
		})
	}
}

// TestSoakEmptyAnswerToResubscribeIsADrop is the regression test of the
// soak's second finding (seeds 2958 and 6628 of -soak 10000): a resubscribe
// answered 200 application/json whose connection closes cleanly before the
// first byte of the body. Nothing was said, so nothing can be malformed: it
// is a drop like an EOF on a stream, and resubscribing is safe, where a
// *ProtocolError ends a stream that one more attempt completes.
func TestSoakEmptyAnswerToResubscribeIsADrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The resubscribe comes after the task ended: the 1.0 agent answers
		// -32004 as plain JSON, cut to an empty body.
		agent := a2atest.NewAgent(a2atest.WithStyle(a2atest.SnapshotFirst), a2atest.WithScript(wirematrix.Paced()...),
			a2atest.WithFaults(a2atest.CutAfterEvents(wirematrix.PacedEvents-1), a2atest.CloseAfterEvents(0)))
		s := newClient(t, agent, a2a.V10).Send(background(), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		wirematrix.RequireSameAsServer(t, agent, s, got.fold)
	})
}

// TestFullReplayOfArtifactOpenedByAnAppend is FuzzLedger's finding seen
// through a stream (see TestReplayOfArtifactStartedByAnAppend in dedupe): an
// agent opens its artifact with append:true, the stream is cut after that
// first chunk, and a replaying server sends everything again. The first chunk
// must not be delivered twice (today it is, and get-task then heals the
// artifact with a replacement, so the final text is right but parts are
// delivered three times over).
func TestFullReplayOfArtifactOpenedByAnAppend(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.FullReplay), a2atest.WithScript(
					a2atest.Working(""), a2atest.Pause(wirematrix.Tick), a2atest.Chunk("a1", "one ", true, false),
					a2atest.Pause(wirematrix.Tick), a2atest.Chunk("a1", "two", true, true),
					a2atest.Pause(wirematrix.Tick), a2atest.Finish(a2a.StateCompleted, "")),
					a2atest.WithFaults(a2atest.CutAfterEvents(3)))
				s := newClient(t, agent, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				server := wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Equal(t, wirematrix.ServerParts(server), wirematrix.PartsDelivered(got.events), "no part delivered twice")
			})
		})
	}
}

// soakArtifacts is what a script produces, artifact by artifact and
// generation by generation. A generation is the parts of one append:false
// chunk (the one that opens the artifact, or a real replacement) and of the
// appends after it, up to the next replacement. In a soak script every
// generation after the first starts with a text no other chunk has.
type soakArtifacts struct {
	ids  []string
	gens map[string][][]a2a.Part
}

// add records a chunk of the script.
func (a *soakArtifacts) add(id string, parts []a2a.Part, appendChunk bool) {
	if a.gens == nil {
		a.gens = map[string][][]a2a.Part{}
	}
	gs, known := a.gens[id]
	switch {
	case !known:
		a.ids = append(a.ids, id)
		gs = append(gs, slices.Clone(parts))
	case appendChunk && len(gs) > 0:
		gs[len(gs)-1] = append(gs[len(gs)-1], parts...)
	default:
		gs = append(gs, slices.Clone(parts))
	}
	a.gens[id] = gs
}

// generations is the number of generations of artifact id so far.
func (a *soakArtifacts) generations(id string) int { return len(a.gens[id]) }

// String lists each artifact's generations, e.g. a0 ["Day " "one"] → ["v2-5"].
func (a *soakArtifacts) String() string {
	var out []string
	for _, id := range a.ids {
		gens := make([]string, len(a.gens[id]))
		for i, g := range a.gens[id] {
			gens[i] = fmt.Sprintf("%q", partTexts(g))
		}
		out = append(out, id+" "+strings.Join(gens, " → "))
	}
	return strings.Join(out, "; ")
}

func partTexts(ps []a2a.Part) []string {
	out := make([]string, len(ps))
	for i := range ps {
		out[i] = ps[i].Text
	}
	return out
}

// generationOf returns the generation of artifact id of which parts is a
// prefix, or -1.
func (a *soakArtifacts) generationOf(id string, parts []a2a.Part) int {
	for g, gp := range a.gens[id] {
		if len(parts) > 0 && len(parts) <= len(gp) && partsEqual(parts, gp[:len(parts)]) {
			return g
		}
	}
	return -1
}

func partsEqual(p, q []a2a.Part) bool {
	return slices.EqualFunc(p, q, func(x, y a2a.Part) bool { return x.Equal(&y) })
}

// soakDelivery is the account of the artifact parts a stream delivered.
type soakDelivery struct {
	// unique is the number of distinct server parts delivered: an
	// (artifact, generation, position) counts once however often it came.
	unique int
	// replacements counts the append:false updates that moved an artifact
	// to a later generation: a real replacement, delivered live or, after a
	// gap, by reconciling with a snapshot or get-task.
	replacements int
	// heals counts the append:false updates within the generation held, and
	// healedParts the parts held that they delivered again.
	heals, healedParts int
	// stray counts parts delivered on a live-only hole: appended parts that
	// are not the server's part at their position, and the first live chunk
	// of an artifact whose opening was missed.
	stray int
}

// audit attributes each artifact part in events to the server part it stands
// for, (artifact, generation, position), and checks the exactly-once
// contract with real replacements:
//
//   - an append:false carries a prefix of one of the artifact's generations,
//     never an earlier generation than the one held (a replay of what was
//     replaced is not a replacement);
//   - an append never delivers a position already delivered;
//   - unless a resubscribe was answered live-only (legs of them), appended
//     parts are the server's parts at their positions, and no append:false
//     delivers the generation held again. After a live-only gap the stream
//     may build on a hole (append live parts after missing ones, or open an
//     artifact whose first chunks were missed with the first live one) and
//     then heal the artifact with the server's whole artifact: the
//     documented heal, at most once per artifact and live-only leg.
//
// So, without a live-only resubscribe, each part the server produced is
// delivered at most once, and a part replaced in a gap may not be delivered
// at all. audit returns the first breach, with the events of the artifact.
func (a *soakArtifacts) audit(events []a2a.Event, legs int) (soakDelivery, error) {
	type held struct{ gen, n int }
	type pos struct {
		id       string
		gen, pos int
	}
	var d soakDelivery
	liveOnly := legs > 0
	cur := map[string]held{}
	seen := map[pos]bool{}
	heals := map[string]int{}
	heal := func(id string, h held) bool {
		heals[id]++
		d.heals++
		d.healedParts += h.n
		return heals[id] <= legs
	}
	for i, ev := range events {
		u, ok := ev.(*a2a.ArtifactUpdate)
		if !ok {
			continue
		}
		id, parts := u.Artifact.ID, u.Artifact.Parts
		breach := func(format string, args ...any) error {
			return fmt.Errorf("event %d, artifact %s: %s\n  delivered: %s\n  server: %s",
				i, id, fmt.Sprintf(format, args...), deliveredTrace(events[:i+1], id), a.String())
		}
		if a.generations(id) == 0 {
			return d, breach("the server never produced it")
		}
		h, known := cur[id]
		if !u.Append || !known {
			g := a.generationOf(id, parts)
			switch {
			case g < 0 && !known && liveOnly:
				// The artifact opened in a live-only gap: the stream
				// delivers the first live chunk whole, on a hole.
				d.stray += len(parts)
				cur[id] = held{-1, len(parts)}
				continue
			case g < 0:
				return d, breach("append:false with %q, a prefix of none of the server's generations", partTexts(parts))
			case !known:
			case h.gen < 0:
				// The heal of an artifact opened in a live-only gap.
				if !heal(id, h) {
					return d, breach("heal %d of the artifact, with %d live-only resubscribes", heals[id], legs)
				}
			case g < h.gen:
				return d, breach("append:false went back from generation %d to %d", h.gen+1, g+1)
			case g == h.gen:
				if !liveOnly {
					return d, breach("append:false delivered generation %d again (%d parts held) with no live-only resubscribe", g+1, h.n)
				}
				if !heal(id, h) {
					return d, breach("heal %d of the artifact, with %d live-only resubscribes", heals[id], legs)
				}
			default:
				d.replacements++
			}
			for k := range parts {
				p := pos{id, g, k}
				if !seen[p] {
					seen[p] = true
					d.unique++
				}
			}
			cur[id] = held{g, len(parts)}
			continue
		}
		var gp []a2a.Part // the generation held; none after a hole
		if h.gen >= 0 {
			gp = a.gens[id][h.gen]
		}
		for k := range parts {
			n := h.n + k
			if n >= len(gp) || !parts[k].Equal(&gp[n]) {
				if !liveOnly {
					return d, breach("appended %q at position %d of generation %d, where the server has none or another part",
						parts[k].Text, n, h.gen+1)
				}
				d.stray++
				continue
			}
			p := pos{id, h.gen, n}
			if seen[p] {
				return d, breach("an append delivered part %d of generation %d (%q) again", n, h.gen+1, parts[k].Text)
			}
			seen[p] = true
			d.unique++
		}
		cur[id] = held{h.gen, h.n + len(parts)}
	}
	return d, nil
}

// deliveredTrace lists the updates of artifact id in events, e.g.
// +["one"] =["v2-5"].
func deliveredTrace(events []a2a.Event, id string) string {
	var out []string
	for _, ev := range events {
		if u, ok := ev.(*a2a.ArtifactUpdate); ok && u.Artifact.ID == id {
			op := "="
			if u.Append {
				op = "+"
			}
			out = append(out, fmt.Sprintf("%s%q", op, partTexts(u.Artifact.Parts)))
		}
	}
	return strings.Join(out, " ")
}

// TestSoakAudit checks that the soak's part audit accepts real replacements
// and the live-only heal, and still catches parts delivered twice.
func TestSoakAudit(t *testing.T) {
	// a0: "a" "b", then a real replacement "v2-3" "c".
	var server soakArtifacts
	server.add("a0", []a2a.Part{a2a.TextPart("a")}, false)
	server.add("a0", []a2a.Part{a2a.TextPart("b")}, true)
	server.add("a0", []a2a.Part{a2a.TextPart("v2-3")}, false)
	server.add("a0", []a2a.Part{a2a.TextPart("c")}, true)
	up := func(id string, appendChunk bool, texts ...string) a2a.Event {
		u := &a2a.ArtifactUpdate{Artifact: a2a.Artifact{ID: id}, Append: appendChunk}
		for _, s := range texts {
			u.Artifact.Parts = append(u.Artifact.Parts, a2a.TextPart(s))
		}
		return u
	}
	tests := []struct {
		name     string
		events   []a2a.Event
		liveOnly int // live-only legs
		want     soakDelivery
		breach   string // a substring of the breach, "" if none
	}{
		{name: "live, with the replacement",
			events: []a2a.Event{up("a0", false, "a"), up("a0", true, "b"), up("a0", false, "v2-3"), up("a0", true, "c")},
			want:   soakDelivery{unique: 4, replacements: 1}},
		{name: "a snapshot after the replacement",
			events: []a2a.Event{up("a0", false, "a"), up("a0", false, "v2-3", "c")},
			want:   soakDelivery{unique: 3, replacements: 1}},
		{name: "a replay of the replaced generation",
			events: []a2a.Event{up("a0", false, "a"), up("a0", true, "b"), up("a0", false, "v2-3"), up("a0", false, "a")},
			breach: "went back from generation 2 to 1"},
		{name: "the generation held delivered again",
			events: []a2a.Event{up("a0", false, "a"), up("a0", true, "b"), up("a0", false, "a", "b")},
			breach: "delivered generation 1 again (2 parts held)"},
		{name: "the live-only heal",
			events:   []a2a.Event{up("a0", false, "a"), up("a0", true, "b"), up("a0", false, "a", "b")},
			liveOnly: 1, want: soakDelivery{unique: 2, heals: 1, healedParts: 2}},
		{name: "an append onto a hole",
			events: []a2a.Event{up("a0", false, "a"), up("a0", true, "c")},
			breach: `appended "c" at position 1 of generation 1`},
		{name: "an append onto a live-only hole, healed",
			events:   []a2a.Event{up("a0", false, "a"), up("a0", true, "c"), up("a0", false, "v2-3", "c")},
			liveOnly: 1, want: soakDelivery{unique: 3, replacements: 1, stray: 1}},
		{name: "an artifact opened in a live-only gap, healed",
			events:   []a2a.Event{up("a0", false, "c"), up("a0", false, "v2-3", "c")},
			liveOnly: 1, want: soakDelivery{unique: 2, heals: 1, healedParts: 1, stray: 1}},
		{name: "parts the server never had",
			events: []a2a.Event{up("a0", false, "a"), up("a0", false, "z")}, liveOnly: 1,
			breach: `append:false with ["z"], a prefix of none`},
		{name: "an artifact the server never had",
			events: []a2a.Event{up("a9", false, "a")},
			breach: "the server never produced it"},
		{name: "two heals after one live-only leg",
			events:   []a2a.Event{up("a0", false, "a"), up("a0", true, "b"), up("a0", false, "a", "b"), up("a0", false, "a", "b")},
			liveOnly: 1, breach: "heal 2 of the artifact, with 1 live-only resubscribes"},
		{name: "two heals after two live-only legs",
			events:   []a2a.Event{up("a0", false, "a"), up("a0", false, "a"), up("a0", true, "b"), up("a0", false, "a", "b")},
			liveOnly: 2, want: soakDelivery{unique: 2, heals: 2, healedParts: 3}},
		{name: "an append delivering a part again",
			events:   []a2a.Event{up("a0", false, "a"), up("a0", true, "b"), up("a0", false, "a"), up("a0", true, "b")},
			liveOnly: 1, breach: `an append delivered part 1 of generation 1 ("b") again`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := server.audit(tt.events, tt.liveOnly)
			if tt.breach != "" {
				require.ErrorContains(t, err, tt.breach)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}
