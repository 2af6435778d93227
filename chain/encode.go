package chain

import (
	"strconv"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/a2awire"
)

// Encode writes links as an error object of version v: links[0] is the
// error of the agent that answers it (its Code, or [a2a.CodeInternalError]
// when that is 0, and its Message are the error's code and message, and its
// retry hint the error's), and each following link is the error of the
// agent the one before it called. An unknown version is written as 1.0.
// With no links, the result is a plain internal error. [Error] writes the
// links of a call that failed; Encode is for an agent that writes its own
// first link (another code, a reason of its own) or links it read with
// [Of].
//
// In A2A 0.3 the error's data is an object; each agent's link nests the
// error object of the next agent under "downstream", and each level carries
// the 0.3 retry hint ("retryable", "retryAfter" in seconds), so that any
// client reads it at the top:
//
//	{"code":-32603,"message":"downstream agent flights failed: model overloaded",
//	 "data":{"agent":"planner","downstreamAgent":"flights","retryable":true,"retryAfter":5,
//	  "downstream":{"code":-32603,"message":"model overloaded",
//	   "data":{"agent":"flights","httpStatus":503,"retryable":true,"retryAfter":5}}}}
//
// Each level's data also carries, when known, "reason", "taskId",
// "state" and "traceId"; "agent" is always there, if empty, to mark the object as a link.
//
// In A2A 1.0 the data is the usual array of details: first the A2A
// ErrorInfo of the error's code (reason "INTERNAL_ERROR" for -32603, domain
// "a2a-protocol.org"), then a google.rpc.RetryInfo when the error is
// retryable ("retryDelay":"5s"), then one ErrorInfo per link, in order,
// with reason "DOWNSTREAM_AGENT_ERROR", domain
// "github.com/a2astream/a2astream" and the link in its string metadata:
// "agent", "downstreamAgent", "code", "message", "reason", "httpStatus",
// "taskId", "state", "traceId", "retryable" ("true" or "false") and "retryAfter" (a
// protobuf Duration, "5s"). The first link's code and message are the
// error's own, so its metadata leaves them out.
//
// Only what the links hold is written, each link as [Link.Bounded] gives
// it, and at most [MaxLinks] links: the deepest are dropped first, also
// until the data is at most [MaxData] bytes.
//
// Over HTTP+JSON, write the result with [a2a.MarshalHTTPError]: in 1.0 its
// A2A ErrorInfo comes first, so that [a2a.ParseHTTPError] reads it as the
// A2A error of its code (for a code A2A defines).
func Encode(v a2a.Version, links []Link) *a2a.RPCError {
	if len(links) == 0 {
		return &a2a.RPCError{Code: a2a.CodeInternalError, Message: "internal error"}
	}
	kept := make([]Link, 0, min(len(links), MaxLinks))
	for _, l := range links[:min(len(links), MaxLinks)] {
		kept = append(kept, tidy(l))
	}
	if kept[0].Code == 0 {
		kept[0].Code = a2a.CodeInternalError
	}
	for {
		var data []byte
		if v == a2a.V03 {
			data = data03(kept)
		} else {
			data = data10(kept)
		}
		if len(data) <= MaxData || len(kept) == 1 {
			return &a2a.RPCError{Code: kept[0].Code, Message: kept[0].Message, Data: data}
		}
		kept = kept[:len(kept)-1]
	}
}

// linkFields03 is a link's data in 0.3, as written.
type linkFields03 struct {
	Agent           string        `json:"agent"` // even "": it marks the object as a link
	DownstreamAgent string        `json:"downstreamAgent,omitempty"`
	Reason          string        `json:"reason,omitempty"`
	HTTPStatus      int           `json:"httpStatus,omitempty"`
	TaskID          string        `json:"taskId,omitempty"`
	State           a2a.TaskState `json:"state,omitempty"`
	TraceID         string        `json:"traceId,omitempty"`
	Retryable       bool          `json:"retryable"`
	RetryAfter      int64         `json:"retryAfter,omitempty"` // seconds
	Downstream      *linkError03  `json:"downstream,omitempty"`
}

// linkError03 is the error object of a downstream link in 0.3.
type linkError03 struct {
	Code    int           `json:"code"`
	Message string        `json:"message"`
	Data    *linkFields03 `json:"data"`
}

// data03 writes the data of a 0.3 chain: links[0]'s fields, with the
// rest nested under "downstream".
func data03(links []Link) []byte {
	var next *linkError03
	for i := len(links) - 1; i >= 0; i-- {
		l := links[i]
		f := &linkFields03{Agent: l.Agent, Reason: l.Reason, HTTPStatus: l.HTTPStatus, TaskID: l.TaskID,
			State: l.State, TraceID: l.TraceID, Retryable: l.Retryable, RetryAfter: int64(l.RetryAfter / time.Second), Downstream: next}
		if i+1 < len(links) {
			f.DownstreamAgent = links[i+1].Agent
		}
		if i == 0 {
			b, _ := a2awire.Marshal(f) // strings, ints and bools only: cannot fail
			return b
		}
		next = &linkError03{Code: l.Code, Message: l.Message, Data: f}
	}
	return nil
}

// detail10 is one entry of a 1.0 chain's details.
type detail10 struct {
	Type       string            `json:"@type"`
	Reason     string            `json:"reason,omitempty"`
	Domain     string            `json:"domain,omitempty"`
	Metadata   map[string]string `json:"metadata,omitempty"`
	RetryDelay string            `json:"retryDelay,omitempty"`
}

// data10 writes the details of a 1.0 chain: the A2A ErrorInfo of the
// first link's code, a RetryInfo when it is retryable, and one ErrorInfo
// per link.
func data10(links []Link) []byte {
	var details []detail10
	if re, ok := a2awire.Rest(links[0].Code); ok {
		details = append(details, detail10{Type: a2awire.ErrorInfoType, Reason: re.Reason, Domain: a2awire.Domain})
	}
	if links[0].Retryable {
		d := detail10{Type: a2awire.RetryInfoType}
		if links[0].RetryAfter > 0 {
			d.RetryDelay = durationText(links[0].RetryAfter)
		}
		details = append(details, d)
	}
	for i, l := range links {
		m := map[string]string{"retryable": strconv.FormatBool(l.Retryable)}
		put := func(k, v string) {
			if v != "" {
				m[k] = v
			}
		}
		put("agent", l.Agent)
		if i+1 < len(links) {
			put("downstreamAgent", links[i+1].Agent)
		}
		if i > 0 {
			put("message", l.Message)
			if l.Code != 0 {
				put("code", strconv.Itoa(l.Code))
			}
		}
		put("reason", l.Reason)
		if l.HTTPStatus != 0 {
			put("httpStatus", strconv.Itoa(l.HTTPStatus))
		}
		put("taskId", l.TaskID)
		put("state", string(l.State))
		put("traceId", l.TraceID)
		if l.RetryAfter > 0 {
			put("retryAfter", durationText(l.RetryAfter))
		}
		details = append(details, detail10{Type: a2awire.ErrorInfoType, Reason: linkReason, Domain: linkDomain, Metadata: m})
	}
	b, _ := a2awire.Marshal(details) // strings only: cannot fail
	return b
}

// durationText writes a delay of whole seconds as a protobuf Duration in
// JSON, "5s".
func durationText(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10) + "s"
}
