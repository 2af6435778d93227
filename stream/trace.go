package stream

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/httpx"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// Trace is a set of functions a stream calls at the steps a tool that
// traces or measures streams wants to see: each call to the agent (its
// start, its response headers, its first event, its end and how the stream
// classified it), each wait between calls, a gap opened and healed, the
// hooks asked, a checkpoint taken, and the stream's end. It is in the
// spirit of net/http/httptrace's ClientTrace: every field is optional, and
// a nil field costs nothing. Set it with WithTrace.
//
// A Trace is for tools (an OpenTelemetry exporter, metrics, a debugger);
// WithNotify's notices stay the way to tell a user what happens.
//
// Every function is called synchronously on the goroutine that calls
// Stream.Next (for Done and the end of a call cut by Close or Cancel, the
// goroutine that calls them; for Checkpoint, the one that calls
// Stream.Checkpoint), never concurrently by one stream, and must not
// block: the stream waits for it. It must not call the Stream's methods.
// A Trace given to a Client's constructor is shared by the Client's
// streams, which may call it concurrently, each on its own goroutine.
// Its argument is a small struct passed by value. A stream whose options
// were refused calls nothing.
//
// Nothing secret reaches a Trace: no header value, no token, no message or
// task text. Its errors are those the stream tells WithNotify and
// WithLogger, whose texts hold no header value and no URL user name,
// password or query value (see WithLogger); a push config's token is
// redacted from an agent's refusal. An error may quote, up to its first
// 256 bytes, what a server wrote in it (a JSON-RPC error's message). An
// error whose text may quote the task or a message (a terminal.Error,
// which quotes the agent's reason, a *hitl.Error, which quotes the
// prompt, a *transport.ProtocolError, which describes an event) reaches
// a Trace as an error whose text names its type and, for a terminal
// error, the state, but quotes nothing; errors.Is and errors.As see the
// error itself through it.
type Trace struct {
	// AttemptStart is called before each call the stream makes to the
	// agent: a send of the message or of a reply, a subscribe, a get-task
	// (a fetch, a poll, a resume's) or a push-config call. Stream.Cancel's
	// own call, made outside the stream's steps, is not one.
	AttemptStart func(AttemptInfo)
	// Header, when set, is called after AttemptStart, before the call is
	// made, with the call's AttemptInfo and h, a new empty header for
	// that call only: what it adds to h goes with the call, its values
	// replacing those of the same names among the stream's headers
	// (WithHeader's and a credentials hook's). It is for trace context
	// (W3C traceparent, tracestate, baggage) on every call of the stream:
	// sends, replies, subscribes, get-tasks, polls and push-config calls.
	// The headers go under WithHeader's rule: to the origin the caller
	// named (and WithTrustedOrigins') only, never across a redirect to
	// another origin, and not to an interface Resolve opened on another
	// origin; on gRPC, as the call's metadata. A header that cannot be
	// sent (a name that is no HTTP token, a value with a control
	// character) is dropped, with a warning to WithLogger's logger: the
	// call goes without it. Unset, it costs nothing. h is not to be kept
	// after Header returns.
	Header func(a AttemptInfo, h http.Header)
	// Connected is called when a streaming call's response headers came
	// and its stream of events opened (for a unary call, its end,
	// AttemptDone, is its answer).
	Connected func(AttemptInfo)
	// FirstEvent is called when the first event of a streaming call
	// arrived, before the stream delivers it.
	FirstEvent func(AttemptInfo)
	// AttemptDone is called once for each call AttemptStart announced,
	// when it ended: a unary call when it was answered or failed, a
	// streaming call when its stream of events failed or ended, or when
	// the stream stopped reading it.
	AttemptDone func(AttemptDoneInfo)
	// Wait is called before each wait between calls: the backoff of a
	// reconnect attempt (a reconnect scheduled), or the poll interval.
	Wait func(WaitInfo)
	// Gap is called when a subscribe opens a gap (output may have been
	// missed while the stream was away, or before it subscribed) and when
	// the gap is healed, or could not be.
	Gap func(GapInfo)
	// Ask is called before the stream calls the human-input hook
	// (WithHumanInput) or the credentials hook (WithCredentials), and when
	// the hook returned.
	Ask func(AskInfo)
	// Checkpoint is called when a checkpoint is taken: Stream.Checkpoint
	// returned one, or WithCheckpointBeforeReply's function returned.
	Checkpoint func(CheckpointInfo)
	// Done is called once, when the stream ends: in an ending or an
	// error, or because Close or Cancel ended it (a Close after the end
	// calls nothing).
	Done func(DoneInfo)
}

// WithTrace sets the functions a stream calls at each step (see Trace).
// A nil *Trace is refused. Given twice (at one place, or at a Client's
// constructor and at one of its streams), both are called, the one given
// first first: an OpenTelemetry module and an application can each set
// one. The Trace is copied: changing it afterwards changes nothing. It
// applies to a Client's constructors and to its streams.
func WithTrace(t *Trace) Option {
	return option{"WithTrace", streams, func(cfg *config) {
		if t == nil {
			cfg.refuse("WithTrace: the trace is nil")
			return
		}
		cfg.trace = cfg.trace.compose(t)
	}}
}

// compose returns a new Trace that calls t's functions, then u's.
func (t *Trace) compose(u *Trace) *Trace {
	c := *u
	if t == nil {
		return &c
	}
	c.AttemptStart = both(t.AttemptStart, u.AttemptStart)
	c.Header = bothHeader(t.Header, u.Header)
	c.Connected = both(t.Connected, u.Connected)
	c.FirstEvent = both(t.FirstEvent, u.FirstEvent)
	c.AttemptDone = both(t.AttemptDone, u.AttemptDone)
	c.Wait = both(t.Wait, u.Wait)
	c.Gap = both(t.Gap, u.Gap)
	c.Ask = both(t.Ask, u.Ask)
	c.Checkpoint = both(t.Checkpoint, u.Checkpoint)
	c.Done = both(t.Done, u.Done)
	return &c
}

// both returns a function that calls f, then g; a nil one is left out.
func both[T any](f, g func(T)) func(T) {
	switch {
	case f == nil:
		return g
	case g == nil:
		return f
	}
	return func(x T) { f(x); g(x) }
}

// bothHeader is both for Trace.Header.
func bothHeader(f, g func(AttemptInfo, http.Header)) func(AttemptInfo, http.Header) {
	switch {
	case f == nil:
		return g
	case g == nil:
		return f
	}
	return func(a AttemptInfo, h http.Header) { f(a, h); g(a, h) }
}

// AttemptKind is the kind of a call to the agent.
type AttemptKind int

// The kinds of calls.
const (
	// AttemptSend sends the stream's message.
	AttemptSend AttemptKind = iota + 1
	// AttemptReply sends the reply to an input-required prompt.
	AttemptReply
	// AttemptSubscribe subscribes to the task (a resubscribe after a
	// drop, or Subscribe's first call).
	AttemptSubscribe
	// AttemptGetTask fetches the task once: after a refused or silent
	// subscribe, to heal a gap, to see whether an error ended the task,
	// to learn the version, or for Resume.
	AttemptGetTask
	// AttemptPoll fetches the task while the stream follows it by
	// polling (or by push notifications).
	AttemptPoll
	// AttemptPushConfig registers a push config (WithPush).
	AttemptPushConfig
)

// String returns "send", "reply", "subscribe", "get-task", "poll" or
// "push-config".
func (k AttemptKind) String() string {
	switch k {
	case AttemptSend:
		return "send"
	case AttemptReply:
		return "reply"
	case AttemptSubscribe:
		return "subscribe"
	case AttemptGetTask:
		return "get-task"
	case AttemptPoll:
		return "poll"
	case AttemptPushConfig:
		return "push-config"
	}
	return "unknown"
}

// AttemptInfo is one call to the agent, as Trace's AttemptStart,
// Connected and FirstEvent get it.
type AttemptInfo struct {
	Kind AttemptKind
	// TaskID is the stream's task, "" before the agent named it.
	TaskID string
	// Call counts the stream's calls to the agent, from 1.
	Call int
	// Attempt is the reconnect attempt the call makes (1 for the first
	// after a failure, as a Reconnecting notice counts), 0 when no failure
	// is being recovered from.
	Attempt int
	// Streaming: the call is streaming (its answer is a stream of
	// events); else unary.
	Streaming bool
	// Resend: the call sends a message this stream sent before, with the
	// same message ID: a send that never left, a busy send made again
	// (WithIdempotentSends), a reply that never reached the agent, or a
	// send a server refused in 1.0 made again in 0.3.
	Resend bool
	// Binding and Version are the binding and the protocol version of
	// the call. Binding is Client.Binding's, or for a Client of a
	// Transport of another module the binding its Transport names with a
	// method Binding() a2a.Binding (a2agrpc's says gRPC); "" when it has
	// none.
	Binding a2a.Binding
	Version a2a.Version
}

// AttemptDoneInfo is the end of one call, as Trace's AttemptDone gets it.
type AttemptDoneInfo struct {
	AttemptInfo
	// Events counts the events a streaming call brought (0 for a unary
	// call).
	Events int
	// Outcome says how the call ended, as the stream classified it:
	//
	//	ok           answered (a unary call), or the stream stopped reading
	//	             a streaming call because it had what it needed (the task
	//	             halted, a reply is to be sent, a gap is to be healed)
	//	closed       Close or Cancel ended the stream during the call
	//	end          the stream ends in Err (a broken server, the context)
	//	fatal        the stream ends in Err, after an event held back
	//	lost         the connection was lost before any task was known
	//	drop         the connection dropped: a reconnect attempt follows
	//	retry        the same call is made again after a backoff (a send
	//	             that never left, a busy send with WithIdempotentSends,
	//	             a failed get-task)
	//	refused      the server will not stream the task now: get-task
	//	no-stream    the server cannot stream the task: get-task, then poll
	//	quiet        a subscription ended with nothing new: get-task
	//	silent       a subscription was silent past the idle timeout: get-task
	//	stalled      the stall limit cut it: the stream ends (*StalledError)
	//	downgrade    the server does not speak 1.0: the call again in 0.3
	//	speaks-0.3   a probe's get-task showed a 0.3 server: subscribe in 0.3
	//	unsupported  the server cannot make this kind of call: poll
	//	probe        a 1.0 subscribe refused: get-task to learn the version
	//	ask-task     an error once the task was known: get-task to see
	//	             whether it ended the task
	//	credentials  refused with 401: the credentials hook is asked
	//	push         a drop: register a push config (WithPush) first
	//	cannot       a push-config call: the agent takes no push configs
	//	failed       a push-config call failed: a reconnect attempt follows
	Outcome string
	// Err is the call's error (nil for ok and closed): the error a
	// Reconnecting notice would name as its Cause.
	Err error
}

// WaitKind is what a wait between calls is for.
type WaitKind int

// The kinds of waits.
const (
	// WaitBackoff: a reconnect attempt's backoff (a reconnect
	// scheduled), before the attempt's call.
	WaitBackoff WaitKind = iota + 1
	// WaitPoll: the poll interval, before the next poll.
	WaitPoll
)

// String returns "backoff" or "poll".
func (k WaitKind) String() string {
	switch k {
	case WaitBackoff:
		return "backoff"
	case WaitPoll:
		return "poll"
	}
	return "unknown"
}

// WaitInfo is one wait between calls, as Trace's Wait gets it.
type WaitInfo struct {
	Kind   WaitKind
	TaskID string
	// Attempt and MaxAttempts (WaitBackoff) are the reconnect attempt
	// the wait precedes, from 1, and the budget's size.
	Attempt, MaxAttempts int
	// Wait is how long the stream waits: the backoff or the poll
	// interval, or Asked when longer; with push notifications, at most
	// until one comes.
	Wait time.Duration
	// Asked is the wait the server asked for (a Retry-After, an error's
	// retry hint, capped at 30 s), which the wait honours; 0 if none.
	Asked time.Duration
	// Push (WaitPoll): a push notification ends the wait early (WithPush).
	Push bool
	// Cause (WaitBackoff) is the failure the attempt recovers from.
	Cause error
}

// GapKind is what happened to a gap.
type GapKind int

// The kinds of gap events.
const (
	// GapOpened: a subscribe opened its stream of events; output may
	// have been missed while the stream was away, and a halting event is
	// held back until what it hid is recovered.
	GapOpened GapKind = iota + 1
	// GapHealed: the subscription's first task covered what the stream
	// holds, or a get-task fetched the task: nothing missed remains
	// missing.
	GapHealed
	// GapUnhealed: the gap could not be healed (the reconnect budget was
	// spent, or a call failed for good): the halting event held back is
	// delivered as received; what the gap hid may be missing.
	GapUnhealed
)

// String returns "opened", "healed" or "unhealed".
func (k GapKind) String() string {
	switch k {
	case GapOpened:
		return "opened"
	case GapHealed:
		return "healed"
	case GapUnhealed:
		return "unhealed"
	}
	return "unknown"
}

// GapInfo is a gap opened or healed, as Trace's Gap gets it. A gap the
// stream stops watching otherwise (it sends a reply, or ends) gets no
// call.
type GapInfo struct {
	Kind   GapKind
	TaskID string
	// Fetched (GapHealed): a get-task healed it, not the subscription's
	// first task.
	Fetched bool
}

// AskKind is which hook a stream asks.
type AskKind int

// The hooks a stream asks.
const (
	// AskHuman: the human-input hook (WithHumanInput), about an
	// input-required prompt.
	AskHuman AskKind = iota + 1
	// AskCredentials: the credentials hook (WithCredentials), about an
	// auth-required task or a call refused with 401.
	AskCredentials
)

// String returns "human-input" or "credentials".
func (k AskKind) String() string {
	switch k {
	case AskHuman:
		return "human-input"
	case AskCredentials:
		return "credentials"
	}
	return "unknown"
}

// AskInfo is a hook asked, or its return, as Trace's Ask gets it.
type AskInfo struct {
	Kind   AskKind
	TaskID string
	// Returned: the hook returned (else it is about to be called).
	Returned bool
	// Err (Returned) is the hook's failure, its timeout's or the stream's
	// context's, or why its answer cannot be used; nil when it answered.
	Err error
}

// CheckpointInfo is a checkpoint taken, as Trace's Checkpoint gets it.
type CheckpointInfo struct {
	TaskID string
	// BeforeReply: WithCheckpointBeforeReply's function was given the
	// checkpoint, and Err is its error (the reply is not sent unless it
	// is nil); else Stream.Checkpoint returned it.
	BeforeReply bool
	Err         error
}

// DoneInfo is the end of a stream, as Trace's Done gets it.
type DoneInfo struct {
	// TaskID is the stream's task, "" if the agent named none.
	TaskID string
	// State is the task's last known state ("" if none is known).
	State a2a.TaskState
	// Calls counts the calls the stream made to the agent.
	Calls int
	// Closed: Close ended the stream before anything else did.
	Closed bool
	// Err is Stream.Err's error (nil after completed or a message
	// answer), its text withheld when it may quote the task or a message
	// (see Trace): errors.As finds the typed ending through it.
	Err error
}

// tracer is a stream's state of its Trace; nil when it has none, so that
// a stream without a Trace pays one nil check per step.
type tracer struct {
	t     *Trace
	calls int
	// cur is the call in flight, if open; leg is its events when it
	// opened a stream of them.
	cur  AttemptInfo
	open bool
	leg  *leg
	// sent is the last message the stream sent, to tell a resend.
	sent *a2a.Message
	// closed: Close is ending the stream.
	closed bool
	// header is what Header added for the call announced, taken by the
	// stream's call (Stream.call) that makes it; nil when none.
	header http.Header
}

// outcomeName returns the name of classify's outcome kind k
// (AttemptDoneInfo.Outcome).
func outcomeName(k outcomeKind) string {
	switch k {
	case outFatal:
		return "fatal"
	case outEnd:
		return "end"
	case outLost:
		return "lost"
	case outDrop:
		return "drop"
	case outRetry:
		return "retry"
	case outRefused:
		return "refused"
	case outNoStream:
		return "no-stream"
	case outQuiet:
		return "quiet"
	case outStalled:
		return "stalled"
	case outSilent:
		return "silent"
	case outDowngrade:
		return "downgrade"
	case outSpeaks03:
		return "speaks-0.3"
	case outUnsupported:
		return "unsupported"
	case outProbe:
		return "probe"
	case outAskTask:
		return "ask-task"
	case outCredentials:
		return "credentials"
	case outBusy:
		return "busy"
	case outPush:
		return "push"
	}
	return "unknown"
}

// traceStart announces a call of kind k (AttemptStart); m is the message
// it sends, if it sends one.
func (s *Stream) traceStart(k AttemptKind, streaming bool, m *a2a.Message) {
	tr := s.tr
	if tr == nil {
		return
	}
	tr.calls++
	a := AttemptInfo{Kind: k, TaskID: s.taskID, Call: tr.calls, Attempt: s.tries.budget.attempts, Streaming: streaming,
		Binding: s.c.callBinding(), Version: s.v}
	if m != nil {
		a.Resend = m == tr.sent
		tr.sent = m
	}
	tr.cur, tr.open, tr.leg, tr.header = a, true, nil, nil
	if f := tr.t.AttemptStart; f != nil {
		f(a)
	}
	if f := tr.t.Header; f != nil {
		h := http.Header{}
		f(a, h)
		s.dropUnsendable(h)
		if len(h) > 0 {
			tr.header = canonical(h)
		}
	}
}

// traceConnected tells Connected that the call in flight opened l.
func (s *Stream) traceConnected(l *leg) {
	tr := s.tr
	if tr == nil || !tr.open {
		return
	}
	tr.leg = l
	tr.cur.TaskID = s.taskID
	if f := tr.t.Connected; f != nil {
		f(tr.cur)
	}
}

// traceFirstEvent tells FirstEvent that the leg's first event arrived.
func (s *Stream) traceFirstEvent() {
	tr := s.tr
	if tr == nil || !tr.open {
		return
	}
	if f := tr.t.FirstEvent; f != nil {
		f(tr.cur)
	}
}

// traceDone tells AttemptDone that the call in flight ended with outcome
// and err; a call already told is not told again.
func (s *Stream) traceDone(outcome string, err error) {
	tr := s.tr
	if tr == nil || !tr.open {
		return
	}
	tr.open = false
	d := AttemptDoneInfo{AttemptInfo: tr.cur, Outcome: outcome, Err: forTrace(err)}
	if s.taskID != "" {
		d.TaskID = s.taskID
	}
	if tr.leg != nil {
		d.Events = tr.leg.events
		tr.leg = nil
	}
	if f := tr.t.AttemptDone; f != nil {
		f(d)
	}
}

// traceAnswered ends a unary call in flight, answered: step calls it
// after a step that did not fail.
func (s *Stream) traceAnswered() {
	if tr := s.tr; tr != nil && tr.open && tr.leg == nil {
		s.traceDone("ok", nil)
	}
}

// closeLeg closes the leg being read, ending its call with outcome and
// err.
func (s *Stream) closeLeg(outcome string, err error) {
	if s.tr != nil && s.tr.leg != nil {
		s.traceDone(outcome, err)
	}
	s.leg.close()
}

// traceWait tells Wait about a wait of kind k.
func (s *Stream) traceWait(w WaitInfo) {
	if tr := s.tr; tr != nil && tr.t.Wait != nil {
		w.TaskID, w.Cause = s.taskID, forTrace(w.Cause)
		tr.t.Wait(w)
	}
}

// traceGap tells Gap about a gap event of kind k.
func (s *Stream) traceGap(k GapKind, fetched bool) {
	if tr := s.tr; tr != nil && tr.t.Gap != nil {
		tr.t.Gap(GapInfo{Kind: k, TaskID: s.taskID, Fetched: fetched})
	}
}

// traceAsk tells Ask about hook k: about to be called, or returned with
// err.
func (s *Stream) traceAsk(k AskKind, returned bool, err error) {
	if tr := s.tr; tr != nil && tr.t.Ask != nil {
		tr.t.Ask(AskInfo{Kind: k, TaskID: s.taskID, Returned: returned, Err: forTrace(err)})
	}
}

// traceCheckpoint tells Checkpoint about a checkpoint taken.
func (s *Stream) traceCheckpoint(beforeReply bool, err error) {
	if tr := s.tr; tr != nil && tr.t.Checkpoint != nil {
		tr.t.Checkpoint(CheckpointInfo{TaskID: s.taskID, BeforeReply: beforeReply, Err: forTrace(err)})
	}
}

// traceEnd tells Done that the stream ends.
func (s *Stream) traceEnd() {
	tr := s.tr
	if tr == nil || tr.t.Done == nil {
		return
	}
	d := DoneInfo{TaskID: s.taskID, Calls: tr.calls, Closed: tr.closed && s.err == nil, Err: forTrace(s.err)}
	if st := s.ledger.Status(); st != nil {
		d.State = st.State
	}
	tr.t.Done(d)
}

// dropUnsendable deletes from h, which Trace.Header filled, each header
// that cannot be sent (a name that is no HTTP token, a value with a
// control character), with a warning: a tracer's bad value costs the
// call its trace context, never the call.
func (s *Stream) dropUnsendable(h http.Header) {
	for k, vs := range h {
		if !httpx.ValidHeader(k, vs) {
			delete(h, k)
			s.log.Warn("a2a: a header from Trace.Header cannot be sent; the call goes without it", "header", k)
		}
	}
}

// canonical returns h with its keys in canonical form, the values of keys
// that differ only in case joined, so that a key Header set in another
// case replaces the stream's header of that name rather than going beside
// it.
func canonical(h http.Header) http.Header {
	for k, vs := range h {
		if ck := http.CanonicalHeaderKey(k); ck != k {
			delete(h, k)
			h[ck] = append(h[ck], vs...)
		}
	}
	return h
}

// sendKind is the kind of a send made for phase from.
func sendKind(from phase) AttemptKind {
	if from == phaseReply || from == phasePollReply {
		return AttemptReply
	}
	return AttemptSend
}

// getKind is the kind of a get-task made for phase from.
func getKind(from phase) AttemptKind {
	if from == phasePoll || from == phaseCatchUp {
		return AttemptPoll
	}
	return AttemptGetTask
}

// pushOutcome is the outcome of a push-config call that returned err,
// the stream's context having ended with ctxErr.
func pushOutcome(err, ctxErr error) string {
	switch {
	case err == nil:
		return "ok"
	case ctxErr != nil:
		return "end"
	case cannotPush(err) || errors.Is(err, errors.ErrUnsupported):
		return "cannot"
	}
	return "failed"
}

// forTrace returns err as a Trace gets it: an error whose text may quote
// the task or a message (see Trace) in a textless error; any other as it
// is.
func forTrace(err error) error {
	if err == nil {
		return nil
	}
	var (
		te   terminal.Error
		he   *hitl.Error
		pe   *transport.ProtocolError
		what string
	)
	switch {
	case errors.As(err, &te):
		what = fmt.Sprintf("%T, the task %s", te, te.State())
	case errors.As(err, &he):
		what = fmt.Sprintf("%T", he)
	case errors.As(err, &pe):
		what = fmt.Sprintf("%T", pe)
	default:
		return err
	}
	return &textless{err: err, what: what}
}

// textless is an error whose text is withheld from a Trace: its text
// names the error's type; Unwrap returns the error.
type textless struct {
	err  error
	what string
}

func (e *textless) Error() string {
	return "stream: " + e.what + " (its text, which may quote the task or a message, withheld from the trace)"
}

func (e *textless) Unwrap() error { return e.err }
