package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

var takeoverRuns = flag.Int("takeover.runs", 200, "runs of TestTakeoverAfterAKillLosesAndRepeatsNothing")

// errKilled is what every write of a killed replica gets.
var errKilled = errors.New("replica killed")

// A replica that drives a stream is killed (no further write, its lease
// not released) at seeded points, a watcher takes the stream over once
// the lease expires, and a browser that reconnects with Last-Event-ID
// sees exactly the agent's task: nothing lost, nothing repeated, the
// question asked and answered once. The taker's first entry comes within
// 6 s of the kill at p99, with a 5 s lease. Over every server style,
// version and binding, by seed; -takeover.runs sets the number of runs.
func TestTakeoverAfterAKillLosesAndRepeatsNothing(t *testing.T) {
	runs := *takeoverRuns
	var (
		delays  []time.Duration
		prompts int
	)
	for seed := range uint64(runs) {
		var run takeoverRun
		ok := t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { run = killedDriver(t, seed) })
		})
		if !ok {
			t.Fatalf("seed %d failed", seed)
		}
		if run.delay >= 0 {
			delays = append(delays, run.delay)
			if run.atPrompt {
				prompts++
			}
		}
	}
	require.NotEmpty(t, delays)
	slices.Sort(delays)
	p99 := delays[(len(delays)*99+99)/100-1]
	t.Logf("%d runs, %d killed (%d while the question waited): takeover delay p50 %v, p99 %v, max %v",
		runs, len(delays), prompts, delays[len(delays)/2], p99, delays[len(delays)-1])
	require.LessOrEqual(t, p99, 6*time.Second)
}

// A driver whose renewals stall past its lease (a zombie: a long pause)
// goes on driving until its next write, which fails: after the replica
// that took the lease over appended its first entry, the zombie appended
// none, and the log holds the agent's answer once.
func TestZombieDriverAppendsNothingAfterTheTakeover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script, text := longAnswer(40, paused(250*time.Millisecond))
		agent := a2atest.NewAgent(a2atest.WithScript(script...), a2atest.WithStyle(a2atest.LiveOnly))
		store := newMemoryStore(t)
		shared, err := store.Open(t.Context(), "k")
		require.NoError(t, err)
		w := &writes{}
		a := &replicaLog{Log: shared, name: "A", w: w, renew: func() { time.Sleep(20 * time.Second) }}
		b := &replicaLog{Log: shared, name: "B", w: w}
		client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
		require.NoError(t, err)
		start := relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello"))
		var errA, errB error
		var wg sync.WaitGroup
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // ample: the answer takes 10 s
		defer cancel()
		wg.Go(func() { errA = relay.Run(ctx, a, "A", start) })
		wg.Go(func() { errB = relay.Run(ctx, b, "B", relay.Resume(client)) })
		wg.Wait()
		require.NoError(t, errA)
		require.NoError(t, errB)

		bw := w.by("B")
		require.NotEmpty(t, bw, "B took the stream over")
		var after int
		for _, x := range w.by("A") {
			if !x.at.Before(bw[0].at) {
				after += len(x.entries)
			}
		}
		require.Zero(t, after, "entries the zombie appended after B's first")
		require.NotEmpty(t, w.by("A"), "A drove before it stalled")

		var entries []relay.Entry
		for after := uint64(0); ; {
			page, err := shared.Read(t.Context(), after, 100)
			require.NoError(t, err)
			if len(page) == 0 {
				break
			}
			entries = append(entries, page...)
			after = page[len(page)-1].Seq
		}
		sc := screenAfter(t, entries)
		require.Equal(t, text, sc.Pane("artifact:a1").Text())
		require.NotNil(t, sc.End)
		require.Equal(t, relay.EventEnd, sc.End.Name)
	})
}

// The replica that takes a stream over has seen no pane open; the first
// chunk it relays of an artifact the browsers show adds to it, as the
// artifact update says (append true), rather than replacing it.
func TestTakeoverExtendsThePaneTheBrowsersShow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script, text := longAnswer(12, paused(300*time.Millisecond))
		entries, w, _ := takeover(t, script, func(es []relay.Entry) bool {
			return slices.ContainsFunc(es, func(e relay.Entry) bool {
				return e.Name == relay.EventArtifact && strings.Contains(string(e.Data), `"text":"ccc `)
			})
		}, nil)
		var first relay.ArtifactData
		require.NoError(t, json.Unmarshal(w.by("B")[0].entries[0].Data, &first), "B's first entry")
		require.Equal(t, relay.EventArtifact, w.by("B")[0].entries[0].Name)
		require.True(t, first.Append, "B's first chunk of a1 adds to the pane: %+v", first)
		require.Equal(t, text, screenAfter(t, entries).Pane("artifact:a1").Text())
	})
}

// A driver that dies while its question waits for an answer: the answer
// is posted while no replica drives; the replica that takes over, asked
// the same question by the resumed stream, appends no second EventInput,
// and applies the answer at once (its first entry, when the lease
// expired).
func TestTakeoverKeepsTheOpenQuestionAndAppliesAnAnswerPostedMeanwhile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script := []a2atest.Step{a2atest.Working("thinking"), a2atest.Chunk("a1", "draft ", false, false),
			a2atest.AskInput("Short or long?"), a2atest.Chunk("a1", "final", true, true), a2atest.Finish(a2a.StateCompleted, "done")}
		var prompt uint64
		entries, w, killed := takeover(t, script, func(es []relay.Entry) bool {
			for _, e := range es {
				if e.Name == relay.EventInput {
					prompt = e.Seq
					return true
				}
			}
			return false
		}, func(l relay.Log) {
			time.Sleep(time.Second)
			_, err := l.PostAnswer(context.Background(), relay.Answer{Prompt: prompt, Key: "k1", Text: "long"})
			require.NoError(t, err)
		})
		var inputs []uint64
		for _, e := range entries {
			if e.Name == relay.EventInput {
				inputs = append(inputs, e.Seq)
			}
		}
		require.Equal(t, []uint64{prompt}, inputs, "one input entry")
		bw := w.by("B")
		require.Equal(t, relay.EventAnswered, bw[0].entries[0].Name, "B's first entry")
		require.Equal(t, 5*time.Second, bw[0].at.Sub(killed), "applied when A's lease expired")
		sc := screenAfter(t, entries)
		require.Equal(t, "long", sc.Pane("answer:"+itoa(prompt)).Text())
		require.Equal(t, "draft final", sc.Pane("artifact:a1").Text())
		require.Equal(t, relay.EventEnd, sc.End.Name)
	})
}

// replicaLog is one replica's view of the shared log. It records the
// entries the replica committed, and, once killed, fails every write: a
// process killed with SIGKILL writes nothing more, and releases nothing.
type replicaLog struct {
	relay.Log
	name string
	// kill, when set, is asked before each Commit whether the replica dies
	// there: before the Commit (it is not applied) or after it.
	kill func(entries []relay.Entry) (before, after bool)
	// renew, when set, runs before each Renew (a zombie's pause).
	renew  func()
	onKill func()
	// stopAfter, when set, is asked after each Commit applied whether the
	// replica is stopped there, gracefully: onStop runs (it cancels the
	// replica's Run), and the log goes on working for its Release.
	stopAfter func(entries []relay.Entry) bool
	onStop    func()
	w         *writes

	mu     sync.Mutex
	killed bool
}

// writes records who committed which entries, and when, in the fake
// clock.
type writes struct {
	mu   sync.Mutex
	list []write
}

type write struct {
	by      string
	at      time.Time
	entries []relay.Entry
}

// first returns when the first commit was made.
func (w *writes) first() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.list[0].at
}

func (w *writes) by(name string) []write {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []write
	for _, x := range w.list {
		if x.by == name {
			out = append(out, x)
		}
	}
	return out
}

func (l *replicaLog) dead() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.killed
}

func (l *replicaLog) die() {
	l.mu.Lock()
	l.killed = true
	l.mu.Unlock()
	if l.onKill != nil {
		l.onKill()
	}
}

func (l *replicaLog) Commit(ctx context.Context, f relay.Fence, cp []byte, es ...relay.Entry) error {
	if l.dead() {
		return errKilled
	}
	var before, after bool
	if l.kill != nil && len(es) > 0 {
		before, after = l.kill(es)
	}
	if before {
		l.die()
		return errKilled
	}
	err := l.Log.Commit(ctx, f, cp, es...)
	if err == nil && len(es) > 0 {
		l.w.mu.Lock()
		l.w.list = append(l.w.list, write{by: l.name, at: time.Now(), entries: slices.Clone(es)})
		l.w.mu.Unlock()
	}
	if after {
		l.die()
	}
	if err == nil && l.stopAfter != nil && len(es) > 0 && l.stopAfter(es) {
		l.onStop()
	}
	return err
}

func (l *replicaLog) SaveSnapshot(ctx context.Context, f relay.Fence, s relay.Snapshot) error {
	if l.dead() {
		return errKilled
	}
	return l.Log.SaveSnapshot(ctx, f, s)
}

func (l *replicaLog) Trim(ctx context.Context, through uint64) error {
	if l.dead() {
		return errKilled
	}
	return l.Log.Trim(ctx, through)
}

func (l *replicaLog) Acquire(ctx context.Context, owner string, ttl time.Duration) (relay.Fence, error) {
	if l.dead() {
		return relay.Fence{}, errKilled
	}
	return l.Log.Acquire(ctx, owner, ttl)
}

func (l *replicaLog) Renew(ctx context.Context, f relay.Fence, ttl time.Duration) error {
	if l.renew != nil {
		l.renew()
	}
	if l.dead() {
		return errKilled
	}
	return l.Log.Renew(ctx, f, ttl)
}

func (l *replicaLog) Release(ctx context.Context, f relay.Fence) error {
	if l.dead() {
		return errKilled
	}
	return l.Log.Release(ctx, f)
}

// takeoverScript is a task of about three seconds: two artifacts growing
// chunk by chunk, an agent message, status messages, a question in the
// middle, then the end. Its pauses are short, so that a replica that takes
// over finds news to append at once.
func takeoverScript(rng *rand.Rand) []a2atest.Step {
	pause := func() a2atest.Step { return a2atest.Pause(time.Duration(50+rng.IntN(250)) * time.Millisecond) }
	var steps []a2atest.Step
	steps = append(steps, a2atest.Working("thinking"))
	for i := range 4 {
		steps = append(steps, pause(), a2atest.Chunk("a1", fmt.Sprintf("part %d é ", i), i > 0, false))
	}
	steps = append(steps, a2atest.Say("a note"), pause(), a2atest.Chunk("a2", "notes: ", false, false), pause(),
		a2atest.AskInput("Short or long?"))
	for i := 4; i < 8; i++ {
		steps = append(steps, pause(), a2atest.Chunk("a1", fmt.Sprintf("part %d ü ", i), true, false))
		steps = append(steps, a2atest.Chunk("a2", fmt.Sprintf("n%d ", i), true, false))
	}
	steps = append(steps, a2atest.Working("finishing"), pause(), a2atest.Chunk("a1", "end", true, true),
		a2atest.Finish(a2a.StateCompleted, "done"))
	return steps
}

// takeoverRun is one run of the kill figure: its seed, and what it
// measured.
type takeoverRun struct {
	seed     uint64
	delay    time.Duration // from the kill to the taker's first appended entry; -1 when no kill happened
	atPrompt bool          // the kill fell while the question waited for its answer
}

// killedDriver runs one seed: replica A starts the stream with Run and is
// killed at a seeded point; replica B runs Run as a watcher and takes over;
// a browser reads through the Handler, dropping its connection now and then
// and reconnecting with Last-Event-ID, and answers the question. It checks
// the browser's screen against the agent's task, byte for byte.
func killedDriver(t *testing.T, seed uint64) takeoverRun {
	rng := rand.New(rand.NewPCG(seed, 0x7a4e0e5))
	run := takeoverRun{seed: seed, delay: -1}
	styles := []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay}
	style := styles[rng.IntN(len(styles))]
	v := []a2a.Version{a2a.V03, a2a.V10}[rng.IntN(2)]
	rest := rng.IntN(2) == 1
	agent := a2atest.NewAgent(wire(v, rest, a2atest.WithScript(takeoverScript(rng)...), a2atest.WithStyle(style))...)
	what := fmt.Sprintf("seed %d (%s, %s, rest %v)", seed, style, v, rest)

	store := newMemoryStore(t)
	shared, err := store.Open(t.Context(), "k")
	require.NoError(t, err)
	w := &writes{}
	ctxA, killA := context.WithCancel(t.Context())
	defer killA()
	ctxB, stopB := context.WithCancel(t.Context())
	defer stopB()

	// Where A dies: at its k-th commit of entries, before or after it is
	// applied; for a quarter of the seeds, right after it shows the
	// question.
	atPrompt := rng.IntN(4) == 0
	k, before := 1+rng.IntN(24), rng.IntN(2) == 0
	var (
		mu      sync.Mutex
		commits int
		killed  time.Time
	)
	a := &replicaLog{Log: shared, name: "A", w: w, onKill: killA}
	a.kill = func(es []relay.Entry) (bool, bool) {
		mu.Lock()
		defer mu.Unlock()
		commits++
		hit := commits == k
		if atPrompt {
			hit = slices.ContainsFunc(es, func(e relay.Entry) bool { return e.Name == relay.EventInput })
		}
		if !hit {
			return false, false
		}
		killed = time.Now()
		if atPrompt {
			return false, true
		}
		return before, !before
	}
	b := &replicaLog{Log: shared, name: "B", w: w}

	newClient := stream.NewClient
	if rest {
		newClient = stream.NewRESTClient
	}
	clientA, err := newClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	require.NoError(t, err)
	clientB, err := newClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	require.NoError(t, err)
	start := relay.Send(clientA, a2a.NewTextMessage(a2a.RoleUser, "hello"))
	var wg sync.WaitGroup
	var errA, errB error
	wg.Go(func() { errA = relay.Run(ctxA, a, "A", start) })
	wg.Go(func() { errB = relay.Run(ctxB, b, "B", relay.Resume(clientB)) })

	mux := http.NewServeMux()
	mux.Handle("/s/{key}/", newHandler(t, store, func(req *http.Request) (string, bool) { return req.PathValue("key"), true }))
	browser := a2atest.NewClient(mux)

	// The browser: it folds what it reads, drops the connection after a
	// few events, and answers the question after a while.
	sc := &relay.View{}
	var (
		lastID   string
		answered = map[uint64]bool{}
		posts    sync.WaitGroup
		postErr  error
		postMu   sync.Mutex
	)
	for sc.End == nil {
		rd := connect(t, browser, lastID)
		if rd.status == http.StatusNoContent {
			rd.close()
			break
		}
		require.Equal(t, http.StatusOK, rd.status, what)
		// A stream that never ends would keep the browser reading
		// keep-alives for ever: a minute without its end fails the run.
		hung := time.AfterFunc(time.Minute, rd.close)
		keep := 1 + rng.IntN(8)
		for i := 0; i < keep; i++ {
			ev, ok := rd.next()
			if !ok {
				break
			}
			lastID = ev.ID
			if ev.Name == relay.EventGone {
				var g relay.GoneData
				require.NoError(t, json.Unmarshal(ev.Data, &g))
				sc, err = relay.ParseView(g.View)
				require.NoError(t, err)
				continue
			}
			require.NoError(t, sc.Apply(ev.entry(t)), what)
			if sc.Question != nil && !answered[sc.Question.Prompt] {
				prompt := sc.Question.Prompt
				answered[prompt] = true
				wait := time.Duration(rng.IntN(3000)) * time.Millisecond
				posts.Go(func() {
					time.Sleep(wait)
					body := fmt.Sprintf(`{"prompt":%d,"text":"long"}`, prompt)
					req, _ := http.NewRequest(http.MethodPost, "http://relay.test/s/k/answer", strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Idempotency-Key", fmt.Sprint("answer-", prompt))
					resp, err := browser.Do(req)
					if err == nil {
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK {
							err = fmt.Errorf("answer: %s", resp.Status)
						}
					}
					postMu.Lock()
					postErr = errors.Join(postErr, err)
					postMu.Unlock()
				})
			}
			if sc.End != nil {
				break
			}
		}
		require.True(t, hung.Stop(), "%s: a minute passed without the stream's end", what)
		rd.close()
	}
	wg.Wait()
	posts.Wait()
	require.NoError(t, postErr, what)
	require.NoError(t, errB, what)
	if !errors.Is(errA, context.Canceled) {
		require.NoError(t, errA, what)
	}

	mu.Lock()
	defer mu.Unlock()
	if bw := w.by("B"); !killed.IsZero() && len(bw) > 0 {
		run.delay = bw[0].at.Sub(killed)
		run.atPrompt = atPrompt
	} else {
		aw := w.by("A")
		require.NotEmpty(t, aw, "%s: nobody wrote", what)
		last := aw[len(aw)-1].entries
		require.Equal(t, relay.EventEnd, last[len(last)-1].Name, "%s: B appended nothing, and A did not end the stream", what)
	}
	require.NotNil(t, sc.End, what)
	if len(w.by("A")) == 0 {
		// A died before the stream knew its task: B cannot resume it, and
		// says so; the message is not sent again.
		require.Equal(t, relay.EventFailure, sc.End.Name, what)
		var e relay.FailureData
		require.NoError(t, json.Unmarshal(sc.End.Data, &e))
		require.Equal(t, "unresumable", e.Kind, what)
		require.LessOrEqual(t, len(agent.TaskIDs()), 1, what)
		return run
	}
	if sc.End.Name == relay.EventFailure {
		// A died with the answer's reply in flight (its checkpoint, saved
		// before the reply, says so), before it reached the agent. B
		// cannot tell that it did not: a reply that may have
		// reached the agent is never sent again (only WithIdempotentSends
		// would), so B follows the task, which still waits, until its
		// budget is spent. Nothing was sent twice, and the agent's task
		// still waits on the question.
		task := agent.Task(sc.TaskID)
		require.NotNil(t, task, what)
		require.Equal(t, a2a.StateInputRequired, task.Status.State, "%s: %s", what, sc.End.Data)
		for _, r := range agent.Requests() {
			require.False(t, r.Message != nil && r.Message.TaskID != "", "%s: the agent got a reply, yet the stream failed: %s", what, sc.End.Data)
		}
		return run
	}
	// The screen is the agent's task, byte for byte.
	require.Equal(t, relay.EventEnd, sc.End.Name, "%s: %s", what, sc.End.Data)
	task := agent.Task(sc.TaskID)
	require.NotNil(t, task, what)
	require.Equal(t, a2a.StateCompleted, sc.State, what)
	var arts []string
	for _, p := range sc.Panes {
		if p.Kind == "artifact" {
			arts = append(arts, p.ID)
		}
	}
	require.Len(t, arts, len(task.Artifacts), "%s: artifact panes %v", what, arts)
	for _, art := range task.Artifacts {
		p := sc.Pane("artifact:" + art.ID)
		require.NotNil(t, p, "%s: artifact %s", what, art.ID)
		require.Equal(t, art.Text(), p.Text(), "%s: artifact %s", what, art.ID)
	}
	for _, m := range task.History {
		if m.Role == a2a.RoleAgent && m.ID != "" && m.Text() == "a note" {
			p := sc.Pane("message:" + m.ID)
			require.NotNil(t, p, "%s: message %s", what, m.ID)
			require.Equal(t, m.Text(), p.Text(), what)
		}
	}
	// The question was asked once and answered once, whoever drove.
	var inputs, answers int
	for _, x := range w.list {
		for _, e := range x.entries {
			switch e.Name {
			case relay.EventInput:
				inputs++
			case relay.EventAnswered:
				answers++
			}
		}
	}
	require.Equal(t, 1, inputs, "%s: input entries", what)
	require.Equal(t, 1, answers, "%s: answered entries", what)
	replies := 0
	for _, m := range task.History {
		if m.Role == a2a.RoleUser && m.Text() == "long" {
			replies++
		}
	}
	require.Equal(t, 1, replies, "%s: replies the agent holds", what)
	return run
}

// takeover runs replica A (the starter) until it dies after its commit
// that dies says, and replica B (a watcher) until the stream ends; post,
// when set, runs once A died. It returns the log's entries and the
// writes by replica.
func takeover(t *testing.T, script []a2atest.Step, dies func([]relay.Entry) bool, post func(relay.Log)) ([]relay.Entry, *writes, time.Time) {
	t.Helper()
	agent := a2atest.NewAgent(a2atest.WithScript(script...), a2atest.WithStyle(a2atest.LiveOnly))
	shared, err := newMemoryStore(t).Open(t.Context(), "k")
	require.NoError(t, err)
	w := &writes{}
	ctxA, killA := context.WithCancel(t.Context())
	defer killA()
	var killed time.Time
	diedCh := make(chan struct{})
	a := &replicaLog{Log: shared, name: "A", w: w, onKill: func() { killed = time.Now(); killA(); close(diedCh) }}
	a.kill = func(es []relay.Entry) (bool, bool) { return false, dies(es) }
	b := &replicaLog{Log: shared, name: "B", w: w}
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	require.NoError(t, err)
	start := relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello"))
	var wg sync.WaitGroup
	var errB error
	wg.Go(func() { _ = relay.Run(ctxA, a, "A", start) })
	// A minute is ample: the stream ends within seconds of the takeover.
	ctxB, stopB := context.WithTimeout(t.Context(), time.Minute)
	defer stopB()
	wg.Go(func() { errB = relay.Run(ctxB, b, "B", relay.Resume(client)) })
	if post != nil {
		<-diedCh
		post(shared)
	}
	wg.Wait()
	require.NoError(t, errB, "B's Run: the stream did not end within a minute")
	require.False(t, killed.IsZero(), "A died")
	require.NotEmpty(t, w.by("B"), "B took over")
	var entries []relay.Entry
	for after := uint64(0); ; {
		page, err := shared.Read(t.Context(), after, 100)
		require.NoError(t, err)
		if len(page) == 0 {
			return entries, w, killed
		}
		entries = append(entries, page...)
		after = page[len(page)-1].Seq
	}
}
