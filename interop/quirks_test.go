package interop_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/interop/proxy"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// These tests pin down the peculiarities of the real servers that the
// runtime copes with (the quirks list in README.md), one behaviour each, on
// every peer.

// streaming reports whether a peer streams and resubscribes, in either
// binding.
func streaming(d peerDef) bool { return d.mode == streams }

func quirkCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// finish runs a scenario to its end and returns the task ID.
func finish(t *testing.T, ctx context.Context, c *stream.Client, text string) string {
	t.Helper()
	task, err := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, text)).Wait()
	if err != nil || task == nil {
		t.Fatalf("%q: task %v, err %v", text, task, err)
	}
	return task.ID
}

// Subscribing to a finished task: a2a-go answers -32001 (task not found,
// although tasks/get finds it, with a text/plain get-task response),
// js-0.3.14 a snapshot and close (over REST too), js-1.3.0 a plain-JSON
// -32004, the legacy dialect an `event: error` -32004, and js-1.3.0's REST
// handler HTTP 400 FAILED_PRECONDITION with reason UNSUPPORTED_OPERATION.
// Each time the stream must end with the completed task, as it is on the
// server.
func TestQuirkSubscribeAfterTheTurn(t *testing.T) {
	eachPeerWhere(t, streaming, func(t *testing.T, p *peer) {
		ctx := quirkCtx(t)
		var prompts []string
		c := newClient(t, newProxy(t, p, nil), p, &prompts)
		id := finish(t, ctx, c, "stream a story")

		task, err := c.Subscribe(ctx, id).Wait()
		if err != nil {
			t.Fatalf("Subscribe to a completed task: %v", err)
		}
		if task.Status.State != a2a.StateCompleted {
			t.Fatalf("state %s, want completed", task.Status.State)
		}
		if got := view(task.Artifacts); len(got) != 2 || strings.Join(got[0].Parts, "") != "Once upon a time, a gopher met a node." {
			t.Fatalf("artifacts %v", got)
		}
		// The unary call on its own (a2a-go answers it as text/plain).
		got, err := c.GetTask(ctx, id)
		if err != nil || got.Status.State != a2a.StateCompleted {
			t.Fatalf("GetTask: %v, %v", got, err)
		}
	})
}

// A message to a finished task is refused before any event: a2a-go with a
// `data:` error (-32602), js-0.3.14 with `event: error` (-32600), js-1.3.0
// (both dialects) with a plain application/json body (-32004) on HTTP 200;
// over REST, js-1.3.0 with HTTP 400 UNSUPPORTED_OPERATION, and js-0.3.14
// with HTTP 500 -32603 "Bug: toJson serializer and body must be provided for
// non-204 responses." (its restHandler reports any error raised before a
// stream's first event through a call that throws, so the real error is
// lost). Each must end in an *a2a.RPCError (inside a *transport.HTTPError over
// REST), not in a silent empty stream, and the message must not reach the
// task.
func TestQuirkErrorsOnStreams(t *testing.T) {
	eachPeerWhere(t, streaming, func(t *testing.T, p *peer) {
		ctx := quirkCtx(t)
		var prompts []string
		c := newClient(t, newProxy(t, p, nil), p, &prompts)
		id := finish(t, ctx, c, "stream a story")

		msg := a2a.NewTextMessage(a2a.RoleUser, "stream again")
		msg.TaskID = id
		px := newProxy(t, p, nil)
		c = newClient(t, px, p, &prompts)
		_, err := c.Send(ctx, msg).Wait()
		var rpcErr *a2a.RPCError
		if !errors.As(err, &rpcErr) {
			t.Fatalf("send to a completed task: %T %v, want *a2a.RPCError", err, err)
		}
		// The message must not reach the task, and is sent once: js-1.3.0
		// refuses it with -32004, which from an agent whose card says it
		// streams is the message's refusal, not "cannot stream".
		if n := px.Count(proxy.Send); n != 1 {
			t.Errorf("the refused message was sent %d times, want 1", n)
		}
		for _, r := range px.Requests() {
			if r.Kind == proxy.Send && r.MessageID != msg.ID {
				t.Errorf("a send of another message: %v", r)
			}
		}
		if task, err := c.GetTask(ctx, id); err != nil || slices.ContainsFunc(task.History, func(m a2a.Message) bool { return m.ID == msg.ID }) {
			t.Errorf("the refused message is in the task's history (or get-task failed: %v)", err)
		}
		t.Logf("%s: %v; sends: %d", p.def.name, rpcErr, px.Count(proxy.Send))
	})
}

// js-1.3.0 keeps a subscription to an input-required task open (it would
// deliver the next turn), over REST too; the legacy dialect reports
// input-required with final:false and then closes; a2a-go refuses with
// -32001. Answering later through Subscribe must work everywhere without
// waiting for an EOF.
func TestQuirkInputRequiredSubscription(t *testing.T) {
	eachPeerWhere(t, streaming, func(t *testing.T, p *peer) {
		ctx := quirkCtx(t)
		px := newProxy(t, p, nil)
		noHook := resolve(t, px, p)
		_, err := noHook.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "book a trip; ask for input")).Wait()
		var herr *hitl.Error
		if !errors.As(err, &herr) || !errors.Is(err, hitl.ErrNoHook) {
			t.Fatalf("without a hook: %T %v, want *hitl.Error wrapping ErrNoHook", err, err)
		}
		id := herr.Task.ID

		var prompts []string
		c := newClient(t, px, p, &prompts)
		start := time.Now()
		task, err := c.Subscribe(ctx, id).Wait()
		if err != nil {
			t.Fatalf("Subscribe with a hook: %v", err)
		}
		if task.Status.State != a2a.StateCompleted || len(prompts) != 1 || prompts[0] != "Which dates?" {
			t.Fatalf("state %s, prompts %q", task.Status.State, prompts)
		}
		want := []artifact{{"draft", []string{"Planning the trip."}}, {"result", []string{"Booked ", "for " + answer + "."}}}
		if got := view(task.Artifacts); !equalArtifacts(got, want) {
			t.Fatalf("artifacts %v, want %v", got, want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("took %v: the stream waited on an open subscription", d)
		}
	})
}

func equalArtifacts(a, b []artifact) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || strings.Join(a[i].Parts, "\x00") != strings.Join(b[i].Parts, "\x00") {
			return false
		}
	}
	return true
}

// express rejects a JSON body over its 100 KB default with HTTP 413 and an
// HTML page; a2a-go takes it. The stream must end in a *transport.HTTPError
// with the status, not in a protocol error about HTML.
func TestQuirkBigRequest(t *testing.T) {
	eachPeerWhere(t, streaming, func(t *testing.T, p *peer) {
		ctx := quirkCtx(t)
		var prompts []string
		c := newClient(t, newProxy(t, p, nil), p, &prompts)
		text := "stream a story " + strings.Repeat("x", 200_000)
		task, err := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, text)).Wait()
		if p.def.name == "a2a-go-0.3.3" {
			if err != nil || task.Status.State != a2a.StateCompleted {
				t.Fatalf("a2a-go: %v, %v", task, err)
			}
			return
		}
		var herr *transport.HTTPError
		if !errors.As(err, &herr) || herr.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("%T %v, want *transport.HTTPError 413", err, err)
		}
		if !strings.Contains(strings.ToLower(string(herr.Body)), "<html") && !strings.Contains(string(herr.Body), "<!DOCTYPE") {
			t.Logf("413 body is not HTML: %q", herr.Body)
		}
	})
}

// Without WithVersion the client negotiates: a2a-go and js-0.3.14 answer
// the 1.0 method with -32601 (a2a-go as text/plain), so it falls back to
// 0.3; the js-1.3.0 peers speak 1.0.
func TestQuirkNegotiation(t *testing.T) {
	want := map[string]a2a.Version{"a2a-go-0.3.3": a2a.V03, "js-0.3.14": a2a.V03, "js-1.3.0": a2a.V10, "js-1.3.0-legacy": a2a.V10}
	eachPeerWhere(t, peerDef.classic, func(t *testing.T, p *peer) {
		ctx := quirkCtx(t)
		px := newProxy(t, p, nil)
		c, err := stream.NewClient("http://"+px.Addr()+"/",
			stream.WithHTTPClient(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}))
		if err != nil {
			t.Fatal(err)
		}
		finish(t, ctx, c, "stream a story")
		if c.Version() != want[p.def.name] {
			t.Fatalf("negotiated %q, want %q", c.Version(), want[p.def.name])
		}

		// Resolve reads the real agent card (straight from the peer).
		rc, err := stream.Resolve(ctx, p.url)
		if err != nil {
			t.Fatalf("Resolve: %v", err)
		}
		if rc.Endpoint() != p.url || rc.Version() != want[p.def.name] {
			t.Fatalf("Resolve picked %q %q, want %q %q", rc.Endpoint(), rc.Version(), p.url, want[p.def.name])
		}
	})
}

// A cut inside the very first event leaves the client without a task ID:
// nothing can be resumed and the message must not be sent twice, so the
// stream ends with reconnect.ErrNoTask. This is why the matrix
// has no mid-event cut for the message-only scenario.
func TestCutBeforeTaskID(t *testing.T) {
	eachPeerWhere(t, func(d peerDef) bool { return d.mode != noStreaming }, func(t *testing.T, p *peer) {
		for _, text := range []string{"reply with a message", "stream a story"} {
			ctx := quirkCtx(t)
			var prompts []string
			px := newProxy(t, p, []proxy.Fault{cut(0, 40)})
			c := newClient(t, px, p, &prompts)
			_, err := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, text)).Wait()
			var rerr *reconnect.Error
			if !errors.As(err, &rerr) || rerr.Attempts != 0 || !errors.Is(err, reconnect.ErrNoTask) {
				t.Fatalf("%q cut mid first event: %T %v, want reconnect.ErrNoTask", text, err, err)
			}
			if n := len(px.Records()); n != 1 {
				t.Fatalf("%q: %d streams opened, want 1 (no resubscribe, no re-send)", text, n)
			}
		}
	})
}

// An agent whose card says streaming: false is never asked to stream: the
// client resolved from the card sends with the unary method (with
// blocking: false in 0.3, returnImmediately in 1.0) and polls.
func TestQuirkNoStreamingCard(t *testing.T) {
	eachPeerWhere(t, func(d peerDef) bool { return d.mode == noStreaming }, func(t *testing.T, p *peer) {
		ctx := quirkCtx(t)
		var prompts []string
		px := newProxy(t, p, nil)
		c := newClient(t, px, p, &prompts)
		finish(t, ctx, c, "stream a story")
		for _, r := range px.Requests() {
			if r.Kind == proxy.Send && streamingSend(r) {
				t.Errorf("a streaming send to an agent that cannot stream: %v", r)
			}
		}
		if n := px.Count(proxy.Poll); n == 0 {
			t.Errorf("the task completed without a poll:\n%s", requestLog(px))
		}
	})
}

// streamingSend reports whether a send asks for a stream.
func streamingSend(r proxy.Request) bool {
	return strings.HasSuffix(r.Path, "/message:stream") || r.RPC == "message/stream" || r.RPC == "SendStreamingMessage"
}

// The same agents refuse a streaming send with -32004 (@a2a-js/sdk:
// "Streaming is not supported"): over JSON-RPC as a plain JSON error on
// HTTP 200, over REST as HTTP 400 with {"code":-32004,…} (0.3) or a
// google.rpc.Status whose reason is UNSUPPORTED_OPERATION (1.0). A client
// that was not told by the card (made with NewClient or NewRESTClient) must
// take the refusal as "cannot stream", send the message again with the unary
// method (the refused request did not reach the agent) and poll, saying so
// with a Polling notice.
func TestQuirkStreamingRefused(t *testing.T) {
	eachPeerWhere(t, func(d peerDef) bool { return d.mode == noStreaming }, func(t *testing.T, p *peer) {
		ctx := quirkCtx(t)
		px := newProxy(t, p, nil)
		var polling []stream.Notice
		opts := []stream.Option{stream.WithVersion(p.def.version),
			stream.WithHTTPClient(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}),
			stream.WithPollInterval(pollInterval),
			stream.WithNotify(func(n stream.Notice) {
				if n.Kind == stream.Polling {
					polling = append(polling, n)
				}
			})}
		newc := stream.NewClient
		base := "http://" + px.Addr() + "/"
		if p.def.rest() {
			newc, base = stream.NewRESTClient, base+"rest"
		}
		c, err := newc(base, opts...)
		if err != nil {
			t.Fatal(err)
		}
		task, err := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "stream a story")).Wait()
		if err != nil || task.Status.State != a2a.StateCompleted || !equalArtifacts(view(task.Artifacts), story) {
			t.Fatalf("task %v, err %v", task, err)
		}
		var sends []proxy.Request
		for _, r := range px.Requests() {
			if r.Kind == proxy.Send {
				sends = append(sends, r)
			}
		}
		if len(sends) != 2 || sends[0].MessageID != sends[1].MessageID || !streamingSend(sends[0]) || streamingSend(sends[1]) {
			t.Errorf("want one refused streaming send, then the same message once with the unary method:\n%s", requestLog(px))
		}
		var rpcErr *a2a.RPCError
		if len(polling) != 1 || !errors.As(polling[0].Cause, &rpcErr) || rpcErr.Code != -32004 {
			t.Errorf("Polling notices %+v, want one caused by the -32004 refusal", polling)
		}
	})
}

// A server that cannot resubscribe (-32601 over JSON-RPC, no route over
// REST): Subscribe to a running task follows it by polling instead, says so
// with one Polling notice, spends no reconnect attempt on it, and delivers
// the whole task.
func TestQuirkNoSubscribe(t *testing.T) {
	eachPeerWhere(t, func(d peerDef) bool { return d.mode == noSubscribe }, func(t *testing.T, p *peer) {
		ctx := quirkCtx(t)
		px := newProxy(t, p, nil)
		var prompts []string
		var polling, reconnecting []stream.Notice
		c := newClient(t, px, p, &prompts, stream.WithNotify(func(n stream.Notice) {
			switch n.Kind {
			case stream.Polling:
				polling = append(polling, n)
			case stream.Reconnecting:
				reconnecting = append(reconnecting, n)
			}
		}))
		// Start a slow task, take its ID from the first event, and leave.
		s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "stream a story, slow"))
		if !s.Next() || s.Task() == nil {
			t.Fatalf("no first event: %v", s.Err())
		}
		id := s.Task().ID
		s.Close()

		task, err := c.Subscribe(ctx, id).Wait()
		if err != nil || task.Status.State != a2a.StateCompleted || !equalArtifacts(view(task.Artifacts), story) {
			t.Fatalf("Subscribe: task %v, err %v", task, err)
		}
		if len(polling) != 1 || polling[0].Cause == nil || polling[0].TaskID != id {
			t.Errorf("Polling notices %+v, want one for task %s with the refusal as its cause", polling, id)
		}
		if len(reconnecting) > 0 {
			t.Errorf("the refused subscribe cost reconnect attempts: %+v", reconnecting)
		}
		if px.Count(proxy.Subscribe) != 1 || px.Count(proxy.Poll) == 0 {
			t.Errorf("want one refused subscribe, then polls:\n%s", requestLog(px))
		}
	})
}
