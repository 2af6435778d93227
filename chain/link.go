package chain

import (
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/a2awire"
	"github.com/a2astream/a2astream/internal/clip"
)

// MaxLinks is the most links [Encode] writes and [Of] reads.
const MaxLinks = 8

// MaxData is the most bytes of data [Encode] writes.
const MaxData = 4 << 10

// The ErrorInfo of a link in A2A 1.0.
const (
	linkDomain = "github.com/a2astream/a2astream"
	linkReason = "DOWNSTREAM_AGENT_ERROR"
)

// Link is one agent's error in a chain of agents: the error an agent
// answered its caller with, and who that agent is. An agent that calls
// another agent, its downstream, and fails because that call failed
// answers its own caller with an error object that says so: [Error] builds
// it from how the call ended, [Encode] writes it from links, one per agent,
// its own first, and [Of] reads them back out of the error its caller
// received, through any number of hops and whatever version each hop
// spoke. The zero value of each field means "not known".
type Link struct {
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
	State  a2a.TaskState
	// Retryable reports whether the agent said its call may be made again,
	// and RetryAfter after how long (0: it did not say).
	Retryable  bool
	RetryAfter time.Duration
	// TraceID is the W3C trace ID of the trace the agent's work was part
	// of (32 lowercase hexadecimal digits, as in a traceparent header),
	// when it gave one ([ErrorInTrace]): an operator finds the agent's
	// spans by it. Nothing else is ever kept here: [Link.Bounded] drops a
	// value of any other form, or all zeros.
	TraceID string
}

// Bounded returns l as [Encode] writes it and [Of] reads it. A chain is
// meant to cross trust boundaries, so a link copies nothing of a
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
//     [a2a.TaskState] spellings are (anything else is [a2a.StateUnknown]);
//   - a trace ID that is not 32 lowercase hexadecimal digits, or is all
//     zeros, is dropped;
//   - an HTTP status outside 100…599 is dropped; a delay is kept only on a
//     retryable link, in whole seconds rounded up, at most
//     [a2a.MaxRetryHint].
//
// A bounded link is its own bounded form. An agent that quotes a link's
// name or message elsewhere (in its own message) quotes the bounded one.
func (l Link) Bounded() Link { return tidy(l) }

// tidy bounds a link as [Link.Bounded] documents it. It is idempotent: a
// tidy link is its own tidy form.
func tidy(l Link) Link {
	l.Agent = agentName(l.Agent)
	l.Message = clip.Text(cleanText(l.Message), clip.Message)
	l.Reason = clip.Text(cleanText(l.Reason), clip.Field)
	if len(l.TaskID) > clip.Message || cleanText(l.TaskID) != l.TaskID {
		l.TaskID = ""
	}
	if l.State != "" {
		l.State = a2a.TaskState(a2awire.State(string(l.State)))
	}
	if !validTraceID(l.TraceID) {
		l.TraceID = ""
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

// validTraceID reports whether s is a W3C trace ID: 32 lowercase
// hexadecimal digits, not all zero.
func validTraceID(s string) bool {
	if len(s) != 32 {
		return false
	}
	zero := true
	for i := range len(s) {
		c := s[i]
		switch {
		case c == '0':
		case c >= '1' && c <= '9', c >= 'a' && c <= 'f':
			zero = false
		default:
			return false
		}
	}
	return !zero
}
