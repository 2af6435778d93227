package grpcserver_test

import (
	"context"
	"net"
	"net/http/httptest"
	"reflect"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/grpcserver"
	"github.com/a2astream/a2astream/bench/internal/server"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// events sends one message with c and returns the stream's events and the
// task it assembled.
func events(t *testing.T, c *stream.Client) ([]a2a.Event, *a2a.Task) {
	t.Helper()
	s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
	defer s.Close()
	var evs []a2a.Event
	for s.Next() {
		evs = append(evs, s.Event())
	}
	require.NoError(t, s.Err())
	return evs, s.Task()
}

// The server's bytes, read by a2agrpc through a stream.Client, are the
// events of the JSON-RPC stream of package server (the first task of a
// fresh Handler, task 1, as the gRPC stream always names), event by event,
// in 0.3 and 1.0.
func TestSameEventsAsJSONRPC(t *testing.T) {
	defer goleak.VerifyNone(t)
	const n = 300
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	gs := grpcserver.NewGRPCServer(&grpcserver.Server{})
	go gs.Serve(ln)
	defer gs.Stop()

	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(v.String(), func(t *testing.T) {
			srv := httptest.NewServer(&server.Handler{})
			defer srv.Close()
			opts := []stream.Option{stream.WithVersion(v), stream.WithReconnect(reconnect.Never())}
			rpc, err := stream.NewClient(srv.URL+"/?s=throughput&n="+strconv.Itoa(n), append(opts, stream.WithHTTPClient(srv.Client()))...)
			require.NoError(t, err)
			want, wantTask := events(t, rpc)

			tr, err := a2agrpc.New(ln.Addr().String(), a2agrpc.WithInsecure())
			require.NoError(t, err)
			defer tr.Close()
			c, err := stream.NewClientFor(tr, append(opts, stream.WithHeader(grpcserver.NKey, strconv.Itoa(n)))...)
			require.NoError(t, err)
			got, gotTask := events(t, c)

			require.Len(t, want, n+3)
			require.Len(t, got, len(want))
			for i := range want {
				require.Equal(t, want[i], got[i], "event %d", i)
			}
			// The tasks assembled: the same status and artifacts (their
			// histories hold the message each Send made, of its own ID).
			require.Equal(t, wantTask.Status, gotTask.Status)
			require.True(t, reflect.DeepEqual(wantTask.Artifacts, gotTask.Artifacts), "the assembled artifacts differ")
			require.Equal(t, a2a.StateCompleted, gotTask.Status.State)
			require.Len(t, gotTask.Artifacts, 1)
			require.Len(t, gotTask.Artifacts[0].Parts, n)
		})
	}
}

// A 1.0 call without a2a-version, and a method the server does not serve,
// are refused; a stream's size is what the encoded messages add up to.
func TestRefusalsAndWireBytes(t *testing.T) {
	ms := grpcserver.Encode("1.0", 10)
	require.Len(t, ms, 13)
	total := 0
	for _, m := range ms {
		total += 5 + len(m)
	}
	require.Equal(t, total, grpcserver.WireBytes(ms))
	s := &grpcserver.Server{}
	require.Same(t, &s.Stream("0.3", 10)[0][0], &s.Stream("0.3", 10)[0][0], "encoded once")
}
