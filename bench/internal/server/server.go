// Package server is the benchmark's A2A agent: a JSON-RPC handler that
// streams rendered events (package wire) as fast as the connection takes
// them. The scenario comes from the URL query of the endpoint:
//
//	s=throughput&n=N          a task, N artifact chunks, completed
//	s=long&n=N&msgs=M&arts=A  N events: M status messages, the rest
//	                          chunks spread over A artifacts
//	s=idle                    a task and a working status, then silence
//	s=resume&n=N&every=K      N chunks; the connection is cut after every
//	                          K chunks and resubscribe continues live
//	                          (a2a-go style: nothing is replayed)
//	s=big&size=B              one artifact chunk of B bytes of text
//
// The wire version follows the method name the client used.
//
// The HTTP+JSON (REST) binding is served under /rest/: the scenario and its
// parameters are path segments, and the base URL they form is what
// stream.NewRESTClient takes, which appends message:stream (1.0, with the
// A2A-Version: 1.0 header) or v1/message:stream (0.3):
//
//	POST /rest/throughput/n=N/message:stream
//	POST /rest/long/n=N/msgs=M/arts=A/v1/message:stream
//
// throughput, long, idle and big are served so; resume needs the task
// routes and stays JSON-RPC only. message:send answers 400, as the stream
// is the only call the scenarios make.
package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2astream/a2astream/bench/internal/grpcserver"
	"github.com/a2astream/a2astream/bench/internal/wire"
)

// Handler serves the scenarios. The zero value is ready to use.
type Handler struct {
	next atomic.Uint64

	mu    sync.Mutex
	tasks map[string]*resumeTask

	bigMu   sync.Mutex
	bigText map[int]string
}

type resumeTask struct {
	t   wire.Task
	pos int // chunks sent so far
}

const flushAt = 32 << 10

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/rest/"); ok {
		h.serveREST(w, r, rest)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var req wire.Request
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	q := r.URL.Query()
	v := "1.0"
	if wire.IsV03Method(req.Method) {
		v = "0.3"
	}
	wr := &wire.Writer{V: v, ReqID: req.ID, Buf: make([]byte, 0, flushAt+4096)}
	h.scenario(w, r, wr, &req, q.Get("s"), q)
}

// scenario streams scenario s with parameters q; req is nil over REST.
func (h *Handler) scenario(w http.ResponseWriter, r *http.Request, wr *wire.Writer, req *wire.Request, s string, q url.Values) {
	switch s {
	case "throughput":
		h.throughput(w, wr, atoi(q, "n", 1000))
	case "long":
		h.long(w, wr, atoi(q, "n", 1000), atoi(q, "msgs", 10), atoi(q, "arts", 10))
	case "idle":
		h.idle(w, r, wr)
	case "resume":
		if req == nil {
			http.Error(w, "resume is served over JSON-RPC only", http.StatusNotFound)
			return
		}
		h.resume(w, wr, req, atoi(q, "n", 1000), atoi(q, "every", 100))
	case "big":
		h.big(w, wr, atoi(q, "size", 1<<20))
	default:
		http.Error(w, "unknown scenario", http.StatusNotFound)
	}
}

// serveREST answers a REST streaming send under /rest/: path is the rest of
// the URL path, "<scenario>[/<key>=<value>…][/v1]/message:stream".
func (h *Handler) serveREST(w http.ResponseWriter, r *http.Request, path string) {
	segs := strings.Split(path, "/")
	call := segs[len(segs)-1]
	segs = segs[:len(segs)-1]
	v := "1.0"
	if len(segs) > 0 && segs[len(segs)-1] == "v1" {
		v = "0.3"
		segs = segs[:len(segs)-1]
	}
	if len(segs) == 0 || segs[0] == "" {
		restError(w, v, http.StatusNotFound, "no scenario in the path")
		return
	}
	q := url.Values{}
	for _, kv := range segs[1:] {
		k, val, ok := strings.Cut(kv, "=")
		if !ok {
			restError(w, v, http.StatusNotFound, "path segment "+strconv.Quote(kv)+" is not key=value")
			return
		}
		q.Set(k, val)
	}
	switch {
	case r.Method != http.MethodPost:
		restError(w, v, http.StatusMethodNotAllowed, "method not allowed")
		return
	case call != "message:stream":
		restError(w, v, http.StatusBadRequest, "only message:stream is served")
		return
	case v == "1.0" && r.Header.Get("A2A-Version") != "1.0":
		// As @a2a-js/sdk 1.3.0 answers a send without the header.
		restError(w, v, http.StatusBadRequest, "A2A-Version 1.0 required")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var send struct {
		Message json.RawMessage `json:"message"`
	}
	if err == nil {
		err = json.Unmarshal(body, &send)
	}
	if err != nil || len(send.Message) == 0 {
		restError(w, v, http.StatusBadRequest, "the body holds no message")
		return
	}
	wr := &wire.Writer{V: v, REST: true, Buf: make([]byte, 0, flushAt+4096)}
	h.scenario(w, r, wr, nil, segs[0], q)
}

// restError answers a REST request with an A2A error body: 1.0's
// google.rpc.Status, 0.3's bare {code, message}.
func restError(w http.ResponseWriter, v string, status int, msg string) {
	if v == "0.3" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"code":-32602,"message":%q}`, msg)
		return
	}
	name := "INVALID_ARGUMENT"
	switch status {
	case http.StatusNotFound:
		name = "NOT_FOUND"
	case http.StatusMethodNotAllowed:
		name = "UNIMPLEMENTED"
	}
	w.Header().Set("Content-Type", "application/a2a+json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"code":%d,"status":%q,"message":%q}}`, status, name, msg)
}

func atoi(q map[string][]string, key string, def int) int {
	if vs := q[key]; len(vs) > 0 {
		if n, err := strconv.Atoi(vs[0]); err == nil {
			return n
		}
	}
	return def
}

func startSSE(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

// flush writes the rendered bytes once there are enough of them (or always
// when force), and reports whether the client is still there.
func flush(w http.ResponseWriter, wr *wire.Writer, force bool) bool {
	if len(wr.Buf) < flushAt && !force {
		return true
	}
	_, err := w.Write(wr.Buf)
	wr.Buf = wr.Buf[:0]
	if force {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	return err == nil
}

func (h *Handler) throughput(w http.ResponseWriter, wr *wire.Writer, n int) {
	t := wire.NewTask(h.next.Add(1))
	startSSE(w)
	wr.TaskEvent(t)
	wr.Status(t, "working", wire.UUID('m', 0), "working", false)
	art := wire.UUID('a', 0)
	var text []byte
	for i := range n {
		text = wire.ChunkText(text[:0], i)
		wr.Artifact(t, art, string(text), i > 0, i == n-1)
		if !flush(w, wr, false) {
			return
		}
	}
	wr.Status(t, "completed", "", "", true)
	flush(w, wr, true)
}

func (h *Handler) long(w http.ResponseWriter, wr *wire.Writer, n, msgs, arts int) {
	t := wire.NewTask(h.next.Add(1))
	startSSE(w)
	wr.TaskEvent(t)
	every := max(n/max(msgs, 1), 1)
	started := make([]bool, arts)
	var text []byte
	chunks := 0
	for i := range n {
		if i%every == 0 {
			k := uint64(i / every)
			wr.Status(t, "working", wire.UUID('m', k), "step "+strconv.FormatUint(k, 10), false)
		} else {
			a := chunks % arts
			chunks++
			text = wire.ChunkText(text[:0], i)
			wr.Artifact(t, wire.UUID('a', uint64(a)), string(text), started[a], false)
			started[a] = true
		}
		if !flush(w, wr, false) {
			return
		}
	}
	wr.Status(t, "completed", "", "", true)
	flush(w, wr, true)
}

func (h *Handler) idle(w http.ResponseWriter, r *http.Request, wr *wire.Writer) {
	t := wire.NewTask(h.next.Add(1))
	startSSE(w)
	wr.TaskEvent(t)
	wr.Status(t, "working", wire.UUID('m', 0), "working", false)
	flush(w, wr, true)
	<-r.Context().Done()
}

func (h *Handler) resume(w http.ResponseWriter, wr *wire.Writer, req *wire.Request, n, every int) {
	var rt *resumeTask
	switch req.Method {
	case "message/stream", "SendStreamingMessage":
		rt = &resumeTask{t: wire.NewTask(h.next.Add(1))}
		h.mu.Lock()
		if h.tasks == nil {
			h.tasks = map[string]*resumeTask{}
		}
		h.tasks[rt.t.ID] = rt
		h.mu.Unlock()
		startSSE(w)
		wr.TaskEvent(rt.t)
		wr.Status(rt.t, "working", wire.UUID('m', 0), "working", false)
	case "tasks/resubscribe", "SubscribeToTask", "tasks/get", "GetTask":
		h.mu.Lock()
		rt = h.tasks[req.Params.ID]
		h.mu.Unlock()
		if rt == nil {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"task not found"}}`, req.ID)
			return
		}
		if req.Method == "tasks/get" || req.Method == "GetTask" {
			state := "working"
			if rt.pos >= n {
				state = "completed"
			}
			wr.TaskResponse(rt.t, state, wire.UUID('a', 0), rt.pos, wire.ChunkText)
			w.Header().Set("Content-Type", "application/json")
			w.Write(wr.Buf)
			return
		}
		startSSE(w)
	default:
		http.Error(w, "unknown method", http.StatusBadRequest)
		return
	}
	art := wire.UUID('a', 0)
	var text []byte
	for k := 0; k < every && rt.pos < n; k++ {
		text = wire.ChunkText(text[:0], rt.pos)
		wr.Artifact(rt.t, art, string(text), rt.pos > 0, rt.pos == n-1)
		rt.pos++
		// The first event of a leg goes out at once, as a live server
		// sends it: the resume latency must not include rendering 32 KiB.
		if !flush(w, wr, k == 0) {
			return
		}
	}
	if rt.pos >= n {
		wr.Status(rt.t, "completed", "", "", true)
		flush(w, wr, true)
		return
	}
	flush(w, wr, true)
	panic(http.ErrAbortHandler) // cut the connection mid-stream
}

func (h *Handler) big(w http.ResponseWriter, wr *wire.Writer, size int) {
	h.bigMu.Lock()
	if h.bigText == nil {
		h.bigText = map[int]string{}
	}
	text, ok := h.bigText[size]
	if !ok {
		text = wire.BigText(size)
		h.bigText[size] = text
	}
	h.bigMu.Unlock()
	t := wire.NewTask(h.next.Add(1))
	startSSE(w)
	wr.TaskEvent(t)
	wr.Artifact(t, wire.UUID('a', 0), text, false, true)
	wr.Status(t, "completed", "", "", true)
	flush(w, wr, true)
}

// NewServer returns an http.Server for h with loopback-friendly limits. It
// speaks HTTP/1.1 and HTTP/2 cleartext (h2c with prior knowledge, as a
// Transport whose Protocols hold only UnencryptedHTTP2 speaks it), with
// Go's default of 250 concurrent streams per HTTP/2 connection.
func NewServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second, ErrorLog: nil, MaxHeaderBytes: 16 << 10, Protocols: Protocols()}
}

// Protocols is what the benchmark's server speaks: HTTP/1.1 and HTTP/2
// cleartext. An httptest.Server set up with it (Config.Protocols, before
// Start) serves the suites that use h2c.
func Protocols() *http.Protocols {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return &p
}

// ServeChild runs the server as the child process of the benchmark: it
// listens on 127.0.0.1 twice, HTTP (this package) and gRPC (package
// grpcserver, h2c), prints "addr host:port" and then "grpc host:port" on
// stdout, and exits when its stdin closes (the parent went away).
func ServeChild() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	gln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("addr %s\ngrpc %s\n", ln.Addr(), gln.Addr())
	go func() {
		_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
		os.Exit(0)
	}()
	errs := make(chan error, 2)
	go func() { errs <- grpcserver.Serve(&grpcserver.Server{}, gln) }()
	go func() { errs <- NewServer(&Handler{}).Serve(ln) }()
	return <-errs
}
