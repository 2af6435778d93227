package redisrelay

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
	"github.com/a2astream/a2astream/stream"
)

var (
	takeoverRuns  = flag.Int("redis.takeovers", 8, "runs of TestKilledDriverIsTakenOverFromItsCheckpoint")
	takeoverSeed  = flag.Uint64("redis.seed", 0, "the first run's seed in TestKilledDriverIsTakenOverFromItsCheckpoint; run i has seed+i")
	takeoverLease = flag.Duration("redis.lease", time.Second, "the replicas' lease in TestKilledDriverIsTakenOverFromItsCheckpoint")
)

// replicaEnv, when set, makes TestKilledDriverIsTakenOverFromItsCheckpoint a
// replica process: it holds a replicaSpec as JSON.
const replicaEnv = "REDISRELAY_TEST_REPLICA"

// replicaSpec is what a replica process runs: relay.Run on the log Key of
// the Redis at Addr, for the agent at Agent, as the owner Name (the
// starter when it is "a"), until Deadline at the latest.
type replicaSpec struct {
	Name     string
	Addr     string
	Key      string
	Agent    string
	REST     bool // the agent's HTTP+JSON binding; JSON-RPC otherwise
	Lease    time.Duration
	Deadline time.Time
}

// commitLine starts the line a replica process writes to its stdout for
// each of its Commits that appended entries: "<commitLine> <first Seq>
// <last Seq> <first entry's name> <wall clock, Unix ns>".
const commitLine = "redisrelay-replica-commit"

// The wires of the soak: run i speaks wires[seed%4].
var soakWires = [4]struct {
	v    a2a.Version
	rest bool
}{{a2a.V03, false}, {a2a.V03, true}, {a2a.V10, false}, {a2a.V10, true}}

// TestKilledDriverIsTakenOverFromItsCheckpoint: two replica processes run
// relay.Run on one log in a real Redis; the one that drives is killed with
// SIGKILL at a seeded point (an entry count, or while the agent's question
// waits for its answer); the other takes the stream over from the
// checkpoint in Redis once the lease expired, and ends it. A third party,
// the browser, posts the answer to the question through the log
// (PostAnswer, where a POST to any replica's handler ends up), at a seeded
// time: before the kill, while no replica drives, or once the other took
// over; in some runs a second browser posts another answer at once. The
// log, folded as a browser does (relay.View), is the agent's task byte for
// byte, each message once; it ends with EventEnd, with no Seq gap; the
// question was asked once and the answer that won reached the agent once.
//
// Each run picks whether the agent asks, the kill point and the browser's
// timing from its seed, its wire (JSON-RPC or HTTP+JSON, A2A 0.3 or 1.0)
// from the seed modulo 4 and its server style from the seed modulo 3, so
// that any 12 seeds in a row cover every pair. -redis.takeovers sets the
// number of runs (8), -redis.seed the first seed and -redis.lease the lease
// (1 s); a failing run names its seed. The test reports the time from the
// kill to the first entry the replica that took over appended, at p50, p99
// and max, over the runs whose first entry did not wait for a person's
// answer. It fails when one is above the bound of Run's doc (lease and a
// tenth) by more than a second (the resume and the agent's next event, on
// a loaded machine), and, over 100 runs or more, when the p99 is above that
// bound by more than half a second: 6 s for a 5 s lease, issue 20's target.
// The allowance is a fixed time, not a share of the lease: the wait for the
// lease grows with it, the resume does not (with a 1 s lease, 200 runs on a
// busy machine had a p99 of 1.26 s). Over fewer than 100 runs the p99 is
// the slowest run, which a busy machine decides.
func TestKilledDriverIsTakenOverFromItsCheckpoint(t *testing.T) {
	if v := os.Getenv(replicaEnv); v != "" {
		var spec replicaSpec
		require.NoError(t, json.Unmarshal([]byte(v), &spec))
		replicaProcess(t, spec)
		return
	}
	srv := redistest.Start(t)
	c := srv.Client(t, nil)
	lease := *takeoverLease
	var (
		delays    []time.Duration
		wires     = map[string]int{}
		styles    = map[a2atest.ResubscribeStyle]int{}
		asked     int
		waiting   int // killed while the question waited for its answer
		answering int // killed as the answered entry landed
		late      int // the answer was posted once the other replica drove
		ended     int // the driver ended the stream before the kill landed
	)
	for i := range *takeoverRuns {
		seed := *takeoverSeed + uint64(i)
		var run soakRun
		ok := t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) { run = killedReplica(t, srv, c, seed, lease) })
		if !ok {
			t.Fatalf("seed %d failed; replay it with -run '^TestKilledDriverIsTakenOverFromItsCheckpoint$' -redis.seed %d -redis.takeovers 1 -redis.lease %v",
				seed, seed, lease)
		}
		w := soakWires[seed%4]
		wires[fmt.Sprintf("%s rest=%v", w.v, w.rest)]++
		styles[run.style]++
		if run.ask {
			asked++
		}
		if run.atQuestion {
			waiting++
		}
		if run.atAnswered {
			answering++
		}
		switch {
		case run.endedFirst:
			ended++
		case run.lateAnswer:
			late++
		default:
			delays = append(delays, run.delay)
		}
	}
	if *takeoverRuns >= len(soakWires) {
		require.Len(t, wires, len(soakWires), "the wires the runs spoke")
	}
	if len(delays) == 0 {
		t.Logf("%d runs, none of them timed (answered after the takeover, or ended before the kill)", *takeoverRuns)
		return
	}
	slices.Sort(delays)
	p99 := delays[(len(delays)*99+99)/100-1]
	t.Logf("%d runs with a %v lease (wires %v, styles %v; %d asked, %d killed while the question waited, %d as its answered entry landed, %d answered after the takeover, %d ended before the kill landed): "+
		"from the kill to the first entry of the replica that took over, over %d runs: p50 %v, p99 %v, max %v",
		*takeoverRuns, lease, wires, styles, asked, waiting, answering, late, ended, len(delays), delays[len(delays)/2], p99, delays[len(delays)-1])
	require.LessOrEqual(t, delays[len(delays)-1], lease+lease/10+time.Second, "the slowest time from the kill to the first entry of the replica that took over")
	if len(delays) >= 100 {
		require.LessOrEqual(t, p99, lease+lease/10+time.Second/2, "p99 of the time from the kill to the first entry of the replica that took over")
	}
}

// soakRun is what one run of the soak picked and measured.
type soakRun struct {
	style      a2atest.ResubscribeStyle
	ask        bool          // the agent asked a question
	atQuestion bool          // the driver was killed while the question waited
	atAnswered bool          // the driver was killed as the answered entry landed
	lateAnswer bool          // the answer was posted once the other replica drove: its first entry waited for it
	endedFirst bool          // the driver ended the stream before the kill landed: no takeover
	delay      time.Duration // from the kill to the first entry the other replica appended
}

// soakScript is the agent's task of a soak run: about a second of two
// artifacts growing chunk by chunk, an agent message and status messages,
// with a question in the middle when ask. It returns the steps, the text of
// a1, and how many entries a driver appends before the last chunk, which
// comes at least 100 ms after them (the kill's jitter is at most 40 ms).
func soakScript(rng *rand.Rand, ask bool) ([]a2atest.Step, string, int) {
	pause := func() a2atest.Step { return a2atest.Pause(time.Duration(20+rng.IntN(80)) * time.Millisecond) }
	var a1 strings.Builder
	chunk := func(text string, appendChunk, last bool) a2atest.Step {
		a1.WriteString(text)
		return a2atest.Chunk("a1", text, appendChunk, last)
	}
	// The task's first event (submitted), then the working status and its
	// message.
	entries := 1 + 2
	steps := []a2atest.Step{a2atest.Working("thinking")}
	n1, n2 := 3+rng.IntN(4), 3+rng.IntN(4)
	for i := range n1 {
		steps = append(steps, pause(), chunk(fmt.Sprintf("part %d é ", i), i > 0, false))
	}
	steps = append(steps, a2atest.Say("a note"), pause(), a2atest.Chunk("a2", "notes: ", false, false))
	entries += n1 + 2
	if ask {
		// The status, its message, the input and the answered entries.
		steps = append(steps, pause(), a2atest.AskInput("Short or long?"))
		entries += 4
	}
	for i := n1; i < n1+n2; i++ {
		steps = append(steps, pause(), chunk(fmt.Sprintf("part %d ü ", i), true, false), a2atest.Chunk("a2", fmt.Sprintf("n%d ", i), true, false))
	}
	entries += 2 * n2
	steps = append(steps, a2atest.Working("finishing"), a2atest.Pause(time.Duration(100+rng.IntN(50))*time.Millisecond),
		chunk("end", true, true), a2atest.Finish(a2a.StateCompleted, "done"))
	return steps, a1.String(), entries + 2
}

// killedReplica is one run of the soak, with the seed seed, on the
// redis-server srv (c is a client of it), on a log of its own.
func killedReplica(t *testing.T, srv *redistest.Server, c *redis.Client, seed uint64, lease time.Duration) soakRun {
	rng := rand.New(rand.NewPCG(seed, 0x50a6))
	wire := soakWires[seed%4]
	styles := []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay}
	run := soakRun{style: styles[seed%3]}
	run.ask = rng.IntN(3) > 0
	script, a1, killable := soakScript(rng, run.ask)
	// Where the driver dies: once the log holds kill entries, a few
	// milliseconds later; or, in a third of the runs that ask, while the
	// question waits for its answer; or, in another sixth, the instant the
	// answered entry is in the log, while the reply goes to the agent.
	kill := uint64(1 + rng.IntN(killable))
	jitter := time.Duration(rng.IntN(40)) * time.Millisecond
	if run.ask {
		switch rng.IntN(6) {
		case 0, 1:
			run.atQuestion = true
		case 2:
			run.atAnswered = true
		}
	}
	// When the browser answers: 0 to 300 ms after the question shows; when
	// the driver is killed while it waits, after the kill: within two
	// thirds of the lease (before it expires, so the answer is there when
	// the other replica takes over), or, in a third of those runs, once the
	// other replica drives.
	answerDelay := time.Duration(rng.IntN(300)) * time.Millisecond
	if run.atQuestion {
		answerDelay = time.Duration(rng.Int64N(int64(lease * 2 / 3)))
		run.lateAnswer = rng.IntN(3) == 0
		if run.lateAnswer {
			answerDelay = time.Duration(rng.IntN(100)) * time.Millisecond
		}
	}
	twoBrowsers := run.ask && rng.IntN(4) == 0
	where := fmt.Sprintf("at %d entries +%v", kill, jitter)
	switch {
	case run.atQuestion:
		where = "while the question waits"
	case run.atAnswered:
		where = "at the answered entry"
	}
	what := fmt.Sprintf("seed %d (%s, %s, rest %v, ask %v, killed %s, answer after %v, after the takeover %v, two browsers %v)",
		seed, run.style, wire.v, wire.rest, run.ask, where, answerDelay, run.lateAnswer, twoBrowsers)

	binding := a2a.BindingJSONRPC
	if wire.rest {
		binding = a2a.BindingHTTPJSON
	}
	agent := a2atest.NewAgent(a2atest.WithVersions(wire.v), a2atest.WithBindings(binding), a2atest.WithScript(script...), a2atest.WithStyle(run.style))
	web := httptest.NewServer(agent)
	defer web.Close()
	key := fmt.Sprint("soak-", seed)
	l, err := newStore(t, c, WithWake(testWake)).Open(t.Context(), key)
	require.NoError(t, err)

	// The run's bound: the task takes about a second, the takeover a lease
	// and a tenth.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second+3*lease)
	defer cancel()
	deadline, _ := ctx.Deadline()
	spec := replicaSpec{Addr: srv.Addr(), Key: key, Agent: web.URL + "/", REST: wire.rest, Lease: lease, Deadline: deadline}
	spec.Name = "a"
	a := startReplica(t, ctx, spec)
	defer a.stop()
	spec.Name = "b"
	b := startReplica(t, ctx, spec)
	defer b.stop()

	// The browsers: they answer the question once it shows, at the time
	// the seed says.
	var (
		killed  = make(chan struct{})
		prompts = make(chan uint64, 1)
		posts   sync.WaitGroup
		postMu  sync.Mutex
		postErr error
		won     []relay.Answer // what each post returned: the answer stored
	)
	defer func() { cancel(); posts.Wait() }()
	post := func(an relay.Answer) {
		got, err := l.PostAnswer(ctx, an)
		postMu.Lock()
		defer postMu.Unlock()
		postErr = errors.Join(postErr, err)
		won = append(won, got)
	}
	if run.ask {
		posts.Go(func() {
			prompt, err := awaitEntry(ctx, l, relay.EventInput)
			if err == nil {
				prompts <- prompt
			}
			if err == nil && run.atQuestion {
				select {
				case <-killed:
				case <-ctx.Done():
				}
			}
			if err == nil && run.lateAnswer {
				err = awaitFence(ctx, c, l.(*log), "b")
			}
			if err == nil {
				err = after(ctx, answerDelay)
			}
			if err != nil {
				postMu.Lock()
				postErr = errors.Join(postErr, fmt.Errorf("browser: %w", err))
				postMu.Unlock()
				return
			}
			if twoBrowsers {
				posts.Go(func() { post(relay.Answer{Prompt: prompt, Key: "browser-2", Text: "short"}) })
			}
			post(relay.Answer{Prompt: prompt, Key: "browser-1", Text: "long"})
		})
	}

	// The kill.
	target := kill
	if run.atQuestion || run.atAnswered {
		select {
		case target = <-prompts:
		case <-ctx.Done():
			t.Fatalf("%s: no question within the run's bound; a: %s\nb: %s", what, a.output(), b.output())
		}
		jitter = 0
		if run.atAnswered {
			target++
		}
	}
	require.NoError(t, awaitTail(ctx, l, target), "%s: a: %s", what, a.output())
	require.NoError(t, after(ctx, jitter))
	killAt := time.Now()
	if err := a.cmd.Process.Signal(syscall.SIGKILL); !errors.Is(err, os.ErrProcessDone) {
		require.NoError(t, err)
	}
	close(killed)
	errA := a.wait()
	tailAtKill, err := l.Tail(ctx)
	require.NoError(t, err)
	require.NoError(t, b.wait(), "%s: the replica that took over: %s", what, b.output())
	posts.Wait()
	require.NoError(t, postErr, what)

	// What each replica appended: a's commits, then b's, from the entry
	// after a's last.
	aw, bw := a.reports(), b.reports()
	if len(bw) == 0 {
		// The kill came too late, on a machine too busy: the driver had
		// ended the stream (a kill point among the last entries, and the
		// driver ran ahead of the test by more than the agent's last
		// pause). There was nothing to take over.
		require.NotEmpty(t, aw, what)
		last := aw[len(aw)-1]
		require.Equal(t, tailAtKill, last.last, "%s: the other replica appended nothing, and the driver did not end the stream", what)
		run.endedFirst = true
	} else {
		var exit *exec.ExitError
		require.ErrorAs(t, errA, &exit, what)
		require.Equal(t, syscall.SIGKILL, exit.Sys().(syscall.WaitStatus).Signal(), "%s: how the driver ended: %s", what, a.output())
		require.Equal(t, tailAtKill+1, bw[0].first, "%s: the first entry of the replica that took over", what)
		for _, x := range aw {
			require.Less(t, x.last, bw[0].first, "%s: an entry of the killed driver after the takeover", what)
		}
		run.delay = bw[0].at.Sub(killAt)
		if run.atQuestion {
			require.Equal(t, relay.EventAnswered, bw[0].name, "%s: the first entry of the replica that took over at the question", what)
		}
		fence, err := c.Get(ctx, l.(*log).keys.fence).Result()
		require.NoError(t, err)
		require.True(t, strings.HasSuffix(fence, ":b"), "%s: the newest fence is b's: %s", what, fence)
	}

	// The log, folded as a browser folds it, is the agent's task.
	var entries []relay.Entry
	sc := &relay.View{}
	for {
		page, err := l.Read(ctx, sc.Seq, 100)
		require.NoError(t, err, what)
		if len(page) == 0 {
			break
		}
		for _, e := range page {
			require.NoError(t, sc.Apply(e), "%s: the log's entry %d (a Seq gap, or bad data)", what, e.Seq)
		}
		entries = append(entries, page...)
	}
	n, err := c.XLen(ctx, l.(*log).keys.log).Result()
	require.NoError(t, err)
	require.EqualValues(t, len(entries), n, "%s: entries in the stream key", what)
	if last := entries[len(entries)-1]; last.Name == relay.EventFailure {
		// The driver was killed with the answer's reply in flight (its
		// checkpoint, saved before the reply, says so), before it reached
		// the agent. The replica that took over cannot tell that it did
		// not: a reply that may have reached the agent is never sent
		// again (only WithIdempotentSends would), so it follows the task,
		// which still waits, until its budget is spent. Nothing was sent
		// twice, and the agent's task still waits on the question.
		require.Len(t, agent.TaskIDs(), 1, "%s: tasks the message made", what)
		task := agent.Task(agent.TaskIDs()[0])
		require.Equal(t, a2a.StateInputRequired, task.Status.State, "%s: %s", what, last.Data)
		for _, r := range agent.Requests() {
			require.False(t, r.Message != nil && r.Message.TaskID != "", "%s: the agent got a reply, yet the stream failed: %s", what, last.Data)
		}
		return run
	}
	require.Equal(t, relay.EventEnd, entries[len(entries)-1].Name, "%s: the last entry: %s", what, entries[len(entries)-1].Data)
	require.NotNil(t, sc.End, what)
	require.Len(t, agent.TaskIDs(), 1, "%s: tasks the message made", what)
	task := agent.Task(sc.TaskID)
	require.NotNil(t, task, "%s: the task %q", what, sc.TaskID)
	require.Equal(t, a2a.StateCompleted, task.Status.State, what)
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
	require.Equal(t, a1, sc.Pane("artifact:a1").Text(), what)
	// Each of the agent's messages shows in one pane, with its text (a
	// status message that the replica that took over learned from the
	// task's history shows as a message), and no other message does.
	said := map[string]string{}
	for _, m := range append(slices.Clone(task.History), *cmp.Or(task.Status.Message, &a2a.Message{})) {
		if m.Role == a2a.RoleAgent {
			said[m.ID] = m.Text()
		}
	}
	shown := map[string]string{}
	for _, p := range sc.Panes {
		if p.Kind == "message" || p.Kind == "status" {
			require.NotContains(t, shown, p.ID, "%s: the message %s shows in two panes", what, p.ID)
			shown[p.ID] = p.Text()
		}
	}
	require.Equal(t, said, shown, "%s: the agent's messages, by ID, and the message panes", what)

	// The question: asked once, answered once, the answer that won at the
	// agent once, the other never.
	var inputs, answered []relay.Entry
	for _, e := range entries {
		switch e.Name {
		case relay.EventInput:
			inputs = append(inputs, e)
		case relay.EventAnswered:
			answered = append(answered, e)
		}
	}
	if !run.ask {
		require.Empty(t, inputs, what)
		require.Empty(t, answered, what)
		return run
	}
	require.Len(t, inputs, 1, "%s: input entries", what)
	require.Len(t, answered, 1, "%s: answered entries", what)
	require.NotEmpty(t, won, what)
	for _, an := range won {
		require.Equal(t, won[0], an, "%s: the answers the posts returned", what)
	}
	var ad relay.AnsweredData
	require.NoError(t, json.Unmarshal(answered[0].Data, &ad))
	require.Equal(t, relay.AnsweredData{Prompt: inputs[0].Seq, Text: won[0].Text}, ad, what)
	replies := map[string]int{}
	for _, m := range task.History {
		if m.Role == a2a.RoleUser {
			replies[m.Text()]++
		}
	}
	require.Equal(t, map[string]int{"hello": 1, won[0].Text: 1}, replies, "%s: the user's messages the agent holds", what)
	// The messages sent in the agent's version (the client's first send,
	// in 1.0 to an agent of 0.3, was refused: it negotiates the version).
	method := map[a2a.Version]string{a2a.V03: "message/stream", a2a.V10: "SendStreamingMessage"}[wire.v]
	sends := map[string]int{}
	for _, r := range agent.Requests() {
		if r.Message != nil && r.Method == method {
			sends[r.Message.Text()]++
		}
	}
	require.Equal(t, map[string]int{"hello": 1, won[0].Text: 1}, sends, "%s: the messages sent to the agent", what)
	return run
}

// replica is a replica process of the soak: the test binary run again
// with replicaEnv.
type replica struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once its output was read to the end

	mu      sync.Mutex
	commits []commitReport
	out     strings.Builder // the rest of its output

	once sync.Once
	err  error // what Wait returned
}

// commitReport is one commitLine of a replica.
type commitReport struct {
	first, last uint64
	name        string // the first entry's
	at          time.Time
}

// startReplica runs a replica process for spec, killed when ctx ends.
func startReplica(t *testing.T, ctx context.Context, spec replicaSpec) *replica {
	t.Helper()
	env, err := json.Marshal(spec)
	require.NoError(t, err)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKilledDriverIsTakenOverFromItsCheckpoint$", "-test.count=1")
	cmd.Env = append(os.Environ(), replicaEnv+"="+string(env))
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Start()
	_ = w.Close()
	if err != nil {
		_ = r.Close()
		require.NoError(t, err)
	}
	rep := &replica{cmd: cmd, done: make(chan struct{})}
	go rep.read(r)
	return rep
}

// read reads the replica's output to its end.
func (rep *replica) read(r *os.File) {
	defer close(rep.done)
	defer r.Close()
	lines := bufio.NewScanner(r)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		line := lines.Text()
		rep.mu.Lock()
		if c, ok := parseCommit(line); ok {
			rep.commits = append(rep.commits, c)
		} else {
			rep.out.WriteString(line)
			rep.out.WriteByte('\n')
		}
		rep.mu.Unlock()
	}
}

// parseCommit parses a commitLine.
func parseCommit(line string) (commitReport, bool) {
	f := strings.Fields(line)
	if len(f) != 5 || f[0] != commitLine {
		return commitReport{}, false
	}
	first, err1 := strconv.ParseUint(f[1], 10, 64)
	last, err2 := strconv.ParseUint(f[2], 10, 64)
	ns, err3 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return commitReport{}, false
	}
	return commitReport{first: first, last: last, name: f[3], at: time.Unix(0, ns)}, true
}

// wait waits for the process to end and its output to be read, and
// returns what exec.Cmd.Wait returned.
func (rep *replica) wait() error {
	rep.once.Do(func() {
		rep.err = rep.cmd.Wait()
		<-rep.done
	})
	return rep.err
}

// stop kills the process, if it still runs, and waits for it.
func (rep *replica) stop() {
	_ = rep.cmd.Process.Kill()
	_ = rep.wait()
}

// reports returns the replica's commits so far.
func (rep *replica) reports() []commitReport {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	return slices.Clone(rep.commits)
}

// output returns what the replica wrote other than its commitLines.
func (rep *replica) output() string {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	return rep.out.String()
}

// after returns once d passed, or with ctx's error.
func after(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// awaitTail returns once l holds n entries; it fails when the log ends
// before.
func awaitTail(ctx context.Context, l relay.Log, n uint64) error {
	for {
		tail, err := l.Tail(ctx)
		if err != nil || tail >= n {
			return err
		}
		if tail > 0 {
			last, err := l.Read(ctx, tail-1, 1)
			if err != nil {
				return err
			}
			if len(last) == 1 && (last[0].Name == relay.EventEnd || last[0].Name == relay.EventFailure) {
				return fmt.Errorf("the log ended at %d entries, before %d", tail, n)
			}
		}
		if err := l.AwaitEntry(ctx, tail); err != nil {
			return err
		}
	}
}

// awaitEntry returns the Seq of the first entry of l named name, once it
// is there; it fails when the log ends without one.
func awaitEntry(ctx context.Context, l relay.Log, name string) (uint64, error) {
	for after := uint64(0); ; {
		page, err := l.Read(ctx, after, 100)
		if err != nil {
			return 0, err
		}
		for _, e := range page {
			switch e.Name {
			case name:
				return e.Seq, nil
			case relay.EventEnd, relay.EventFailure:
				return 0, fmt.Errorf("the log ended without a %s entry", name)
			}
			after = e.Seq
		}
		if len(page) == 0 {
			if err := l.AwaitEntry(ctx, after); err != nil {
				return 0, err
			}
		}
	}
}

// awaitFence returns once owner holds l's newest fence: it took the lease
// over. It looks every 2 ms.
func awaitFence(ctx context.Context, c redis.UniversalClient, l *log, owner string) error {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		fence, err := c.Get(ctx, l.keys.fence).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		if strings.HasSuffix(fence, ":"+owner) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// replicaProcess runs relay.Run as spec says, and writes a commitLine for
// each of its Commits that appended entries.
func replicaProcess(t *testing.T, spec replicaSpec) {
	ctx, cancel := context.WithDeadline(t.Context(), spec.Deadline)
	defer cancel()
	c := redis.NewClient(&redis.Options{Addr: spec.Addr})
	defer c.Close()
	l, err := newStore(t, c, WithWake(testWake)).Open(ctx, spec.Key)
	require.NoError(t, err)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	newClient := stream.NewClient
	if spec.REST {
		newClient = stream.NewRESTClient
	}
	client, err := newClient(spec.Agent, stream.WithHTTPClient(&http.Client{Transport: tr}))
	require.NoError(t, err)
	src := relay.Resume(client)
	if spec.Name == "a" {
		src = relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello"))
	}
	rl := &reportingLog{Log: l}
	require.NoError(t, relay.Run(ctx, rl, spec.Name, src, relay.WithLease(spec.Lease)))
}

// reportingLog is a replica's log that writes a commitLine to stdout for
// each Commit that appended entries, once the log holds them.
type reportingLog struct {
	relay.Log
	mu sync.Mutex
}

func (l *reportingLog) Commit(ctx context.Context, f relay.Fence, cp []byte, es ...relay.Entry) error {
	err := l.Log.Commit(ctx, f, cp, es...)
	l.report(err, es)
	return err
}

func (l *reportingLog) report(err error, es []relay.Entry) {
	if err != nil || len(es) == 0 {
		return
	}
	at := time.Now().UnixNano()
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Printf("%s %d %d %s %d\n", commitLine, es[0].Seq, es[len(es)-1].Seq, es[0].Name, at)
}
