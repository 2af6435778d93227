package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/dedupe"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/terminal"
)

// phase is where the driver stands between two calls of step.
type phase int

const (
	phaseStart   phase = iota // nothing sent yet
	phaseRead                 // reading s.leg
	phaseDrop                 // the connection dropped: wait, then resubscribe
	phaseGetTask              // fetch the task (after a refusal, or to close a gap)
	phaseSettle               // the task settled: finish, or ask the human
	phaseReply                // (re)send the reply to the answered prompt
)

// Stream is the uninterrupted stream of one task, as the application sees
// it: drops are healed by resubscribing, replays are deduplicated, output
// missed during a gap is recovered, and input-required prompts go to the
// human-input hook.
//
// A Stream yields only deltas: *a2a.StatusUpdate, *a2a.ArtifactUpdate and
// *a2a.Message, never a raw *a2a.Task. Applying the yielded events in order
// (append:true appends parts, anything else replaces the artifact)
// reproduces Task().Artifacts exactly.
//
// A Stream has one consumer: its methods must not be called concurrently.
// The caller must call Close, or drain the stream, to release the
// connection; ranging over All does so.
type Stream struct {
	c       *Client
	ctx     context.Context
	msg     *a2a.Message // the message to send; nil for Subscribe
	taskID  string       // the task, once known
	v       a2a.Version
	nego    bool // the version may still be negotiated down
	log     *slog.Logger
	ledger  *dedupe.Ledger
	budget  reconnect.Budget
	phase   phase
	leg     *leg
	legKind operation
	queue   []a2a.Event
	qhead   int
	cur     a2a.Event
	err     error
	done    bool

	cause      error         // the last cause of a drop
	retryAfter time.Duration // the wait the server asked for, if any
	gap        bool          // resubscribed since the last snapshot or get-task
	final      a2a.Event     // a settling event held back until a gap is closed
	gapClose   bool          // phaseGetTask is closing a gap (else: after a refusal)

	// view is set while the deltas of one reconcile are being yielded: the
	// artifacts as the application has built them so far, which Task
	// reports so that the invariant holds between any two events.
	view *view

	prompt prompt
}

// prompt is what the stream knows of the prompt it answered.
type prompt struct {
	// answered is the key of the prompt already answered, while the task
	// still shows it; "" once the task has moved on.
	answered string
	// reply is the answer sent: the hook's, or the message of a Send that
	// continues a task.
	reply *a2a.Message
	// unconfirmed: the reply's send got no response yet.
	unconfirmed bool
}

func newStream(ctx context.Context, c *Client) *Stream {
	s := &Stream{c: c, ctx: ctx, log: c.cfg.logger, ledger: dedupe.New(), budget: reconnect.NewBudget(c.cfg.policy)}
	s.v, s.nego = c.currentVersion()
	return s
}

// Next advances to the next event, which Event then returns. It returns
// false when the stream has ended, after which Err reports why (nil for a
// completed task or a message answer). Next may block on the network, on
// reconnect backoff, and on the human-input hook, which it calls itself.
//
//	s := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hi"))
//	defer s.Close()
//	for s.Next() {
//		handle(s.Event())
//	}
//	if err := s.Err(); err != nil { … }
func (s *Stream) Next() bool {
	for {
		if s.qhead < len(s.queue) {
			s.cur = s.queue[s.qhead]
			s.queue[s.qhead] = nil
			s.qhead++
			if s.view != nil {
				if s.qhead == len(s.queue) {
					s.view = nil
				} else {
					s.view.apply(s.cur)
				}
			}
			return true
		}
		s.queue, s.qhead = s.queue[:0], 0
		if s.done {
			s.cur = nil
			return false
		}
		s.step()
	}
}

// Event returns the event Next advanced to: an *a2a.StatusUpdate,
// *a2a.ArtifactUpdate or *a2a.Message. It must not be modified.
func (s *Stream) Event() a2a.Event { return s.cur }

// Err returns the error that ended the stream, or nil. It is nil after a
// completed task, a message answer, or the caller's own Close. Terminal task
// states end in a terminal.Error, a spent retry budget in a
// *reconnect.Error, a failed human-input hook in a *hitl.Error, a JSON-RPC
// error in an *a2a.RPCError, and context cancellation in ctx.Err().
func (s *Stream) Err() error { return s.err }

// Task returns the task assembled so far, or nil while none is known and for
// a message answer. It must not be modified. Its artifacts are always those
// the events yielded so far build.
func (s *Stream) Task() *a2a.Task {
	t := s.ledger.Task()
	if s.view == nil || t == nil {
		return t
	}
	c := *t
	c.Artifacts = s.view.arts
	return &c
}

// reconcile folds a whole task into the ledger. When that yields several
// deltas, it keeps the artifacts as they were, for Task to report until the
// application has seen them all.
func (s *Stream) reconcile(t *a2a.Task, authoritative bool, then a2a.Event) {
	var before []a2a.Artifact
	if lt := s.ledger.Task(); lt != nil {
		before = slices.Clone(lt.Artifacts)
	}
	n := len(s.queue)
	s.queue = s.ledger.Reconcile(s.queue, t, authoritative)
	if then != nil {
		s.queue = s.ledger.Apply(s.queue, then)
	}
	if len(s.queue)-n > 1 {
		s.view = newView(before)
	}
	if len(s.queue) > n {
		s.budget.Progress()
	}
	s.promptMovedOn()
}

// Close ends the stream and releases its connection. It is idempotent and
// always returns nil. Err stays nil unless an error ended the stream first.
func (s *Stream) Close() error {
	s.closeLeg()
	s.done = true
	clear(s.queue)
	s.queue, s.qhead, s.cur, s.view = s.queue[:0], 0, nil, nil
	return nil
}

// Wait drains the stream and returns the assembled task with Err. The task
// may be non-nil together with an error (for example a terminal error).
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

// fail ends the stream with err.
func (s *Stream) fail(err error) {
	s.closeLeg()
	s.err = err
	s.done = true
}

func (s *Stream) closeLeg() {
	if s.leg != nil {
		s.leg.close()
		s.leg = nil
	}
}

// snapshot returns a copy of the assembled task for errors to carry.
func (s *Stream) snapshot() *a2a.Task { return s.ledger.Task().Clone() }

func (s *Stream) step() {
	if err := s.ctx.Err(); err != nil {
		s.fail(err)
		return
	}
	switch s.phase {
	case phaseStart:
		s.start()
	case phaseRead:
		s.read()
	case phaseDrop:
		s.reconnect()
	case phaseGetTask:
		s.getTask()
	case phaseSettle:
		s.settle()
	case phaseReply:
		s.sendReply()
	}
}

// start opens the first leg: the send, or the subscribe of Subscribe.
func (s *Stream) start() {
	if s.msg == nil {
		s.budget = reconnect.NewBudget(s.c.cfg.policy)
		s.resubscribe()
		return
	}
	if s.ledger.Task() == nil {
		s.ledger.RecordSent(s.msg)
	}
	if s.msg.TaskID != "" {
		// The message continues a task, most likely answering its prompt:
		// the stream must know that prompt as answered when the server
		// shows it again.
		s.prompt.reply = s.msg
	}
	l, err := s.open(opStream, messageParams(s.msg, s.c.cfg.tenant))
	if err != nil {
		s.sendFailed(err)
		return
	}
	s.setLeg(l, opStream)
}

// open opens a streaming leg, negotiating the version down to 0.3 once when
// a 1.0 call is refused as an unknown method or version.
func (s *Stream) open(op operation, params func(a2a.Version) (any, error)) (*leg, error) {
	l, err := s.c.openLeg(s.ctx, s.v, op, params)
	if s.nego && isVersionRefusal(err) {
		s.log.Debug("a2a: server refused protocol 1.0, falling back to 0.3", "method", op.method(s.v))
		s.v, s.nego = a2a.V03, false
		l, err = s.c.openLeg(s.ctx, s.v, op, params)
	}
	return l, err
}

func (s *Stream) setLeg(l *leg, op operation) {
	s.leg, s.legKind, s.phase = l, op, phaseRead
}

// sendFailed handles an error from opening a send (the first message or a
// reply). HTTP and JSON-RPC errors are returned as is: the message may have
// been accepted, so it is never retried blindly. A transport error before
// any response is a drop.
func (s *Stream) sendFailed(err error) {
	if s.endedBy(err) {
		return
	}
	var (
		httpErr *HTTPError
		rpcErr  *a2a.RPCError
	)
	if errors.As(err, &httpErr) || errors.As(err, &rpcErr) {
		s.fail(err)
		return
	}
	s.drop(err)
}

// endedBy handles what every failure has in common: a done context ends the
// stream with the context's error, and a protocol error (a server bug, never
// retried) ends it carrying the task. It reports whether the stream ended.
func (s *Stream) endedBy(err error) bool {
	if s.ctx.Err() != nil {
		s.fail(s.ctx.Err())
		return true
	}
	var protoErr *ProtocolError
	if errors.As(err, &protoErr) {
		protoErr.Task = s.snapshot()
		s.fail(err)
		return true
	}
	if errors.Is(err, ErrInvalidMessage) {
		// The message could not be encoded: nothing was sent, and trying
		// again cannot help.
		s.fail(err)
		return true
	}
	return false
}

// read handles the next event of the current leg.
func (s *Stream) read() {
	ev, err := s.leg.next()
	if err != nil {
		s.legEnded(err)
		return
	}
	if s.leg.events == 1 {
		// The first event of a leg proves the version works.
		s.nego = false
		s.c.remember(s.v)
	}
	if s.legKind == opStream && s.prompt.reply != nil {
		s.prompt.unconfirmed = false
	}
	if m, ok := ev.(*a2a.Message); ok && s.taskID == "" && s.ledger.Task() == nil {
		// A message answer: the whole reply, with no task.
		s.queue = s.ledger.Apply(s.queue, m)
		s.closeLeg()
		s.done = true
		return
	}
	if err := s.checkOwner(ev); err != nil {
		s.fail(err)
		return
	}
	t, isTask := ev.(*a2a.Task)
	if isTask {
		s.learnAnswered(t, s.legKind == opStream && s.leg.events == 1)
		if s.legKind == opSubscribe && s.leg.events == 1 && s.ledger.Covers(t) {
			// A snapshot that covers what is held closes the gap, and
			// supersedes any final event held back.
			s.gap, s.final = false, nil
		}
	}
	if s.settles(ev) && s.gap {
		// First recover what the gap hid, then deliver the final event.
		s.final = ev
		s.closeLeg()
		s.gapClose = true
		s.phase = phaseGetTask
		return
	}
	if isTask {
		s.confirmFrom(t)
		s.reconcile(t, false, nil)
	} else {
		n := len(s.queue)
		s.queue = s.ledger.Apply(s.queue, ev)
		if len(s.queue) > n {
			s.budget.Progress()
		}
		s.promptMovedOn()
	}
	switch {
	case s.settled():
		s.closeLeg()
		s.phase = phaseSettle
	case s.legKind == opSubscribe && s.prompt.unconfirmed && s.waitsOnAnsweredPrompt():
		// The reply never reached the agent, which still shows the prompt:
		// send the same reply again instead of waiting on this subscription.
		s.closeLeg()
		s.phase = phaseReply
	}
}

// checkOwner checks that an event belongs to the stream's task: the same
// task ID and, when both are known, the same context ID. The first event
// that names a task sets the stream's.
func (s *Stream) checkOwner(ev a2a.Event) error {
	id, contextID := eventOwner(ev)
	switch {
	case s.taskID == "":
		s.taskID = id
	case id != "" && id != s.taskID:
		return &ProtocolError{Reason: fmt.Sprintf("event for task %q on the stream of task %q", quote([]byte(id)), s.taskID), Task: s.snapshot()}
	}
	if lt := s.ledger.Task(); lt != nil && contextID != "" && lt.ContextID != "" && contextID != lt.ContextID {
		return &ProtocolError{Reason: fmt.Sprintf("event in context %q for task %q of context %q", quote([]byte(contextID)), s.taskID, lt.ContextID), Task: s.snapshot()}
	}
	return nil
}

func (s *Stream) waitsOnAnsweredPrompt() bool {
	st := &s.ledger.Task().Status
	return st.State == a2a.StateInputRequired && s.prompt.answered != "" && promptKey(st) == s.prompt.answered
}

// settles reports whether applying ev would settle the task: it changes the
// status (a replayed one does not) to a settled one.
func (s *Stream) settles(ev a2a.Event) bool {
	var st *a2a.TaskStatus
	switch e := ev.(type) {
	case *a2a.StatusUpdate:
		st = &e.Status
	case *a2a.Task:
		st = &e.Status
	default:
		return false
	}
	return s.settledStatus(st) && s.ledger.ChangesStatus(ev)
}

// settled reports whether the assembled task is settled.
func (s *Stream) settled() bool {
	t := s.ledger.Task()
	return t != nil && s.settledStatus(&t.Status)
}

// settledStatus: terminal, auth-required, or input-required with a prompt
// not answered yet. The answered prompt, still shown by a stale snapshot, is
// not a new question.
func (s *Stream) settledStatus(st *a2a.TaskStatus) bool {
	switch {
	case st.State.Terminal(), st.State == a2a.StateAuthRequired:
		return true
	case st.State == a2a.StateInputRequired:
		return promptKey(st) != s.prompt.answered
	}
	return false
}

// learnAnswered recognises, in a task from the server, the prompt that the
// stream's reply answers: the task still shows it, and lists the reply after
// it in its history (a2a-js 1.x opens a follow-up stream with the task as it
// was when the reply arrived). A server that keeps no user messages in the
// history gives no such proof; then a Task as the first event of the reply's
// own stream is taken as that stale view, since a new prompt would arrive as
// a status update.
func (s *Stream) learnAnswered(t *a2a.Task, firstOfReply bool) {
	r := s.prompt.reply
	if r == nil || t.Status.State != a2a.StateInputRequired {
		return
	}
	promptID := messageID(t.Status.Message)
	seenPrompt := promptID == ""
	for i := range t.History {
		switch t.History[i].ID {
		case promptID:
			seenPrompt = true
		case r.ID:
			if seenPrompt {
				s.prompt.answered = promptKey(&t.Status)
			}
			return
		}
	}
	if firstOfReply {
		s.prompt.answered = promptKey(&t.Status)
	}
}

// promptMovedOn forgets the answered prompt once the task has left
// input-required: a later prompt is a new question even if it looks the
// same (no message ID, no text, no timestamp).
func (s *Stream) promptMovedOn() {
	if s.prompt.answered == "" {
		return
	}
	if t := s.ledger.Task(); t != nil && t.Status.State != a2a.StateInputRequired && t.Status.State != a2a.StateUnknown {
		s.prompt.answered = ""
	}
}

// legEnded handles the end of a leg: its clean end or an error.
func (s *Stream) legEnded(err error) {
	first := s.leg.events == 0
	s.closeLeg()
	if s.endedBy(err) {
		return
	}
	var rpcErr *a2a.RPCError
	switch {
	case errors.As(err, &rpcErr):
		switch {
		case first && s.nego && isVersionRefusal(err):
			s.log.Debug("a2a: server refused protocol 1.0, falling back to 0.3")
			s.v, s.nego = a2a.V03, false
			if s.legKind == opSubscribe {
				s.resubscribe()
			} else {
				s.phase = phaseStart
			}
		case first && s.legKind == opSubscribe && isRefusal(rpcErr.Code):
			s.refused(err)
		default:
			s.fail(err)
		}
	case err == io.EOF:
		s.drop(ErrEndedEarly)
	case s.legKind == opSubscribe && errors.Is(err, ErrIdleTimeout):
		s.quiet(err)
	default:
		s.drop(err)
	}
}

// drop handles a lost connection.
func (s *Stream) drop(cause error) {
	s.cause = cause
	if s.taskID == "" {
		s.fail(&reconnect.Error{Attempts: 0, Err: cause})
		return
	}
	s.log.Debug("a2a: connection lost", "task", s.taskID, "cause", cause)
	s.phase = phaseDrop
}

// reconnect waits the backoff and resubscribes, if the budget allows.
func (s *Stream) reconnect() {
	wait, ok := s.budget.Next()
	if !ok {
		if s.deliverHeldFinal(s.cause) {
			return
		}
		s.fail(&reconnect.Error{Attempts: s.budget.Attempts(), Err: s.cause, Task: s.snapshot()})
		return
	}
	// A server that said when to come back (Retry-After on 429 or 503) is
	// given that long, up to maxRetryAfter, if it is more than the backoff.
	wait, s.retryAfter = max(wait, s.retryAfter), 0
	s.notify(Notice{Kind: Reconnecting, TaskID: s.taskID, Attempt: s.budget.Attempts(),
		MaxAttempts: s.c.cfg.policy.MaxAttempts, Wait: wait, Cause: s.cause})
	if err := s.c.cfg.sleep(s.ctx, wait); err != nil {
		if ctxErr := s.ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		s.fail(err)
		return
	}
	s.resubscribe()
}

// resubscribe opens a subscribe leg and classifies its failure.
func (s *Stream) resubscribe() {
	l, err := s.open(opSubscribe, taskParams(s.taskID, s.c.cfg.tenant))
	if err == nil {
		s.gap = true
		s.ledger.OpenReplayWindow()
		s.setLeg(l, opSubscribe)
		if s.budget.Attempts() > 0 {
			s.notify(Notice{Kind: Resumed, TaskID: s.taskID, Attempt: s.budget.Attempts(), MaxAttempts: s.c.cfg.policy.MaxAttempts})
		}
		return
	}
	if s.endedBy(err) {
		return
	}
	var (
		httpErr *HTTPError
		rpcErr  *a2a.RPCError
	)
	switch {
	case errors.As(err, &httpErr):
		switch {
		case httpErr.StatusCode == http.StatusNotFound:
			s.refused(err)
		case retryableStatus(httpErr.StatusCode):
			s.cause = err
			s.retryAfterFrom(err)
			s.phase = phaseDrop
		default:
			s.fail(err)
		}
	case errors.As(err, &rpcErr):
		if isRefusal(rpcErr.Code) {
			s.refused(err)
		} else {
			s.fail(err)
		}
	case errors.Is(err, ErrIdleTimeout):
		s.quiet(err)
	default:
		s.cause = err
		s.phase = phaseDrop
	}
}

// quiet handles a subscription that went silent past the idle timeout. A
// live-only server (a2a-go) sends nothing, not even headers, until its
// agent writes again, while output from before the resubscribe may be
// waiting on the server: fetch the task to recover it. The cycle still
// costs an attempt unless the task brought something new.
func (s *Stream) quiet(err error) {
	s.log.Debug("a2a: subscription silent, fetching the task", "task", s.taskID, "err", err)
	s.cause = err
	s.gapClose = false
	s.phase = phaseGetTask
}

// refused handles a resubscribe the server refused: fetch the task instead.
func (s *Stream) refused(err error) {
	s.log.Debug("a2a: resubscribe refused, fetching the task", "task", s.taskID, "err", err)
	s.gapClose = false
	s.phase = phaseGetTask
}

// getTask fetches the task and continues from the state it returns.
func (s *Stream) getTask() {
	t, err := s.c.fetchTask(s.ctx, s.v, opGet, s.taskID)
	if err == nil {
		err = s.checkOwner(t)
	}
	if err != nil {
		s.getTaskFailed(err)
		return
	}
	s.learnAnswered(t, false)
	s.gap = false
	s.confirmFrom(t)
	s.reconcile(t, true, s.final)
	s.final = nil
	if !s.gapClose {
		s.notify(Notice{Kind: Resumed, TaskID: s.taskID, Attempt: s.budget.Attempts(), MaxAttempts: s.c.cfg.policy.MaxAttempts})
	}
	st := &s.ledger.Task().Status
	switch {
	case s.settledStatus(st):
		s.phase = phaseSettle
	case s.prompt.unconfirmed && s.waitsOnAnsweredPrompt():
		// The reply never reached the agent: send it again, unchanged.
		s.phase = phaseReply
	default:
		// Still working (or a stale prompt): wait, then resubscribe, as the
		// next attempt.
		if !errors.Is(s.cause, ErrIdleTimeout) {
			s.cause = errStillRunning
		}
		s.phase = phaseDrop
	}
}

// retryAfterFrom remembers the wait an HTTP error's Retry-After asks for.
func (s *Stream) retryAfterFrom(err error) {
	var httpErr *HTTPError
	if errors.As(err, &httpErr) {
		if d, ok := httpErr.RetryAfter(); ok {
			s.retryAfter = min(d, maxRetryAfter)
		}
	}
}

// maxRetryAfter caps the wait a Retry-After header can impose.
const maxRetryAfter = 30 * time.Second

var errStillRunning = errors.New("the task is still running but the server refused to resubscribe")

func (s *Stream) getTaskFailed(err error) {
	if s.endedBy(err) {
		return
	}
	var (
		httpErr *HTTPError
		rpcErr  *a2a.RPCError
	)
	switch {
	case errors.As(err, &rpcErr), errors.As(err, &httpErr) && !retryableStatus(httpErr.StatusCode):
		if !s.deliverHeldFinal(err) {
			s.fail(err)
		}
	default:
		// A transport failure is a failed attempt. A held-back final event
		// stays held: the next get-task or snapshot closes the gap, or it is
		// delivered as received when the budget runs out.
		s.cause = err
		s.retryAfterFrom(err)
		s.phase = phaseDrop
	}
}

// deliverHeldFinal delivers the settling event held back while a gap could
// not be closed, so that an ending the server reported is never lost. What
// the gap hid from a live-only server (parts the agent produced while the
// client was away) is then missing from Task. It reports whether the task
// settled.
func (s *Stream) deliverHeldFinal(cause error) bool {
	if s.final == nil {
		return false
	}
	s.log.Debug("a2a: could not close the gap, delivering the final event as received", "task", s.taskID, "cause", cause)
	n := len(s.queue)
	s.queue = s.ledger.Apply(s.queue, s.final)
	s.final = nil
	if len(s.queue) > n {
		s.budget.Progress()
	}
	s.promptMovedOn()
	if !s.settled() {
		return false
	}
	s.phase = phaseSettle
	return true
}

// settle ends the stream or asks the human, once the queue is drained
// (Next only steps with an empty queue, so the prompt was yielded first).
func (s *Stream) settle() {
	t := s.ledger.Task()
	switch st := t.Status.State; {
	case st == a2a.StateCompleted:
		s.done = true
	case st.Terminal(), st == a2a.StateAuthRequired:
		s.fail(terminal.FromTask(s.snapshot()))
	case st == a2a.StateInputRequired:
		s.ask()
	default:
		s.fail(fmt.Errorf("stream: internal error: settled in state %s", st))
	}
}

// ask calls the human-input hook and sends its reply on the same task.
func (s *Stream) ask() {
	t := s.ledger.Task()
	prompt := t.Status.Message
	hook := s.c.cfg.hook
	if hook == nil {
		s.fail(&hitl.Error{Task: s.snapshot(), Prompt: prompt.Clone(), Err: hitl.ErrNoHook})
		return
	}
	ctx := s.ctx
	if d := s.c.cfg.inputTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	parts, err := hook.Ask(ctx, &hitl.Request{Task: s.snapshot(), Prompt: prompt.Clone()})
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	var reply *a2a.Message
	if err == nil {
		reply = &a2a.Message{ID: uuid.NewString(), TaskID: t.ID, ContextID: t.ContextID, Role: a2a.RoleUser, Parts: parts}
		err = validReply(s.v, reply)
	}
	if err != nil {
		if s.ctx.Err() != nil {
			s.fail(s.ctx.Err())
			return
		}
		s.fail(&hitl.Error{Task: s.snapshot(), Prompt: prompt.Clone(), Err: err})
		return
	}
	s.prompt.answered = promptKey(&t.Status)
	s.prompt.reply = reply
	s.ledger.RecordSent(reply)
	s.budget = reconnect.NewBudget(s.c.cfg.policy)
	s.phase = phaseReply
}

// validReply checks that a hook's reply can be sent: it has parts, and it
// encodes. A reply that cannot is the hook's failure, not the network's.
func validReply(v a2a.Version, m *a2a.Message) error {
	if len(m.Parts) == 0 {
		return fmt.Errorf("%w: the hook's reply has no parts", ErrInvalidMessage)
	}
	if _, err := a2a.MarshalMessage(v, m); err != nil {
		return fmt.Errorf("%w: the hook's reply does not encode: %w", ErrInvalidMessage, err)
	}
	return nil
}

// sendReply sends (or re-sends, unchanged) the reply to the answered prompt.
func (s *Stream) sendReply() {
	s.prompt.unconfirmed = true
	s.gap = false
	l, err := s.open(opStream, messageParams(s.prompt.reply, s.c.cfg.tenant))
	if err != nil {
		s.sendFailed(err)
		return
	}
	// The agent answered: it has the reply, even if this leg dies before its
	// first event. Only a send that got no response at all is sent again.
	s.prompt.unconfirmed = false
	s.setLeg(l, opStream)
}

// confirmFrom clears the pending reply once a task from the server lists it
// in its history: the agent has taken it.
func (s *Stream) confirmFrom(t *a2a.Task) {
	if !s.prompt.unconfirmed || s.prompt.reply == nil {
		return
	}
	for i := range t.History {
		if t.History[i].ID == s.prompt.reply.ID {
			s.prompt.unconfirmed = false
			return
		}
	}
}

func (s *Stream) notify(n Notice) {
	if n.Kind == Reconnecting {
		s.log.Info("a2a: reconnecting", "task", n.TaskID, "attempt", n.Attempt, "max", n.MaxAttempts, "wait", n.Wait)
	}
	if f := s.c.cfg.notify; f != nil {
		f(n)
	}
}

// promptKey identifies a prompt: its message ID, or when it has none its
// text and timestamp.
func promptKey(st *a2a.TaskStatus) string {
	if m := st.Message; m != nil && m.ID != "" {
		return "id:" + m.ID
	}
	return "text:" + st.Message.Text() + "\x00" + st.Timestamp.String()
}

// eventOwner returns the task ID and context ID an event names.
func eventOwner(ev a2a.Event) (taskID, contextID string) {
	switch e := ev.(type) {
	case *a2a.Task:
		return e.ID, e.ContextID
	case *a2a.StatusUpdate:
		return e.TaskID, e.ContextID
	case *a2a.ArtifactUpdate:
		return e.TaskID, e.ContextID
	case *a2a.Message:
		return e.TaskID, e.ContextID
	}
	return "", ""
}

func messageID(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	return m.ID
}

// isRefusal reports the JSON-RPC codes with which servers refuse a
// resubscribe although the task may exist: -32001 (a2a-go once a turn is
// over), -32004 (1.0 terminal tasks) and -32602.
func isRefusal(code int) bool {
	return code == a2a.CodeTaskNotFound || code == a2a.CodeUnsupportedOperation || code == a2a.CodeInvalidParams
}

// retryableStatus reports the HTTP statuses that count as a failed attempt.
func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500
}
