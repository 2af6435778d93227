package a2atest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// ExampleFault_String lists the faults an agent can apply to a request, as
// they print in test failure messages. The zero Fault is no fault.
func ExampleFault_String() {
	faults := []a2atest.Fault{
		{},                                  // no fault
		a2atest.CutAfterEvents(2),           // abort after two events
		a2atest.CloseAfterEvents(1),         // end cleanly after one event
		a2atest.CutAfterBytes(40),           // abort in the middle of an event
		a2atest.Drip(10 * time.Millisecond), // one byte every 10ms
		a2atest.Drop(),                      // no response at all
		a2atest.Hang(),                      // a header, then silence
		a2atest.HTTPStatus(503, "busy"),
		a2atest.HTTPStatusWithHeader(429, "slow down", http.Header{"Retry-After": {"2"}}),
		a2atest.RPCError(-32603, "overloaded", a2atest.ErrorAsJSON),
	}
	for _, f := range faults {
		fmt.Printf("%-5v %s\n", f.IsZero(), f.String())
	}
	// Output:
	// true  none
	// false CutAfterEvents(2)
	// false CloseAfterEvents(1)
	// false CutAfterBytes(40)
	// false Drip(10ms)
	// false Drop()
	// false Hang()
	// false HTTPStatus(503, "busy")
	// false HTTPStatusWithHeader(429, "slow down", {Retry-After: 2})
	// false RPCError(-32603, "overloaded", ErrorAsJSON)
}

// ExampleErrorShape shows the three ways an RPCError fault can send its
// error, which clients must all understand.
func ExampleErrorShape() {
	for _, shape := range []a2atest.ErrorShape{a2atest.ErrorAsJSON, a2atest.ErrorAsEvent, a2atest.ErrorAsErrorEvent} {
		agent := a2atest.NewAgent(
			a2atest.WithVersions(a2a.V03),
			a2atest.WithFaults(a2atest.RPCError(-32603, "overloaded", shape)),
		)
		body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":` +
			`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
		resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(shape.String(), resp.StatusCode, resp.Header.Get("Content-Type"))
		fmt.Printf("  %q\n", raw)
		// The request was refused before any work: no task exists.
		fmt.Println("  tasks:", len(agent.TaskIDs()))
	}
	// Output:
	// ErrorAsJSON 200 application/json
	//   "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"overloaded\"}}"
	//   tasks: 0
	// ErrorAsEvent 200 text/event-stream
	//   "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"overloaded\"}}\n\n"
	//   tasks: 0
	// ErrorAsErrorEvent 200 text/event-stream
	//   "event: error\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"overloaded\"}}\n\n"
	//   tasks: 0
}

// ExampleStep_String prints a script, one step per line, the way a test
// can log it.
func ExampleStep_String() {
	script := []a2atest.Step{
		a2atest.Working("Looking it up"),
		a2atest.Status(a2a.StateWorking, ""),
		a2atest.Chunk("answer", "42", false, true),
		a2atest.ArtifactChunk(a2a.Artifact{ID: "chart", Name: "chart.csv", Parts: []a2a.Part{a2a.TextPart("x,y\n")}}, false, false),
		a2atest.Say("Almost there"),
		a2atest.Pause(150 * time.Millisecond),
		a2atest.AskInput("Which unit?"),
		a2atest.AskAuth("Please sign in"),
		a2atest.Finish(a2a.StateCompleted, "Done"),
		a2atest.Reply("pong"),
		{}, // the zero Step does nothing
	}
	for _, s := range script {
		fmt.Println(s.String())
	}
	// Output:
	// Status(working, "Looking it up")
	// Status(working, "")
	// ArtifactChunk("answer", append=false, last=true)
	// ArtifactChunk("chart", append=false, last=false)
	// Say("Almost there")
	// Pause(150ms)
	// Status(input-required, "Which unit?")
	// Status(auth-required, "Please sign in")
	// Status(completed, "Done")
	// Reply("pong")
	// Step{}
}

// ExampleResubscribeStyle_String names the resubscribe behaviours an agent
// can copy.
func ExampleResubscribeStyle_String() {
	for _, s := range []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay, 0} {
		fmt.Println(s.String())
	}
	// Output:
	// LiveOnly
	// SnapshotFirst
	// FullReplay
	// ResubscribeStyle(0)
}

// ExampleDefaultScript shows the script an agent runs when given none, and
// the task it produces.
func ExampleDefaultScript() {
	for _, s := range a2atest.DefaultScript() {
		fmt.Println(s)
	}

	agent := a2atest.NewAgent() // the same as a2atest.WithScript(a2atest.DefaultScript()...)
	client, err := stream.NewClient("http://agent.example/", stream.WithHTTPClient(agent.Client()), stream.WithVersion(a2a.V10))
	if err != nil {
		fmt.Println(err)
		return
	}
	task, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hi")).Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(task.Status.State, task.Artifact("a1").Text())
	// Output:
	// Status(working, "")
	// ArtifactChunk("a1", append=false, last=false)
	// ArtifactChunk("a1", append=true, last=true)
	// Status(completed, "")
	// completed hello world
}

// ExampleRandomFaults draws a long list of faults at random but
// reproducibly: the same arguments always give the same list, so that a
// soak test that fails can be run again exactly. The agent applies the
// list to its requests in arrival order.
func ExampleRandomFaults() {
	const seed = 7
	choices := []a2atest.Fault{a2atest.Drop(), a2atest.HTTPStatus(503, "busy"), a2atest.CutAfterBytes(20)}
	faults := a2atest.RandomFaults(seed, 12, 0.4, choices...)
	again := a2atest.RandomFaults(seed, 12, 0.4, choices...)
	fmt.Println(len(faults), slices.Equal(faults, again))

	// p is the probability that a request fails.
	fmt.Println(a2atest.RandomFaults(seed, 3, 1, a2atest.Drop()))
	fmt.Println(a2atest.RandomFaults(seed, 3, 0, a2atest.Drop()))

	// About four polls in ten fail, each in one of the chosen ways.
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithGetFaults(faults...))
	body := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t1"}}`
	for range 14 {
		resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	applied := 0
	for i, r := range agent.Requests() {
		var want a2atest.Fault // none, after the list is used up
		if i < len(faults) {
			want = faults[i]
		}
		if r.Fault == want {
			applied++
		}
	}
	fmt.Println(applied, "of", len(agent.Requests()), "polls got their fault from the list")
	// Output:
	// 12 true
	// [Drop() Drop() Drop()]
	// [none none none]
	// 14 of 14 polls got their fault from the list
}

// ExampleWithSendFaults makes unary sends fail. A fault that replaces the
// answer (here a 503) means the agent never took the message; one that
// damages the answer (here a connection cut right after the header) lets
// the task run although the client never learns its ID.
func ExampleWithSendFaults() {
	agent := a2atest.NewAgent(
		a2atest.WithVersions(a2a.V03),
		a2atest.WithSendFaults(
			a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {"1"}}),
			a2atest.CutAfterBytes(0),
		),
	)
	body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
	for range 3 {
		resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("status %d, Retry-After %q, cut: %v, tasks: %d\n",
			resp.StatusCode, resp.Header.Get("Retry-After"), errors.Is(err, io.ErrUnexpectedEOF), len(agent.TaskIDs()))
	}
	for _, r := range agent.Requests() {
		fmt.Println(r.Method, r.Fault)
	}
	// Output:
	// status 503, Retry-After "1", cut: false, tasks: 0
	// status 200, Retry-After "", cut: true, tasks: 1
	// status 200, Retry-After "", cut: false, tasks: 2
	// message/send HTTPStatusWithHeader(503, "busy", {Retry-After: 1})
	// message/send CutAfterBytes(0)
	// message/send none
}

// ExampleWithGetFaults drops the first poll of a task, as a flaky proxy
// would; the next poll gets the task.
func ExampleWithGetFaults() {
	agent := a2atest.NewAgent(
		a2atest.WithVersions(a2a.V03),
		a2atest.WithGetFaults(a2atest.Drop()),
	)
	send := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
	resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(send))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()

	get := `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"` + agent.TaskIDs()[0] + `"}}`
	for range 2 {
		resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(get))
		if err != nil {
			fmt.Println("dropped:", errors.Is(err, io.ErrUnexpectedEOF))
			continue
		}
		var r struct {
			Result struct {
				Status struct{ State string }
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("state:", r.Result.Status.State)
	}
	// Output:
	// dropped: true
	// state: completed
}

// ExampleCutAfterBytes cuts a stream in the middle of its first event: the
// client reads exactly that many bytes, then an unexpected EOF. The agent
// did its work all the same.
func ExampleCutAfterBytes() {
	agent := a2atest.NewAgent(
		a2atest.WithVersions(a2a.V03),
		a2atest.WithFaults(a2atest.CutAfterBytes(30)),
	)
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
	resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	fmt.Printf("%d bytes: %q\n", len(got), got)
	fmt.Println(errors.Is(err, io.ErrUnexpectedEOF))
	fmt.Println(agent.Task(agent.TaskIDs()[0]).Status.State)
	// Output:
	// 30 bytes: "data: {\"jsonrpc\":\"2.0\",\"id\":1,"
	// true
	// completed
}

// ExampleCloseAfterEvents ends a stream cleanly too early: the client sees
// a normal EOF before the task has settled, and must not take it for the
// end of the task.
func ExampleCloseAfterEvents() {
	agent := a2atest.NewAgent(
		a2atest.WithVersions(a2a.V03),
		a2atest.WithFaults(a2atest.CloseAfterEvents(2)),
	)
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
	resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()

	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			ev, err := responseEvent(data)
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Printf("%T\n", ev)
		}
	}
	fmt.Println("read error:", sc.Err())
	fmt.Println("task:", agent.Task(agent.TaskIDs()[0]).Status.State)
	// Output:
	// *a2a.Task
	// *a2a.StatusUpdate
	// read error: <nil>
	// task: completed
}

// ExampleHang answers a stream with its header and then nothing: only the
// client's own deadline or cancellation gets it out.
func ExampleHang() {
	agent := a2atest.NewAgent(
		a2atest.WithVersions(a2a.V03),
		a2atest.WithFaults(a2atest.Hang()),
	)
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://agent.example/", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := agent.Client().Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))

	cancel() // what an idle timeout would do
	_, err = io.ReadAll(resp.Body)
	fmt.Println(errors.Is(err, context.Canceled))
	fmt.Println("tasks:", len(agent.TaskIDs()))
	// Output:
	// 200 text/event-stream
	// true
	// tasks: 0
}

// ExampleDrip sends a response one byte at a time, as a slow network does:
// every Read gets a single byte.
// ExampleDrip slows a response down to one byte at a time, as a congested
// link or a stalling proxy does.
func ExampleDrip() {
	agent := a2atest.NewAgent(
		a2atest.WithVersions(a2a.V03),
		a2atest.WithGetFaults(a2atest.Drip(100*time.Microsecond)),
	)
	// A poll of a task that does not exist: a short error response.
	body := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"nope"}}`
	start := time.Now()
	resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var got []byte
	reads := 0
	buf := make([]byte, 512)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			reads++
			got = append(got, buf[:n]...)
		}
		if err != nil {
			break
		}
	}
	// The bytes come one at a time with a pause before each: the body
	// takes at least that long, however the reads fall.
	fmt.Println(reads > 0, time.Since(start) >= time.Duration(len(got)-1)*100*time.Microsecond)
	fmt.Println(string(got))
	// Output:
	// true true
	// {"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found: nope"}}
}

// ExampleWithNewTaskFault cuts every conversation's first stream after two
// events, however many conversations there are, to show what a client does
// when the start of each answer is lost.
func ExampleWithNewTaskFault() {
	agent := a2atest.NewAgent(a2atest.WithNewTaskFault(a2atest.CutAfterEvents(2)))
	client, err := stream.NewClient("http://agent.example/", stream.WithHTTPClient(agent.Client()),
		stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Policy{Backoff: time.Millisecond}))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, text := range []string{"first", "second"} {
		task, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, text)).Wait()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(text+":", task.Status.State, task.Artifact("a1").Text())
	}
	// Each send was cut. The client resubscribed, was refused since the task
	// had completed meanwhile, and fetched the task with get-task.
	for _, r := range agent.Requests() {
		fmt.Println(r.Method, r.Fault)
	}
	// Output:
	// first: completed hello world
	// second: completed hello world
	// SendStreamingMessage CutAfterEvents(2)
	// SubscribeToTask none
	// GetTask none
	// SendStreamingMessage CutAfterEvents(2)
	// SubscribeToTask none
	// GetTask none
}

// ExampleNewTransport connects an *http.Client to any http.Handler without
// a socket. A handler that panics with http.ErrAbortHandler looks to the
// client like a dropped connection.
func ExampleNewTransport() {
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s from %s", r.URL.Query().Get("name"), r.Host)
	})
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "partial")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	client := &http.Client{Transport: a2atest.NewTransport(mux)}

	resp, err := client.Get("http://svc.example/hello?name=gopher")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(b))

	resp, err = client.Get("http://svc.example/broken")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(b), errors.Is(err, io.ErrUnexpectedEOF))
	// Output:
	// 200 hello gopher from svc.example
	// 200 partial true
}

// ExampleAgent_ServeHTTP serves the agent over a real socket with
// net/http/httptest, for code that wants a URL rather than an
// *http.Client: an *a2atest.Agent is an http.Handler.
func ExampleAgent_ServeHTTP() {
	agent := a2atest.NewAgent(a2atest.WithName("echo agent"))

	// An *a2atest.Agent is an http.Handler: serve it as it is, or wrap its
	// ServeHTTP method like any other handler's, here to log each request.
	var (
		mu  sync.Mutex
		log []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		log = append(log, r.Method+" "+r.URL.Path)
		mu.Unlock()
		agent.ServeHTTP(w, r)
	}))
	defer srv.Close()

	// Resolve reads the agent card, then the client sends where it says.
	ctx := context.Background()
	client, err := stream.Resolve(ctx, srv.URL, stream.WithHTTPClient(srv.Client()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(client.Card().Name, client.Version(), client.Binding())
	task, err := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hi")).Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(task.Status.State, task.Artifact("a1").Text())
	fmt.Println("card fetches:", agent.CardRequests())
	fmt.Println("first request:", agent.Requests()[0].Method)
	mu.Lock()
	defer mu.Unlock()
	fmt.Println(strings.Join(log, "\n"))
	// Output:
	// echo agent 1.0 JSONRPC
	// completed hello world
	// card fetches: 1
	// first request: SendStreamingMessage
	// GET /.well-known/agent-card.json
	// POST /
}

// ExampleWithScriptFunc picks each task's script from the user's first
// message: a quick Reply (a message, no task) for "ping", a task otherwise.
func ExampleWithScriptFunc() {
	agent := a2atest.NewAgent(a2atest.WithScriptFunc(func(msg *a2a.Message) []a2atest.Step {
		if msg.Text() == "ping" {
			return []a2atest.Step{a2atest.Reply("pong")}
		}
		return []a2atest.Step{
			a2atest.Say("Let me check."),
			a2atest.Finish(a2a.StateCompleted, "You said: "+msg.Text()),
		}
	}))
	client, err := stream.NewClient("http://agent.example/", stream.WithHTTPClient(agent.Client()), stream.WithVersion(a2a.V10))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	s := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "ping"))
	task, err := s.Wait()
	fmt.Println(task == nil, err, s.Ending().Answer.Text())

	task, err = client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello")).Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(task.Status.State, task.Status.Message.Text())
	fmt.Println("tasks:", len(agent.TaskIDs()))
	// Output:
	// true <nil> pong
	// completed You said: hello
	// tasks: 1
}

// ExampleArtifactChunk streams an artifact with a name and a first part,
// then appends to it.
func ExampleArtifactChunk() {
	report := a2a.Artifact{ID: "report", Name: "report.md", Parts: []a2a.Part{a2a.TextPart("# Sales\n")}}
	agent := a2atest.NewAgent(a2atest.WithScript(
		a2atest.ArtifactChunk(report, false, false),
		a2atest.Chunk("report", "Up 3%.", true, true),
		a2atest.Finish(a2a.StateCompleted, ""),
	))
	client, err := stream.NewClient("http://agent.example/", stream.WithHTTPClient(agent.Client()), stream.WithVersion(a2a.V10))
	if err != nil {
		fmt.Println(err)
		return
	}
	task, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "report")).Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	art := task.Artifact("report")
	fmt.Printf("%s: %q\n", art.Name, art.Text())
	// Output:
	// report: "# Sales\nUp 3%."
}

// ExampleAskAuth leaves a task waiting for credentials: a unary send
// answers as soon as the task is auth-required.
func ExampleAskAuth() {
	agent := a2atest.NewAgent(
		a2atest.WithVersions(a2a.V03),
		a2atest.WithScript(
			a2atest.Working("Checking your calendar"),
			a2atest.AskAuth("Please sign in to your calendar"),
		),
	)
	body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"When am I free?"}]}}}`
	resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		fmt.Println(err)
		return
	}
	task, err := a2a.Codec{}.DecodeTask(r.Result)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(task.Status.State, task.Status.Message.Text())
	// Output:
	// auth-required Please sign in to your calendar
}

// ExampleWithStyles answers each resubscribe like a different server, as
// behind a load balancer. Request.Style records which style each got.
func ExampleWithStyles() {
	agent := a2atest.NewAgent(
		a2atest.WithVersions(a2a.V03),
		a2atest.WithStyles(a2atest.LiveOnly, a2atest.FullReplay, a2atest.SnapshotFirst),
	)
	post := func(body string) *http.Response {
		resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		return resp
	}
	// The default script completes the task at once.
	post(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`).Body.Close()
	resub := `{"jsonrpc":"2.0","id":2,"method":"tasks/resubscribe","params":{"id":"` + agent.TaskIDs()[0] + `"}}`

	// The task is over: LiveOnly (a2a-go) no longer knows it, FullReplay
	// sends it all again, SnapshotFirst (@a2a-js/sdk, 0.3) sends the task.
	for range 3 {
		resp := post(resub)
		var got []string
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			ev, err := responseEvent(data)
			var rpcErr *a2a.RPCError
			if errors.As(err, &rpcErr) {
				got = append(got, fmt.Sprint("error ", rpcErr.Code))
				continue
			}
			got = append(got, fmt.Sprintf("%T", ev))
		}
		resp.Body.Close()
		reqs := agent.Requests()
		fmt.Printf("%s: %s\n", reqs[len(reqs)-1].Style, strings.Join(got, " "))
	}
	// Output:
	// LiveOnly: error -32001
	// FullReplay: *a2a.Task *a2a.StatusUpdate *a2a.ArtifactUpdate *a2a.ArtifactUpdate *a2a.StatusUpdate
	// SnapshotFirst: *a2a.Task
}

// ExampleWithStyle copies a2a-go's resubscribe for every resubscribe: no
// snapshot, only the events that fall due after the subscription arrives.
// A client that lost the stream must fetch what it missed with get-task.
func ExampleWithStyle() {
	agent := a2atest.NewAgent(
		a2atest.WithVersions(a2a.V03),
		a2atest.WithStyle(a2atest.LiveOnly),
		a2atest.WithScript(
			a2atest.Chunk("a1", "early ", false, false),
			a2atest.Pause(time.Second), // ample time to resubscribe before "late"
			a2atest.Chunk("a1", "late", true, true),
			a2atest.Finish(a2a.StateCompleted, ""),
		),
		a2atest.WithFaults(a2atest.CutAfterEvents(2)), // lose the stream after "early "
	)
	read := func(body string) {
		resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				switch ev, _ := responseEvent(data); ev := ev.(type) {
				case *a2a.Task:
					fmt.Println("task", ev.Status.State)
				case *a2a.StatusUpdate:
					fmt.Println("status", ev.Status.State)
				case *a2a.ArtifactUpdate:
					fmt.Printf("artifact %q\n", ev.Artifact.Text())
				}
			}
		}
		fmt.Println("end:", sc.Err())
	}
	read(`{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`)
	read(`{"jsonrpc":"2.0","id":2,"method":"tasks/resubscribe","params":{"id":"` + agent.TaskIDs()[0] + `"}}`)
	// Output:
	// task submitted
	// artifact "early "
	// end: unexpected EOF
	// artifact "late"
	// status completed
	// end: <nil>
}

// ExampleWithStayOpenOnInterrupt keeps a subscription to an input-required
// task open, as @a2a-js/sdk 1.x does: the next turn arrives on it once the
// user answers.
func ExampleWithStayOpenOnInterrupt() {
	agent := a2atest.NewAgent(
		a2atest.WithVersions(a2a.V03),
		a2atest.WithStayOpenOnInterrupt(),
		a2atest.WithScript(
			a2atest.AskInput("Which city?"),
			a2atest.Chunk("forecast", "Sunny", false, true),
			a2atest.Finish(a2a.StateCompleted, ""),
		),
	)
	post := func(body string) *http.Response {
		resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		return resp
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"Weather?"}]}}}`).Body.Close()
	id := agent.TaskIDs()[0]

	sub := post(`{"jsonrpc":"2.0","id":2,"method":"tasks/resubscribe","params":{"id":"` + id + `"}}`)
	defer sub.Body.Close()
	sc := bufio.NewScanner(sub.Body)
	next := func() bool {
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				switch ev, _ := responseEvent(data); ev := ev.(type) {
				case *a2a.Task:
					fmt.Println("task", ev.Status.State)
				case *a2a.StatusUpdate:
					fmt.Println("status", ev.Status.State)
				case *a2a.ArtifactUpdate:
					fmt.Println("artifact", ev.Artifact.Text())
				}
				return true
			}
		}
		return false
	}
	next() // the snapshot: input-required, and the stream stays open

	post(`{"jsonrpc":"2.0","id":3,"method":"message/send","params":{"message":` +
		`{"kind":"message","messageId":"m2","taskId":"` + id + `","role":"user","parts":[{"kind":"text","text":"Paris"}]}}}`).Body.Close()
	for next() {
	}
	// Output:
	// task input-required
	// task input-required
	// artifact Sunny
	// status completed
}

// ExampleWithoutResubscribe builds an agent that streams but has no
// resubscribe method, so that a client that loses a stream must poll.
func ExampleWithoutResubscribe() {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithoutResubscribe())
	body := `{"jsonrpc":"2.0","id":1,"method":"tasks/resubscribe","params":{"id":"t1"}}`
	resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(b))
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: tasks/resubscribe"}}
}

// ExampleWithoutStreaming builds an agent that cannot stream: its card says
// so, streaming methods are refused, and clients send with a unary send and
// poll.
func ExampleWithoutStreaming() {
	agent := a2atest.NewAgent(a2atest.WithoutStreaming())
	fmt.Println("streaming:", *agent.Card("agent.example").Capabilities.Streaming)

	client, err := stream.NewClient("http://agent.example/", stream.WithHTTPClient(agent.Client()),
		stream.WithVersion(a2a.V10), stream.WithPollInterval(10*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	task, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hi")).Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(task.Status.State, task.Artifact("a1").Text())
	// This client did not read the card: its streaming send was refused
	// with -32004, and it sent again with a unary send.
	for _, r := range agent.Requests() {
		fmt.Println(r.Method)
	}
	// Output:
	// streaming: false
	// completed hello world
	// SendStreamingMessage
	// SendMessage
}

// ExampleWithTenant serves a 1.0 card whose interface carries a tenant; a
// client that resolves the card sends it with every request, and the agent
// records it.
func ExampleWithTenant() {
	agent := a2atest.NewAgent(a2atest.WithTenant("acme"))
	fmt.Println("card tenant:", agent.Card("agent.example").SupportedInterfaces[0].Tenant)

	ctx := context.Background()
	client, err := stream.Resolve(ctx, "http://agent.example", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hi")).Wait(); err != nil {
		fmt.Println(err)
		return
	}
	r := agent.Requests()[0]
	fmt.Println(r.Method, r.Tenant)
	// Output:
	// card tenant: acme
	// SendStreamingMessage acme
}

// ExampleWithUnaryContentType sends unary answers without a Content-Type,
// as a2a-go's server does; the client then sees what net/http sniffs.
func ExampleWithUnaryContentType() {
	for _, ct := range []string{"application/json", ""} {
		agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithUnaryContentType(ct))
		body := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"nope"}}`
		resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Printf("%q -> %s\n", ct, resp.Header.Get("Content-Type"))
	}
	// Output:
	// "application/json" -> application/json
	// "" -> text/plain; charset=utf-8
}

// ExampleWithRESTBase serves the HTTP+JSON binding under /rest; the card
// points there.
func ExampleWithRESTBase() {
	agent := a2atest.NewAgent(
		a2atest.WithBindings(a2a.BindingHTTPJSON),
		a2atest.WithRESTBase("/rest"),
	)
	fmt.Println(agent.Card("agent.example").SupportedInterfaces[0].URL)

	ctx := context.Background()
	client, err := stream.Resolve(ctx, "http://agent.example", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		fmt.Println(err)
		return
	}
	task, err := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hi")).Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(task.Status.State)
	r := agent.Requests()[0]
	fmt.Println(r.HTTPMethod, r.Path, r.Method)
	// Output:
	// http://agent.example/rest
	// completed
	// POST /rest/message:stream SendStreamingMessage
}

// ExampleWithoutWellKnownCard serves the card only at the legacy path, as
// older agents do.
func ExampleWithoutWellKnownCard() {
	agent := a2atest.NewAgent(a2atest.WithoutWellKnownCard())
	for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
		resp, err := agent.Client().Get("http://agent.example" + path)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Println(path, resp.StatusCode)
	}
	fmt.Println("card fetches:", agent.CardRequests())
	// Output:
	// /.well-known/agent-card.json 404
	// /.well-known/agent.json 200
	// card fetches: 1
}

// ExampleWithCardJSON serves a hand-written card, here one that is not
// valid JSON, to test how a client copes with a broken card.
func ExampleWithCardJSON() {
	agent := a2atest.NewAgent(a2atest.WithCardJSON([]byte(`{"name": "broken",`)))
	resp, err := agent.Client().Get("http://agent.example/.well-known/agent-card.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(b))

	_, err = stream.Resolve(context.Background(), "http://agent.example", stream.WithHTTPClient(agent.Client()))
	fmt.Println(err != nil)
	// Output:
	// 200 {"name": "broken",
	// true
}

// ExampleWithCardPath serves a bare card (with a url, but no
// protocolVersion, preferredTransport or interfaces) at a path of its own,
// as some agents outside the official SDKs do.
func ExampleWithCardPath() {
	agent := a2atest.NewAgent(
		a2atest.WithVersions(a2a.V03),
		a2atest.WithName("planner"),
		a2atest.WithBareCard(),
		a2atest.WithCardPath("/.well-known/planner/agent-card.json"),
	)
	for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/planner/agent-card.json"} {
		resp, err := agent.Client().Get("http://agent.example" + path)
		if err != nil {
			fmt.Println(err)
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, strings.TrimSpace(string(b)))
	}
	// Output:
	// 404 404 page not found
	// 200 {"name":"planner","description":"scriptable fake A2A agent (a2atest)","version":"1.0.0","url":"http://agent.example/","capabilities":{"streaming":true}}
}

// ExampleWithRecordSeparator frames every SSE data field as an RFC 7464
// JSON text sequence, starting with 0x1E.
func ExampleWithRecordSeparator() {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithRecordSeparator())
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
	resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "data:") {
			prefix, _, _ := strings.Cut(line, "{")
			fmt.Printf("%q\n", prefix)
		}
	}
	// Output:
	// "data: \x1e"
	// "data: \x1e"
	// "data: \x1e"
	// "data: \x1e"
	// "data: \x1e"
}

// ExampleWithSnapshotResults makes every stream result the whole task, as
// some servers do; in 0.3 the results carry no "kind".
func ExampleWithSnapshotResults() {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithSnapshotResults())
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
	resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var r struct {
			Result struct {
				Kind      *string
				Status    struct{ State string }
				Artifacts []json.RawMessage
			}
		}
		if err := json.Unmarshal([]byte(data), &r); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(r.Result.Kind == nil, r.Result.Status.State, len(r.Result.Artifacts))
	}
	// Output:
	// true submitted 0
	// true working 0
	// true working 1
	// true working 1
	// true completed 1
}

// ExampleWithCumulativeMessage streams the answer as one status message
// resent longer at each step, as some servers do instead of artifacts.
func ExampleWithCumulativeMessage() {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithCumulativeMessage())
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
	resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		ev, err := responseEvent(data)
		if err != nil {
			fmt.Println(err)
			return
		}
		if u, ok := ev.(*a2a.StatusUpdate); ok && u.Status.Message != nil {
			fmt.Printf("%s %q\n", u.Status.State, u.Status.Message.Text())
		}
	}
	fmt.Println("artifacts:", len(agent.Task(agent.TaskIDs()[0]).Artifacts))
	// Output:
	// working "hello "
	// working "hello world"
	// completed "hello world"
	// artifacts: 0
}

// ExampleWithErrorStatus sends JSON-RPC errors with an HTTP error status
// instead of 200, as some servers do.
func ExampleWithErrorStatus() {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithErrorStatus(400))
	body := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"nope"}}`
	resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(b))
	// Output:
	// 400 {"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found: nope"}}
}

// ExampleWithInStreamFailure ends a failed task's stream with a JSON-RPC
// error event instead of a failed status update; get-task still says the
// task failed.
func ExampleWithInStreamFailure() {
	agent := a2atest.NewAgent(
		a2atest.WithVersions(a2a.V03),
		a2atest.WithInStreamFailure(),
		a2atest.WithScript(
			a2atest.Working(""),
			a2atest.Finish(a2a.StateFailed, "model unavailable"),
		),
	)
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
	resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		ev, err := responseEvent(data)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Printf("%T\n", ev)
	}
	fmt.Println("task:", agent.Task(agent.TaskIDs()[0]).Status.State)
	// Output:
	// *a2a.Task
	// *a2a.StatusUpdate
	// error: a2a: json-rpc error -32603 (internal error): internal error: model unavailable
	// task: failed
}

// ExampleWithWildHabits builds, in one option, an agent with every habit
// of a server found in the wild: a bare card at a path of its own, streams
// of whole tasks framed with record separators, and no resubscribe.
func ExampleWithWildHabits() {
	agent := a2atest.NewAgent(a2atest.WithWildHabits("travel"))

	for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/travel/agent-card.json"} {
		resp, err := agent.Client().Get("http://agent.example" + path)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Println(path, resp.StatusCode)
	}

	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`
	resp, err := agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	sc := bufio.NewScanner(resp.Body)
	events := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: \x1e") {
			events++
		}
	}
	resp.Body.Close()
	fmt.Println("framed events:", events)

	body = `{"jsonrpc":"2.0","id":2,"method":"tasks/resubscribe","params":{"id":"` + agent.TaskIDs()[0] + `"}}`
	resp, err = agent.Client().Post("http://agent.example/", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println("resubscribe:", resp.StatusCode, string(b))
	// Output:
	// /.well-known/agent-card.json 404
	// /.well-known/travel/agent-card.json 200
	// framed events: 5
	// resubscribe: 400 {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method not found: tasks/resubscribe"}}
}

// ExampleOption collects options in a slice, to build agents that differ
// in one ability only.
func ExampleOption() {
	for _, streaming := range []bool{true, false} {
		opts := []a2atest.Option{a2atest.WithName("flaky"), a2atest.WithVersions(a2a.V03)}
		if !streaming {
			opts = append(opts, a2atest.WithoutStreaming())
		}
		card := a2atest.NewAgent(opts...).Card("agent.example")
		fmt.Println(card.Name, card.ProtocolVersion, *card.Capabilities.Streaming)
	}
	// Output:
	// flaky 0.3.0 true
	// flaky 0.3.0 false
}

// responseEvent reads the data of one SSE event of a JSON-RPC stream: a
// JSON-RPC response, whose result is a stream result of either version, or
// whose error is an *a2a.RPCError.
func responseEvent(data string) (a2a.Event, error) {
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *a2a.RPCError   `json:"error"`
	}
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, r.Error
	}
	return a2a.Codec{}.DecodeEvent(r.Result)
}
