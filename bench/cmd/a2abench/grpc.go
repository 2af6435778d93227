package main

import (
	"context"
	"fmt"
	"strconv"

	ga "github.com/a2aproject/a2a-go/a2a"
	gaclient "github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2apb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/grpcserver"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/stream"
)

// The gRPC contenders of the throughput suite: a2astream's driver through
// a2agrpc (A2A 0.3 and 1.0) and the a2a-go v0.3.3 client over its gRPC
// transport (0.3), all in this program, warm rounds in this process and
// fresh rounds in a new one, as the JSON-RPC contenders. Both link here:
// a2agrpc registers its messages under the module's own proto names, a2a-go's
// generated a2apb the spec's (a2a.v1.*).

// newGRPCTransport returns the a2agrpc.Transport every round of the
// a2astream gRPC contenders shares in a process (as the JSON-RPC
// contenders share an http.Client): one connection, dialled on the first
// call.
func newGRPCTransport(addr string) (*a2agrpc.Transport, error) {
	return a2agrpc.New(addr, a2agrpc.WithInsecure())
}

// sendOursGRPC runs the full driver over gRPC through tr: Send, then Next
// until the end.
func sendOursGRPC(tr *a2agrpc.Transport, v a2a.Version, wantEvents int, check func(*a2a.Task) error, opts ...stream.Option) error {
	opts = append([]stream.Option{stream.WithVersion(v)}, opts...)
	c, err := stream.NewClientFor(tr, opts...)
	if err != nil {
		return err
	}
	return drive(c, wantEvents, check)
}

// newA2AGoConn returns the connection every round of the a2a-go gRPC
// contender shares in a process (as the JSON-RPC contenders share an
// http.Client): grpc.NewClient dials on the first call.
func newA2AGoConn(addr string) (*grpc.ClientConn, error) {
	return grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
}

// sendA2AGoGRPC runs the a2a-go v0.3.3 client's SendStreamingMessage loop
// over its gRPC transport (A2A 0.3) on conn, asking for n chunks.
func sendA2AGoGRPC(conn *grpc.ClientConn, addr string, n int) (int, error) {
	ctx := metadata.AppendToOutgoingContext(context.Background(), grpcserver.NKey, strconv.Itoa(n))
	c, err := gaclient.NewFromEndpoints(ctx, []ga.AgentInterface{{URL: addr, Transport: ga.TransportProtocolGRPC}},
		gaclient.WithTransport(ga.TransportProtocolGRPC, gaclient.TransportFactoryFn(
			func(context.Context, string, *ga.AgentCard) (gaclient.Transport, error) {
				return gaclient.NewGRPCTransportFromClient(a2apb.NewA2AServiceClient(conn)), nil
			})))
	if err != nil {
		return 0, err
	}
	got := 0
	msg := &ga.MessageSendParams{Message: ga.NewMessage(ga.MessageRoleUser, ga.TextPart{Text: "hello"})}
	var last ga.Event
	for ev, err := range c.SendStreamingMessage(ctx, msg) {
		if err != nil {
			return got, err
		}
		last = ev
		got++
	}
	if u, ok := last.(*ga.TaskStatusUpdateEvent); !ok || u.Status.State != ga.TaskStateCompleted {
		return got, fmt.Errorf("last event %T; want a completed status update", last)
	}
	return got, nil
}
