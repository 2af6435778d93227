package stream

import (
	"context"
	"iter"
	"log/slog"
	"slices"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/ledger"
	"github.com/a2astream/a2astream/terminal"
)

// Stream is the uninterrupted stream of one task, as the application sees
// it: drops are healed by resubscribing, replays are deduplicated, output
// missed during a gap is recovered, and input-required prompts go to the
// human-input hook.
//
// A Stream yields only deltas: *a2a.StatusUpdate, *a2a.ArtifactUpdate,
// *a2a.Message and *a2a.MessageRevision, never a raw *a2a.Task. Applying
// the yielded events in order (append:true appends parts, anything else
// replaces the artifact) reproduces Task().Artifacts exactly. A message is
// yielded once per version: first as a *a2a.Message or in a status, then
// as a *a2a.MessageRevision each time the agent sends it again with other
// parts.
//
// A Stream has one consumer: its methods must not be called concurrently,
// but for Close, which may stop a Next running on another goroutine. The
// caller must call Close, or drain the stream, to release the
// connection; ranging over All does so.
type Stream struct {
	c      *Client
	cfg    *config // the Client's options, with the per-call ones applied
	answer *a2a.Message
	// ctx is the stream's own context, which its calls and waits take:
	// the caller's, which a Close from another goroutine cuts (gate). The
	// hooks get caller, the caller's as given.
	ctx    context.Context
	caller context.Context
	gate   gate
	log    *slog.Logger
	msg    *a2a.Message // the message to send; nil for Subscribe
	taskID string       // the task, once known
	v      a2a.Version
	nego   bool // the version may still be negotiated down
	ledger *ledger.Ledger
	err    error

	// seen is what the events yielded hold: the substance of Checkpoint.
	seen seen
	// resuming is the checkpoint Resume was given, until its task is
	// fetched and the ledger seeded: no other call is made before.
	resuming *Checkpoint
	// unfetched holds the marks of the artifacts the application holds
	// that the task Resume fetched did not list (a store that lags), until
	// a later task shows them (holdUnfetched).
	unfetched map[string]artifactMark

	phase phase
	route route
	leg   active
	// toldWithheld: the stream has said that its headers do not go to
	// its endpoint (tellWithheld), which it says once.
	toldWithheld bool
	out          delivery
	// The state of healing drops, by meaning (see recovery.go for who
	// writes each).
	tries   attempts
	gap     gap
	ask     asking
	contact contact
	news    news
	prompt  prompt
	auth    auth
	// lastPoll is the task the last poll delivered, while only the poll
	// wait follows it: poll.go remembers it, step forgets it.
	lastPoll lastPoll
	// push is the stream's push notifications (push.go).
	push pushes
	// tr is the stream's Trace's state (trace.go), nil without one.
	tr *tracer
}

// delivery is what the application is handed: the queue of deltas computed
// but not yet yielded, and the event Next advanced to.
type delivery struct {
	queue []a2a.Event
	head  int
	cur   a2a.Event
	// view is set while the deltas of one reconcile are being yielded: the
	// artifacts as the application has built them so far, which Task
	// reports so that the invariant holds between any two events.
	view *view
}

// newStream returns a stream of c with opts applied for it, made by the
// call named by ("Send", "Subscribe", "Resume"); a stream whose options are
// refused has ended with the refusal.
func newStream(ctx context.Context, c *Client, opts []Option, by string) *Stream {
	s := &Stream{c: c, cfg: &c.cfg, log: c.cfg.logger, ledger: ledger.New(), phase: phaseBegin, route: streamingRoute()}
	s.caller = ctx
	s.ctx, s.gate.stop = context.WithCancelCause(ctx)
	cfg, err := c.configWith(opts, by, true)
	if err != nil {
		s.enter(s.end(err))
		return s
	}
	s.cfg, s.log = cfg, cfg.logger
	s.push = newPushes(cfg)
	if cfg.trace != nil {
		s.tr = &tracer{t: cfg.trace}
	}
	s.tries.reset(cfg.policy)
	s.news.restart() // the stall clock starts
	s.v, s.nego = c.currentVersion()
	return s
}

// Next advances to the next event, which Event then returns. It returns
// false when the stream has ended, after which Err reports why (nil for a
// completed task or a message answer). Next may block on the network, on
// reconnect backoff, and on the human-input and credentials hooks, which it
// calls itself.
//
//	s := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hi"))
//	defer s.Close()
//	var screen chatview.Screen
//	for s.Next() {
//		fmt.Print(screen.Add(s.Event()).Content) // or a switch on s.Event()
//	}
//	fmt.Println(s.Ending()) // or match s.Err() with errors.As
func (s *Stream) Next() bool {
	if !s.gate.enter() {
		return false
	}
	ok := s.next()
	if s.gate.leave() {
		// Close was called from another goroutine while this Next ran.
		s.close()
		return false
	}
	return ok
}

// next is Next's work, on the goroutine that owns the stream.
func (s *Stream) next() bool {
	for {
		if o := &s.out; o.head < len(o.queue) {
			o.cur = o.queue[o.head]
			o.queue[o.head] = nil
			o.head++
			s.seen.add(o.cur)
			if o.view != nil {
				if o.head == len(o.queue) {
					o.view = nil
				} else {
					o.view.apply(o.cur)
				}
			}
			return true
		}
		s.out.queue, s.out.head = s.out.queue[:0], 0
		if s.phase == phaseDone {
			s.out.cur = nil
			return false
		}
		s.step()
	}
}

// Event returns the event Next advanced to: an *a2a.StatusUpdate,
// *a2a.ArtifactUpdate, *a2a.Message or *a2a.MessageRevision. It must not be
// modified.
func (s *Stream) Event() a2a.Event { return s.out.cur }

// Err returns the error that ended the stream, or nil. It is nil after a
// completed task, a message answer, or the caller's own Close. Terminal task
// states end in a terminal.Error, a spent retry budget in a
// *reconnect.Error, a failed human-input hook in a *hitl.Error, a JSON-RPC
// error in an *a2a.RPCError, and context cancellation in ctx.Err(). Once the
// task is known, an error that carries no task of its own (an RPC or HTTP
// error, the context's error) comes wrapped with the task as last known,
// which Ending (or EndingOf) reads; match errors with errors.As and
// errors.Is, which see through the wrapping, and read the task of any
// ending, its state and failure with Ending.
func (s *Stream) Err() error { return s.err }

// Task returns the task assembled so far, or nil while none is known and for
// a message answer. It must not be modified. Its artifacts are always those
// the events yielded so far build. It is the stream's own task: later
// events change it in place, but the parts they append and the artifacts
// they open reach it only when Task is called again, so read it between
// calls of Next, call Task again after later events, and Clone it to keep
// it. The stream keeps the parts of live appends, and new artifacts, aside
// until Task is called, so that an event costs the same however long its
// artifact and however many artifacts the task has; a call costs what the
// parts and artifacts added since the last one cost to copy.
func (s *Stream) Task() *a2a.Task {
	t := s.ledger.Task()
	if s.out.view == nil || t == nil {
		return t
	}
	c := *t
	c.Artifacts = s.out.view.arts
	return &c
}

// Ending returns how the stream ended, in one value: the state its task
// ended in, the final task, the message answer, the structured failure and
// Err (see [Ending] for each field, and its String method for one line to
// show). Call it once Next has returned false, or after Wait; before that it
// reports the task as assembled so far and Err (nil), with no State unless
// the task has completed. The task and the answer must not be modified.
func (s *Stream) Ending() Ending {
	e := EndingOf(s.err)
	if e.Task == nil {
		e.Task = s.Task()
	}
	e.Answer = s.answer
	if s.err == nil && e.Task != nil && e.Task.Status.State == a2a.StateCompleted {
		e.State = a2a.StateCompleted
	}
	return e
}

// Close ends the stream and releases its connection. It is idempotent and
// always returns nil. Err stays nil unless an error ended the stream first.
// Close is local only: the agent's task runs on; Cancel asks the agent to
// stop it (from another goroutine, use Client.Cancel).
//
// Close is the one method that may be called from another goroutine while
// Next runs: it cuts the call or backoff that Next waits on (a hook keeps
// the caller's context, so a Next in a hook returns when the hook does),
// and that Next returns false, with Err nil, having closed the stream and
// released its connection as it returns; a Next called after Close returns
// false at once.
func (s *Stream) Close() error {
	if s.gate.close() {
		s.close()
	}
	return nil
}

// close is Close's work, on the goroutine that owns the stream.
func (s *Stream) close() {
	if s.tr != nil {
		s.tr.closed = true
	}
	s.closeLeg("closed", nil)
	s.endPush()
	s.enter(phaseDone)
	clear(s.out.queue)
	s.out = delivery{queue: s.out.queue[:0]}
	s.gate.stop(nil)
}

// Wait drains the stream and returns the assembled task with Err: the
// shortest way to run a stream to its end when only the result matters.
// The task may be non-nil together with an error (for example a terminal
// error). When the agent answered with a message and no task, the task is
// nil and Ending's Answer holds the message; Ending also reads how the
// stream ended in one value.
func (s *Stream) Wait() (*a2a.Task, error) {
	for s.Next() {
	}
	return s.Task(), s.Err()
}

// All returns a single-use iterator over the stream's events. It yields
// (event, nil) for each event and, if the stream ends in an error, one final
// (nil, err). Breaking out of the loop closes the stream.
func (s *Stream) All() iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		defer s.Close()
		for s.Next() {
			if !yield(s.Event(), nil) {
				return
			}
		}
		if err := s.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// Cancel asks the agent to cancel the stream's task (tasks/cancel in 0.3,
// CancelTask in 1.0), with the stream's options, and returns the agent's
// refusal or failure, if any. When the agent reports the task ended, the
// stream ends as the task did: the next calls of Next yield what the
// reported task holds that was not delivered yet, and Err is then the
// terminal error (*terminal.CanceledError for a canceled task). When it
// reports the task still running (a cancel may take effect later), a live
// stream goes on and sees the ending on the wire.
//
// Cancel also works on a stream that its context ended (after Ctrl-C, say),
// whose Err then becomes the task's ending. It needs a known task: on a
// stream with none (a Send's before the first event of its task, or a
// stream whose options or task ID were refused), it sends nothing and
// returns an error matching ErrInvalidOption; Client.Cancel cancels a task
// by ID. Like Next, it must not be called concurrently with the stream's
// other methods. Close, by contrast, is local only: it releases the
// connection and leaves the task running on the agent.
func (s *Stream) Cancel(ctx context.Context) error {
	if s.taskID == "" {
		return refuseArg("Stream.Cancel: the stream knows no task yet, so nothing was sent; call it once Next has yielded an event of the task, or call Client.Cancel with the task's ID")
	}
	t, err := s.c.unaryTask(ctx, s.c.calls.cancel, s.cfg, s.header(), s.taskID)
	if err != nil {
		return err
	}
	st := t.Status.State
	if !st.Terminal() {
		return nil
	}
	s.closeLeg("closed", nil)
	s.deliver(t, foldAuthoritative, nil)
	s.err = nil
	// Ended by the caller, from outside the loop: the end is the task's.
	s.enter(s.end(terminal.FromTaskWith(s.snapshot(), s.cfg.readFailure)))
	return nil
}

// answerWith delivers a message answer: the whole of it, with no task. It
// is yielded, and kept for Answer; the stream then ends (follow).
func (s *Stream) answerWith(m *a2a.Message) {
	s.out.queue = s.ledger.Apply(s.out.queue, m)
	s.answer = m
}

// snapshot returns a copy of the assembled task for errors to carry.
func (s *Stream) snapshot() *a2a.Task { return s.ledger.Task().Clone() }

// fold is how a whole task from the server is folded into the ledger.
type fold int

const (
	foldStale         fold = iota // a task that may be older than what is held
	foldSnapshot                  // the first event of a subscription: the task as it is now
	foldAuthoritative             // a get-task or unary send result: the truth
)

// deliver is the one way what the server sent reaches the application: it
// folds ev into the ledger, then then (a halting event held back while a gap
// was open), if any, and queues the deltas. A live event is applied as it
// is; a whole task confirms the reply it lists (confirmFrom) and is folded
// as how says (how is for tasks only).
//
// Task stays the fold of the deltas yielded: while more than one that may
// touch artifacts waits to be yielded (a whole task's, or held versions of a
// message coming out first), the view holds the artifacts as the
// application has built them (begun from the ledger's as they were before
// the fold, or kept when a batch is still being yielded, as when Cancel
// comes between two deltas). New deltas are news.
func (s *Stream) deliver(ev a2a.Event, how fold, then a2a.Event) {
	t, isTask := ev.(*a2a.Task)
	if isTask {
		s.confirmFrom(t)
	}
	var replaced []string // artifacts of a resume the fold adds last, out of their place
	if len(s.unfetched) > 0 {
		replaced = s.holdUnfetched(ev)
	}
	many := isTask || then != nil || s.ledger.Pending() > 0
	o := &s.out
	var before []a2a.Artifact
	if many && o.view == nil {
		if lt := s.ledger.Task(); lt != nil {
			before = slices.Clone(lt.Artifacts)
		}
	}
	n := len(o.queue)
	switch {
	case isTask && how == foldSnapshot:
		o.queue = s.ledger.ReconcileSnapshot(o.queue, t)
	case isTask:
		o.queue = s.ledger.Reconcile(o.queue, t, how == foldAuthoritative)
	default:
		o.queue = s.ledger.Apply(o.queue, ev)
	}
	if then != nil {
		o.queue = s.ledger.Apply(o.queue, then)
	}
	if many && o.view == nil && len(o.queue)-o.head > 1 {
		o.view = newView(before)
	}
	s.placeReplaced(replaced)
	if len(o.queue) > n {
		// News: the reconnect budget starts again.
		s.news.note()
		s.tries.progress()
	}
	s.promptMovedOn()
	s.authMovedOn()
}

func (s *Stream) notify(n Notice) {
	switch n.Kind {
	case Reconnecting:
		s.log.Info("a2a: reconnecting", "task", n.TaskID, "attempt", n.Attempt, "max", n.MaxAttempts, "wait", n.Wait)
		s.contact.toldResumed = false
	case Resumed:
		if s.contact.toldResumed {
			return // one Resumed for an attempt that succeeded
		}
		s.contact.toldResumed = true
	}
	if f := s.cfg.notify; f != nil {
		f(n)
	}
}
