package interop_test

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/interop/proxy"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
	"google.golang.org/grpc/codes"
)

// The SDKs' gRPC servers, each beside the HTTP interface of the same peer
// process and request handler: the same scripts, reached over gRPC through
// a proxy in gRPC mode (proxy.NewGRPC) by a client made with
// stream.NewClientFor over an a2agrpc Transport.
var grpcPeerDefs = []peerDef{
	{
		name: "a2a-go-0.3.3-grpc", version: a2a.V03, grpc: true,
		command: func() (*exec.Cmd, error) {
			if a2agoErr != nil {
				return nil, a2agoErr
			}
			return exec.Command(a2agoBin, "-addr", "127.0.0.1:0", "-grpc", "127.0.0.1:0", "-delay", peerDelay.String()), nil
		},
	},
	{name: "js-0.3.14-grpc", version: a2a.V03, grpc: true, command: nodePeer("js03", "--grpc-port", "0")},
	{name: "js-1.3.0-grpc", version: a2a.V10, grpc: true, command: nodePeer("js10", "--grpc-port", "0")},
	// The 0.3 service (a2a.v1.A2AService) that js-1.3.0 registers beside the
	// 1.0 one with --legacy.
	{name: "js-1.3.0-legacy-grpc", version: a2a.V03, grpc: true, command: nodePeer("js10", "--legacy", "--grpc-port", "0")},
}

// grpcClient returns a client that calls through the proxy px (in gRPC
// mode) with an a2agrpc Transport, closed in t's cleanup. It has no
// WithVersion unless opts give one.
func grpcClient(t *testing.T, px *proxy.Proxy, opts ...stream.Option) *stream.Client {
	t.Helper()
	tr, err := a2agrpc.New(px.Addr(), a2agrpc.WithInsecure())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	c, err := stream.NewClientFor(tr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// grpcPeerNamed starts the gRPC peer called name.
func grpcPeerNamed(t *testing.T, name string) *peer {
	t.Helper()
	for _, def := range grpcPeerDefs {
		if def.name == name {
			p := startPeer(t, def)
			if p == nil {
				t.Fatal(errNotStarted)
			}
			return p
		}
	}
	t.Fatalf("no gRPC peer %q", name)
	return nil
}

// TestGRPCMatrix is TestMatrix on the gRPC servers: every scenario, uncut
// and with its streams cut or stalled at the same points, counted in gRPC
// messages (see proxy.NewGRPC), each run ending exactly as the uncut one,
// each of the user's messages sent once.
func TestGRPCMatrix(t *testing.T) {
	matrix(t, grpcPeerDefs)
}

// grpcAllPeers accepts every gRPC peer.
func grpcAllPeers(peerDef) bool { return true }

// What each server answers a subscribe to a task in input-required, to a
// finished task and to an unknown one (../shared/grpc's reconnect table),
// and what the library makes of it:
//
//   - input-required: js-1.3.0 (both services) sends the snapshot and keeps
//     the stream open; js-0.3.14 the snapshot, then the end; a2a-go NOT_FOUND
//     (it is live-only and the turn is over), after which the client reads
//     the task with GetTask. Everywhere the hook is asked once, the reply
//     goes, and the task completes, without waiting on the open stream.
//   - completed: js-1.3.0 FAILED_PRECONDITION with UNSUPPORTED_OPERATION,
//     js-0.3.14 the snapshot (completed) then the end, a2a-go NOT_FOUND.
//     Everywhere the stream ends with the completed task, no error.
//   - unknown: NOT_FOUND everywhere (with TASK_NOT_FOUND on js-1.3.0): the
//     stream ends with an *a2a.RPCError of a2a.CodeTaskNotFound.
func TestGRPCSubscribeTable(t *testing.T) {
	eachPeerOf(t, grpcPeerDefs, grpcAllPeers, func(t *testing.T, p *peer) {
		t.Run("input-required", func(t *testing.T) {
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
				t.Fatalf("Subscribe with a hook: %v; requests:\n%s", err, requestLog(px))
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
			if n := px.Count(proxy.Send); n != 2 {
				t.Errorf("%d sends, want 2 (the message and the reply); requests:\n%s", n, requestLog(px))
			}
		})
		t.Run("completed", func(t *testing.T) {
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
			got, err := c.GetTask(ctx, id)
			if err != nil || got.Status.State != a2a.StateCompleted {
				t.Fatalf("GetTask: %v, %v", got, err)
			}
		})
		t.Run("unknown", func(t *testing.T) {
			ctx := quirkCtx(t)
			var prompts []string
			c := newClient(t, newProxy(t, p, nil), p, &prompts)
			task, err := c.Subscribe(ctx, "no-such-task-0b5e").Wait()
			var rpcErr *a2a.RPCError
			if !errors.As(err, &rpcErr) || rpcErr.Code != a2a.CodeTaskNotFound {
				t.Fatalf("Subscribe to an unknown task: task %v, %T %v; want *a2a.RPCError %d", task, err, err, a2a.CodeTaskNotFound)
			}
		})
	})
}

// Without WithVersion the client negotiates: the 0.3-only servers
// (a2a-go, js-0.3.14) answer the 1.0 service UNIMPLEMENTED, and the client
// makes the call again in 0.3; js-1.3.0 speaks 1.0, with or without the
// legacy service beside it.
func TestGRPCNegotiation(t *testing.T) {
	want := map[string]a2a.Version{"a2a-go-0.3.3-grpc": a2a.V03, "js-0.3.14-grpc": a2a.V03, "js-1.3.0-grpc": a2a.V10, "js-1.3.0-legacy-grpc": a2a.V10}
	eachPeerOf(t, grpcPeerDefs, grpcAllPeers, func(t *testing.T, p *peer) {
		ctx := quirkCtx(t)
		px := newProxy(t, p, nil)
		c := grpcClient(t, px)
		finish(t, ctx, c, "stream a story")
		if c.Version() != want[p.def.name] {
			t.Fatalf("negotiated %q, want %q", c.Version(), want[p.def.name])
		}
		if n := px.Count(proxy.Send); want[p.def.name] == a2a.V03 && n != 2 || want[p.def.name] == a2a.V10 && n != 1 {
			t.Fatalf("%d sends; requests:\n%s", n, requestLog(px))
		}
		for i, r := range px.Requests() {
			if i == 0 && !strings.HasPrefix(r.Path, "/lf.a2a.v1.") {
				t.Fatalf("the first call is %s, want the 1.0 service", r.Path)
			}
		}
	})
}

// An executor that throws (the "error" script: Task, working, then the
// executor fails) is ended by the server, not the script, and each does it
// its own way:
//
//   - js-1.3.0, both services: a failed status event, "Agent execution
//     error: …": the stream ends in *terminal.FailedError.
//   - js-0.3.14: a failed status event that names another task (the SDK
//     makes up a task ID for it), and the task itself stays working on the
//     server. The library does not take the event for the task's: the stream
//     ends at once in a *transport.ProtocolError holding that event, with no
//     reconnect and the message sent once.
//   - a2a-go: the call ends INTERNAL, and the task stays working on the
//     server, which refuses every resubscribe (NOT_FOUND, live-only): the
//     stream reconnects until its budget is spent and ends in a
//     *reconnect.Error, the task as the server reports it (working).
func TestGRPCExecutorError(t *testing.T) {
	eachPeerOf(t, grpcPeerDefs, grpcAllPeers, func(t *testing.T, p *peer) {
		ctx := quirkCtx(t)
		var prompts []string
		px := newProxy(t, p, nil)
		var notices []stream.Notice
		c := newClient(t, px, p, &prompts, stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) }))
		s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "crash with an error"))
		var evs []string
		for s.Next() {
			evs = append(evs, describe(s.Event()))
		}
		err := s.Err()
		defer func() {
			if t.Failed() {
				t.Logf("events:\n%s\nnotices: %+v\nrequests:\n%s", strings.Join(evs, "\n"), notices, requestLog(px))
			}
		}()
		if n := px.Count(proxy.Send); n != 1 {
			t.Errorf("%d sends, want 1", n)
		}
		task := s.Task()
		if task == nil {
			t.Fatalf("no task; err %v", err)
		}
		const text = "Agent execution error: scripted executor error"
		switch p.def.name {
		case "js-1.3.0-grpc", "js-1.3.0-legacy-grpc":
			var failed *terminal.FailedError
			if !errors.As(err, &failed) || task.Status.State != a2a.StateFailed || task.Status.Message == nil || task.Status.Message.Text() != text {
				t.Fatalf("%T %v, task %s; want *terminal.FailedError %q", err, err, task.Status.State, text)
			}
		case "js-0.3.14-grpc":
			var protErr *transport.ProtocolError
			if !errors.As(err, &protErr) {
				t.Fatalf("%T %v, want *transport.ProtocolError", err, err)
			}
			su, ok := protErr.Event.(*a2a.StatusUpdate)
			if !ok || su.TaskID == task.ID || su.Status.State != a2a.StateFailed || su.Status.Message == nil || su.Status.Message.Text() != text {
				t.Fatalf("the error's event is %s, want a failed status of another task than %s", describe(protErr.Event), task.ID)
			}
			if task.Status.State != a2a.StateWorking || len(notices) != 0 {
				t.Fatalf("task %s, notices %+v; want working, no reconnect", task.Status.State, notices)
			}
			if got, err := c.GetTask(ctx, task.ID); err != nil || got.Status.State != a2a.StateWorking {
				t.Fatalf("GetTask: %v, %v; want the task still working on the server", got, err)
			}
		case "a2a-go-0.3.3-grpc":
			var rerr *reconnect.Error
			if !errors.As(err, &rerr) || rerr.Attempts != 3 || task.Status.State != a2a.StateWorking {
				t.Fatalf("%T %v, task %s; want *reconnect.Error after 3 attempts, task working", err, err, task.Status.State)
			}
			var serr *a2agrpc.StatusError
			if len(notices) == 0 || !errors.As(notices[0].Cause, &serr) || serr.Code != codes.Internal {
				t.Fatalf("the first notice is not the INTERNAL end of the send: %+v", notices)
			}
			if got, err := c.GetTask(ctx, task.ID); err != nil || got.Status.State != a2a.StateWorking {
				t.Fatalf("GetTask: %v, %v; want the task still working on the server", got, err)
			}
		default:
			t.Fatalf("no expectation for %s", p.def.name)
		}
	})
}

// a2a-go is live-only on resubscribe, and over gRPC it sends not even the
// response headers until the agent's next event. The canceled script's
// agent writes one chunk and then waits to be canceled; a cut inside that
// chunk leaves the resubscribe without headers or events for as long as
// the agent waits. The client must still get the chunk (by GetTask, once
// the silent subscribe has been given up) and end canceled, with one send
// and without the subscribe ever getting its response headers before the
// test's cancel.
func TestGRPCLiveOnlyResubscribeWithoutHeaders(t *testing.T) {
	t.Parallel()
	p := grpcPeerNamed(t, "a2a-go-0.3.3-grpc")
	ctx := quirkCtx(t)
	var prompts []string
	px := newProxy(t, p, []proxy.Fault{cut(2, 40)})
	var notices []string
	c := newClient(t, px, p, &prompts, stream.WithNotify(func(n stream.Notice) {
		notices = append(notices, fmt.Sprintf("%s %v", n.Kind, n.Cause))
	}))
	s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "cancel me while I run"))
	defer s.Close()

	var headersBeforeCancel []int
	canceled := false
	for s.Next() {
		u, ok := s.Event().(*a2a.ArtifactUpdate)
		if !ok || canceled {
			continue
		}
		for _, r := range px.Requests() {
			if r.Kind == proxy.Subscribe {
				headersBeforeCancel = append(headersBeforeCancel, r.Status)
			}
		}
		canceled = true
		if _, err := c.Cancel(ctx, u.TaskID); err != nil {
			t.Fatalf("Cancel: %v", err)
		}
	}
	t.Logf("notices %q; requests:\n%s", notices, requestLog(px))
	var cerr *terminal.CanceledError
	if !errors.As(s.Err(), &cerr) {
		t.Fatalf("%T %v, want *terminal.CanceledError", s.Err(), s.Err())
	}
	if got := view(s.Task().Artifacts); !equalArtifacts(got, []artifact{{"log", []string{"started; "}}}) {
		t.Fatalf("artifacts %v", got)
	}
	if len(headersBeforeCancel) == 0 || slices.Contains(headersBeforeCancel, 200) {
		t.Fatalf("subscribes before the cancel got response headers %v, want at least one subscribe and none", headersBeforeCancel)
	}
	if n := px.Count(proxy.Send); n != 1 {
		t.Fatalf("%d sends, want 1", n)
	}
}
