package chain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/fanout"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/httpretry"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// Error returns the JSON-RPC error object that an agent named self answers
// its own caller with when a call it made to the agent it names downstream
// failed with err, an error of package stream (or of [fanout.Quorum]); nil
// for a nil err. The object is of version v, as [Encode] writes it, and
// [Of] reads its links back: this agent's, then the downstream agent's,
// then, when the downstream agent answered such a chain itself, the links
// of the agents behind it.
//
// Name the downstream agent by a name of your own, not by its URL: a URL
// may carry a token (a URL is cut to its origin all the same, in the links
// and in the message, as [Link.Bounded] cuts it). Nothing of the downstream
// call is copied but what its link holds: no header, no response body, no
// URL, no error data as it came, no transport error text; each link is
// bounded as [Link.Bounded] says (messages cut to 256 bytes), at most
// [MaxLinks] links are kept and the whole data is at most [MaxData] (4 KiB).
//
// This agent's error is always -32603 (internal error), with the message
// "downstream agent NAME failed: " and the downstream link's message. No
// other code would be true: the downstream agent's code describes the call
// this agent made, not the one its caller made (its -32001, task not found,
// is about a task of the downstream agent's), and an error this agent
// answers over HTTP+JSON must carry a code A2A defines. The downstream
// code, when there is one, is in the downstream link. This agent's error is
// retryable, with the same delay, exactly when the downstream link is.
//
// The downstream link says, for each error of a call:
//
//   - *a2a.RPCError (also inside a *transport.HTTPError): its code, message,
//     1.0 reason and retry hint, and the HTTP status when one came with it
//     (retryable also when that status is one the stream retries and came
//     with a Retry-After header); if it was a chain, the chain follows.
//   - *transport.HTTPError without an A2A error: code 0, "HTTP 503 Service
//     Unavailable" (the status text of the code, not the server's), the
//     status; retryable for the statuses the stream counts as a failed
//     attempt (408, 429 and 5xx), and for a body whose retry hint says so
//     ([a2a.ParseHTTPRetry]: a google.rpc.RetryInfo, a 0.3 "retryable"),
//     after the Retry-After header's delay, else the body's.
//   - terminal errors: code 0, "task ID ended in state STATE", and the
//     task's status message, the task's ID and state; not retryable.
//   - *hitl.Error: code 0, "task ID needs input", the task's ID and state;
//     not retryable (the prompt is not copied).
//   - *reconnect.Error: code 0, "connection lost", or "could not connect"
//     when no call could connect (and after how many attempts), the task's
//     ID and state, the HTTP status and Retry-After delay of the last
//     failure if it was a *transport.HTTPError; retryable.
//   - *transport.ProtocolError: code 0, "protocol error: " and its reason; not
//     retryable.
//   - *stream.StalledError: code 0, "task ID made no progress for D"; not
//     retryable.
//   - transport.ErrCircuitOpen (the breaker refused the call): "circuit open:
//     nothing sent"; transport.ErrConnectTimeout: "no connection within the
//     connect timeout"; both retryable.
//   - *fanout.QuorumError: "quorum not reached: 1 of 3 calls succeeded, 2
//     needed", as the error's own text starts, none of its calls' errors
//     copied; retryable when one of them is ([fanout.ErrNotNeeded] aside).
//   - transport.ErrIdleTimeout, a transport error (*url.Error, net.Error, an
//     unexpected EOF, transport.ErrEndedEarly): code 0, "no data within the
//     idle timeout" or "connection failed"; retryable.
//   - context.DeadlineExceeded: "deadline exceeded", retryable (the
//     downstream agent may answer in time on another try);
//     context.Canceled: "canceled", not retryable.
//   - transport.ErrInvalidMessage, stream.ErrInvalidOption,
//     *agentcard.InvalidError: "invalid message", "invalid option",
//     "invalid agent card"; not retryable (this agent's own mistake, or the
//     card's).
//   - any other error: "call failed", not retryable; its text is not
//     copied.
func Error(err error, v a2a.Version, self, downstream string) *a2a.RPCError {
	return ErrorInTrace(err, v, self, downstream, "")
}

// ErrorInTrace is [Error] for an agent whose work is part of a trace:
// traceID is the W3C trace ID of that trace (32 lowercase hexadecimal
// digits, as a traceparent header carries it; package a2aotel's TraceID
// reads it from a context). It goes in this agent's link, and in the
// downstream agent's link when that agent's answer gave none (the call
// this agent made was part of the trace), as [Link].TraceID, so that the
// caller who reads the chain with [Of] finds every hop's spans. A traceID
// of any other form, or all zeros, is left out: "" is [Error].
func ErrorInTrace(err error, v a2a.Version, self, downstream, traceID string) *a2a.RPCError {
	if err == nil {
		return nil
	}
	if !validTraceID(traceID) {
		traceID = ""
	}
	down := downstreamLinks(err)
	down[0].Agent = downstream
	if down[0].TraceID == "" {
		down[0].TraceID = traceID
	}
	down[0] = down[0].Bounded() // the message quotes its name and message as the link holds them
	msg := "downstream agent failed"
	if down[0].Agent != "" {
		msg = "downstream agent " + down[0].Agent + " failed"
	}
	if down[0].Message != "" {
		msg += ": " + down[0].Message
	}
	own := Link{Agent: self, Code: a2a.CodeInternalError, Message: msg,
		Retryable: down[0].Retryable, RetryAfter: down[0].RetryAfter, TraceID: traceID}
	return Encode(v, append([]Link{own}, down...))
}

// downstreamLinks describes err as the downstream agent's link, followed by
// the links of the agents behind it when its error was a chain.
func downstreamLinks(err error) []Link {
	var (
		final    terminal.Error
		lost     *reconnect.Error
		input    *hitl.Error
		httpErr  *transport.HTTPError
		rpcErr   *a2a.RPCError
		protoErr *transport.ProtocolError
		stalled  *stream.StalledError
		cardErr  *agentcard.InvalidError
		quorum   *fanout.QuorumError
	)
	switch {
	case errors.As(err, &quorum):
		// Several downstream calls: none of their texts is copied; the
		// quorum may be reached on another try when one of them may be.
		l := Link{Message: fmt.Sprintf("quorum not reached: %d of %d calls succeeded, %d needed", quorum.Succeeded, len(quorum.Errs), quorum.Need)}
		for _, e := range quorum.Errs {
			if e != nil && !errors.Is(e, fanout.ErrNotNeeded) && downstreamLinks(e)[0].Retryable {
				l.Retryable = true
			}
		}
		return []Link{l}
	case errors.As(err, &final):
		state := final.State()
		t := final.FinalTask()
		l := taskLink(t, "ended in state "+string(state))
		l.State = state
		if t != nil {
			if text := t.Status.Message.Text(); text != "" {
				l.Message += ": " + text
			}
		}
		return []Link{l}
	case errors.As(err, &input):
		return []Link{taskLink(input.Task, "needs input")}
	case errors.As(err, &lost):
		l := Link{Message: "connection lost", Retryable: true}
		if lost.Unreachable != "" {
			// The URL stays out: it is this agent's business, not its
			// caller's.
			l.Message = "could not connect"
		}
		if lost.Attempts > 0 {
			l.Message += "; gave up after " + strconv.Itoa(lost.Attempts) + " attempts"
		}
		l.TaskID = lost.TaskID
		if lost.Task != nil {
			if l.TaskID == "" {
				l.TaskID = lost.Task.ID
			}
			l.State = lost.Task.Status.State
		}
		if errors.As(lost.Err, &httpErr) {
			l.HTTPStatus = httpErr.StatusCode
			l.RetryAfter, _ = httpErr.RetryAfter()
		}
		return []Link{l}
	case errors.Is(err, transport.ErrCircuitOpen):
		return []Link{{Message: "circuit open: nothing sent", Retryable: true}}
	case errors.Is(err, transport.ErrConnectTimeout):
		return []Link{{Message: "no connection within the connect timeout", Retryable: true}}
	case errors.As(err, &httpErr):
		return httpLinks(httpErr)
	case errors.As(err, &rpcErr):
		return Of(rpcErr)
	case errors.As(err, &protoErr):
		return []Link{{Message: "protocol error: " + protoErr.Reason}}
	case errors.As(err, &stalled):
		return []Link{taskLink(stalled.Task, "made no progress for "+stalled.After.String())}
	case errors.Is(err, transport.ErrInvalidMessage):
		return []Link{{Message: "invalid message"}}
	case errors.Is(err, stream.ErrInvalidOption):
		return []Link{{Message: "invalid option"}}
	case errors.As(err, &cardErr):
		return []Link{{Message: "invalid agent card", Retryable: connectionFailed(cardErr.Err)}}
	case errors.Is(err, context.DeadlineExceeded):
		return []Link{{Message: "deadline exceeded", Retryable: true}}
	case errors.Is(err, context.Canceled):
		return []Link{{Message: "canceled"}}
	case errors.Is(err, transport.ErrIdleTimeout):
		return []Link{{Message: "no data within the idle timeout", Retryable: true}}
	case connectionFailed(err):
		return []Link{{Message: "connection failed", Retryable: true}}
	}
	return []Link{{Message: "call failed"}}
}

// taskLink is the link of a downstream task: "task ID what", with its ID
// and state.
func taskLink(t *a2a.Task, what string) Link {
	if t == nil {
		return Link{Message: "task " + what}
	}
	return Link{Message: "task " + t.ID + " " + what, TaskID: t.ID, State: t.Status.State}
}

// httpLinks describes a response with a non-2xx status: the A2A error it
// carried, if any, with its status; without one, the status and the
// body's retry hint. An A2A error's own retry hint rules, as
// the more specific answer (a 0.3 HTTP+JSON server sends every error it has
// no status for as a 500); a Retry-After header on a status the stream
// retries makes it retryable all the same, and gives the delay it lacks.
func httpLinks(e *transport.HTTPError) []Link {
	retryable := httpretry.Status(e.StatusCode)
	var rpcErr *a2a.RPCError
	if !errors.As(e.Err, &rpcErr) {
		header, _ := e.RetryAfter()
		hinted, after := httpretry.BodyHint(e.Body, header)
		retryable = retryable || hinted
		l := Link{Message: "HTTP " + strconv.Itoa(e.StatusCode), HTTPStatus: e.StatusCode, Retryable: retryable, RetryAfter: after}
		if text := http.StatusText(e.StatusCode); text != "" {
			l.Message += " " + text
		}
		return []Link{l}
	}
	links := Of(rpcErr)
	links[0].HTTPStatus = e.StatusCode
	after, asked := e.RetryAfter()
	if !links[0].Retryable && retryable && asked {
		links[0].Retryable = true
	}
	if links[0].Retryable && links[0].RetryAfter == 0 {
		links[0].RetryAfter = after
	}
	return links
}

// connectionFailed reports a failure of the connection itself.
func connectionFailed(err error) bool {
	var (
		ue *url.Error
		ne net.Error
	)
	return errors.As(err, &ue) || errors.As(err, &ne) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, transport.ErrEndedEarly)
}
