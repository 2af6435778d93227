package a2agrpctest_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/grpc/a2agrpctest"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// grpcWires are the two gRPC wires: an a2atest agent of one version, served
// by a2agrpctest, reached by the library's gRPC binding fixed to it.
func grpcWires() []wirematrix.Wire {
	var ws []wirematrix.Wire
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		var w wirematrix.Wire
		w = wirematrix.Wire{
			Name:         string(v) + "/GRPC",
			Version:      v,
			AgentOptions: []a2atest.Option{a2atest.WithVersions(v)},
			Client: func(t *testing.T, agent *a2atest.Agent, opts ...stream.Option) *stream.Client {
				t.Helper()
				return serverClient(t, a2agrpctest.NewServer(agent), v, opts...)
			},
			HandlerClient: func(t *testing.T, h http.Handler, opts ...stream.Option) *stream.Client {
				t.Helper()
				return serverClient(t, a2agrpctest.NewHandlerServer(h), v, opts...)
			},
			// A gRPC stream lost before anything could be resumed ends
			// UNAVAILABLE (a cut), or early (a clean close).
			Lost: func(err error) bool {
				return grpcUnavailable(err) || errors.Is(err, transport.ErrEndedEarly)
			},
			// The server forwards whole events only: a cut anywhere inside
			// an event ends the call where the event starts, so a few
			// offsets around each event cover what every byte does.
			CutOffsets: func(t *testing.T, _ a2atest.ResubscribeStyle) []int {
				return wirematrix.CutsAroundEvents(t, w)
			},
		}
		ws = append(ws, w)
	}
	return ws
}

// serverClient returns a client of srv over the library's gRPC binding,
// fixed to v, with opts after that; the transport and the server close
// when the test ends.
func serverClient(t *testing.T, srv *a2agrpctest.Server, v a2a.Version, opts ...stream.Option) *stream.Client {
	t.Helper()
	tr, err := srv.Transport()
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, tr.Close())
		srv.Close()
	})
	c, err := stream.NewClientFor(tr, append([]stream.Option{stream.WithVersion(v)}, opts...)...)
	require.NoError(t, err)
	return c
}

// grpcUnavailable reports whether err wraps a gRPC status UNAVAILABLE.
func grpcUnavailable(err error) bool {
	var st interface{ GRPCStatus() *status.Status }
	return errors.As(err, &st) && st.GRPCStatus().Code() == codes.Unavailable
}

// TestMatrix runs every scenario of internal/wirematrix on the two gRPC
// wires, each as a subtest named by the scenario (the four HTTP wires run
// them in stream's tests).
func TestMatrix(t *testing.T) {
	wirematrix.RunAll(t, grpcWires()...)
}
