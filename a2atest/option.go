package a2atest

import (
	"bytes"
	"slices"

	"github.com/a2astream/a2astream/a2a"
)

// Option configures an [Agent]. Options are applied in order, so when two set
// the same thing the last one wins.
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	v03, v10      bool
	styles        []ResubscribeStyle
	script        []Step
	scriptFunc    func(*a2a.Message) []Step
	faults        []Fault
	getFaults     []Fault
	sendFaults    []Fault
	tenant        string
	unaryCT       string
	stayOpen      bool
	cardJSON      []byte
	noWellKnown   bool
	name          string
	noStreaming   bool
	noResubscribe bool
}

func defaultConfig() config {
	return config{
		v10:     true,
		styles:  []ResubscribeStyle{SnapshotFirst},
		script:  DefaultScript(),
		unaryCT: "application/json",
		name:    "a2atest agent",
	}
}

// DefaultScript returns the script an [Agent] runs when no [WithScript] or
// [WithScriptFunc] is given: working, an artifact "a1" in two chunks
// ("hello " then "world", the second appended and last), then completed. No
// step pauses, so the whole task is done the instant it is created.
func DefaultScript() []Step {
	return []Step{
		Working(""),
		Chunk("a1", "hello ", false, false),
		Chunk("a1", "world", true, true),
		Finish(a2a.StateCompleted, ""),
	}
}

// WithVersions sets the protocol versions the agent speaks (default: only
// [a2a.V10]). It decides both the agent card and which JSON-RPC method names
// are accepted: a method of a version the agent does not speak gets
// -32601 (method not found). Unsupported values are ignored; if none remain
// the option has no effect.
func WithVersions(vs ...a2a.Version) Option {
	return optionFunc(func(c *config) {
		var v03, v10 bool
		for _, v := range vs {
			switch v {
			case a2a.V03:
				v03 = true
			case a2a.V10:
				v10 = true
			}
		}
		if v03 || v10 {
			c.v03, c.v10 = v03, v10
		}
	})
}

// WithStyle sets how the agent answers every tasks/resubscribe and
// SubscribeToTask request (default [SnapshotFirst]). It is
// WithStyles(s), and replaces any earlier [WithStyles].
func WithStyle(s ResubscribeStyle) Option { return WithStyles(s) }

// WithStyles gives each subscribe request (tasks/resubscribe,
// SubscribeToTask) its own [ResubscribeStyle], like a load balancer in front
// of servers that behave differently: the first subscribe request the agent
// receives is answered in styles[0], the second in styles[1], and so on; once
// the list is used up, every later one is answered in the last style (there
// is no cycling). Requests are counted in arrival order across all tasks,
// including ones that are then refused or whose answer a [Fault] replaces,
// as [WithFaults] counts them; [Request.Style] records the style each one
// got. Sends, follow-ups and get-task requests do not count.
//
// With no styles the option has no effect. A value that is not one of the
// defined styles is answered as [SnapshotFirst]. It replaces any earlier
// [WithStyle].
func WithStyles(styles ...ResubscribeStyle) Option {
	styles = slices.Clone(styles)
	return optionFunc(func(c *config) {
		if len(styles) > 0 {
			c.styles = styles
		}
	})
}

// WithScript sets the script every new task runs, replacing
// [DefaultScript] and any earlier [WithScriptFunc].
func WithScript(steps ...Step) Option {
	steps = slices.Clone(steps)
	return optionFunc(func(c *config) { c.script, c.scriptFunc = steps, nil })
}

// WithScriptFunc makes the agent choose each new task's script by calling f
// with (a copy of) the first user message. It replaces any earlier
// [WithScript]. f may be called concurrently.
func WithScriptFunc(f func(msg *a2a.Message) []Step) Option {
	return optionFunc(func(c *config) { c.scriptFunc = f })
}

// WithFaults sets faults for streaming requests (message/stream,
// SendStreamingMessage, tasks/resubscribe, SubscribeToTask) in arrival order:
// fs[0] applies to the first such request the agent receives, fs[1] to the
// second, and so on; later requests get none. A zero [Fault] in the list
// leaves its request alone. Every request whose method name is a streaming
// method of either version counts, even one that is then refused (by
// [WithoutStreaming] or [WithoutResubscribe], say).
//
// Each kind of request has its own list, counted on its own: streaming
// requests take theirs from WithFaults, unary sends from [WithSendFaults],
// get-task requests from [WithGetFaults]; cancel requests get none. See
// [RandomFaults] for a long list drawn at random.
func WithFaults(fs ...Fault) Option {
	fs = slices.Clone(fs)
	return optionFunc(func(c *config) { c.faults = fs })
}

// WithGetFaults is [WithFaults] for get-task requests (tasks/get, GetTask):
// the polls of a client that cannot stream, or that recovers a lost stream.
// [HTTPStatus] (a 503, say), [Drop], [CutAfterBytes] and [Hang] make a poll
// fail the ways a network and a busy server do; the task runs on whatever
// happens to the poll.
func WithGetFaults(fs ...Fault) Option {
	fs = slices.Clone(fs)
	return optionFunc(func(c *config) { c.getFaults = fs })
}

// WithSendFaults is [WithFaults] for unary sends (message/send,
// SendMessage), of new messages and follow-ups alike, blocking or not. A
// fault that replaces the answer ([HTTPStatus], [RPCError], [Hang], [Drop])
// means that the agent never took the message: no task is created and no
// follow-up is consumed. A fault that damages the answer ([CutAfterEvents],
// [CloseAfterEvents], [CutAfterBytes], [Drip]) lets the send do its work, so
// the task exists and runs although the client may never learn of it: the
// case where a client must not send the message again. For a blocking send
// the damage falls on the answer sent when the task settles.
func WithSendFaults(fs ...Fault) Option {
	fs = slices.Clone(fs)
	return optionFunc(func(c *config) { c.sendFaults = fs })
}

// WithTenant sets the tenant of the agent card's 1.0 interface. The agent
// records the tenant each request carries ([Request.Tenant]) but does not
// enforce it.
func WithTenant(t string) Option {
	return optionFunc(func(c *config) { c.tenant = t })
}

// WithUnaryContentType sets the Content-Type of unary JSON responses and of
// errors sent as plain JSON (default "application/json"). The empty string
// sets none, so the transport sniffs the body as net/http would and the
// client sees "text/plain; charset=utf-8", as a2a-go's server sends.
func WithUnaryContentType(ct string) Option {
	return optionFunc(func(c *config) { c.unaryCT = ct })
}

// WithStayOpenOnInterrupt makes a subscription (in [SnapshotFirst] style) to
// an interrupted task stay open after its Task snapshot instead of closing,
// as @a2a-js/sdk 1.x does: when a follow-up message arrives, the stream
// carries the follow-up's Task event (still input-required) and the next
// turn, and it closes only when the task reaches a terminal state. Clients
// must therefore act on an interrupted state without waiting for EOF.
func WithStayOpenOnInterrupt() Option {
	return optionFunc(func(c *config) { c.stayOpen = true })
}

// WithCardJSON makes the agent serve b, verbatim and as application/json, as
// its agent card, instead of the card it would build. Use it to test clients
// against malformed or hostile cards.
func WithCardJSON(b []byte) Option {
	b = bytes.Clone(b)
	return optionFunc(func(c *config) { c.cardJSON = b })
}

// WithoutWellKnownCard makes the agent serve its card only at the legacy
// path /.well-known/agent.json; /.well-known/agent-card.json answers 404.
func WithoutWellKnownCard() Option {
	return optionFunc(func(c *config) { c.noWellKnown = true })
}

// WithName sets the agent card's name (default "a2atest agent").
func WithName(name string) Option {
	return optionFunc(func(c *config) { c.name = name })
}

// WithoutStreaming makes the agent one that cannot stream, served the way
// @a2a-js/sdk (0.3.14 and 1.3.0) serves an agent whose card says
// capabilities.streaming: false. Its card says "streaming": false, and
// every streaming method (message/stream, SendStreamingMessage,
// tasks/resubscribe, SubscribeToTask) is refused with -32004 (unsupported
// operation) as plain JSON with HTTP 200, whatever its message or task:
//
//   - 0.3: "Unsupported operation: Method message/stream requires streaming
//     capability." (or tasks/resubscribe);
//   - SendStreamingMessage: "Streaming is not supported.";
//   - SubscribeToTask: "Streaming (and thus resubscription) is not
//     supported.", with the 1.0 ErrorInfo (reason UNSUPPORTED_OPERATION).
//
// The refusal comes after the envelope checks (malformed JSON, unknown
// method, missing A2A-Version header, missing params) and before any
// other. Unary sends, get-task and cancel work as usual, so clients send
// with message/send or SendMessage and poll with tasks/get or GetTask.
// Refused streaming requests still count toward [WithFaults] and
// [WithStyles], and a fault that replaces the answer replaces the refusal.
func WithoutStreaming() Option {
	return optionFunc(func(c *config) { c.noStreaming = true })
}

// WithoutResubscribe makes the agent one that streams but has no
// resubscribe method: tasks/resubscribe and SubscribeToTask are answered
// -32601 (method not found) as plain JSON with HTTP 200, exactly as a
// method the agent does not know ("method not found: tasks/resubscribe"),
// whatever the task's state and before the A2A-Version header and the
// params are checked. Streaming sends work as usual, so a client that
// loses a stream must recover with get-task (tasks/get, GetTask).
//
// Refused subscribe requests still count toward [WithFaults] and
// [WithStyles], and a fault that replaces the answer replaces the refusal.
// Given together with [WithoutStreaming], subscribe requests get -32601, not
// -32004: a method that does not exist is refused before an ability is
// checked.
func WithoutResubscribe() Option {
	return optionFunc(func(c *config) { c.noResubscribe = true })
}
