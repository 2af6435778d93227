package stream

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/transport"
)

// TestClassifyADropWithPushUntried pins classify's row for push
// notifications (outcome.go): a drop once the task is known, of a stream
// given WithPush that has not registered a push config and does not poll,
// registers one (outPush); every other drop, and every other failure, is
// classified as without WithPush.
func TestClassifyADropWithPushUntried(t *testing.T) {
	notFound := &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "gone"}
	rows := []struct {
		name string
		op   operation
		err  error
		sit  situation
		want outcomeKind
	}{
		{"a leg cut, the task known", opSubscribe, io.ErrUnexpectedEOF, situation{started: true, taskKnown: true, pushUntried: true}, outPush},
		{"the first send's leg cut after its task", opSend, io.EOF, situation{started: true, taskKnown: true, firstMessage: true, pushUntried: true}, outPush},
		{"a fetch dropped", opGet, io.ErrUnexpectedEOF, situation{taskKnown: true, pushUntried: true}, outPush},
		{"the same without WithPush", opSubscribe, io.ErrUnexpectedEOF, situation{started: true, taskKnown: true}, outDrop},
		{"a drop while polling", opGet, io.ErrUnexpectedEOF, situation{taskKnown: true, polling: true, pushUntried: true}, outDrop},
		{"a drop before the task is known", opSend, io.EOF, situation{started: true, pushUntried: true}, outLost},
		{"the caller's context first", opSubscribe, io.ErrUnexpectedEOF, situation{taskKnown: true, pushUntried: true, ctxErr: context.Canceled}, outEnd},
		{"a protocol error stays fatal", opSubscribe, &transport.ProtocolError{Reason: "x"}, situation{started: true, taskKnown: true, pushUntried: true}, outFatal},
		{"a refused subscribe stays a refusal", opSubscribe, notFound, situation{taskKnown: true, pushUntried: true}, outRefused},
		{"a send that never left is sent again", opSend, transport.NotSent(errors.New("refused")), situation{taskKnown: true, pushUntried: true}, outRetry},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			require.Equal(t, r.want, classify(r.op, r.err, r.sit).kind)
		})
	}
}
