// Package a2atest provides an in-process A2A agent for testing A2A clients:
// a scriptable fake agent ([Agent]) and an HTTP transport ([NewTransport])
// that connects an [*http.Client] to any [http.Handler] without sockets.
//
// The transport really streams: each Write of the handler reaches the
// client's Read as it happens, a cancelled context or a closed body reaches
// the handler at once, and a handler that panics with [http.ErrAbortHandler]
// looks to the client like a dropped connection ([io.ErrUnexpectedEOF]).
// It needs no network and starts no timers of its own, so it works inside
// [testing/synctest] bubbles, where the agent's pauses take no wall time.
//
// The agent speaks A2A 0.3, 1.0 or both, over the JSON-RPC binding, the
// HTTP+JSON (REST) binding as @a2a-js/sdk serves it, or both
// ([WithBindings]), and lists in its card what it serves. Every new
// task runs a script of [Step]s (status updates, artifact chunks, messages,
// pauses, input-required prompts) that is laid out on a timeline when the
// task is created; [Fault]s make chosen requests fail in the ways real
// networks and servers do, each kind of request from its own list
// ([WithFaults] for streaming requests, [WithSendFaults] for unary sends,
// [WithGetFaults] for polls; [RandomFaults] draws a long one); a
// [ResubscribeStyle] picks which real server's resubscribe behaviour to
// copy, for every resubscribe ([WithStyle]) or for each in turn
// ([WithStyles]). The agent can also lack an ability, as real agents do:
// [WithoutStreaming] makes one whose card says it cannot stream, so that
// clients send with a unary send that returns at once and poll, and
// [WithoutResubscribe] one that streams but cannot resubscribe. The agent
// records every request ([Agent.Requests]) and exposes its tasks
// ([Agent.Task]) for assertions.
//
// With [WithPush] the agent also takes webhooks, in a send or by the
// push-config calls, and POSTs each event of a task to them as the SDKs'
// push senders do: once each, one at a time, lost when the POST fails;
// [WithPushFaults] loses, repeats, delays and reorders them, and
// [Agent.Pushes] reports them. That is the one part of the agent that
// starts goroutines and timers of its own (a goroutine per task with
// webhooks, inside a bubble too): [Agent.Close] stops them.
//
// A typical test, with fake time:
//
//	func TestResume(t *testing.T) {
//		synctest.Test(t, func(t *testing.T) {
//			agent := a2atest.NewAgent(
//				a2atest.WithScript(
//					a2atest.Working(""),
//					a2atest.Pause(2*time.Second),
//					a2atest.Chunk("a1", "done", false, true),
//					a2atest.Finish(a2a.StateCompleted, ""),
//				),
//				a2atest.WithFaults(a2atest.CutAfterEvents(2)), // drop the first stream
//			)
//			client := agent.Client() // an *http.Client; any URL reaches the agent
//			// … run the code under test against "http://agent.test/" with client …
//			reqs := agent.Requests()
//			// … assert that it resubscribed: reqs[1].Method == "SubscribeToTask" …
//		})
//	}
//
// # What it is for
//
// The package is for tests and demos: the tests of A2A clients, and
// programs that show a client at work against an agent that behaves as
// told (the repository's examples, and the demo agent of examples/agent,
// which serves an [Agent] on a real listener with net/http: an Agent is an
// [http.Handler], and its card names the URL each request reached it at).
// It is not for production agents: it keeps every task and every request
// in memory for as long as it lives and never forgets them, it runs a
// fixed script instead of doing work, it trusts every request (no
// authentication, no limits on tasks, bodies or streams), and it cuts
// connections and answers with errors on purpose when given faults. Only
// _test.go files and the examples import it; the library's own packages
// never do, and a test checks that they do not.
package a2atest
