package a2atest

import (
	"encoding/json"

	"github.com/a2astream/a2astream/a2a"
)

// habits are the deviations of A2A servers outside the official SDKs that
// an agent can be built with. They apply to the JSON-RPC binding.
type habits struct {
	recordSeparator bool // every SSE data field starts with 0x1E
	snapshots       bool // every stream result is the whole task, untyped in 0.3
	cumulative      bool // one status message per turn, resent longer
	errorStatus     int  // the HTTP status of every plain JSON-RPC error; 0: 200
	inStreamFailure bool // a failed status goes out as a -32603 error event
	cardPath        string
	bareCard        bool
}

// WithRecordSeparator makes every SSE data field of a JSON-RPC stream start
// with an ASCII record separator (0x1E) before the JSON, as in RFC 7464 JSON
// text sequences: "data: \x1e{\"jsonrpc\":…}". Some servers outside the
// official SDKs frame their streams so.
func WithRecordSeparator() Option {
	return optionFunc(func(c *config) { c.habits.recordSeparator = true })
}

// WithSnapshotResults makes every result of a JSON-RPC stream the whole
// task as it stands after the event it replaces: a status update, an
// artifact chunk or a message of the script each go out as a Task, with no
// "kind" member in 0.3 (so with no "final" flag either), and as {"task":…}
// in 1.0. A stream still closes after a settling state. Some servers outside
// the official SDKs never send anything but snapshots.
func WithSnapshotResults() Option {
	return optionFunc(func(c *config) { c.habits.snapshots = true })
}

// WithCumulativeMessage makes the agent stream its answer as one agent
// status message per turn (the turn of the first message, then of each
// follow-up), resent longer at each step under one message ID, as some
// servers outside the official SDKs do. Every step of the script that
// carries text (a status message, an artifact chunk, a Say) appends its
// text to the turn's message and becomes a status update in the step's
// state (working for chunks and Say) carrying the message so far; no
// artifact is created. The task's history holds each turn's message once,
// in its latest version.
func WithCumulativeMessage() Option {
	return optionFunc(func(c *config) { c.habits.cumulative = true })
}

// WithErrorStatus sends every JSON-RPC error that is answered as plain JSON
// (not as an event of a stream) with HTTP status code instead of 200 and
// the usual JSON-RPC error body, as some servers do with 400. Codes outside
// 400–599 are ignored. It composes with [WithoutResubscribe]: the -32601 of
// a subscribe request then comes with this status too.
func WithErrorStatus(code int) Option {
	return optionFunc(func(c *config) {
		if code >= 400 && code <= 599 {
			c.habits.errorStatus = code
		}
	})
}

// WithInStreamFailure makes a JSON-RPC stream end a failed task with a
// JSON-RPC error event (-32603, internal error, carrying the status message
// as its message) in place of the failed status update, as servers do whose
// model failed: the task itself is failed, and get-task says so.
func WithInStreamFailure() Option {
	return optionFunc(func(c *config) { c.habits.inStreamFailure = true })
}

// WithCardPath serves the agent card only at path (for example
// "/.well-known/my-agent/agent-card.json"); the well-known paths answer 404.
func WithCardPath(path string) Option {
	return optionFunc(func(c *config) {
		if path != "" && path[0] == '/' {
			c.habits.cardPath = path
		}
	})
}

// WithBareCard serves a card with no protocolVersion, no preferredTransport
// and no supportedInterfaces: a name, a url (the JSON-RPC endpoint) and the
// capabilities, as some servers outside the official SDKs write it. A2A
// reads such a card as 0.3 JSON-RPC at its url, so the agent should speak
// 0.3 ([WithVersions]).
func WithBareCard() Option {
	return optionFunc(func(c *config) { c.habits.bareCard = true })
}

// WithWildHabits gives the agent every habit of the server in the wild that
// issue 12 of this project describes: a 0.3 JSON-RPC agent with
// [WithRecordSeparator], [WithSnapshotResults], [WithCumulativeMessage],
// [WithErrorStatus](400), [WithInStreamFailure], [WithoutResubscribe], and
// its card bare ([WithBareCard]) at "/.well-known/"+agentID+"/agent-card.json"
// only ([WithCardPath]). It sends no keep-alives (no agent of this package
// does); add a [Pause] to the script for its silences.
func WithWildHabits(agentID string) Option {
	return optionFunc(func(c *config) {
		for _, o := range []Option{
			WithVersions(a2a.V03), WithRecordSeparator(), WithSnapshotResults(), WithCumulativeMessage(),
			WithErrorStatus(400), WithInStreamFailure(), WithoutResubscribe(), WithBareCard(),
			WithCardPath("/.well-known/" + agentID + "/agent-card.json"),
		} {
			o.apply(c)
		}
	})
}

// untypedTask encodes t as a 0.3 result without its "kind" member.
func untypedTask(t *a2a.Task) ([]byte, error) {
	raw, err := a2a.Codec{Version: a2a.V03}.EncodeTask(t)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "kind")
	return json.Marshal(m)
}

// cumulative turns the steps of one turn into the steps of an agent that
// streams its answer as one growing status message with ID id: one step for
// each step, so that indexes stay the same.
func cumulative(steps []Step, id string) []Step {
	out := make([]Step, 0, len(steps))
	text := ""
	for _, s := range steps {
		switch s.kind {
		case stepStatus:
			text += s.text
			c := s
			c.text, c.msgID = text, id
			if text == "" {
				c.msgID = ""
			}
			out = append(out, c)
		case stepArtifact, stepSay, stepReply:
			if s.kind == stepArtifact {
				text += (&a2a.Message{Parts: s.artifact.Parts}).Text()
			} else {
				text += s.text
			}
			out = append(out, Step{kind: stepStatus, state: a2a.StateWorking, text: text, msgID: id, metadata: s.metadata})
		default:
			out = append(out, s)
		}
	}
	return out
}
