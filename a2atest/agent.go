package a2atest

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// Agent is a scriptable fake A2A agent: an [http.Handler] that speaks
// JSON-RPC 2.0 in the A2A 0.3 and/or 1.0 dialect, streams tasks over SSE and
// misbehaves on demand. It is safe for concurrent use.
//
// Every new task runs the agent's script (see [Step]), which becomes a
// timeline of events with due times when the task is created. The agent has
// no goroutines of its own: the task's state at any moment is the fold of the
// events due by then, and a handler that streams waits for each event's due
// time on a timer (a fake one inside a synctest bubble). Streams dying does
// not stop tasks, and several streams may follow one task.
//
// JSON-RPC requests are POSTed to any path. The method name decides the
// dialect: message/send, message/stream, tasks/get, tasks/cancel and
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
//   - Non-streaming send (message/send, SendMessage) does the same work but
//     answers at once with the Task as of now, without waiting for pauses
//     (0.3: the bare Task with kind; 1.0: {"task": …}), or with the Message of
//     a [Reply] script.
//   - Subscribe (tasks/resubscribe, SubscribeToTask): -32001 for an unknown
//     task (an SSE event in 0.3, plain JSON in 1.0), then as the request's
//     [ResubscribeStyle] says (see [WithStyle] and [WithStyles]).
//   - Get (tasks/get, GetTask): the bare Task as of now; -32001 if unknown.
//   - Cancel (tasks/cancel, CancelTask): a canceled status is added now and
//     the rest of the script is dropped, and the Task is returned; -32002 for
//     a terminal task, -32001 for an unknown one.
//
// GET /.well-known/agent-card.json and /.well-known/agent.json serve the
// agent card, built for the versions spoken with "http://"+Host+"/" as the
// endpoint.
type Agent struct {
	cfg config

	mu       sync.Mutex
	requests []Request
	tasks    map[string]*task
	order    []string
	nStream  int
	nSub     int
	nGet     int
	nCards   int
}

// Request is one JSON-RPC request the agent received, as recorded by
// [Agent.Requests].
type Request struct {
	// Method is the JSON-RPC method, e.g. "message/stream" or
	// "SubscribeToTask"; empty if the body was not a JSON-RPC request.
	Method string
	// Version is the A2A-Version header as received, "" if none.
	Version string
	// Header is a copy of the request's header.
	Header http.Header
	// TaskID is params.id, or params.message.taskId for sends.
	TaskID string
	// Tenant is params.tenant.
	Tenant string
	// Message is the decoded params.message of a send, nil otherwise.
	Message *a2a.Message
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
	return &Agent{cfg: cfg, tasks: make(map[string]*task)}
}

// Client returns an [*http.Client] that reaches the agent in-process, through
// [NewTransport]. Any URL works; its host becomes the request's Host.
func (a *Agent) Client() *http.Client { return NewClient(a) }

// Requests returns (copies of) every JSON-RPC request received so far, in
// arrival order, including refused ones (a body that is not JSON-RPC at all
// is recorded with an empty Method). Agent card fetches are not included; see
// [Agent.CardRequests].
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
// To cut a connection (faults [CutAfterEvents], [CutAfterBytes]) it panics
// with [http.ErrAbortHandler], which net/http's server and this package's
// transport both turn into a broken connection.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		a.serveCard(w, r)
		return
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}

	var (
		req      rpcRequest
		params   rpcParams
		parseErr = json.Unmarshal(body, &req)
	)
	o, v, known := lookupMethod(req.Method)
	if parseErr == nil && !isNull(req.Params) {
		_ = json.Unmarshal(req.Params, &params) // checked again below
	}
	rec := Request{
		Method:  req.Method,
		Version: r.Header.Get("A2A-Version"),
		Header:  r.Header.Clone(),
		TaskID:  params.ID,
		Tenant:  params.Tenant,
	}
	var msg *a2a.Message
	if (o == opSend || o == opStream) && !isNull(params.Message) {
		if m, err := a2a.UnmarshalMessage(params.Message); err == nil {
			msg = m
			rec.Message, rec.TaskID = m.Clone(), m.TaskID
		}
	}

	a.mu.Lock()
	if known && parseErr == nil {
		switch o {
		case opStream, opSubscribe:
			if a.nStream < len(a.cfg.faults) {
				rec.Fault = a.cfg.faults[a.nStream]
			}
			a.nStream++
			if o == opSubscribe {
				rec.Style = a.cfg.styles[min(a.nSub, len(a.cfg.styles)-1)]
				a.nSub++
			}
		case opGet:
			if a.nGet < len(a.cfg.getFaults) {
				rec.Fault = a.cfg.getFaults[a.nGet]
			}
			a.nGet++
		}
	}
	a.requests = append(a.requests, rec.clone())
	a.mu.Unlock()

	x := &exchange{a: a, sk: &sink{w: w, ctx: r.Context(), fault: rec.Fault}, id: req.ID, v: v, style: rec.Style}
	if !known || !a.speaks(v) {
		x.v = a.errVersion()
	}
	switch {
	case rec.Fault.preResponse():
		x.applyPreResponse(rec.Fault)
	case parseErr != nil:
		x.errorJSON(a2a.CodeParseError, "parse error: "+parseErr.Error())
	case req.Method == "":
		x.errorJSON(a2a.CodeInvalidRequest, "invalid request: no method")
	case !known || !a.speaks(v):
		x.errorJSON(a2a.CodeMethodNotFound, "method not found: "+req.Method)
	case v == a2a.V10 && !isV10(r.Header.Get("A2A-Version")):
		x.errorJSON(a2a.CodeVersionNotSupported, "A2A protocol version "+quoteVersion(r.Header.Get("A2A-Version"))+" is not supported")
	case isNull(req.Params):
		x.errorJSON(a2a.CodeInvalidParams, "invalid params: missing")
	case json.Unmarshal(req.Params, &params) != nil:
		x.errorJSON(a2a.CodeInvalidParams, "invalid params")
	default:
		switch o {
		case opSend, opStream:
			if msg == nil {
				x.errorJSON(a2a.CodeInvalidParams, "invalid params: no valid message")
				return
			}
			x.send(msg, o == opStream)
		case opSubscribe:
			x.subscribe(params.ID)
		case opGet:
			x.get(params.ID)
		case opCancel:
			x.cancel(params.ID)
		}
	}
}

func isV10(h string) bool {
	v, ok := a2a.ParseVersion(h)
	return ok && v == a2a.V10
}

func quoteVersion(h string) string {
	if h == "" {
		return "'0.3' (no A2A-Version header)"
	}
	return "'" + h + "'"
}
