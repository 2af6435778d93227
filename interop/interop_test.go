package interop_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/interop/proxy"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// The answer the human-input hook gives, and the text the follow-up turn
// turns it into.
const answer = "Oct 10-17"

// artifact is an artifact as the comparison sees it: IDs are left out
// because servers generate them afresh on every run.
type artifact struct {
	Name  string
	Parts []string
}

// outcome is what an application ends up with after one run.
type outcome struct {
	Err        string // "nil", or the typed error's kind
	State      a2a.TaskState
	StatusText string // the final status message's text
	Artifacts  []artifact
	Text       string   // every artifact's text, in order, then every message's
	Messages   []string // Message events' texts
	Prompts    []string // what the human-input hook was asked
}

func (o outcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "err=%s state=%s status=%q prompts=%q messages=%q\n", o.Err, o.State, o.StatusText, o.Prompts, o.Messages)
	for _, a := range o.Artifacts {
		parts := make([]string, len(a.Parts))
		for i, p := range a.Parts {
			if len(p) > 40 {
				p = fmt.Sprintf("%s…(%d bytes)", p[:20], len(p))
			}
			parts[i] = p
		}
		fmt.Fprintf(&b, "  artifact %q: %q\n", a.Name, parts)
	}
	return b.String()
}

// scenario is one script the peers play, selected by the message text.
type scenario struct {
	name string
	text string
	// events is the number of events of the first stream on every peer.
	events int
	// cancel makes the run call Client.Cancel once the first artifact
	// chunk has reached the application.
	cancel bool
	want   outcome
}

var bigText = func() string {
	const line = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_\n"
	return strings.Repeat(line, (2<<20)/len(line))
}()

var story = []artifact{
	{"story", []string{"Once upon a time, ", "a gopher ", "met a node."}},
	{"summary", []string{"A short story."}},
}

var scenarios = []scenario{
	{name: "stream", text: "stream a story", events: 7, want: outcome{
		Err: "nil", State: a2a.StateCompleted, Artifacts: story,
	}},
	{name: "slow", text: "stream a story, slow", events: 7, want: outcome{
		Err: "nil", State: a2a.StateCompleted, Artifacts: story,
	}},
	{name: "input-required", text: "book a trip; ask for input", events: 4, want: outcome{
		Err: "nil", State: a2a.StateCompleted, Prompts: []string{"Which dates?"},
		Artifacts: []artifact{
			{"draft", []string{"Planning the trip."}},
			{"result", []string{"Booked ", "for " + answer + "."}},
		},
	}},
	{name: "failed", text: "this one will fail", events: 4, want: outcome{
		Err: "failed", State: a2a.StateFailed, StatusText: "upstream API timed out",
		Artifacts: []artifact{{"log", []string{"step 1 ok"}}},
	}},
	{name: "canceled", text: "cancel me while I run", events: 3, cancel: true, want: outcome{
		Err: "canceled", State: a2a.StateCanceled,
		Artifacts: []artifact{{"log", []string{"started; "}}},
	}},
	{name: "rejected", text: "reject this", events: 2, want: outcome{
		Err: "rejected", State: a2a.StateRejected, StatusText: "I will not do that.",
	}},
	{name: "auth-required", text: "needs auth", events: 4, want: outcome{
		Err: "auth-required", State: a2a.StateAuthRequired, StatusText: "Please sign in to the calendar.",
		Artifacts: []artifact{{"log", []string{"needs credentials"}}},
	}},
	{name: "message", text: "reply with a message", events: 1, want: outcome{
		Err: "nil", Messages: []string{"pong: a message, not a task"},
	}},
	{name: "big-2MiB", text: "big artifact", events: 4, want: outcome{
		Err: "nil", State: a2a.StateCompleted,
		Artifacts: []artifact{{"blob", []string{bigText}}},
	}},
}

// withText returns o with Text filled in from its artifacts (sorted by
// name, see sortArtifacts) and messages.
func withText(o outcome) outcome {
	sortArtifacts(o.Artifacts)
	var b strings.Builder
	for _, a := range o.Artifacts {
		b.WriteString(strings.Join(a.Parts, ""))
	}
	for _, m := range o.Messages {
		b.WriteString(m)
	}
	o.Text = b.String()
	return o
}

// sortArtifacts orders artifacts by name. Results are compared per
// artifact, not by position: when a live-only server (a2a-go) produced a
// whole artifact while the client was disconnected, the stream can announce
// it only after the artifacts the application already has (a delta cannot
// move an artifact), so its position differs from the server's while its
// parts do not.
func sortArtifacts(arts []artifact) {
	slices.SortStableFunc(arts, func(a, b artifact) int { return strings.Compare(a.Name, b.Name) })
}

// variant is one way of breaking a run: its streams cut or stalled (plan),
// its polls dropped (polls), or both.
type variant struct {
	name string
	// plan gives the faults for the run's streaming responses, in order.
	plan func(sc scenario) []proxy.Fault
	// polls, when set, gives the proxy's poll policy from a seed that is
	// the cell's own (see cellSeed).
	polls func(seed uint64) func(n int) proxy.Drop
}

// faults is what one run's proxy does: the variant made concrete.
type faults struct {
	plan  []proxy.Fault
	polls func(n int) proxy.Drop
	seed  uint64 // the seed polls was made from, for the log
	// down makes the proxy stop listening once the client has read the
	// card, and listen again at the first Reconnecting notice: the send
	// finds the agent down, and the agent is back for the next attempt.
	down bool
	// client adds options to the run's client.
	client []stream.Option
	// viaCard makes a gRPC peer's client with stream.Resolve from its card,
	// whose gRPC interface then names the proxy (resolveGRPC), instead of
	// with stream.NewClientFor.
	viaCard bool
}

func (f faults) String() string {
	s := fmt.Sprint(f.plan)
	if f.polls != nil {
		s += fmt.Sprintf(" polls(seed %d)", f.seed)
	}
	if f.down {
		s += " down-at-send"
	}
	return s
}

func cut(events, plus int) proxy.Fault {
	return proxy.Fault{Action: proxy.Cut, AfterEvents: events, PlusBytes: plus}
}

// streamVariants break the streams of agents that stream.
var streamVariants = []variant{
	// Right after the first event (the Task, or a message answer).
	{name: "cut-after-first", plan: func(scenario) []proxy.Fault { return []proxy.Fault{cut(1, 0)} }},
	// Right before the last event of the first stream: the final event is
	// lost and must be recovered.
	{name: "cut-before-last", plan: func(sc scenario) []proxy.Fault { return []proxy.Fault{cut(max(sc.events-1, 1), 0)} }},
	// 40 bytes into the third event (the second for two-event streams): a
	// byte offset in the middle of an event.
	{name: "cut-mid-event", plan: func(sc scenario) []proxy.Fault { return []proxy.Fault{cut(min(2, sc.events-1), 40)} }},
	// Silence after two events, the socket kept open: only the idle
	// timeout notices.
	{name: "stall", plan: func(sc scenario) []proxy.Fault {
		return []proxy.Fault{{Action: proxy.Stall, AfterEvents: min(2, sc.events)}}
	}},
	// The first stream, then (after one stream let through, usually the
	// resubscribe) the next one too: for input-required, the follow-up.
	{name: "cut-twice", plan: func(sc scenario) []proxy.Fault {
		return []proxy.Fault{cut(min(2, sc.events), 0), {}, cut(1, 30)}
	}},
}

// dropFirst drops the first poll with d and keeps the others.
func dropFirst(d proxy.Drop) func(uint64) func(int) proxy.Drop {
	return func(uint64) func(int) proxy.Drop {
		return func(n int) proxy.Drop {
			if n == 0 {
				return d
			}
			return proxy.Drop{}
		}
	}
}

// randomDrops drops the first poll, then about one in three, never more
// than two in a row: with reconnect.Policy{MaxAttempts: 3} a third failure
// before any progress would end the run.
func randomDrops(seed uint64) func(int) proxy.Drop { return proxy.RandomDrops(seed, 0.3, 2) }

// pollVariants drop the polls of agents that cannot stream: the request
// reset before the server sees it, or the response reset after the server
// answered (the task may have moved on meanwhile).
var pollVariants = []variant{
	{name: "drop-first-request", polls: dropFirst(proxy.Drop{Action: proxy.ResetRequest})},
	{name: "drop-first-response", polls: dropFirst(proxy.Drop{Action: proxy.ResetResponse, AfterBytes: 40})},
	{name: "drop-random-a", polls: randomDrops},
	{name: "drop-random-b", polls: randomDrops},
}

// noSubscribeVariants: the stream variants, and a cut followed by polls
// (the server cannot resubscribe) dropped at random.
var noSubscribeVariants = append(slices.Clone(streamVariants), variant{
	name:  "cut-then-drop-polls",
	plan:  func(sc scenario) []proxy.Fault { return []proxy.Fault{cut(max(min(2, sc.events-1), 1), 0)} },
	polls: randomDrops,
})

// variantsFor returns the variants a peer's matrix runs besides uncut.
func variantsFor(d peerDef) []variant {
	switch d.mode {
	case noStreaming:
		return pollVariants
	case noSubscribe:
		return noSubscribeVariants
	}
	return streamVariants
}

// cellSeed is the seed of a matrix cell's random drops: a hash of its name,
// so that a cell drops the same polls on every run, changed by
// INTEROP_SEED (a number) to explore others.
func cellSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	seed := h.Sum64()
	if v, err := strconv.ParseUint(os.Getenv("INTEROP_SEED"), 10, 64); err == nil {
		seed ^= v
	}
	return seed
}

// skipVariant names the cells that cannot be run, with the reason.
func skipVariant(p peerDef, sc scenario, v variant) string {
	if sc.name == "message" && v.name == "cut-mid-event" {
		// The only event is the answer itself; with no task ID the stream
		// has nothing to resume and must not re-send the message.
		// TestCutBeforeTaskID checks what happens instead.
		return "a message answer cut in its only event cannot be resumed (no task ID)"
	}
	if sc.name == "message" && p.mode == noStreaming {
		return "a message answer comes whole from the unary send: there is nothing to poll"
	}
	return ""
}

// idleTimeout is the clients' idle timeout. It is what notices a stall, and
// it also fails any call that gets no byte for that long: 1 s was enough
// for four peers, but with fourteen, under the race detector on two cores,
// a busy moment (2 MiB tasks polled every 100 ms) could leave a send
// unanswered that long.
const idleTimeout = 2 * time.Second

// reconnectBackoff is the clients' wait before each reconnect attempt.
const reconnectBackoff = 100 * time.Millisecond

// pollInterval is the clients' poll interval: agents that cannot stream are
// followed by polling, and the peers' events are 60 ms apart.
const pollInterval = 100 * time.Millisecond

// resolve returns a client made by stream.Resolve from the agent card read
// through the proxy, whose URLs the proxy rewrites to its own: every call
// then goes through the proxy too. It uses one TCP connection per request.
//
// A gRPC peer's client is instead stream.NewClientFor over an a2agrpc
// Transport to the proxy (see grpcClient).
func resolve(t *testing.T, px *proxy.Proxy, p *peer, opts ...stream.Option) *stream.Client {
	t.Helper()
	if p.def.grpc {
		return grpcClient(t, px, append([]stream.Option{stream.WithVersion(p.def.version)}, opts...)...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	opts = append([]stream.Option{
		stream.WithVersion(p.def.version),
		stream.WithHTTPClient(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}),
	}, opts...)
	c, err := stream.Resolve(ctx, "http://"+px.Addr()+"/", opts...)
	if err != nil {
		t.Fatalf("Resolve through the proxy: %v", err)
	}
	if !strings.HasPrefix(c.Endpoint(), "http://"+px.Addr()+"/") || px.Rewrites() == 0 {
		t.Fatalf("Resolve chose %s, which does not go through the proxy at %s (%d URLs rewritten)", c.Endpoint(), px.Addr(), px.Rewrites())
	}
	return c
}

// newClient returns a client that talks to the peer through the proxy (see
// resolve).
func newClient(t *testing.T, px *proxy.Proxy, p *peer, prompts *[]string, extra ...stream.Option) *stream.Client {
	t.Helper()
	return resolve(t, px, p, clientOptions(prompts, extra...)...)
}

// clientOptions are the options of newClient's clients: the reconnect
// policy, idle timeout and poll interval of every run, and a hook that
// records its prompts in prompts and answers, then extra.
func clientOptions(prompts *[]string, extra ...stream.Option) []stream.Option {
	var mu sync.Mutex
	hook := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
		mu.Lock()
		defer mu.Unlock()
		*prompts = append(*prompts, req.Text())
		return hitl.Text(answer), nil
	})
	opts := append([]stream.Option{
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: reconnectBackoff}),
		stream.WithIdleTimeout(idleTimeout),
		stream.WithPollInterval(pollInterval),
		stream.WithHumanInput(hook),
	}, extra...)
	return opts
}

// newProxy starts a proxy in front of the peer (in gRPC mode, in front of
// its gRPC server, for a gRPC peer) that applies plan.
func newProxy(t *testing.T, p *peer, plan []proxy.Fault) *proxy.Proxy {
	t.Helper()
	px, err := proxy.New(p.addr)
	if p.def.grpc {
		px, err = proxy.NewGRPC(p.grpcAddr)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	px.Plan(plan...)
	return px
}

// checkSends checks that the run sent each of the user's messages once:
// the first one, and for input-required the reply.
func checkSends(t *testing.T, px *proxy.Proxy, sc scenario) {
	t.Helper()
	want := 1
	if sc.name == "input-required" {
		want = 2
	}
	var ids []string
	for _, r := range px.Requests() {
		if r.Kind == proxy.Send {
			ids = append(ids, r.MessageID)
		}
	}
	distinct := slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) != want || len(distinct) != want || slices.Contains(ids, "") {
		t.Errorf("the server was sent messages %q, want %d distinct messages each sent once; requests:\n%s", ids, want, requestLog(px))
	}
}

func requestLog(px *proxy.Proxy) string {
	var b strings.Builder
	for _, r := range px.Requests() {
		fmt.Fprintf(&b, "  %v\n", r)
	}
	return b.String()
}

// errKind names the typed error that ended a stream.
func errKind(err error) string {
	var (
		failed   *terminal.FailedError
		rejected *terminal.RejectedError
		canceled *terminal.CanceledError
		auth     *terminal.AuthRequiredError
	)
	switch {
	case err == nil:
		return "nil"
	case errors.As(err, &failed):
		return "failed"
	case errors.As(err, &rejected):
		return "rejected"
	case errors.As(err, &canceled):
		return "canceled"
	case errors.As(err, &auth):
		return "auth-required"
	}
	return fmt.Sprintf("%T: %v", err, err)
}

func view(arts []a2a.Artifact) []artifact {
	var out []artifact
	for _, a := range arts {
		v := artifact{Name: a.Name}
		for _, p := range a.Parts {
			v.Parts = append(v.Parts, p.Text)
		}
		out = append(out, v)
	}
	return out
}

// runLog is what a run leaves besides its outcome: its proxy, the notices
// the stream gave, and the error it ended with.
type runLog struct {
	px      *proxy.Proxy
	notices []stream.Notice
	err     error
}

// run sends the scenario's message through a fresh proxy that applies f,
// and returns what the application saw.
func run(t *testing.T, p *peer, sc scenario, f faults) (outcome, *runLog) {
	t.Helper()
	px := newProxy(t, p, f.plan)
	px.DropPolls(f.polls)
	rl := &runLog{px: px}
	var prompts []string
	var onResume func(taskID string)
	var notices []string
	opts := append([]stream.Option{stream.WithNotify(func(n stream.Notice) {
		notices = append(notices, fmt.Sprintf("%s attempt %d wait %s cause %v", n.Kind, n.Attempt, n.Wait, n.Cause))
		rl.notices = append(rl.notices, n)
		if n.Kind == stream.Reconnecting && f.down {
			if err := px.Listen(); err != nil {
				t.Errorf("the proxy cannot listen again on %s: %v", px.Addr(), err)
			}
		}
		if n.Kind == stream.Resumed && onResume != nil {
			onResume(n.TaskID)
		}
	})}, f.client...)
	var client *stream.Client
	if f.viaCard {
		client = resolveGRPC(t, px, p, clientOptions(&prompts, opts...)...)
	} else {
		client = newClient(t, px, p, &prompts, opts...)
	}
	if f.down {
		if err := px.StopListening(); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, sc.text))
	defer s.Close()

	var (
		arts     []a2a.Artifact
		folded   a2a.Task // the events folded as an application folds them
		messages []string
		canceled bool
		trace    []string
	)
	// cancelTask cancels the task once. The canceled scenario's agent writes
	// one chunk and then waits to be canceled. The run cancels when that
	// chunk arrives, or, when a cut lost it and the stream resumed on a
	// live-only server (which resends nothing and goes quiet), as soon as
	// the stream is back and the server's task shows the chunk: the chunk
	// then reaches the application with the final state, recovered by
	// get-task.
	cancelTask := func(taskID string) {
		if !sc.cancel || canceled || taskID == "" {
			return
		}
		canceled = true
		if _, err := client.Cancel(ctx, taskID); err != nil {
			t.Errorf("Cancel(%s): %v", taskID, err)
		}
	}
	onResume = func(taskID string) {
		if !sc.cancel || canceled {
			return // no get-task of the test's own to muddle the request log
		}
		// Only once the agent has written its chunk, as the chunk trigger.
		if task, err := client.GetTask(ctx, taskID); err == nil && len(task.Artifacts) > 0 {
			cancelTask(taskID)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("events seen by the application (faults %v):\n%s\nnotices: %q\nrequests:\n%s", f, strings.Join(trace, "\n"), notices, requestLog(px))
		}
	})
	for s.Next() {
		trace = append(trace, describe(s.Event()))
		switch ev := s.Event().(type) {
		case *a2a.ArtifactUpdate:
			folded.Apply(ev)
			arts = folded.Artifacts
			cancelTask(ev.TaskID)
		case *a2a.Message:
			messages = append(messages, ev.Text())
		}
	}
	err := s.Err()
	rl.err = err
	if sc.cancel && !canceled {
		t.Errorf("neither the first chunk nor a resume came, so the test never canceled (stream ended with %v)", err)
	}

	o := outcome{Err: errKind(err), Artifacts: view(arts), Messages: messages, Prompts: prompts}
	if task := s.Task(); task != nil {
		o.State = task.Status.State
		if task.Status.Message != nil {
			o.StatusText = task.Status.Message.Text()
		}
		// The invariant: the events rebuild Task().Artifacts exactly.
		if !reflect.DeepEqual(normalize(arts), normalize(task.Artifacts)) {
			t.Errorf("artifacts rebuilt from events differ from Task().Artifacts:\nevents: %v\ntask:   %v", view(arts), view(task.Artifacts))
		}
	}
	return withText(o), rl
}

// normalize makes nil and empty slices compare equal.
func normalize(arts []a2a.Artifact) []a2a.Artifact {
	if len(arts) == 0 {
		return nil
	}
	return arts
}

// TestMatrix runs every scenario on every peer, uncut and with the streams
// cut or stalled at several points, or the polls dropped, and requires every
// run to end exactly as the uncut one does (which must match the scenario's
// expectation), with each of the user's messages sent once.
func TestMatrix(t *testing.T) {
	matrix(t, peerDefs)
}

// matrix runs TestMatrix's runs on each peer of defs.
func matrix(t *testing.T, defs []peerDef) {
	eachPeerOf(t, defs, func(peerDef) bool { return true }, func(t *testing.T, p *peer) {
		for _, sc := range scenarios {
			t.Run(sc.name, func(t *testing.T) {
				t.Parallel()
				uncut, rl := run(t, p, sc, faults{})
				if want := withText(sc.want); !reflect.DeepEqual(uncut, want) {
					t.Fatalf("uncut run:\n got: %v\nwant: %v", uncut, want)
				}
				checkSends(t, rl.px, sc)
				for _, v := range variantsFor(p.def) {
					t.Run(v.name, func(t *testing.T) {
						if why := skipVariant(p.def, sc, v); why != "" {
							t.Skip(why)
						}
						t.Parallel()
						var f faults
						if v.plan != nil {
							f.plan = v.plan(sc)
						}
						if v.polls != nil {
							f.seed = cellSeed(t.Name())
							f.polls = v.polls(f.seed)
						}
						got, rl := run(t, p, sc, f)
						px := rl.px
						recs := px.Records()
						t.Logf("faults %v; streams: %+v; requests:\n%s", f, recs, requestLog(px))
						if len(f.plan) > 0 && (len(recs) == 0 || !recs[0].Fired) {
							t.Fatalf("the first fault (%v) never fired: streams %+v; the run ended with %v", f.plan[0], recs, got)
						}
						if len(f.plan) == 0 && !slices.ContainsFunc(px.Requests(), func(r proxy.Request) bool { return r.Dropped }) {
							t.Fatalf("no poll was dropped; the run ended with %v; requests:\n%s", got, requestLog(px))
						}
						if !reflect.DeepEqual(got, uncut) {
							t.Fatalf("with %v:\n got: %v\nwant (uncut): %v", f, got, uncut)
						}
						checkSends(t, px, sc)
					})
				}
			})
		}
	})
}

// describe renders an event for the failure log.
func describe(ev a2a.Event) string {
	short := func(s string) string {
		if len(s) > 40 {
			return fmt.Sprintf("%s…(%d bytes)", s[:20], len(s))
		}
		return s
	}
	switch ev := ev.(type) {
	case *a2a.StatusUpdate:
		msg := ""
		if ev.Status.Message != nil {
			msg = fmt.Sprintf(" message %s %q", ev.Status.Message.ID, ev.Status.Message.Text())
		}
		return fmt.Sprintf("  status %s final=%v%s", ev.Status.State, ev.Final, msg)
	case *a2a.ArtifactUpdate:
		parts := make([]string, len(ev.Artifact.Parts))
		for i, p := range ev.Artifact.Parts {
			parts[i] = short(p.Text)
		}
		return fmt.Sprintf("  artifact %s %q append=%v last=%v parts=%q", ev.Artifact.ID, ev.Artifact.Name, ev.Append, ev.LastChunk, parts)
	case *a2a.Message:
		return fmt.Sprintf("  message %s role=%s %q", ev.ID, ev.Role, ev.Text())
	}
	return fmt.Sprintf("  %T", ev)
}
