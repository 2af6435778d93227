package a2agrpctest_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/grpc/a2agrpctest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// grpcWires are the two gRPC wires: an a2atest agent of one version, served
// by a2agrpctest, reached by the library's gRPC binding fixed to it.
func grpcWires() []wirematrix.Wire {
	var ws []wirematrix.Wire
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		ws = append(ws, wirematrix.Wire{
			Name:         string(v) + "/GRPC",
			Version:      v,
			AgentOptions: []a2atest.Option{a2atest.WithVersions(v)},
			Client: func(t *testing.T, agent *a2atest.Agent, opts ...stream.Option) *stream.Client {
				t.Helper()
				srv := a2agrpctest.NewServer(agent)
				tr, err := srv.Transport()
				require.NoError(t, err)
				t.Cleanup(func() {
					require.NoError(t, tr.Close())
					srv.Close()
				})
				c, err := stream.NewClientFor(tr, append([]stream.Option{stream.WithVersion(v)}, opts...)...)
				require.NoError(t, err)
				return c
			},
			// A gRPC stream lost before anything could be resumed ends
			// UNAVAILABLE (a cut), or early (a clean close).
			Lost: func(err error) bool {
				return grpcUnavailable(err) || errors.Is(err, transport.ErrEndedEarly)
			},
		})
	}
	return ws
}

// grpcUnavailable reports whether err wraps a gRPC status UNAVAILABLE.
func grpcUnavailable(err error) bool {
	var st interface{ GRPCStatus() *status.Status }
	return errors.As(err, &st) && st.GRPCStatus().Code() == codes.Unavailable
}

func TestMatrixCutAnywhere(t *testing.T) {
	t.Parallel()
	for _, w := range grpcWires() {
		wirematrix.CutAnywhere(t, w)
	}
}

func TestMatrixHumanInTheLoop(t *testing.T) {
	for _, w := range grpcWires() {
		wirematrix.HumanInTheLoop(t, w)
	}
}

func TestMatrixHumanInTheLoopAcrossDrops(t *testing.T) {
	for _, w := range grpcWires() {
		wirematrix.HumanInTheLoopAcrossDrops(t, w)
	}
}

func TestMatrixResumeFromACheckpoint(t *testing.T) {
	t.Parallel()
	for _, w := range grpcWires() {
		wirematrix.ResumeFromACheckpoint(t, w)
	}
}

func TestMatrixCredentials(t *testing.T) {
	for _, w := range grpcWires() {
		wirematrix.Credentials(t, w)
	}
}

func TestMatrixCredentialsRenewedOnRefusal(t *testing.T) {
	for _, w := range grpcWires() {
		wirematrix.CredentialsRenewedOnRefusal(t, w)
	}
}

func TestMatrixEndings(t *testing.T) {
	t.Parallel()
	for _, w := range grpcWires() {
		wirematrix.Endings(t, w)
	}
}

func TestMatrixDropsAreHealed(t *testing.T) {
	for _, w := range grpcWires() {
		wirematrix.DropsAreHealed(t, w)
	}
}

func TestMatrixPolling(t *testing.T) {
	for _, w := range grpcWires() {
		wirematrix.Polling(t, w)
	}
}

func TestMatrixFirstSendNeverResent(t *testing.T) {
	t.Parallel()
	for _, w := range grpcWires() {
		wirematrix.FirstSendNeverResent(t, w)
	}
}

// trailersOnly are the faults of wirematrix's sendFaults that reach a gRPC
// client as a status with no response headers and no A2A meaning: HTTP
// 500 as INTERNAL, 502 and 504 as UNAVAILABLE. The binding reads such a
// status as a call that may not have reached the agent (as a lost
// connection), so the driver sends a reply again when the task still shows
// the prompt, where the HTTP wires, which got a response, never do.
// TestReplyAfterATrailersOnlyStatusIsSentAgain pins that difference.
var trailersOnly = []string{"500", "502", "504"}

func TestMatrixReplyNeverResent(t *testing.T) {
	t.Parallel()
	for _, w := range grpcWires() {
		wirematrix.ReplyNeverResent(t, w, trailersOnly...)
	}
}

// The gap of trailersOnly, pinned: a reply answered with a bare INTERNAL
// or UNAVAILABLE status is sent once more (the agent, which refused it
// unprocessed, takes the second), the human is asked once, and the task
// completes. If the binding comes to read a server's status as an answer,
// this fails: then the faults join TestMatrixReplyNeverResent.
func TestReplyAfterATrailersOnlyStatusIsSentAgain(t *testing.T) {
	faults := map[string]a2atest.Fault{
		"500": a2atest.HTTPStatus(500, "<html>boom</html>"),
		"502": a2atest.HTTPStatus(502, "bad gateway"),
		"504": a2atest.HTTPStatus(504, "timeout"),
	}
	require.Len(t, faults, len(trailersOnly))
	for _, w := range grpcWires() {
		for _, name := range trailersOnly {
			t.Run(w.Name+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := w.Agent(a2atest.WithScript(a2atest.Working("on it"), a2atest.AskInput("Which city?"),
						a2atest.Pause(time.Second), a2atest.Chunk("a1", "plan", false, true), a2atest.Finish(a2a.StateCompleted, "done")),
						a2atest.WithFaults(a2atest.Fault{}, faults[name]))
					asked := 0
					hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
						asked++
						return hitl.Text("Lisbon"), nil
					})
					s := w.Client(t, agent, stream.WithHumanInput(hook)).Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
					defer s.Close()
					for s.Next() {
					}
					require.NoError(t, s.Err())
					require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
					require.Equal(t, 1, asked, "the human was asked once")
					var replies []a2atest.Request
					for _, r := range agent.Requests() {
						if r.Message != nil && r.Message.TaskID != "" {
							replies = append(replies, r)
						}
					}
					require.Len(t, replies, 2, "the reply went out twice")
					require.Equal(t, faults[name], replies[0].Fault, "the first was refused, unprocessed")
					require.Equal(t, replies[0].Message.ID, replies[1].Message.ID, "the same reply, sent again")
				})
			})
		}
	}
}
