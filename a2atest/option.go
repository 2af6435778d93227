package a2atest

import (
	"bytes"
	"net/http"
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
	newTaskFault  Fault
	tenant        string
	unaryCT       string
	stayOpen      bool
	cardJSON      []byte
	noWellKnown   bool
	name          string
	noStreaming   bool
	noResubscribe bool
	bindings      []a2a.Binding // served, in the card's order
	jsonrpc, rest bool          // whether bindings holds each
	restBase      string        // restBasePath form
	habits        habits        // of servers outside the official SDKs; see wild.go
	push          bool          // WithPush: the agent takes webhooks and pushes
	pushClient    *http.Client  // what makes the pushes' POSTs
	pushFaults    []PushFault
}

func defaultConfig() config {
	return config{
		v10:        true,
		styles:     []ResubscribeStyle{SnapshotFirst},
		script:     DefaultScript(),
		unaryCT:    "application/json",
		name:       "a2atest agent",
		bindings:   []a2a.Binding{a2a.BindingJSONRPC},
		jsonrpc:    true,
		restBase:   "/",
		pushClient: &http.Client{},
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
// [a2a.V10]). It decides the agent card, which JSON-RPC method names are
// accepted (a method of a version the agent does not speak gets -32601,
// method not found) and which HTTP+JSON routes are served (see
// [WithBindings]). Unsupported values are ignored; if none remain
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
// SendStreamingMessage, tasks/resubscribe, SubscribeToTask, and their
// HTTP+JSON routes message:stream and tasks/{id}:subscribe) in arrival
// order: fs[0] applies to the first such request the agent receives, fs[1]
// to the second, and so on; later requests get none. A zero [Fault] in the
// list leaves its request alone. Every request whose method name is a
// streaming method of either version, or whose path and HTTP method are a
// streaming route, counts, even one that is then refused (by
// [WithoutStreaming] or [WithoutResubscribe], say, or for a bad body).
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

// WithNewTaskFault gives f to every streaming send of a new message (one
// without a task ID), the request that starts a task, so that each
// conversation with the agent meets it, however many came before: a demo
// whose every answer is cut half-way, say. Those sends then take no fault
// from [WithFaults] and do not count toward it; resubscribes and the
// streaming sends of follow-ups still do.
func WithNewTaskFault(f Fault) Option {
	return optionFunc(func(c *config) { c.newTaskFault = f })
}

// WithSendFaults is [WithFaults] for unary sends (message/send,
// SendMessage), of new messages and follow-ups alike, blocking or not. A
// fault that replaces the answer ([HTTPStatus], [RPCError], [Hang], [Drop])
// means that the agent never took the message: no task is created and no
// follow-up is consumed. A fault that damages the answer ([CutAfterBytes],
// [Drip], and [CutAfterEvents] or [CloseAfterEvents] with n = 0: the answer
// is plain JSON, with no events to count) lets the send do its work, so the
// task exists and runs although the client may never learn of it: the case
// where a client must not send the message again. For a blocking send the
// damage falls on the answer sent when the task settles.
func WithSendFaults(fs ...Fault) Option {
	fs = slices.Clone(fs)
	return optionFunc(func(c *config) { c.sendFaults = fs })
}

// WithTenant sets the tenant of the agent card's 1.0 interfaces. The agent
// records the tenant each request carries ([Request.Tenant]: params.tenant
// over JSON-RPC, the tenant path segment over HTTP+JSON) but does not
// enforce it.
func WithTenant(t string) Option {
	return optionFunc(func(c *config) { c.tenant = t })
}

// WithUnaryContentType sets the Content-Type of unary JSON-RPC responses
// and of JSON-RPC errors sent as plain JSON (default "application/json"). The empty string
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
// Over HTTP+JSON the refusal is an HTTP 400; see [WithBindings].
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
// checked. Over HTTP+JSON the subscribe routes answer 404, as routes the
// server lacks; see [WithBindings].
func WithoutResubscribe() Option {
	return optionFunc(func(c *config) { c.noResubscribe = true })
}

// WithBindings sets the protocol bindings the agent serves, in the order its
// card lists them, the first being the preferred one (default: only
// [a2a.BindingJSONRPC]). The bindings are [a2a.BindingJSONRPC] and
// [a2a.BindingHTTPJSON] (HTTP+JSON, or REST); any other value is ignored,
// and so is a repeated one; if none remain the option has no effect.
//
// The agent serves only the bindings given, in every version it speaks
// ([WithVersions]), so that a client must use what the card says: an
// agent built WithBindings(a2a.BindingHTTPJSON) answers a JSON-RPC POST
// with 404, as a REST-only server does.
//
// The HTTP+JSON binding is served as the restHandler of @a2a-js/sdk serves
// it, 0.3.14 for A2A 0.3 and 1.3.0 for A2A 1.0, under the path set by
// [WithRESTBase] ({base}, "/" by default):
//
//   - 0.3: POST {base}/v1/message:send and {base}/v1/message:stream, GET
//     {base}/v1/tasks/{id}, POST {base}/v1/tasks/{id}:cancel, and GET or
//     POST {base}/v1/tasks/{id}:subscribe. Bodies, results and events are
//     the proto-JSON of the v0.3 proto (a message's parts under "content",
//     ROLE_USER, TASK_STATE_WORKING, "final" on settling status updates);
//     a send's message must have the role ROLE_USER or ROLE_AGENT, or it is
//     refused with 400 "Invalid role: -1" as a message in the JSON-RPC shape
//     is, and parts under "parts" are not read (the agent takes the
//     message without them, as 0.3.14 does). A send with a configuration that lacks "blocking": true does not
//     block: the proto's bool defaults to false, as @a2a-js/sdk 0.3.14 and
//     the proto decoders of the other SDKs read it. Errors are the bare
//     {"code","message"} as application/json, with 0.3.14's statuses (404
//     task not found, 409 not cancelable, 400 invalid params and
//     unsupported operation; see [a2a.MarshalHTTPError]). A send answers
//     201 Created and a cancel 202 Accepted, as 0.3.14 does.
//   - 1.0: the same operations without the /v1: POST {base}/message:send,
//     {base}/message:stream, GET {base}/tasks/{id}, POST
//     {base}/tasks/{id}:cancel, GET or POST {base}/tasks/{id}:subscribe;
//     each also under {base}/{tenant}/…, whose tenant is recorded in
//     [Request.Tenant]. Every request needs the header "A2A-Version: 1.0",
//     or it gets 400 FAILED_PRECONDITION, reason VERSION_NOT_SUPPORTED.
//     Bodies are the 1.0 JSON; errors are google.rpc.Status bodies as
//     application/a2a+json (404 NOT_FOUND for an unknown task, 400
//     FAILED_PRECONDITION for the other A2A errors, 400 INVALID_ARGUMENT
//     for bad requests). Every answer is 200 OK.
//
// A get's Task has its history trimmed as the query parameter
// historyLength asks, and as the SDKs do without it: 0.3.14 then sends no
// history at all (js-0.3.14-rest-get.json), 1.3.0 all of it.
//
// A 1.0 request needs a JSON Content-Type (application/json or
// application/a2a+json; any other is refused with 400
// CONTENT_TYPE_NOT_SUPPORTED); a 0.3 body of another type is read as empty,
// as express's body parser does. A send without a message or without a
// messageId gets 400 invalid params.
//
// Streams carry one bare StreamResponse per SSE data line ({"task"},
// {"statusUpdate"}, {"artifactUpdate"} or {"message"}). A streaming request
// refused before its first event gets an HTTP error, never an error event:
// an unknown task is 404, a subscription to a terminal task is 400
// FAILED_PRECONDITION / UNSUPPORTED_OPERATION in 1.0, while in 0.3 it gets
// the Task and the stream ends, as the SDKs do. An error in the middle of a
// stream is an "event: error" whose data is the error body. A path under
// the base that matches no route gets express's 404 page.
//
// A hybrid agent (both versions) serves the 0.3 routes under {base}/v1/ to
// requests whose A2A-Version header is absent or below 1.0, and every other
// request through the 1.0 routes (where "v1" is a tenant), as @a2a-js/sdk
// 1.3.0 does with its legacyCompat on.
//
// The card lists the bindings in the given order: in 1.0, one
// supportedInterfaces entry per binding and version; in 0.3, the first
// binding as url and preferredTransport, and when there are several, all of
// them in additionalInterfaces (the 0.3 AgentCard's guidance: "SHOULD
// include all supported transports", "SHOULD include an entry matching the
// main 'url' and 'preferredTransport'").
//
// Faults, styles and abilities work over HTTP+JSON as over JSON-RPC, and
// the requests of both bindings count toward the same lists. [RPCError]
// faults send the error body of the binding: [ErrorAsJSON] with the HTTP
// status of its code, [ErrorAsEvent] and [ErrorAsErrorEvent] as the only
// event of a 200 stream. [WithoutStreaming] refuses message:stream and
// subscribe with 400 and the message of @a2a-js/sdk ("Unsupported
// operation: Agent does not support streaming" in 0.3.14; "Streaming is not
// supported." and "Streaming (and thus resubscription) is not supported."
// in 1.3.0). [WithoutResubscribe] takes the subscribe routes away: they get
// express's 404 page, the answer of a server that has no such route (the
// HTTP+JSON counterpart of -32601). [WithUnaryContentType] does not apply.
func WithBindings(bs ...a2a.Binding) Option {
	var keep []a2a.Binding
	for _, b := range bs {
		if p, ok := a2a.ParseBinding(string(b)); ok && (p == a2a.BindingJSONRPC || p == a2a.BindingHTTPJSON) && !slices.Contains(keep, p) {
			keep = append(keep, p)
		}
	}
	return optionFunc(func(c *config) {
		if len(keep) > 0 {
			c.bindings = slices.Clone(keep)
			c.jsonrpc = slices.Contains(keep, a2a.BindingJSONRPC)
			c.rest = slices.Contains(keep, a2a.BindingHTTPJSON)
		}
	})
}

// WithRESTBase sets the path under which the agent serves the HTTP+JSON
// binding (default "/"), which is also the path of the card's HTTP+JSON
// interfaces: WithRESTBase("/rest") serves POST /rest/message:send and
// lists "http://"+host+"/rest". Leading and trailing slashes do not
// matter. It has no effect unless [WithBindings] includes
// [a2a.BindingHTTPJSON].
func WithRESTBase(path string) Option {
	return optionFunc(func(c *config) { c.restBase = restBasePath(path) })
}

// WithPush makes an agent that supports push notifications, as
// @a2a-js/sdk does with a push store and sender: its card says
// capabilities.pushNotifications, it takes a webhook in a send's
// configuration (1.0 taskPushNotificationConfig, 0.3
// pushNotificationConfig, over JSON-RPC and HTTP+JSON) and by the
// push-config calls (1.0 CreateTaskPushNotificationConfig and its Get,
// List and Delete, with their HTTP+JSON routes; 0.3
// tasks/pushNotificationConfig/set, get, list and delete over JSON-RPC),
// and POSTs each event of the task, from the one after the webhook's
// registration on (from the task's first for a webhook in the send), to
// every webhook of the task: in 1.0 the event as a StreamResponse
// (application/a2a+json), in 0.3 the whole Task after it
// (application/json), with the webhook's token in
// X-A2A-Notification-Token (a 1.0 webhook with an authentication sends
// "Authorization: <scheme> <credentials>" instead). A task's pushes go one
// at a time, in order, each tried once, whatever the answer: one that
// fails is lost for that webhook. [WithPushFaults] loses, repeats, delays
// and reorders them; [Agent.Pushes] reports them.
//
// An agent without WithPush answers the push-config calls -32003 (push
// notifications not supported; over HTTP+JSON 400) and ignores a webhook
// in a send, as the SDKs do.
//
// An agent with pushes runs a goroutine per task that has webhooks, until
// the task ends: [Agent.Close] stops them.
func WithPush() Option {
	return optionFunc(func(c *config) { c.push = true })
}

// WithPushClient sets what POSTs the agent's push notifications (nil keeps
// the default:
// an http.Client of its own, each POST bounded to 5 seconds as the SDK's
// sender bounds it). [NewClient] of an http.Handler (a push receiver)
// delivers them in-process, inside a testing/synctest bubble too.
func WithPushClient(hc *http.Client) Option {
	return optionFunc(func(c *config) {
		if hc != nil {
			c.pushClient = hc
		}
	})
}

// WithPushFaults gives the agent's push notifications faults: fs apply to
// the POSTs the agent makes, counted from 1 across all its tasks and
// webhooks (see [PushFault]).
func WithPushFaults(fs ...PushFault) Option {
	fs = slices.Clone(fs)
	return optionFunc(func(c *config) { c.pushFaults = fs })
}
