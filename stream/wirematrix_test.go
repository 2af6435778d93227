package stream_test

import (
	"testing"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
)

// The scenarios of internal/wirematrix on the four HTTP wires; the grpc
// module runs the same ones on gRPC 0.3 and 1.0 (grpc/a2agrpctest's
// TestMatrix). Each is a test of its own here, under the name the documents
// give; its Endings are TestEndingReadsEveryEnding's wire-neutral cases.

// matrixWire is w as wirematrix sees it: an a2atest agent that speaks only
// the wire, reached by a client fixed to it.
func matrixWire(w wire) wirematrix.Wire {
	return wirematrix.Wire{
		Name:         w.String(),
		Version:      w.v,
		AgentOptions: []a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)},
		Client: func(t *testing.T, agent *a2atest.Agent, opts ...stream.Option) *stream.Client {
			t.Helper()
			return clientOn(t, agent, w.v, w.b, opts...)
		},
	}
}

// matrixWires are the four wires as wirematrix sees them.
func matrixWires() []wirematrix.Wire {
	var ws []wirematrix.Wire
	for _, w := range wires() {
		ws = append(ws, matrixWire(w))
	}
	return ws
}

// onHTTPWires runs wirematrix's scenario name on the four HTTP wires.
func onHTTPWires(t *testing.T, name string) {
	wirematrix.Named(t, name).On(t, matrixWires()...)
}

// TestCutAnywhere is the no-loss test (wirematrix.CutAnywhere): the send
// stream cut at every event boundary and at random byte offsets, under the
// three server styles.
func TestCutAnywhere(t *testing.T) { onHTTPWires(t, "CutAnywhere") }

// TestDropsAreHealed: a drop mid-task is resubscribed once, after one
// backoff, and nothing is lost (wirematrix.DropsAreHealed).
func TestDropsAreHealed(t *testing.T) { onHTTPWires(t, "DropsAreHealed") }

// TestHumanInTheLoop: the hook is asked once, after the prompt, and the
// reply is one follow-up (wirematrix.HumanInTheLoop).
func TestHumanInTheLoop(t *testing.T) { onHTTPWires(t, "HumanInTheLoop") }

// TestHumanInTheLoopAcrossDrops: the same across cut legs
// (wirematrix.HumanInTheLoopAcrossDrops).
func TestHumanInTheLoopAcrossDrops(t *testing.T) { onHTTPWires(t, "HumanInTheLoopAcrossDrops") }

// TestFirstSendNeverResent: a new message whose send got any response is
// sent once (wirematrix.FirstSendNeverResent).
func TestFirstSendNeverResent(t *testing.T) { onHTTPWires(t, "FirstSendNeverResent") }

// TestReplyNeverResent: a reply whose send got any response is never sent
// again, and the human is asked once (wirematrix.ReplyNeverResent).
func TestReplyNeverResent(t *testing.T) { onHTTPWires(t, "ReplyNeverResent") }

// TestMatrixCredentials: auth-required, streamed and polled
// (wirematrix.Credentials).
func TestMatrixCredentials(t *testing.T) { onHTTPWires(t, "Credentials") }

// TestMatrixCredentialsRenewedOnRefusal: a resubscribe refused as
// unauthenticated (wirematrix.CredentialsRenewedOnRefusal).
func TestMatrixCredentialsRenewedOnRefusal(t *testing.T) {
	onHTTPWires(t, "CredentialsRenewedOnRefusal")
}

// TestMatrixPolling: an agent that cannot stream, polls dropped or busy
// (wirematrix.Polling).
func TestMatrixPolling(t *testing.T) { onHTTPWires(t, "Polling") }

// TestResumeFromACheckpointHandsOverTheRestOnce: stop after any event,
// resume from the checkpoint, every part and message handed over once
// (wirematrix.ResumeFromACheckpoint), under every style and polling.
func TestResumeFromACheckpointHandsOverTheRestOnce(t *testing.T) {
	onHTTPWires(t, "ResumeFromACheckpoint")
}
