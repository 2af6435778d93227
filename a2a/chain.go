package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/a2astream/a2astream/internal/a2awire"
	"github.com/a2astream/a2astream/internal/clip"
)

// MaxChainLinks is the most links [ChainError] writes and [ChainOf] reads.
const MaxChainLinks = 8

// MaxChainData is the most bytes of data [ChainError] writes.
const MaxChainData = 4 << 10

// The ErrorInfo of a link in A2A 1.0.
const (
	chainDomain = "github.com/a2astream/a2astream"
	chainReason = "DOWNSTREAM_AGENT_ERROR"
)

// ChainLink is one agent's error in a chain of agents: the error an agent
// answered its caller with, and who that agent is. An agent that calls
// another agent, its downstream, and fails because that call failed
// answers its own caller with an error object that says so: [ChainError]
// writes it from the links, one per agent, its own first, and [ChainOf]
// reads them back out of the error its caller received, through any number
// of hops and whatever version each hop spoke. The zero value of each
// field means "not known".
type ChainLink struct {
	// Agent names the agent, by the name its caller gave it (an agent
	// names itself in the first link).
	Agent string
	// Code is the JSON-RPC error code the agent answered. It is 0 when the
	// agent answered no JSON-RPC error: its task ended unsuccessfully, its
	// HTTP server failed, or the connection to it did.
	Code int
	// Message is the error's message, or what went wrong when Code is 0.
	Message string
	// Reason is the 1.0 ErrorInfo reason of the agent's error, if it named
	// one ("TASK_NOT_FOUND").
	Reason string
	// HTTPStatus is the status of the HTTP response that carried the error,
	// when it was not a success.
	HTTPStatus int
	// TaskID and State are the agent's task and the state it ended in,
	// when the error concerns a task.
	TaskID string
	State  TaskState
	// Retryable reports whether the agent said its call may be made again,
	// and RetryAfter after how long (0: it did not say).
	Retryable  bool
	RetryAfter time.Duration
}

// ChainError writes links as an error object of version v: links[0] is the
// error of the agent that answers it (its Code, or [CodeInternalError] when
// that is 0, and its Message are the error's code and message, and its
// retry hint the error's), and each following link is the error of the
// agent the one before it called. An unknown version is written as 1.0.
// With no links, the result is a plain internal error.
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
// Each level's data also carries, when known, "reason", "taskId" and
// "state"; "agent" is always there, if empty, to mark the object as a link.
//
// In A2A 1.0 the data is the usual array of details: first the A2A
// ErrorInfo of the error's code (reason "INTERNAL_ERROR" for -32603, domain
// "a2a-protocol.org"), then a google.rpc.RetryInfo when the error is
// retryable ("retryDelay":"5s"), then one ErrorInfo per link, in order,
// with reason "DOWNSTREAM_AGENT_ERROR", domain
// "github.com/a2astream/a2astream" and the link in its string metadata:
// "agent", "downstreamAgent", "code", "message", "reason", "httpStatus",
// "taskId", "state", "retryable" ("true" or "false") and "retryAfter" (a
// protobuf Duration, "5s"). The first link's code and message are the
// error's own, so its metadata leaves them out.
//
// Only what the links hold is written, each link as [ChainLink.Bounded]
// gives it, and at most [MaxChainLinks] links: the deepest are dropped
// first, also until the data is at most [MaxChainData] bytes.
//
// Over HTTP+JSON, write the result with [MarshalHTTPError]: in 1.0 its A2A
// ErrorInfo comes first, so that [ParseHTTPError] reads it as the A2A error
// of its code (for a code A2A defines).
func ChainError(v Version, links []ChainLink) *RPCError {
	if len(links) == 0 {
		return &RPCError{Code: CodeInternalError, Message: codeNames[CodeInternalError]}
	}
	kept := make([]ChainLink, 0, min(len(links), MaxChainLinks))
	for _, l := range links[:min(len(links), MaxChainLinks)] {
		kept = append(kept, tidyLink(l))
	}
	if kept[0].Code == 0 {
		kept[0].Code = CodeInternalError
	}
	for {
		var data []byte
		if v == V03 {
			data = chainData03(kept)
		} else {
			data = chainData10(kept)
		}
		if len(data) <= MaxChainData || len(kept) == 1 {
			return &RPCError{Code: kept[0].Code, Message: kept[0].Message, Data: data}
		}
		kept = kept[:len(kept)-1]
	}
}

// ChainOf reads the chain the error err carries, when err is or wraps an
// [*RPCError]: for an error that [ChainError] wrote, in either version, its
// links in order; for any other error object, one link, without an Agent,
// with its code, message, 1.0 reason and retry hint. It returns nil when
// err is no *RPCError. The first link's code, message and retry hint are
// always the error object's own. Whatever the data holds, at most
// [MaxChainLinks] links are read, each as [ChainLink.Bounded] gives it;
// data that is not a chain, or not valid JSON, is read as no chain. So
// ChainOf(ChainError(v, links)) returns links as ChainError kept them.
func ChainOf(err error) []ChainLink {
	var e *RPCError
	if !errors.As(err, &e) || e == nil {
		return nil
	}
	retryable, after := retryHint(e.Data)
	first := ChainLink{Code: e.Code, Message: e.Message, Reason: e.Reason(), Retryable: retryable, RetryAfter: after}
	data := bytes.TrimSpace(e.Data)
	var links []ChainLink
	switch {
	case a2awire.IsObject(data):
		links = readChain03(first, data)
	case a2awire.IsArray(data):
		links = readChain10(first, data)
	}
	if links == nil {
		links = []ChainLink{first}
	}
	for i := range links {
		links[i] = tidyLink(links[i])
	}
	return links
}

// chainFields03 is a link's data in 0.3, as written.
type chainFields03 struct {
	Agent           string        `json:"agent"` // even "": it marks the object as a link
	DownstreamAgent string        `json:"downstreamAgent,omitempty"`
	Reason          string        `json:"reason,omitempty"`
	HTTPStatus      int           `json:"httpStatus,omitempty"`
	TaskID          string        `json:"taskId,omitempty"`
	State           TaskState     `json:"state,omitempty"`
	Retryable       bool          `json:"retryable"`
	RetryAfter      int64         `json:"retryAfter,omitempty"` // seconds
	Downstream      *chainError03 `json:"downstream,omitempty"`
}

// chainError03 is the error object of a downstream link in 0.3.
type chainError03 struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    *chainFields03 `json:"data"`
}

// chainData03 writes the data of a 0.3 chain: links[0]'s fields, with the
// rest nested under "downstream".
func chainData03(links []ChainLink) []byte {
	var next *chainError03
	for i := len(links) - 1; i >= 0; i-- {
		l := links[i]
		f := &chainFields03{Agent: l.Agent, Reason: l.Reason, HTTPStatus: l.HTTPStatus, TaskID: l.TaskID,
			State: l.State, Retryable: l.Retryable, RetryAfter: int64(l.RetryAfter / time.Second), Downstream: next}
		if i+1 < len(links) {
			f.DownstreamAgent = links[i+1].Agent
		}
		if i == 0 {
			b, _ := marshal(f) // strings, ints and bools only: cannot fail
			return b
		}
		next = &chainError03{Code: l.Code, Message: l.Message, Data: f}
	}
	return nil
}

// chainRaw03 is a link's data in 0.3, as read: every member raw, so that a
// member of the wrong type is skipped, not fatal.
type chainRaw03 struct {
	Agent           json.RawMessage `json:"agent"`
	DownstreamAgent json.RawMessage `json:"downstreamAgent"`
	Reason          json.RawMessage `json:"reason"`
	HTTPStatus      json.RawMessage `json:"httpStatus"`
	TaskID          json.RawMessage `json:"taskId"`
	State           json.RawMessage `json:"state"`
	Downstream      json.RawMessage `json:"downstream"`
}

// readChain03 reads a 0.3 chain whose first link is first and whose data
// is data. It returns nil when data is no chain: an object with neither an
// "agent" string (ChainError writes one in every link, empty when the link
// names no agent) nor a "downstream" object.
func readChain03(first ChainLink, data json.RawMessage) []ChainLink {
	var f chainRaw03
	if json.Unmarshal(data, &f) != nil || !a2awire.IsString(f.Agent) && !a2awire.IsObject(f.Downstream) {
		return nil
	}
	first.Reason = "" // a 0.3 error has no ErrorInfo; its link's reason is in its data
	links := []ChainLink{fields03(first, &f)}
	for a2awire.IsObject(f.Downstream) && len(links) < MaxChainLinks {
		var e struct {
			Code    json.RawMessage `json:"code"`
			Message json.RawMessage `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if json.Unmarshal(f.Downstream, &e) != nil {
			break
		}
		l := ChainLink{Agent: a2awire.String(f.DownstreamAgent), Message: a2awire.String(e.Message)}
		l.Code, _ = a2awire.Int32(e.Code)
		f = chainRaw03{}
		if data := bytes.TrimSpace(e.Data); a2awire.IsObject(data) && json.Unmarshal(data, &f) == nil {
			l.Retryable, l.RetryAfter = objectHint(data)
		}
		links = append(links, fields03(l, &f))
	}
	return links
}

// fields03 adds the members of a link's 0.3 data to l.
func fields03(l ChainLink, f *chainRaw03) ChainLink {
	if a := a2awire.String(f.Agent); a != "" {
		l.Agent = a
	}
	l.Reason = a2awire.String(f.Reason)
	l.HTTPStatus, _ = a2awire.Int32(f.HTTPStatus)
	l.TaskID = a2awire.String(f.TaskID)
	l.State = TaskState(a2awire.String(f.State))
	return l
}

// chainDetail10 is one entry of a 1.0 chain's details.
type chainDetail10 struct {
	Type       string            `json:"@type"`
	Reason     string            `json:"reason,omitempty"`
	Domain     string            `json:"domain,omitempty"`
	Metadata   map[string]string `json:"metadata,omitempty"`
	RetryDelay string            `json:"retryDelay,omitempty"`
}

// chainData10 writes the details of a 1.0 chain: the A2A ErrorInfo of the
// first link's code, a RetryInfo when it is retryable, and one ErrorInfo
// per link.
func chainData10(links []ChainLink) []byte {
	var details []chainDetail10
	if re, ok := a2awire.Rest(links[0].Code); ok {
		details = append(details, chainDetail10{Type: a2awire.ErrorInfoType, Reason: re.Reason, Domain: a2awire.Domain})
	}
	if links[0].Retryable {
		d := chainDetail10{Type: a2awire.RetryInfoType}
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
		if l.RetryAfter > 0 {
			put("retryAfter", durationText(l.RetryAfter))
		}
		details = append(details, chainDetail10{Type: a2awire.ErrorInfoType, Reason: chainReason, Domain: chainDomain, Metadata: m})
	}
	b, _ := marshal(details) // strings only: cannot fail
	return b
}

// durationText writes a delay of whole seconds as a protobuf Duration in
// JSON, "5s".
func durationText(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10) + "s"
}

// readChain10 reads a 1.0 chain whose first link is first and whose
// details are data: each ErrorInfo of the chain's reason and domain is a
// link. It returns nil when there is none.
func readChain10(first ChainLink, data json.RawMessage) []ChainLink {
	var entries []json.RawMessage
	if json.Unmarshal(data, &entries) != nil {
		return nil
	}
	var links []ChainLink
	for _, raw := range entries {
		if len(links) == MaxChainLinks {
			break
		}
		var info struct {
			Reason   json.RawMessage `json:"reason"`
			Domain   json.RawMessage `json:"domain"`
			Metadata json.RawMessage `json:"metadata"`
		}
		if !a2awire.IsObject(bytes.TrimSpace(raw)) || json.Unmarshal(raw, &info) != nil ||
			a2awire.String(info.Reason) != chainReason || a2awire.String(info.Domain) != chainDomain {
			continue
		}
		var m map[string]json.RawMessage
		if a2awire.IsObject(bytes.TrimSpace(info.Metadata)) {
			_ = json.Unmarshal(info.Metadata, &m) // a malformed one reads as empty
		}
		l := ChainLink{
			Agent:   a2awire.String(m["agent"]),
			Message: a2awire.String(m["message"]),
			Reason:  a2awire.String(m["reason"]),
			TaskID:  a2awire.String(m["taskId"]),
			State:   TaskState(a2awire.String(m["state"])),
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

// Bounded returns l as [ChainError] writes it and [ChainOf] reads it. A
// chain is meant to cross trust boundaries, so a link copies nothing of a
// downstream error's data as it came (which may hold request dumps,
// headers or tokens), and every link is made safe and small:
//
//   - its message is cut to 256 bytes, its agent name and reason to 64, on
//     a UTF-8 boundary and ending in "…"; control characters other than
//     newline and tab, and invalid UTF-8, read as U+FFFD;
//   - an agent name that is a URL ("https://user:pw@host/path?token=…") is
//     cut to its origin ("https://host"), and dropped when that does not
//     parse or is over 64 bytes; name agents by names, not URLs;
//   - a task ID over 256 bytes, or with control characters, is dropped
//     rather than cut into the ID of another task; a state is read as
//     [TaskState] spellings are (anything else is [StateUnknown]);
//   - an HTTP status outside 100…599 is dropped; a delay is kept only on a
//     retryable link, in whole seconds rounded up, at most [MaxRetryHint].
//
// A bounded link is its own bounded form. An agent that quotes a link's
// name or message elsewhere (in its own message) quotes the bounded one.
func (l ChainLink) Bounded() ChainLink { return tidyLink(l) }

// tidyLink bounds a link as [ChainLink.Bounded] documents it. It is
// idempotent: a tidy link is its own tidy form.
func tidyLink(l ChainLink) ChainLink {
	l.Agent = agentName(l.Agent)
	l.Message = clip.Text(cleanText(l.Message), clip.Message)
	l.Reason = clip.Text(cleanText(l.Reason), clip.Field)
	if len(l.TaskID) > clip.Message || cleanText(l.TaskID) != l.TaskID {
		l.TaskID = ""
	}
	if l.State != "" {
		l.State = parseState(string(l.State))
	}
	if l.HTTPStatus < 100 || l.HTTPStatus > 599 {
		l.HTTPStatus = 0
	}
	if !l.Retryable {
		l.RetryAfter = 0
	}
	// Rounded up after the bound: MaxRetryHint is whole seconds, so the
	// link's delay stays within it.
	l.RetryAfter = a2awire.Bound(l.RetryAfter)
	if r := l.RetryAfter % time.Second; r != 0 {
		l.RetryAfter += time.Second - r
	}
	return l
}

// agentName bounds the name of an agent: a URL is cut to its origin (no
// userinfo, path, query or fragment), and dropped when it does not parse or
// its origin is over 64 bytes; any other name is cut to 64 bytes.
func agentName(s string) string {
	s = cleanText(s)
	if !strings.Contains(s, "://") {
		return clip.Text(s, clip.Field)
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	origin := u.Scheme + "://" + u.Host
	if len(origin) > clip.Field {
		return ""
	}
	return origin
}

// cleanText replaces invalid UTF-8 and control characters other than
// newline and tab with U+FFFD, so that text quoted in a chain reads as text
// and escapes to at most twice its size in JSON.
func cleanText(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) && r != '\n' && r != '\t' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
}
