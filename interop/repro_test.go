package interop_test

import (
	"context"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/interop/proxy"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// Regression tests for library defects the matrix found against real
// servers. Each was a failing reproduction first; the comments say what
// went wrong and which matrix cells showed it.

func peerNamed(t *testing.T, name string) *peer {
	t.Helper()
	for _, def := range peerDefs {
		if def.name == name {
			p := startPeer(t, def)
			if p == nil {
				t.Fatal(errNotStarted)
			}
			return p
		}
	}
	t.Fatalf("no peer %q", name)
	return nil
}

// collect drains a stream and returns the events the application saw.
func collect(ctx context.Context, t *testing.T, p *peer, text string, plan []proxy.Fault) ([]a2a.Event, *a2a.Task, error) {
	t.Helper()
	var prompts []string
	c := newClient(t, newProxy(t, p, plan), p, &prompts)
	s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, text))
	defer s.Close()
	var evs []a2a.Event
	for s.Next() {
		evs = append(evs, s.Event())
	}
	return evs, s.Task(), s.Err()
}

// Fixed: after a drop, the status message of a snapshot (or get-task) task is
// yielded as a stand-alone *a2a.Message event, and the StatusUpdate that
// follows carries no message; uncut, the same message arrives inside the
// StatusUpdate and no Message event is yielded. js-0.3.14 here; the same on
// both js-1.3.0 dialects, for failed, rejected, auth-required and
// input-required (TestMatrix/js-*/{failed,rejected,auth-required,
// input-required}/{cut-*,stall}).
func TestRegressionStatusMessageStaysInTheStatusAfterSnapshot(t *testing.T) {
	t.Parallel()
	p := peerNamed(t, "js-0.3.14")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	// Cut right before the failed status: the resubscribe's Task snapshot
	// (state failed, history holding the status message) closes the gap.
	evs, _, err := collect(ctx, t, p, "this one will fail", []proxy.Fault{cut(3, 0)})
	if errKind(err) != "failed" {
		t.Fatalf("err = %v", err)
	}
	var last *a2a.StatusUpdate
	for _, ev := range evs {
		t.Log(describe(ev))
		switch ev := ev.(type) {
		case *a2a.Message:
			t.Errorf("the status message %q was yielded as a Message event", ev.Text())
		case *a2a.StatusUpdate:
			last = ev
		}
	}
	if last == nil || last.Status.Message == nil || last.Status.Message.Text() != "upstream API timed out" {
		t.Errorf("the final StatusUpdate does not carry the status message: %+v", last)
	}
}

// Fixed: a2a-go resends nothing on resubscribe and does not even send
// headers until its agent writes again. Here the agent writes one chunk and
// then waits (for a cancel); the chunk was lost in the cut, and the silent
// resubscribe used to burn the retry budget on idle timeouts while tasks/get
// had the chunk. A silent subscription now falls back to get-task, which
// delivers the chunk (TestMatrix/a2a-go-0.3.3/canceled/{cut-before-last,
// cut-mid-event,stall,cut-twice}).
func TestRegressionSilentLiveOnlyResubscribeRecoversOutput(t *testing.T) {
	t.Parallel()
	p := peerNamed(t, "a2a-go-0.3.3")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var prompts []string
	c := newClient(t, newProxy(t, p, []proxy.Fault{cut(2, 40)}), p, &prompts)
	s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "cancel me while I run"))
	defer s.Close()

	var taskID string
	for s.Next() {
		t.Log(describe(s.Event()))
		if u, ok := s.Event().(*a2a.ArtifactUpdate); ok {
			_, _ = c.Cancel(ctx, u.TaskID)
			break
		}
		if taskID == "" && s.Task() != nil {
			taskID = s.Task().ID
		}
	}
	if server, err := c.GetTask(ctx, taskID); err == nil {
		t.Logf("server's task: state %s, artifacts %v", server.Status.State, view(server.Artifacts))
	}
	if s.Err() != nil || s.Task() == nil || len(s.Task().Artifacts) == 0 {
		t.Fatalf("the chunk written before the agent went quiet never reached the application (stream ended with %v)", s.Err())
	}
}

// Documented behaviour: a chunked artifact whose chunks all fell into a
// live-only gap is announced when get-task recovers it, after artifacts the
// application already has (a delta cannot move an artifact), so its position
// differs from the server's while its parts are the server's exactly
// (TestMatrix/a2a-go-0.3.3/slow/stall).
func TestArtifactHealedAfterAGapKeepsItsParts(t *testing.T) {
	t.Parallel()
	p := peerNamed(t, "a2a-go-0.3.3")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, task, err := collect(ctx, t, p, "stream a story, slow", []proxy.Fault{{Action: proxy.Stall, AfterEvents: 2}})
	if err != nil {
		t.Fatal(err)
	}
	got := view(task.Artifacts)
	sortArtifacts(got)
	want := slices.Clone(story)
	sortArtifacts(want)
	if !equalArtifacts(got, want) {
		t.Fatalf("artifacts %v, want the server's %v (compared per artifact)", got, want)
	}
}

// trickle relays TCP connections from a port of its own on 127.0.0.1 to
// target, passing the client's bytes at once and the server's at most chunk
// bytes per tick of every: a slow link that is never silent for longer than
// a tick. It returns its address; it stops in t's cleanup.
func trickle(t *testing.T, target string, chunk int, every time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	track := func(c net.Conn) {
		mu.Lock()
		defer mu.Unlock()
		conns = append(conns, c)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		close(done)
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			track(client)
			track(server)
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, _ = io.Copy(server, client)
				server.Close()
			}()
			go func() {
				defer wg.Done()
				defer client.Close()
				tick := time.NewTicker(every)
				defer tick.Stop()
				buf := make([]byte, chunk)
				for {
					n, err := server.Read(buf)
					if n > 0 {
						if _, werr := client.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
					select {
					case <-tick.C:
					case <-done:
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// Fixed (the gRPC binding, github.com/a2astream/a2astream/grpc): its idle
// timer bounded the wait for each whole message (it was reset by each
// RecvMsg), not the silence between bytes as stream's HTTP bindings' does.
// A big event on a slow link that never goes quiet was taken for a stall:
// the stream dropped and resubscribed, the snapshot was as big, and the
// run ended in *reconnect.Error although bytes arrived every 25 ms. Now the
// binding times the connection's silence, and the same 2 MiB event through
// the same link arrives over gRPC as over JSON-RPC (it showed in
// TestGRPCMatrix/*/big-2MiB/cut-before-last on a loaded machine).
func TestRegressionGRPCIdleTimeoutIsSilenceNotAWholeMessage(t *testing.T) {
	t.Parallel()
	p := grpcPeerNamed(t, "js-1.3.0-grpc")
	const idle = time.Second // 2 MiB at 32 KiB per 25 ms: about 1.6 s, bytes every 25 ms
	run := func(t *testing.T, c *stream.Client) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		task, err := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "big artifact")).Wait()
		if err != nil {
			t.Fatalf("the 2 MiB event over a slow but live link: %v", err)
		}
		if got := view(task.Artifacts); len(got) != 1 || len(got[0].Parts) != 1 || got[0].Parts[0] != bigText {
			t.Fatalf("artifacts %v", got)
		}
	}
	t.Run("json-rpc", func(t *testing.T) {
		c, err := stream.NewClient("http://"+trickle(t, p.addr, 32<<10, 25*time.Millisecond)+"/",
			stream.WithVersion(a2a.V10), stream.WithIdleTimeout(idle),
			stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: reconnectBackoff}))
		if err != nil {
			t.Fatal(err)
		}
		run(t, c)
	})
	t.Run("grpc", func(t *testing.T) {
		tr, err := a2agrpc.New(trickle(t, p.grpcAddr, 32<<10, 25*time.Millisecond), a2agrpc.WithInsecure())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tr.Close() })
		c, err := stream.NewClientFor(tr, stream.WithVersion(a2a.V10), stream.WithIdleTimeout(idle),
			stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: reconnectBackoff}))
		if err != nil {
			t.Fatal(err)
		}
		run(t, c)
	})
}
