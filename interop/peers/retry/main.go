// Command retry is a small A2A agent of a2astream's own, used as a real peer
// by the interop tests to emit what the @a2a-js/sdk and a2a-go peers cannot:
// errors marked retryable, and "busy" answers to a send.
//
// It is an independent implementation of the wire: it imports nothing of
// a2astream and writes every JSON body by hand (encoding/json only quotes
// strings and reads requests), so the tests check the library against the
// spec's shapes, not against its own encoder. It serves one binding
// (-binding jsonrpc or rest) in one protocol version (-version 0.3 or 1.0):
// the agent card, streaming and unary sends, subscribe (tasks/resubscribe,
// SubscribeToTask, …/tasks/{id}:subscribe), get-task and cancel.
//
// It listens on -addr (port 0 picks a free port), prints one line
//
//	A2A_PEER_URL=http://127.0.0.1:PORT/
//
// to stdout once it accepts connections, and serves until it is killed:
// JSON-RPC on "/", HTTP+JSON under "/rest" (with "/v1" in 0.3), the agent
// card on /.well-known/agent-card.json, and GET /counts, a JSON object that
// says what the agent received (see counts), with the W3C trace each call
// continued: its traceparent's trace ID and the caller's span ID.
//
// Every message starts one task that plays the interop "stream" script,
// -delay apart: the Task (submitted), working, the artifact "story" in three
// chunks (append, lastChunk), the artifact "summary", completed.
//
// With -auth TOKEN the task stops after the first chunk of "story" in
// auth-required, with the agent's status message "Please sign in", and
// stays there until a subscribe or a get-task of the task carries
// "Authorization: Bearer TOKEN"; then it goes on at once (working, the other
// chunks, "summary", completed), served on that call. Calls without the
// token see auth-required again. In 0.3 a stream ends after auth-required
// (final: true), and a subscribe without the token gets the snapshot alone;
// in 1.0 streams stay open through it. GET /counts lists every send,
// subscribe and get-task with the Authorization header it carried.
//
// Faults, each counted over the whole process:
//
//	-subscribe-errors N  the first N subscribes are answered with a retryable error
//	-errors-in-stream    those errors come as the first event of an SSE stream
//	                     (as @a2a-js/sdk 0.3 answers a resubscribe it refuses),
//	                     not as a JSON body
//	-subscribe-refuse    every subscribe is refused with task-not-found, so the
//	                     client reads the task with get-task
//	-get-errors N        the first N get-tasks (reads and polls) are answered
//	                     with a retryable error
//	-stream-error-at K   the first streaming send's stream sends K events, then
//	                     a retryable error event, and ends
//	-busy N              the first N sends are answered "busy": a retryable
//	                     -32603 over JSON-RPC; 503 with Retry-After over HTTP+JSON
//	-retry-after D       the delay those errors ask for (default 1s)
//	-no-streaming        the card says capabilities.streaming false, and
//	                     streaming calls are refused as unsupported
//	-auth TOKEN          the task asks for the bearer token TOKEN (above)
//
// See retryError for the shapes of the errors.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	binding := flag.String("binding", "jsonrpc", "the binding served: jsonrpc or rest")
	version := flag.String("version", "0.3", "the protocol version served: 0.3 or 1.0")
	delay := flag.Duration("delay", 60*time.Millisecond, "pause between events")
	var f faults
	flag.IntVar(&f.subscribeErrors, "subscribe-errors", 0, "answer the first N subscribes with a retryable error")
	flag.BoolVar(&f.errorsInStream, "errors-in-stream", false, "send the subscribe errors as the first event of an SSE stream")
	flag.BoolVar(&f.subscribeRefuse, "subscribe-refuse", false, "refuse every subscribe with task-not-found")
	flag.IntVar(&f.getErrors, "get-errors", 0, "answer the first N get-tasks with a retryable error")
	flag.IntVar(&f.streamErrorAt, "stream-error-at", -1, "end the first streaming send's stream with a retryable error after K events")
	flag.IntVar(&f.busy, "busy", 0, "answer the first N sends busy")
	flag.DurationVar(&f.retryAfter, "retry-after", time.Second, "the delay the retryable errors ask for")
	noStreaming := flag.Bool("no-streaming", false, "say capabilities.streaming false and refuse streaming calls")
	token := flag.String("auth", "", "stop the task in auth-required until a subscribe or get-task carries Authorization: Bearer TOKEN")
	flag.Parse()

	d := dialect{rest: *binding == "rest", v10: *version == "1.0"}
	if (*binding != "jsonrpc" && *binding != "rest") || (*version != "0.3" && *version != "1.0") {
		log.Fatalf("retry: -binding must be jsonrpc or rest and -version 0.3 or 1.0, not %q and %q", *binding, *version)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/"
	a := &agent{
		d:         d,
		delay:     *delay,
		faults:    f,
		streaming: !*noStreaming,
		token:     *token,
		tasks:     map[string]*task{},
	}
	a.card = card(d, base, a.streaming)

	fmt.Printf("A2A_PEER_URL=%s\n", base)
	os.Stdout.Sync()
	srv := &http.Server{Handler: a, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}

// faults are the scripted failures, counted over the whole process.
type faults struct {
	subscribeErrors int
	errorsInStream  bool
	subscribeRefuse bool
	getErrors       int
	streamErrorAt   int // -1: none
	busy            int
	retryAfter      time.Duration
}

// card returns the agent card: A2A 0.3's url and preferredTransport, or
// 1.0's supportedInterfaces.
func card(d dialect, base string, streaming bool) string {
	url, binding := base, "JSONRPC"
	if d.rest {
		url, binding = base+"rest", "HTTP+JSON"
	}
	common := fmt.Sprintf(`"name":"a2astream retry peer","description":"A scripted agent that answers with retryable errors.",`+
		`"version":"1.0.0","capabilities":{"streaming":%t},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],`+
		`"skills":[{"id":"script","name":"script","description":"Streams a short story.","tags":["test"]}]`, streaming)
	if d.v10 {
		return fmt.Sprintf(`{%s,"supportedInterfaces":[{"url":%s,"protocolBinding":%q,"protocolVersion":"1.0"}]}`, common, str(url), binding)
	}
	return fmt.Sprintf(`{%s,"protocolVersion":"0.3.0","url":%s,"preferredTransport":%q}`, common, str(url), binding)
}
