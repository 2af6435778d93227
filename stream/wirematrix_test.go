package stream_test

import (
	"testing"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
)

// The scenarios of internal/wirematrix on the four HTTP wires; the grpc
// module runs the same ones on gRPC 0.3 and 1.0 (grpc/a2agrpctest).

// matrixWires are the four wires as wirematrix sees them: an a2atest agent
// that speaks only the wire, reached by a client fixed to it.
func matrixWires() []wirematrix.Wire {
	var ws []wirematrix.Wire
	for _, w := range wires() {
		ws = append(ws, wirematrix.Wire{
			Name:         w.String(),
			Version:      w.v,
			AgentOptions: []a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)},
			Client: func(t *testing.T, agent *a2atest.Agent, opts ...stream.Option) *stream.Client {
				t.Helper()
				return clientOn(t, agent, w.v, w.b, opts...)
			},
		})
	}
	return ws
}

// TestCutAnywhere is the no-loss test (wirematrix.CutAnywhere): the send
// stream cut at every event boundary and at random byte offsets, under the
// three server styles.
func TestCutAnywhere(t *testing.T) {
	t.Parallel()
	for _, w := range matrixWires() {
		wirematrix.CutAnywhere(t, w)
	}
}

func TestHumanInTheLoop(t *testing.T) {
	for _, w := range matrixWires() {
		wirematrix.HumanInTheLoop(t, w)
	}
}

func TestHumanInTheLoopAcrossDrops(t *testing.T) {
	for _, w := range matrixWires() {
		wirematrix.HumanInTheLoopAcrossDrops(t, w)
	}
}

// TestResumeFromACheckpointHandsOverTheRestOnce: stop after any event,
// resume from the checkpoint, every part and message handed over once
// (wirematrix.ResumeFromACheckpoint), under every style and polling.
func TestResumeFromACheckpointHandsOverTheRestOnce(t *testing.T) {
	t.Parallel()
	for _, w := range matrixWires() {
		wirematrix.ResumeFromACheckpoint(t, w)
	}
}

func TestMatrixCredentials(t *testing.T) {
	for _, w := range matrixWires() {
		wirematrix.Credentials(t, w)
	}
}

func TestMatrixCredentialsRenewedOnRefusal(t *testing.T) {
	for _, w := range matrixWires() {
		wirematrix.CredentialsRenewedOnRefusal(t, w)
	}
}

// TestMatrixEndings runs the wire-neutral endings of
// TestEndingReadsEveryEnding from the shared package, so that the copy the
// gRPC wires run is checked on the HTTP wires too.
func TestMatrixEndings(t *testing.T) {
	t.Parallel()
	for _, w := range matrixWires() {
		wirematrix.Endings(t, w)
	}
}

// TestDropsAreHealed: a drop mid-task is resubscribed once, after one
// backoff, and nothing is lost (wirematrix.DropsAreHealed).
func TestDropsAreHealed(t *testing.T) {
	for _, w := range matrixWires() {
		wirematrix.DropsAreHealed(t, w)
	}
}

func TestMatrixPolling(t *testing.T) {
	for _, w := range matrixWires() {
		wirematrix.Polling(t, w)
	}
}

// TestFirstSendNeverResent: a new message whose send got any response is
// sent once (wirematrix.FirstSendNeverResent).
func TestFirstSendNeverResent(t *testing.T) {
	t.Parallel()
	for _, w := range matrixWires() {
		wirematrix.FirstSendNeverResent(t, w)
	}
}

// TestReplyNeverResent: a reply whose send got any response is never sent
// again, and the human is asked once (wirematrix.ReplyNeverResent).
func TestReplyNeverResent(t *testing.T) {
	t.Parallel()
	for _, w := range matrixWires() {
		wirematrix.ReplyNeverResent(t, w)
	}
}
