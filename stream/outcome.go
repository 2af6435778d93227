package stream

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/internal/httpretry"
	"github.com/a2astream/a2astream/transport"
)

// operation is a call the driver makes, as far as classifying its failure
// goes: sending a message (the first one or a reply), subscribing to the
// task, or fetching it.
type operation int

const (
	opSend operation = iota
	opSubscribe
	opGet
)

// outcomeKind is what the driver does about a failed call or a leg's end.
// classify decides it; handle does it.
type outcomeKind int

const (
	// outFatal ends the stream with the error, after delivering a halting
	// event held back, if any (which may end the stream as the task did).
	outFatal outcomeKind = iota
	// outEnd ends the stream with the error at once.
	outEnd
	// outLost: the connection was lost before any task was known: nothing
	// to reconnect to; the stream ends in a *reconnect.Error.
	outLost
	// outDrop is a lost connection: a failed attempt, then the route's
	// resume (a subscribe, or a poll at once).
	outDrop
	// outRetry: wait an attempt, then make the failed call again,
	// unchanged: a send that never left, a busy send with
	// WithIdempotentSends, or the get-task that asks whether an error ended
	// the task.
	outRetry
	// outRefused: the server will not stream the task now, though it may
	// exist; fetch it instead, and subscribe again while it runs.
	outRefused
	// outNoStream: a subscribe refused with unsupported operation (-32004),
	// with which 1.0 servers refuse only ended tasks and agents that cannot
	// stream refuse every subscribe: fetch the task, and follow it by
	// polling while it runs, since the server cannot stream it.
	outNoStream
	// outQuiet: a subscription ended having brought nothing new, while
	// output may wait on the server; fetch the task.
	outQuiet
	// outStalled: the stall limit cut a leg on which nothing new came
	// (keep-alive comments are no progress): the stream ends with a
	// *StalledError.
	outStalled
	// outSilent: a subscription stayed silent past the idle timeout; fetch
	// the task. A task that still runs is quiet, not failing: waiting on it
	// again costs no attempt.
	outSilent
	// outDowngrade: the server does not speak 1.0; make the same call in 0.3.
	outDowngrade
	// outSpeaks03: the get-task of a probe was refused as 0.3 servers
	// refuse 1.0: subscribe in 0.3.
	outSpeaks03
	// outUnsupported: the server cannot make this kind of call at all (a
	// streaming send, or a subscribe); follow the task by polling instead.
	outUnsupported
	// outProbe: a 1.0 subscribe refused while the version is negotiated. A
	// 0.3 server and a 1.0 server that cannot subscribe refuse it alike:
	// fetch the task in 1.0 to learn which.
	outProbe
	// outAskTask: an RPC error ended a call once the task was known; it may
	// stand for an ending the server did not send as an event: fetch the
	// task to see.
	outAskTask
	// outCredentials: the agent refused a call with 401 once the task was
	// known: ask the credentials hook, then resume with the credentials.
	outCredentials
	// outBusy: a send answered "busy" (429, 503, or an error the server
	// marked retryable) before any event. The agent may have taken the
	// message, so it is sent again only for a caller who said the agent
	// deduplicates by message ID (WithIdempotentSends); otherwise fatal.
	// Only classifyCall returns it; classify turns it into one of those.
	outBusy
	// outPush: a drop, once the task is known, of a stream that may follow
	// it by push notifications (WithPush) and has not registered yet: a
	// failed attempt, then register a push config (phasePushSet) rather
	// than resubscribe.
	outPush
)

// outcome is a classified failure.
type outcome struct {
	kind       outcomeKind
	err        error         // the error to act on and report
	retryAfter time.Duration // the wait the server asked for, capped; 0 if none
}

// maxRetryAfter caps the wait a server can impose: a Retry-After header or
// the retry hint of an error.
const maxRetryAfter = 30 * time.Second

// situation is what classify needs to know of the stream besides the
// failed call.
type situation struct {
	started     bool // the call had produced an event before it failed
	nothingNew  bool // a subscription's leg that ended having brought nothing new
	negotiating bool // the version may still fall back to 0.3
	ctxErr      error
	// stalled: the stall limit cut the leg: its reads waited the limit
	// since the last news.
	stalled   bool
	taskKnown bool // the stream knows its task's ID
	polling   bool // the stream follows its task by polling: its sends are unary
	// firstMessage: the call sends the stream's message, not a reply.
	firstMessage bool
	// cardStreams: the agent card says the agent streams.
	cardStreams     bool
	idempotentSends bool // WithIdempotentSends
	credentials     bool // WithCredentials
	// probing: the call is the get-task of a probe (phaseProbe).
	probing bool
	// askedAbout is, for the get-task that asks whether an error ended the
	// task (fetchAfterError), that error; nil otherwise.
	askedAbout error
	// pushUntried: WithPush was given and no push config is registered
	// yet (see push.go).
	pushUntried bool
}

// classify decides, in one place for every binding and every phase, what
// the driver does about the error of one call or the end of a leg (see
// classifyCall for the error itself), given the stream's situation:
//
//   - The get-task that asks whether an error ended the task goes by the
//     budget rules: a drop is made again while attempts are left; any other
//     failure, and a drop once the caller's context ended, ends the stream
//     in the error asked about.
//   - A subscription that ended cleanly having brought nothing new (say, a
//     snapshot whose timestamp reads older than what is held, from a clock
//     that went back or was truncated) may hide a change: quiet, with
//     transport.ErrEndedEarly.
//   - The caller's context ended: its error ends the stream.
//   - The stall limit cut a leg that brought nothing new for that long:
//     the stream ends stalled, whatever the cut's error.
//   - A 401 (transport.ErrNotAuthenticated) once the task is known, on anything but
//     a send, with a credentials hook: ask for credentials. A send is not
//     made again that way: the message may have reached the agent.
//   - A busy send is made again only with WithIdempotentSends; otherwise
//     it is fatal.
//   - The first message refused by an open circuit breaker fails fast:
//     there is no task yet to keep. A reply waits for the circuit, within
//     the budget.
//   - A drop before any task is known is lost: nothing to reconnect to.
//     After, a stream given WithPush that has not registered a push config
//     yet, and does not poll already, registers one (outPush) rather than
//     resubscribe.
//   - An unsupported call is fatal when the stream already polls (a unary
//     call cannot be unsupported too), and for -32004 on a streaming send
//     to an agent whose card says it streams: the agent refuses this
//     message, not streaming (a2a-js answers -32004 to a message for a
//     task that has ended).
//   - A version refusal of a probe says the server speaks 0.3.
//   - A fatal RPC error on a send or a subscribe once the task is known,
//     other than a permission denied, may
//     stand for an ending the server did not send as an event: ask the
//     task.
func classify(op operation, err error, sit situation) outcome {
	if sit.askedAbout != nil {
		if o := classifyCall(op, err, false, sit.negotiating); o.kind == outDrop && sit.ctxErr == nil {
			o.kind = outRetry
			return o
		}
		return outcome{kind: outEnd, err: sit.askedAbout}
	}
	if op == opSubscribe && err == io.EOF && sit.nothingNew {
		return outcome{kind: outQuiet, err: transport.ErrEndedEarly}
	}
	if sit.ctxErr != nil {
		return outcome{kind: outEnd, err: sit.ctxErr}
	}
	if sit.stalled {
		return outcome{kind: outStalled, err: err}
	}
	if op != opSend && sit.credentials && sit.taskKnown && errors.Is(err, transport.ErrNotAuthenticated) {
		return outcome{kind: outCredentials, err: err}
	}
	o := classifyCall(op, err, sit.started, sit.negotiating)
	var rpcErr *a2a.RPCError
	switch {
	case o.kind == outBusy && sit.idempotentSends:
		o.kind = outRetry
	case o.kind == outBusy:
		o.kind = outFatal
	case o.kind == outRetry && sit.firstMessage && errors.Is(o.err, transport.ErrCircuitOpen):
		o.kind = outEnd
	case o.kind == outDrop && !sit.taskKnown:
		o.kind = outLost
	case o.kind == outDrop && sit.pushUntried && !sit.polling:
		o.kind = outPush
	case o.kind == outUnsupported && (sit.polling ||
		op == opSend && sit.cardStreams && errors.As(o.err, &rpcErr) && rpcErr.Code == a2a.CodeUnsupportedOperation):
		o.kind = outEnd
	case o.kind == outDowngrade && sit.probing:
		o.kind = outSpeaks03
	}
	if o.kind == outFatal && op != opGet && sit.taskKnown && errors.As(o.err, &rpcErr) && !errors.Is(o.err, transport.ErrPermissionDenied) {
		o.kind = outAskTask
	}
	return o
}

// classifyCall sorts the error of one call by the error alone, in one
// place for every binding. started says whether the call had produced an
// event before it failed (an error in the middle of a stream); negotiating
// whether the version may still fall back to 0.3.
//
//   - A *transport.ProtocolError (a server bug), transport.ErrInvalidMessage and
//     transport.ErrMisconfigured (the caller's), transport.ErrClosed (a Transport closed)
//     and transport.ErrPermissionDenied (a 403, a
//     PERMISSION_DENIED, whatever A2A error or retry hint came with it: the agent knew the
//     caller and refused) are fatal, never retried.
//   - A call that never left (see reach: a refused or timed-out connection,
//     or the circuit breaker's refusal, before any hop got a response) is a
//     drop; a send is made again (outRetry).
//   - Before any event, while negotiating, a version refusal (see
//     isVersionRefusal) downgrades, except on a subscribe, which probes.
//   - A JSON-RPC error (or an A2A error body that a binding mapped onto one)
//     is fatal, except before any event: on a streaming
//     send, -32004 or method-not-found (unsupported: send unary and poll);
//     on a subscribe, method-not-found (unsupported: poll), -32004 (no
//     stream: fetch the task, then poll while it runs) and the refusals
//     -32001 (a2a-go once a turn is over) and -32602 (fetch the task). Past
//     those, an error the server marked
//     retryable (see retryable) is a drop, or busy on a send before any
//     event.
//   - An HTTP error without an A2A error in it: 405 and 501 on a send or a
//     subscribe, and 404 on a subscribe, mean the call is unsupported; 409
//     and 422 on a subscribe are refusals (a2a-python 0.3 answers 422 for an
//     ended task) and fetch the task. On a send, 429 and 503 are busy, and
//     any other is fatal: the message may have been taken. Elsewhere 408,
//     429, 5xx and a body marked retryable are drops, and the rest is fatal.
//   - A Transport's "not authenticated" (transport.ErrNotAuthenticated, with no A2A
//     or HTTP error in it) is fatal.
//   - A clean end of a stream, a transport error and silence are drops;
//     silence on a subscribe is outSilent.
//
// A drop or busy outcome carries the wait the server asked for (see
// retryDelay). A transport error after the response's status line (an
// callmark.Responded) is sorted as the error it wraps.
func classifyCall(op operation, err error, started, negotiating bool) outcome {
	err, _ = callmark.UnwrapResponded(err)
	var (
		rpcErr  *a2a.RPCError
		httpErr *transport.HTTPError
		protErr *transport.ProtocolError
	)
	switch {
	case errors.As(err, &protErr), errors.Is(err, transport.ErrInvalidMessage), errors.Is(err, transport.ErrClosed),
		errors.Is(err, transport.ErrMisconfigured), errors.Is(err, transport.ErrPermissionDenied):
		return outcome{kind: outFatal, err: err}
	case callmark.IsUnsent(err):
		if op == opSend {
			return outcome{kind: outRetry, err: err}
		}
		return outcome{kind: outDrop, err: err}
	case !started && negotiating && isVersionRefusal(err):
		if op == opSubscribe {
			return outcome{kind: outProbe, err: err}
		}
		return outcome{kind: outDowngrade, err: err}
	case errors.As(err, &rpcErr):
		switch {
		case started || op == opGet:
		case rpcErr.Code == a2a.CodeMethodNotFound,
			op == opSend && rpcErr.Code == a2a.CodeUnsupportedOperation:
			return outcome{kind: outUnsupported, err: err}
		case op == opSubscribe && rpcErr.Code == a2a.CodeUnsupportedOperation:
			return outcome{kind: outNoStream, err: err}
		case op == opSubscribe && isRefusal(rpcErr.Code):
			return outcome{kind: outRefused, err: err}
		}
		switch {
		case retryable(rpcErr) && op == opSend && !started:
			return outcome{kind: outBusy, err: err, retryAfter: retryDelay(err)}
		case retryable(rpcErr):
			return outcome{kind: outDrop, err: err, retryAfter: retryDelay(err)}
		case op == opSend && !started && errors.As(err, &httpErr) && busyStatus(httpErr.StatusCode) && !callersError(rpcErr.Code):
			return outcome{kind: outBusy, err: err, retryAfter: retryDelay(err)}
		}
		return outcome{kind: outFatal, err: err}
	case errors.As(err, &httpErr):
		code := httpErr.StatusCode
		switch {
		case op != opGet && (code == http.StatusMethodNotAllowed || code == http.StatusNotImplemented),
			op == opSubscribe && code == http.StatusNotFound:
			return outcome{kind: outUnsupported, err: err}
		case op == opSubscribe && httpErr.Err == nil && plainRefusal(code):
			return outcome{kind: outRefused, err: err}
		case op == opSend && !started && busyStatus(code):
			return outcome{kind: outBusy, err: err, retryAfter: retryDelay(err)}
		case op == opSend:
			return outcome{kind: outFatal, err: err}
		case httpretry.Status(code), hasBodyHint(httpErr):
			return outcome{kind: outDrop, err: err, retryAfter: retryDelay(err)}
		}
		return outcome{kind: outFatal, err: err}
	case errors.Is(err, transport.ErrNotAuthenticated):
		return outcome{kind: outFatal, err: err}
	case err == io.EOF:
		return outcome{kind: outDrop, err: transport.ErrEndedEarly}
	case op == opSubscribe && errors.Is(err, transport.ErrIdleTimeout):
		return outcome{kind: outSilent, err: err}
	}
	return outcome{kind: outDrop, err: err}
}

// retryable reports an A2A error the server marked retryable, unless it
// says the request itself was wrong (callersError): sending it again cannot
// help.
func retryable(e *a2a.RPCError) bool {
	return e.Retryable() && !callersError(e.Code)
}

// callersError reports the JSON-RPC codes that blame the request: parse
// error, invalid request, method not found, invalid params.
func callersError(code int) bool {
	switch code {
	case a2a.CodeParseError, a2a.CodeInvalidRequest, a2a.CodeMethodNotFound, a2a.CodeInvalidParams:
		return true
	}
	return false
}

// busyStatus reports the statuses with which a server says it cannot take a
// message now: 429 Too Many Requests and 503 Service Unavailable.
func busyStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable
}

// retryDelay returns the wait the server asked for before the call is made
// again, up to maxRetryAfter: the longest of the HTTP Retry-After header,
// the retry hint of the A2A error, and that of an HTTP error's body.
func retryDelay(err error) time.Duration {
	var (
		d       time.Duration
		rpcErr  *a2a.RPCError
		httpErr *transport.HTTPError
	)
	if errors.As(err, &rpcErr) {
		d = rpcErr.RetryAfter()
	}
	if errors.As(err, &httpErr) {
		_, after := bodyHint(httpErr)
		d = max(d, after)
	}
	return askedWait(d)
}

// askedWait is the wait the stream gives a server that asked for d (a
// retry hint of any source, which a2a has bounded by a2a.MaxRetryHint): at
// most maxRetryAfter. It is the one place that cap applies: after a failed
// call (retryDelay) and after a poll's answer (readUnary).
func askedWait(d time.Duration) time.Duration {
	return min(d, maxRetryAfter)
}

// isRefusal reports the JSON-RPC codes with which servers refuse a
// resubscribe although the task may exist.
func isRefusal(code int) bool {
	return code == a2a.CodeTaskNotFound || code == a2a.CodeUnsupportedOperation || code == a2a.CodeInvalidParams
}

// plainRefusal reports the statuses with which a server that sends no A2A
// error body may refuse a subscribe to a task that exists but will not
// stream (it has ended): 409 Conflict and 422 Unprocessable Content. A 400
// says the request is malformed, and stays fatal.
func plainRefusal(code int) bool {
	return code == http.StatusConflict || code == http.StatusUnprocessableEntity
}

// isVersionRefusal reports the errors with which a server refuses a 1.0 call
// it does not speak: method-not-found and version-not-supported, or a bare
// 404 with no A2A error in it, the answer of an HTTP+JSON server that has no
// 1.0 route (a 0.3 server serves only /v1/…). Over JSON-RPC a bare 404 means
// a wrong endpoint, and the 0.3 call made then fails the same way.
func isVersionRefusal(err error) bool {
	var (
		rpc     *a2a.RPCError
		httpErr *transport.HTTPError
	)
	if errors.As(err, &rpc) {
		return rpc.Code == a2a.CodeMethodNotFound || rpc.Code == a2a.CodeVersionNotSupported
	}
	return errors.As(err, &httpErr) && httpErr.StatusCode == http.StatusNotFound && httpErr.Err == nil
}
