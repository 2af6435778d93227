package proxy

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// Kind says what an A2A request asks for, in either binding (JSON-RPC or
// HTTP+JSON) and either protocol version (0.3 or 1.0).
type Kind int

const (
	// Other is anything not listed below, or a request the proxy could not
	// read.
	Other Kind = iota
	// Card is a GET of an agent card's well-known path.
	Card
	// Send sends a message: message/send, message/stream, SendMessage,
	// SendStreamingMessage, or POST …/message:send and …/message:stream.
	Send
	// Poll fetches a task: tasks/get, GetTask, or GET …/tasks/{id}.
	Poll
	// Subscribe subscribes to a task: tasks/resubscribe, SubscribeToTask, or
	// …/tasks/{id}:subscribe.
	Subscribe
	// Cancel cancels a task: tasks/cancel, CancelTask, or POST
	// …/tasks/{id}:cancel.
	Cancel
)

func (k Kind) String() string {
	switch k {
	case Other:
		return "other"
	case Card:
		return "card"
	case Send:
		return "send"
	case Poll:
		return "poll"
	case Subscribe:
		return "subscribe"
	case Cancel:
		return "cancel"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Request describes one request the proxy forwarded (or dropped), in the
// order the requests arrived.
type Request struct {
	Kind   Kind
	Method string // the HTTP method
	Path   string // the request target as sent, query included
	// RPC is the JSON-RPC method, or "" for an HTTP+JSON request.
	RPC string
	// MessageID is the messageId of the message a Send carries.
	MessageID string
	// Drop is the drop the poll policy chose for a Poll, and Dropped
	// whether it acted.
	Drop    Drop
	Dropped bool
	// Status is the response's HTTP status code, 0 when no response head
	// reached the client.
	Status int
}

func (r Request) String() string {
	s := r.Kind.String() + " " + r.Method + " " + r.Path
	if r.RPC != "" {
		s += " " + r.RPC
	}
	if r.MessageID != "" {
		s += " msg=" + r.MessageID
	}
	if r.Drop.Action != Keep {
		s += " " + r.Drop.String()
		if !r.Dropped {
			s += "(not fired)"
		}
	}
	return s + " → " + strconv.Itoa(r.Status)
}

// maxParsedBody bounds the request body the proxy reads to classify a
// request; a bigger one is forwarded unread and counts as Other unless its
// path says what it is.
const maxParsedBody = 4 << 20

// reqHead is what the proxy reads from a request head.
type reqHead struct {
	method, target string
	contentLength  int64 // -1 when absent
	chunked        bool
}

// parseReqHead parses an HTTP/1.1 request head (up to and including the
// blank line). ok is false when it does not look like one.
func parseReqHead(b []byte) (h reqHead, ok bool) {
	lines := strings.Split(string(b), "\r\n")
	parts := strings.Fields(lines[0])
	if len(parts) != 3 || !strings.HasPrefix(parts[2], "HTTP/") {
		return h, false
	}
	h.method, h.target, h.contentLength = parts[0], parts[1], -1
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-length":
			if n, err := strconv.ParseInt(value, 10, 64); err == nil && n >= 0 {
				h.contentLength = n
			}
		case "transfer-encoding":
			h.chunked = strings.Contains(strings.ToLower(value), "chunked")
		}
	}
	return h, true
}

// classify fills in what a request asks for from its head and (when read)
// its body.
func classify(h reqHead, body []byte) Request {
	r := Request{Method: h.method, Path: h.target}
	path, _, _ := strings.Cut(h.target, "?")
	switch {
	case h.method == http.MethodGet && (strings.HasSuffix(path, "/.well-known/agent-card.json") || strings.HasSuffix(path, "/.well-known/agent.json")):
		r.Kind = Card
	case strings.HasSuffix(path, "/message:send") || strings.HasSuffix(path, "/message:stream"):
		r.Kind = Send
	case strings.HasSuffix(path, ":subscribe"):
		r.Kind = Subscribe
	case strings.HasSuffix(path, ":cancel"):
		r.Kind = Cancel
	case h.method == http.MethodGet && isTaskPath(path):
		r.Kind = Poll
	case h.method == http.MethodPost && len(body) > 0:
		var rpc struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &rpc) != nil || rpc.Method == "" {
			break
		}
		r.RPC = rpc.Method
		switch rpc.Method {
		case "message/send", "message/stream", "SendMessage", "SendStreamingMessage":
			r.Kind = Send
			body = rpc.Params
		case "tasks/get", "GetTask":
			r.Kind = Poll
		case "tasks/resubscribe", "SubscribeToTask":
			r.Kind = Subscribe
		case "tasks/cancel", "CancelTask":
			r.Kind = Cancel
		}
	}
	if r.Kind == Send {
		r.MessageID = messageID(body)
	}
	return r
}

// isTaskPath reports whether path ends in /tasks/{id}.
func isTaskPath(path string) bool {
	i := strings.LastIndexByte(path, '/')
	if i < 0 || strings.ContainsRune(path[i+1:], ':') || path[i+1:] == "" {
		return false
	}
	return strings.HasSuffix(path[:i], "/tasks")
}

// messageID returns the messageId of the message in a send request's
// params (JSON-RPC) or body (HTTP+JSON): {"message": {"messageId": …}}.
func messageID(params []byte) string {
	var p struct {
		Message struct {
			MessageID string `json:"messageId"`
		} `json:"message"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return p.Message.MessageID
}

// readRequest reads the first request of a connection from the client: its
// head and, when it has a Content-Length up to maxParsedBody, its body. It
// returns the bytes read (to forward as they are) and the parsed head, with
// ok false when what arrived is not a request head it can read.
func readRequest(conn interface{ Read([]byte) (int, error) }) (raw []byte, h reqHead, body []byte, ok bool, err error) {
	buf := make([]byte, 32<<10)
	end := -1
	for end < 0 {
		var n int
		n, err = conn.Read(buf)
		raw = append(raw, buf[:n]...)
		if i := bytes.Index(raw, []byte("\r\n\r\n")); i >= 0 {
			end = i + 4
			break
		}
		if err != nil || len(raw) > 64<<10 {
			return raw, h, nil, false, err
		}
	}
	h, ok = parseReqHead(raw[:end])
	if !ok || h.chunked || h.contentLength <= 0 || h.contentLength > maxParsedBody {
		return raw, h, nil, ok, nil
	}
	for int64(len(raw)-end) < h.contentLength && err == nil {
		var n int
		n, err = conn.Read(buf)
		raw = append(raw, buf[:n]...)
	}
	if int64(len(raw)-end) >= h.contentLength {
		body = raw[end : end+int(h.contentLength)]
	}
	return raw, h, body, ok, err
}
