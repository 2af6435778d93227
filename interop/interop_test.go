package interop_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
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

// variant is one way of breaking the streams of a run.
type variant struct {
	name string
	plan func(sc scenario) []proxy.Fault
	// stall variants need the idle timeout to notice.
}

func cut(events, plus int) proxy.Fault {
	return proxy.Fault{Action: proxy.Cut, AfterEvents: events, PlusBytes: plus}
}

var variants = []variant{
	{"uncut", func(scenario) []proxy.Fault { return nil }},
	// Right after the first event (the Task, or a message answer).
	{"cut-after-first", func(scenario) []proxy.Fault { return []proxy.Fault{cut(1, 0)} }},
	// Right before the last event of the first stream: the final event is
	// lost and must be recovered.
	{"cut-before-last", func(sc scenario) []proxy.Fault { return []proxy.Fault{cut(max(sc.events-1, 1), 0)} }},
	// 40 bytes into the third event (the second for two-event streams): a
	// byte offset in the middle of an event.
	{"cut-mid-event", func(sc scenario) []proxy.Fault { return []proxy.Fault{cut(min(2, sc.events-1), 40)} }},
	// Silence after two events, the socket kept open: only the idle
	// timeout notices.
	{"stall", func(sc scenario) []proxy.Fault {
		return []proxy.Fault{{Action: proxy.Stall, AfterEvents: min(2, sc.events)}}
	}},
	// The first stream, then (after one stream let through, usually the
	// resubscribe) the next one too: for input-required, the follow-up.
	{"cut-twice", func(sc scenario) []proxy.Fault {
		return []proxy.Fault{cut(min(2, sc.events), 0), {}, cut(1, 30)}
	}},
}

// skipVariant names the cells that cannot be run, with the reason.
func skipVariant(sc scenario, v variant) string {
	if sc.name == "message" && v.name == "cut-mid-event" {
		// The only event is the answer itself; with no task ID the stream
		// has nothing to resume and must not re-send the message.
		// TestCutBeforeTaskID checks what happens instead.
		return "a message answer cut in its only event cannot be resumed (no task ID)"
	}
	return ""
}

const idleTimeout = time.Second

// newClient returns a client that talks to the peer through the proxy, one
// TCP connection per request.
func newClient(t *testing.T, px *proxy.Proxy, p *peer, prompts *[]string, extra ...stream.Option) *stream.Client {
	t.Helper()
	var mu sync.Mutex
	hook := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
		mu.Lock()
		defer mu.Unlock()
		*prompts = append(*prompts, req.Text())
		return hitl.Text(answer), nil
	})
	opts := append([]stream.Option{
		stream.WithVersion(p.def.version),
		stream.WithHTTPClient(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}),
		stream.WithIdleTimeout(idleTimeout),
		stream.WithHumanInput(hook),
	}, extra...)
	c, err := stream.NewClient("http://"+px.Addr()+"/", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newProxy(t *testing.T, p *peer, plan []proxy.Fault) *proxy.Proxy {
	t.Helper()
	px, err := proxy.New(p.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	px.Plan(plan...)
	return px
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

// applyEvent rebuilds artifacts from the stream's deltas, as an application
// would: append adds parts, anything else replaces the artifact.
func applyEvent(arts []a2a.Artifact, u *a2a.ArtifactUpdate) []a2a.Artifact {
	for i := range arts {
		if arts[i].ID == u.Artifact.ID {
			if u.Append {
				arts[i].Parts = append(arts[i].Parts, u.Artifact.Clone().Parts...)
				if u.Artifact.Name != "" {
					arts[i].Name = u.Artifact.Name
				}
			} else {
				arts[i] = u.Artifact.Clone()
			}
			return arts
		}
	}
	return append(arts, u.Artifact.Clone())
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

// run sends the scenario's message through a fresh proxy with plan and
// returns what the application saw.
func run(t *testing.T, p *peer, sc scenario, plan []proxy.Fault) (outcome, *proxy.Proxy) {
	t.Helper()
	px := newProxy(t, p, plan)
	var prompts []string
	var onResume func(taskID string)
	client := newClient(t, px, p, &prompts, stream.WithNotify(func(n stream.Notice) {
		if n.Kind == stream.Resumed && onResume != nil {
			onResume(n.TaskID)
		}
	}))

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, sc.text))
	defer s.Close()

	var (
		arts     []a2a.Artifact
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
		// Only once the agent has written its chunk, as the chunk trigger.
		if task, err := client.GetTask(ctx, taskID); err == nil && len(task.Artifacts) > 0 {
			cancelTask(taskID)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("events seen by the application (plan %v):\n%s", plan, strings.Join(trace, "\n"))
		}
	})
	for s.Next() {
		trace = append(trace, describe(s.Event()))
		switch ev := s.Event().(type) {
		case *a2a.ArtifactUpdate:
			arts = applyEvent(arts, ev)
			cancelTask(ev.TaskID)
		case *a2a.Message:
			messages = append(messages, ev.Text())
		}
	}
	err := s.Err()
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
	return withText(o), px
}

// normalize makes nil and empty slices compare equal.
func normalize(arts []a2a.Artifact) []a2a.Artifact {
	if len(arts) == 0 {
		return nil
	}
	return arts
}

// TestMatrix runs every scenario on every peer, uncut and with the streams
// cut or stalled at several points, and requires every run to end exactly as
// the uncut one does (which must match the scenario's expectation).
func TestMatrix(t *testing.T) {
	eachPeer(t, func(t *testing.T, p *peer) {
		for _, sc := range scenarios {
			t.Run(sc.name, func(t *testing.T) {
				t.Parallel()
				uncut, _ := run(t, p, sc, nil)
				if want := withText(sc.want); !reflect.DeepEqual(uncut, want) {
					t.Fatalf("uncut run:\n got: %v\nwant: %v", uncut, want)
				}
				for _, v := range variants[1:] {
					t.Run(v.name, func(t *testing.T) {
						if why := skipVariant(sc, v); why != "" {
							t.Skip(why)
						}
						t.Parallel()
						plan := v.plan(sc)
						got, px := run(t, p, sc, plan)
						recs := px.Records()
						t.Logf("plan %v; streams: %+v", plan, recs)
						if len(recs) == 0 || !recs[0].Fired {
							t.Fatalf("the first fault (%v) never fired: streams %+v", plan[0], recs)
						}
						if !reflect.DeepEqual(got, uncut) {
							t.Fatalf("with %v:\n got: %v\nwant (uncut): %v", plan, got, uncut)
						}
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
