package chain

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/a2awire"
)

// Of reads the chain the error err carries, when err is or wraps an
// [*a2a.RPCError]: for an error that [Error] or [Encode] wrote, in either
// version, its links in order; for any other error object, one link,
// without an Agent, with its code, message, 1.0 reason and retry hint. It
// returns nil when err is no *a2a.RPCError. The first link's code, message
// and retry hint are always the error object's own. Whatever the data
// holds, at most [MaxLinks] links are read, each as [Link.Bounded] gives
// it; data that is not a chain, or not valid JSON, is read as no chain. So
// Of(Encode(v, links)) returns links as Encode kept them.
func Of(err error) []Link {
	var e *a2a.RPCError
	if !errors.As(err, &e) || e == nil {
		return nil
	}
	first := Link{Code: e.Code, Message: e.Message, Reason: e.Reason(), Retryable: e.Retryable(), RetryAfter: e.RetryAfter()}
	data := bytes.TrimSpace(e.Data)
	var links []Link
	switch {
	case a2awire.IsObject(data):
		links = read03(first, data)
	case a2awire.IsArray(data):
		links = read10(first, data)
	}
	if links == nil {
		links = []Link{first}
	}
	for i := range links {
		links[i] = tidy(links[i])
	}
	return links
}

// linkRaw03 is a link's data in 0.3, as read: every member raw, so that a
// member of the wrong type is skipped, not fatal.
type linkRaw03 struct {
	Agent           json.RawMessage `json:"agent"`
	DownstreamAgent json.RawMessage `json:"downstreamAgent"`
	Reason          json.RawMessage `json:"reason"`
	HTTPStatus      json.RawMessage `json:"httpStatus"`
	TaskID          json.RawMessage `json:"taskId"`
	State           json.RawMessage `json:"state"`
	TraceID         json.RawMessage `json:"traceId"`
	Downstream      json.RawMessage `json:"downstream"`
}

// read03 reads a 0.3 chain whose first link is first and whose data
// is data. It returns nil when data is no chain: an object with neither an
// "agent" string (Encode writes one in every link, empty when the link
// names no agent) nor a "downstream" object.
func read03(first Link, data json.RawMessage) []Link {
	var f linkRaw03
	if json.Unmarshal(data, &f) != nil || !a2awire.IsString(f.Agent) && !a2awire.IsObject(f.Downstream) {
		return nil
	}
	first.Reason = "" // a 0.3 error has no ErrorInfo; its link's reason is in its data
	links := []Link{fields03(first, &f)}
	for a2awire.IsObject(f.Downstream) && len(links) < MaxLinks {
		var e struct {
			Code    json.RawMessage `json:"code"`
			Message json.RawMessage `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if json.Unmarshal(f.Downstream, &e) != nil {
			break
		}
		l := Link{Agent: a2awire.String(f.DownstreamAgent), Message: a2awire.String(e.Message)}
		l.Code, _ = a2awire.Int32(e.Code)
		f = linkRaw03{}
		if data := bytes.TrimSpace(e.Data); a2awire.IsObject(data) && json.Unmarshal(data, &f) == nil {
			l.Retryable, l.RetryAfter = hintOf(data)
		}
		links = append(links, fields03(l, &f))
	}
	return links
}

// fields03 adds the members of a link's 0.3 data to l.
func fields03(l Link, f *linkRaw03) Link {
	if a := a2awire.String(f.Agent); a != "" {
		l.Agent = a
	}
	l.Reason = a2awire.String(f.Reason)
	l.HTTPStatus, _ = a2awire.Int32(f.HTTPStatus)
	l.TaskID = a2awire.String(f.TaskID)
	l.State = a2a.TaskState(a2awire.String(f.State))
	l.TraceID = a2awire.String(f.TraceID)
	return l
}

// read10 reads a 1.0 chain whose first link is first and whose
// details are data: each ErrorInfo of the chain's reason and domain is a
// link. It returns nil when there is none.
func read10(first Link, data json.RawMessage) []Link {
	var entries []json.RawMessage
	if json.Unmarshal(data, &entries) != nil {
		return nil
	}
	var links []Link
	for _, raw := range entries {
		if len(links) == MaxLinks {
			break
		}
		var info struct {
			Reason   json.RawMessage `json:"reason"`
			Domain   json.RawMessage `json:"domain"`
			Metadata json.RawMessage `json:"metadata"`
		}
		if !a2awire.IsObject(bytes.TrimSpace(raw)) || json.Unmarshal(raw, &info) != nil ||
			a2awire.String(info.Reason) != linkReason || a2awire.String(info.Domain) != linkDomain {
			continue
		}
		var m map[string]json.RawMessage
		if a2awire.IsObject(bytes.TrimSpace(info.Metadata)) {
			_ = json.Unmarshal(info.Metadata, &m) // a malformed one reads as empty
		}
		l := Link{
			Agent:   a2awire.String(m["agent"]),
			Message: a2awire.String(m["message"]),
			Reason:  a2awire.String(m["reason"]),
			TaskID:  a2awire.String(m["taskId"]),
			State:   a2a.TaskState(a2awire.String(m["state"])),
			TraceID: a2awire.String(m["traceId"]),
		}
		l.Code, _ = atoi32(a2awire.String(m["code"]))
		l.HTTPStatus, _ = atoi32(a2awire.String(m["httpStatus"]))
		if a2awire.String(m["retryable"]) == "true" {
			l.Retryable = true
			l.RetryAfter, _ = a2awire.ProtoDuration(m["retryAfter"])
		}
		if links == nil {
			// The error object's own code, message and retry hint.
			l.Code, l.Message = first.Code, first.Message
			l.Retryable, l.RetryAfter = first.Retryable, first.RetryAfter
		}
		links = append(links, l)
	}
	return links
}

// atoi32 reads a decimal integer that fits in an int32, as metadata holds
// codes and statuses.
func atoi32(s string) (int, bool) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, false
	}
	return int(n), true
}

// hintOf reads the retry hint of a downstream error object's data as any
// client reads an error's ([a2a.RPCError.Retryable], RetryAfter).
func hintOf(data json.RawMessage) (bool, time.Duration) {
	e := &a2a.RPCError{Data: data}
	return e.Retryable(), e.RetryAfter()
}
