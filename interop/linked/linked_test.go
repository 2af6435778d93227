package linked_test

import (
	"context"
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/test/bufconn"

	ga "github.com/a2aproject/a2a-go/a2a"
	gagrpc "github.com/a2aproject/a2a-go/a2agrpc"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/stream"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// One binary holds a2a-go's gRPC server (a2agrpc.NewHandler over
// a2asrv.NewHandler, so a2a-go's generated a2apb) and a2astream's gRPC
// client. Before a2astream's generated code registered its messages under
// private proto names, such a program panicked before main ("proto: file
// \"a2a/v0/a2a.proto\" has a name conflict over a2a.v1.Role"), and this
// test with it. Now the client streams a task from the server: the method
// path is still the spec's /a2a.v1.A2AService/SendStreamingMessage, and the
// messages decode on both sides, field numbers being all the wire carries.
func TestA2AGoServerAndA2AStreamClientInOneBinary(t *testing.T) {
	lis := bufconn.Listen(1 << 20)
	var (
		mu      sync.Mutex
		methods []string
	)
	gs := grpc.NewServer(grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		mu.Lock()
		methods = append(methods, info.FullMethod)
		mu.Unlock()
		return h(srv, ss)
	}))
	gagrpc.NewHandler(a2asrv.NewHandler(storyteller{})).RegisterWith(gs)
	var served sync.WaitGroup
	served.Go(func() { _ = gs.Serve(lis) })
	t.Cleanup(func() {
		gs.Stop()
		served.Wait()
	})

	tr, err := a2agrpc.New("passthrough:///a2a-go",
		a2agrpc.WithInsecure(),
		a2agrpc.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return lis.DialContext(ctx)
		})))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tr.Close()) })
	c, err := stream.NewClientFor(tr, stream.WithVersion(a2a.V03))
	require.NoError(t, err)

	s := c.Send(t.Context(), a2a.NewTextMessage(a2a.RoleUser, "tell me a story"))
	defer s.Close()
	var kinds []string
	for s.Next() {
		switch ev := s.Event().(type) {
		case *a2a.Task:
			kinds = append(kinds, "task "+string(ev.Status.State))
		case *a2a.StatusUpdate:
			kinds = append(kinds, "status "+string(ev.Status.State))
		case *a2a.ArtifactUpdate:
			kinds = append(kinds, "artifact "+ev.Artifact.Name)
		default:
			t.Fatalf("unexpected event %T", ev)
		}
	}
	require.NoError(t, s.Err())
	require.Equal(t, []string{"status submitted", "status working", "artifact story", "status completed"}, kinds)
	task := s.Task()
	require.Equal(t, a2a.TaskState("completed"), task.Status.State)
	require.Len(t, task.Artifacts, 1)
	require.Len(t, task.Artifacts[0].Parts, 1)
	require.Equal(t, "Once upon a time, a gopher met a node.", task.Artifacts[0].Parts[0].Text)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"/a2a.v1.A2AService/SendStreamingMessage"}, methods)
}

// storyteller is an a2a-go agent: a submitted task, working, one artifact,
// completed.
type storyteller struct{}

func (storyteller) Execute(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
	working := ga.NewStatusUpdateEvent(req, ga.TaskStateWorking, nil)
	story := ga.NewArtifactEvent(req, ga.TextPart{Text: "Once upon a time, a gopher met a node."})
	story.Artifact.Name = "story"
	story.LastChunk = true
	completed := ga.NewStatusUpdateEvent(req, ga.TaskStateCompleted, nil)
	completed.Final = true
	for _, ev := range []ga.Event{ga.NewSubmittedTask(req, req.Message), working, story, completed} {
		if err := q.Write(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

func (storyteller) Cancel(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
	ev := ga.NewStatusUpdateEvent(req, ga.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}
