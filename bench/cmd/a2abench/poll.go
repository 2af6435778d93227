package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/measure"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// pollArtifacts is the size of the polled task: artifacts of three text
// parts each (about 1 MB of JSON), as in stream's BenchmarkEmptyPoll.
const pollArtifacts = 10_000

// pollInterval is the stream's poll interval in the poll suite: the
// shortest the library allows.
const pollInterval = time.Millisecond

// pollTask is a task of n artifacts of three text parts each, in state st:
// stream's manyArtifactsTask.
func pollTask(st a2a.TaskState, n int) *a2a.Task {
	t := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}}
	t.Artifacts = make([]a2a.Artifact, n)
	for i := range t.Artifacts {
		t.Artifacts[i] = a2a.Artifact{ID: fmt.Sprintf("artifact-%05d", i), Parts: []a2a.Part{
			a2a.TextPart(fmt.Sprintf("section %d, ", i)), a2a.TextPart("some words of the answer, "), a2a.TextPart("and its end."),
		}}
	}
	return t
}

// pollShape is the part of an HTTP+JSON task body an application would
// read, in both versions: stream's restTaskShape.
type pollShape struct {
	ID        string `json:"id"`
	ContextID string `json:"contextId"`
	Status    struct {
		State string `json:"state"`
	} `json:"status"`
	Artifacts []struct {
		ArtifactID string `json:"artifactId"`
		Parts      []struct {
			Kind string `json:"kind"`
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"artifacts"`
}

// pollAgent is an in-memory agent of one binding that cannot stream: it
// refuses a streaming send, answers the unary send with a submitted task,
// then every get-task with a prepared task: the working task of
// pollArtifacts artifacts for the first polls + 1 gets, then the completed
// one. It records when each get-task came. Its bodies are made before the
// run, so that only the client's work is timed; over JSON-RPC, the
// envelope that carries the request's ID is written around them.
type pollAgent struct {
	v              a2a.Version
	b              a2a.Binding
	refusal, first []byte // over JSON-RPC, the refusal's error object and the send's result
	refusalStatus  int
	refusalType    string
	working, done  []byte // the tasks: over JSON-RPC, the results
	polls          int
	mu             sync.Mutex
	gets           int
	at             []time.Time
	// mallocs, when not nil, gets the process's count of heap allocations
	// (runtime.MemStats.Mallocs) when each get-task came.
	mallocs []uint64
}

func newPollAgent(v a2a.Version, b a2a.Binding, polls int) (*pollAgent, error) {
	codec := a2a.Codec{Version: v, Binding: b}
	p := &pollAgent{v: v, b: b, polls: polls}
	var err error
	if p.first, err = codec.EncodeEvent(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}}); err != nil {
		return nil, err
	}
	if p.working, err = codec.EncodeTask(pollTask(a2a.StateWorking, pollArtifacts)); err != nil {
		return nil, err
	}
	if p.done, err = codec.EncodeTask(pollTask(a2a.StateCompleted, pollArtifacts)); err != nil {
		return nil, err
	}
	refusal := &a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "Streaming is not supported."}
	if b == a2a.BindingJSONRPC {
		p.refusalStatus, p.refusalType = http.StatusOK, "application/json"
		p.refusal, err = json.Marshal(refusal)
		return p, err
	}
	p.refusalStatus, p.refusalType, p.refusal = a2a.MarshalHTTPError(v, refusal)
	return p, nil
}

// rpcBody returns the body that answers a JSON-RPC request with ID id: a
// response with member ("result" or "error") raw, whose bytes are not
// copied.
func rpcBody(id json.RawMessage, member string, raw []byte) (io.Reader, int) {
	head := `{"jsonrpc":"2.0","id":` + string(id) + `,"` + member + `":`
	return io.MultiReader(strings.NewReader(head), bytes.NewReader(raw), strings.NewReader("}")), len(head) + len(raw) + 1
}

// envelope is a JSON-RPC response carrying result, with a request ID of
// the length the client's have (a UUID): the body whose json.Unmarshal the
// poll is compared with.
func envelope(result []byte) []byte {
	return []byte(`{"jsonrpc":"2.0","id":"00000000-0000-4000-8000-000000000000","result":` + string(result) + `}`)
}

// get answers a get-task: the working task, or the completed one after
// the polls, and records when it came.
func (p *pollAgent) get(now time.Time) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	body := p.working
	if p.gets > p.polls {
		body = p.done
	}
	p.gets++
	p.at = append(p.at, now)
	if p.mallocs != nil {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		p.mallocs = append(p.mallocs, ms.Mallocs)
	}
	return body
}

// RoundTrip implements http.RoundTripper.
func (p *pollAgent) RoundTrip(req *http.Request) (*http.Response, error) {
	now := time.Now()
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body.Close()
	}
	status, ctype, body := http.StatusOK, "application/json", []byte(nil)
	var rd io.Reader
	var n int
	if p.b == a2a.BindingJSONRPC {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(reqBody, &r); err != nil {
			return nil, err
		}
		switch r.Method {
		case "message/stream", "SendStreamingMessage":
			rd, n = rpcBody(r.ID, "error", p.refusal)
		case "message/send", "SendMessage":
			rd, n = rpcBody(r.ID, "result", p.first)
		case "tasks/get", "GetTask":
			rd, n = rpcBody(r.ID, "result", p.get(now))
		default:
			return nil, fmt.Errorf("pollAgent: method %q", r.Method)
		}
	} else {
		switch path := req.URL.Path; {
		case req.Method == http.MethodPost && strings.HasSuffix(path, "/message:stream"):
			status, ctype, body = p.refusalStatus, p.refusalType, p.refusal
		case req.Method == http.MethodPost && strings.HasSuffix(path, "/message:send"):
			body = p.first
		case req.Method == http.MethodGet && strings.Contains(path, "/tasks/"):
			body = p.get(now)
		default:
			status, body = http.StatusNotFound, []byte("not found")
		}
		rd, n = bytes.NewReader(body), len(body)
	}
	return &http.Response{
		Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {ctype}},
		Body:          io.NopCloser(rd),
		ContentLength: int64(n),
		Request:       req,
	}, nil
}

// followByPolling sends a message to a fresh pollAgent of version v and
// binding b and follows the task to its end, and returns the time between
// consecutive get-tasks that brought nothing new: each an empty poll and
// the sleep before the next.
func followByPolling(v a2a.Version, b a2a.Binding, polls int) ([]time.Duration, error) {
	agent, err := newPollAgent(v, b, polls)
	if err != nil {
		return nil, err
	}
	return follow(agent)
}

// follow is followByPolling of agent.
func follow(agent *pollAgent) ([]time.Duration, error) {
	v, b, polls := agent.v, agent.b, agent.polls
	newClient := stream.NewRESTClient
	if b == a2a.BindingJSONRPC {
		newClient = stream.NewClient
	}
	c, err := newClient("http://agent.invalid", stream.WithVersion(v),
		stream.WithHTTPClient(&http.Client{Transport: agent}), stream.WithPollInterval(pollInterval),
		stream.WithStallTimeout(0), stream.WithReconnect(reconnect.Never()))
	if err != nil {
		return nil, err
	}
	s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
	defer s.Close()
	events := 0
	for s.Next() {
		events++
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if want := 1 + pollArtifacts + 2; events != want { // submitted, the artifacts, working, completed
		return nil, fmt.Errorf("%d events; want %d", events, want)
	}
	if t := s.Task(); t == nil || len(t.Artifacts) != pollArtifacts || t.Status.State != a2a.StateCompleted {
		return nil, fmt.Errorf("the task is not assembled")
	}
	// Get 0 is the catch-up that brings the artifacts, gets 1 … polls
	// bring nothing new, the last brings the completed task.
	if len(agent.at) != polls+2 {
		return nil, fmt.Errorf("%d get-tasks; want %d", len(agent.at), polls+2)
	}
	gaps := make([]time.Duration, 0, polls)
	for i := 1; i <= polls; i++ {
		gaps = append(gaps, agent.at[i+1].Sub(agent.at[i]))
	}
	return gaps, nil
}

// timedSleeps times k waits of pollInterval the way the stream waits
// between polls (a timer and a select on the context).
func timedSleeps(k int) []time.Duration {
	ctx := context.Background()
	out := make([]time.Duration, k)
	for i := range out {
		start := time.Now()
		t := time.NewTimer(pollInterval)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		out[i] = time.Since(start)
	}
	return out
}

// pollFigures is what the poll suite measured for one version: the
// median per-round ratio of an empty poll to one json.Unmarshal of the
// body into a struct, and the medians behind it.
type pollFigures struct {
	v                                 a2a.Version
	b                                 a2a.Binding // HTTP+JSON when zero
	body                              int
	gap, sleep, poll, unmarshal, mapU time.Duration
	decode                            time.Duration // a2a.Codec.DecodeTask of the body alone
	ratio                             float64
	decodeRatio                       float64 // decode over unmarshal, the median of the rounds'
}

// where names the wire of f: "JSON-RPC 1.0", "HTTP+JSON 0.3".
func (f pollFigures) where() string {
	if f.b == a2a.BindingJSONRPC {
		return "JSON-RPC " + f.v.String()
	}
	return "HTTP+JSON " + f.v.String()
}

func durMedian(ds []time.Duration) time.Duration {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d)
	}
	return time.Duration(measure.Median(xs))
}

// rpcShape is pollShape as the result of a JSON-RPC response.
type rpcShape struct {
	Result pollShape `json:"result"`
}

// artifactsOf returns how many artifacts the struct dst of an unmarshal
// holds, and whether it is one.
func artifactsOf(dst any) (int, bool) {
	switch d := dst.(type) {
	case *pollShape:
		return len(d.Artifacts), true
	case *rpcShape:
		return len(d.Result.Artifacts), true
	}
	return 0, false
}

// pollCost follows a task of 10,000 artifacts by polling, over JSON-RPC
// and HTTP+JSON in both versions, and compares a poll that brings nothing
// new with one json.Unmarshal of the same body.
func pollCost(cfg *config, w io.Writer) error {
	polls := 20
	if cfg.quick {
		polls = 3
	}
	var figs []pollFigures
	for _, wire := range []struct {
		v a2a.Version
		b a2a.Binding
	}{{a2a.V03, a2a.BindingJSONRPC}, {a2a.V10, a2a.BindingJSONRPC}, {a2a.V03, a2a.BindingHTTPJSON}, {a2a.V10, a2a.BindingHTTPJSON}} {
		v, b := wire.v, wire.b
		agent, err := newPollAgent(v, b, 0)
		if err != nil {
			return err
		}
		task := agent.working // what DecodeTask decodes
		body, shape := task, func() any { return new(pollShape) }
		if b == a2a.BindingJSONRPC {
			body, shape = envelope(task), func() any { return new(rpcShape) }
		}
		unmarshal := func(into func() any) ([]time.Duration, error) {
			out := make([]time.Duration, polls)
			for i := range out {
				start := time.Now()
				dst := into()
				if err := json.Unmarshal(body, dst); err != nil {
					return nil, err
				}
				out[i] = time.Since(start)
				if n, ok := artifactsOf(dst); ok && n != pollArtifacts {
					return nil, fmt.Errorf("the struct holds %d artifacts", n)
				}
			}
			return out, nil
		}
		codec := a2a.Codec{Version: v, Binding: b}
		decodeTask := func() ([]time.Duration, error) {
			out := make([]time.Duration, polls)
			for i := range out {
				start := time.Now()
				t, err := codec.DecodeTask(task)
				if err != nil {
					return nil, err
				}
				out[i] = time.Since(start)
				if len(t.Artifacts) != pollArtifacts {
					return nil, fmt.Errorf("the task holds %d artifacts", len(t.Artifacts))
				}
			}
			return out, nil
		}
		var gaps, sleeps, structs, maps, decodes, ratios, decodeRatios []float64
		for round := -1; round < cfg.rounds; round++ { // round -1 warms up
			runtime.GC() // a collected heap for each contender
			g, err := followByPolling(v, b, polls)
			if err != nil {
				return fmt.Errorf("%s %s: %w", b, v, err)
			}
			runtime.GC()
			sl := timedSleeps(polls)
			runtime.GC()
			us, err := unmarshal(shape)
			if err != nil {
				return fmt.Errorf("%s: json.Unmarshal into a struct: %w", v, err)
			}
			runtime.GC()
			ms, err := unmarshal(func() any { return new(map[string]any) })
			if err != nil {
				return fmt.Errorf("%s: json.Unmarshal into a map: %w", v, err)
			}
			runtime.GC()
			ds, err := decodeTask()
			if err != nil {
				return fmt.Errorf("%s: a2a.Codec.DecodeTask: %w", v, err)
			}
			if round < 0 {
				continue
			}
			gap, sleep, st := durMedian(g), durMedian(sl), durMedian(us)
			decodes = append(decodes, float64(durMedian(ds)))
			decodeRatios = append(decodeRatios, float64(durMedian(ds))/float64(st))
			gaps, sleeps, structs, maps = append(gaps, float64(gap)), append(sleeps, float64(sleep)), append(structs, float64(st)), append(maps, float64(durMedian(ms)))
			ratios = append(ratios, float64(gap-sleep)/float64(st))
		}
		gap, sleep := time.Duration(measure.Median(gaps)), time.Duration(measure.Median(sleeps))
		figs = append(figs, pollFigures{v: v, b: b, body: len(body), gap: gap, sleep: sleep,
			poll: gap - sleep, unmarshal: time.Duration(measure.Median(structs)),
			mapU: time.Duration(measure.Median(maps)), ratio: measure.Median(ratios),
			decode: time.Duration(measure.Median(decodes)), decodeRatio: measure.Median(decodeRatios)})
	}
	cfg.res.poll = figs

	fmt.Fprintf(w, "## 7. Polling a big task\n\n")
	fmt.Fprintf(w, "A stream follows, by polling over JSON-RPC and over HTTP+JSON, a task of %s artifacts of three text parts each, from an "+
		"in-memory agent that refuses streaming (a RoundTripper serving bodies made before the run; over JSON-RPC it writes the envelope "+
		"that carries each request's ID around them): the unary send, a catch-up get-task that brings the artifacts, %d get-tasks that "+
		"bring nothing new, and one that brings the completed task. An empty poll is the time from one get-task to the next (the call, "+
		"the reading of the body, its comparison with the last poll's, which it repeats byte for byte (over JSON-RPC, its result), what "+
		"the stream does with that, and the wait of the poll interval, %s, the shortest the library allows) less the median of %d timed "+
		"waits of that interval made the stream's way (a timer and a select). It is compared with one json.Unmarshal of the same body "+
		"(over JSON-RPC, the whole response) into a struct of the fields an application reads (id, contextId, status.state, each "+
		"artifact's artifactId and its parts' kind and text), and into a map; a2a.Codec.DecodeTask of the task alone says what a poll "+
		"whose body changed spends on the decode, before the ledger's judgement. "+
		"Per round: the median of each; ×struct is the median over %d rounds (after one warm-up round) of the per-round ratio.\n\n",
		measure.Thousands(pollArtifacts), polls, pollInterval, polls, cfg.rounds)
	t := measure.Table{Head: []string{"wire", "body", "get to get", "wait alone", "empty poll", "json.Unmarshal, struct", "json.Unmarshal, map", "a2a DecodeTask", "poll ×struct", "DecodeTask ×struct"},
		Align: []bool{false, true, true, true, true, true, true, true, true, true}}
	worst := 0.0
	var each []string
	for _, f := range figs {
		t.Add(f.where(), fmt.Sprintf("%s B", measure.Thousands(int64(f.body))), measure.Dur(f.gap), measure.Dur(f.sleep),
			measure.Dur(f.poll), measure.Dur(f.unmarshal), measure.Dur(f.mapU), measure.Dur(f.decode), measure.Ratio(f.ratio), measure.Ratio(f.decodeRatio))
		worst = max(worst, f.ratio)
		each = append(each, fmt.Sprintf("**%s** over %s", measure.Ratio(f.ratio), f.where()))
	}
	fmt.Fprintln(w, t.String())
	fmt.Fprintf(w, "- an empty poll ≤ 1.5× one json.Unmarshal of its body into a struct: %s — %s\n", strings.Join(each, ", "), verdict(worst <= pollTarget))
	return nil
}
