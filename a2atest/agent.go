package a2atest

import (
	"context"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/clip"
)

// Agent is a scriptable fake A2A agent: an [http.Handler] that speaks A2A
// 0.3 and/or 1.0 over JSON-RPC 2.0 and/or HTTP+JSON (see [WithVersions] and
// [WithBindings]), streams tasks over SSE and misbehaves on demand. It is
// safe for concurrent use.
//
// Every new task runs the agent's script (see [Step]), which becomes a
// timeline of events with due times when the task is created. The agent has
// no goroutines of its own: the task's state at any moment is the fold of the
// events due by then, and a handler that streams waits for each event's due
// time on a timer (a fake one inside a synctest bubble). Streams dying does
// not stop tasks, and several streams may follow one task.
//
// What follows describes the JSON-RPC binding; the HTTP+JSON binding does
// the same work with the routes, shapes and statuses described at
// [WithBindings]. JSON-RPC requests are POSTed to any path (but the
// HTTP+JSON routes, when both bindings are served). The method name decides
// the dialect: message/send, message/stream, tasks/get, tasks/cancel and
// tasks/resubscribe are 0.3; SendMessage, SendStreamingMessage, GetTask,
// CancelTask and SubscribeToTask are 1.0. The agent answers:
//
//   - -32700 for malformed JSON, -32600 for a request without a method,
//     -32601 for an unknown method or one of a version it does not speak,
//     -32009 for a 1.0 method without the header "A2A-Version: 1.0" (as
//     @a2a-js/sdk does), -32602 for missing params or message; all as plain
//     JSON.
//   - Streaming send of a new message: the initial Task (submitted, with the
//     user message in its history), then each event as it falls due; the
//     stream closes after a terminal, input-required or auth-required status.
//     0.3 status updates carry final: true on those states.
//   - Streaming send of a follow-up (message.taskId set): -32001 for an
//     unknown task (an SSE event in 0.3, plain JSON in 1.0); for a terminal
//     task -32602 as an SSE event in 0.3 (a2a-go) and -32004 as plain JSON in
//     1.0; -32004 as plain JSON when the task is not waiting for input. An
//     input-required task takes the message into its history and runs the
//     rest of its script; in 1.0 the stream first repeats the Task as it was
//     before the follow-up (still input-required, as @a2a-js/sdk does).
//   - Unary send (message/send, SendMessage), of a new message or a
//     follow-up, does the same work and refuses the same follow-ups (as plain
//     JSON), but answers with one result: the Task (0.3: the bare Task with
//     kind; 1.0: {"task": …}), or the Message of a [Reply] script. A blocking
//     send (the default in both versions, as in their SDKs) answers when the
//     task settles: with the task as of the first terminal, input-required
//     or auth-required status, or as of the last event once the script has
//     run out without one (as @a2a-js/sdk answers when its executor
//     returns). A non-blocking send (0.3: configuration.blocking: false;
//     1.0: configuration.returnImmediately: true; each version reads only
//     its own field) answers at once with the Task as of its arrival: every
//     event due then is applied, so the steps before the script's first
//     Pause have happened ([DefaultScript]'s task is already completed; a
//     script that starts with a Pause answers submitted, as @a2a-js/sdk
//     does). Either way the script runs on on the agent's clock, and
//     get-task shows its progress.
//   - Subscribe (tasks/resubscribe, SubscribeToTask): -32001 for an unknown
//     task (an SSE event in 0.3, plain JSON in 1.0), then as the request's
//     [ResubscribeStyle] says (see [WithStyle] and [WithStyles]).
//   - Get (tasks/get, GetTask): the bare Task as of now; -32001 if unknown.
//   - Cancel (tasks/cancel, CancelTask): a canceled status is added now and
//     the rest of the script is dropped, and the Task is returned; -32002 for
//     a terminal task, -32001 for an unknown one.
//
// An agent built [WithoutStreaming] answers every streaming method (send or
// subscribe) with -32004 as plain JSON, as @a2a-js/sdk does when its card
// says streaming: false. One built [WithoutResubscribe] answers
// tasks/resubscribe and SubscribeToTask -32601, as a method it does not
// know.
//
// GET /.well-known/agent-card.json and /.well-known/agent.json serve the
// agent card, built for the versions and bindings served with
// "http://"+Host+"/" as the JSON-RPC endpoint (see [Agent.Card]).
type Agent struct {
	cfg config

	mu       sync.Mutex
	requests []Request
	tasks    map[string]*task
	order    []string
	nStream  int
	nSub     int
	nGet     int
	nSend    int
	nCards   int

	// Push notifications (push.go): what was pushed, the count of POSTs
	// for PushFaults, and the pushers' end.
	pushes   []Push
	nPush    int
	closed   bool
	closing  <-chan struct{}
	closeCtx context.Context
	stopAll  context.CancelFunc
	pushers  sync.WaitGroup
}

// Request is one request the agent received, in either binding, as
// recorded by [Agent.Requests].
type Request struct {
	// Method is the JSON-RPC method, e.g. "message/stream" or
	// "SubscribeToTask"; empty if the body was not a JSON-RPC request. A
	// request of the HTTP+JSON binding is recorded under the JSON-RPC name
	// of its operation in its version (POST /v1/message:stream as
	// "message/stream", GET /tasks/{id} as "GetTask", and so on), and
	// with an empty Method if it matches no route.
	Method string
	// Binding is the binding the request came in: [a2a.BindingJSONRPC] or
	// [a2a.BindingHTTPJSON].
	Binding a2a.Binding
	// HTTPMethod and Path are the request's HTTP method and URL path, as
	// received (Path unescaped).
	HTTPMethod, Path string
	// Version is the A2A-Version header as received, "" if none.
	Version string
	// Header is a copy of the request's header.
	Header http.Header
	// TaskID is params.id, or params.message.taskId for sends; over
	// HTTP+JSON, the task ID of the path, or the message's taskId.
	TaskID string
	// Tenant is params.tenant. Over HTTP+JSON (1.0 only) it is the path's
	// tenant segment, or failing that the body's "tenant" for a send and
	// the query parameter "tenant" otherwise.
	Tenant string
	// Message is the decoded params.message of a send, nil otherwise.
	Message *a2a.Message
	// NonBlocking is set for a unary send (message/send, SendMessage) that
	// asked to be answered at once: params.configuration.blocking: false in
	// 0.3, params.configuration.returnImmediately: true in 1.0 (over
	// HTTP+JSON in 0.3, a configuration without blocking: true; see
	// [WithBindings]). It is false for every other request.
	NonBlocking bool
	// Fault is the fault applied to this request; zero if none.
	Fault Fault
	// Style is the style a subscribe request (tasks/resubscribe,
	// SubscribeToTask) was given (see [WithStyles]), even if it was then
	// refused or its answer was replaced by its Fault; zero for every other
	// request.
	Style ResubscribeStyle
}

func (r Request) clone() Request {
	r.Header = r.Header.Clone()
	r.Message = r.Message.Clone()
	return r
}

// NewAgent returns an agent configured by opts. By default it speaks only
// A2A 1.0, runs [DefaultScript], answers every resubscribe in the
// [SnapshotFirst] style and applies no faults.
func NewAgent(opts ...Option) *Agent {
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	closeCtx, stopAll := context.WithCancel(context.Background())
	return &Agent{cfg: cfg, tasks: make(map[string]*task), closeCtx: closeCtx, stopAll: stopAll, closing: closeCtx.Done()}
}

// Client returns an [*http.Client] that reaches the agent in-process, through
// [NewTransport]. Any URL works; its host becomes the request's Host.
func (a *Agent) Client() *http.Client { return NewClient(a) }

// Requests returns (copies of) every request received so far, in arrival
// order, including refused ones (a body that is not JSON-RPC at all, or an
// HTTP+JSON request that matches no route, is recorded with an empty
// Method). Agent card fetches are not included; see [Agent.CardRequests].
func (a *Agent) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Request, len(a.requests))
	for i := range a.requests {
		out[i] = a.requests[i].clone()
	}
	return out
}

// CardRequests returns how many times the agent card was fetched.
func (a *Agent) CardRequests() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.nCards
}

// Task returns a deep copy of the task with the given ID as of now (the fold
// of every event due by now), or nil if there is no such task.
func (a *Agent) Task(id string) *a2a.Task {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.tasks[id]
	if t == nil {
		return nil
	}
	return t.state(time.Now())
}

// TaskIDs returns the IDs of the tasks created so far, oldest first.
func (a *Agent) TaskIDs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.order)
}

func (a *Agent) speaks(v a2a.Version) bool {
	return (v == a2a.V03 && a.cfg.v03) || (v == a2a.V10 && a.cfg.v10)
}

// errVersion is the dialect errors take when the request's is unknown.
func (a *Agent) errVersion() a2a.Version {
	if a.cfg.v10 {
		return a2a.V10
	}
	return a2a.V03
}

// ServeHTTP implements [http.Handler].
//
// To cut a connection (faults [Drop], [CutAfterEvents], [CutAfterBytes]) it
// panics with [http.ErrAbortHandler], which net/http's server and this
// package's transport both turn into a broken connection.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if a.cfg.rest {
		if rt, ok := a.matchREST(r); ok {
			a.serveREST(w, r, rt)
			return
		}
	}
	switch {
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && (!a.cfg.rest || isCardPath(r.URL.Path) || r.URL.Path == a.cfg.habits.cardPath):
		a.serveCard(w, r)
		return
	case r.Method == http.MethodPost && a.cfg.jsonrpc:
	case a.cfg.rest:
		// Neither the card nor JSON-RPC: a route the REST server lacks.
		_, _ = io.Copy(io.Discard, r.Body)
		a.admit(Request{
			Version:    r.Header.Get("A2A-Version"),
			Header:     r.Header.Clone(),
			Binding:    a2a.BindingHTTPJSON,
			HTTPMethod: r.Method,
			Path:       r.URL.Path,
		}, 0, false)
		routeNotFound(&sink{w: w, ctx: r.Context()}, r)
		return
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	a.serveJSONRPC(w, r, body)
}

// admit records a request as rec and picks its fault and, for a subscribe,
// its style. A request counts toward the fault lists and styles when
// counted is set (its method names a known operation), whatever the agent
// then answers. It is independent of the binding: rec carries what the
// binding decoded.
func (a *Agent) admit(rec Request, o op, counted bool) Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	if counted {
		var (
			list []Fault
			n    *int
		)
		switch o {
		case opStream, opSubscribe:
			if o == opStream && rec.TaskID == "" && a.cfg.newTaskFault != (Fault{}) {
				rec.Fault = a.cfg.newTaskFault
				break
			}
			list, n = a.cfg.faults, &a.nStream
			if o == opSubscribe {
				rec.Style = a.cfg.styles[min(a.nSub, len(a.cfg.styles)-1)]
				a.nSub++
			}
		case opGet:
			list, n = a.cfg.getFaults, &a.nGet
		case opSend:
			list, n = a.cfg.sendFaults, &a.nSend
		}
		if n != nil {
			if *n < len(list) {
				rec.Fault = list[*n]
			}
			(*n)++
		}
	}
	a.requests = append(a.requests, rec.clone())
	return rec
}

func isV10(h string) bool {
	v, ok := a2a.ParseVersion(h)
	return ok && v == a2a.V10
}

func quoteVersion(h string) string {
	if h == "" {
		return "'0.3' (no A2A-Version header)"
	}
	return "'" + clip.Text(h, clip.Field) + "'"
}
