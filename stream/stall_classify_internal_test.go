package stream

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A leg the stall limit cut ends the stream stalled, whatever error its
// read returned; the caller's context still comes first, and a cut whose
// leg brought news since (an event that came as the timer fired) is a drop
// like any other cancel.
func TestClassifyAStalledLeg(t *testing.T) {
	for _, c := range []struct {
		name string
		op   operation
		err  error
		sit  situation
		want outcomeKind
	}{
		{"a stalled send", opSend, context.Canceled, situation{stalled: true, started: true, taskKnown: true}, outStalled},
		{"a stalled subscribe", opSubscribe, context.Canceled, situation{stalled: true, started: true, taskKnown: true}, outStalled},
		{"stalled before the first event", opSend, context.Canceled, situation{stalled: true}, outStalled},
		{"stalled as the stream ended", opSubscribe, io.EOF, situation{stalled: true, taskKnown: true}, outStalled},
		{"the caller's context first", opSend, context.Canceled, situation{stalled: true, ctxErr: context.Canceled}, outEnd},
		{"a cut with news since is a drop", opSubscribe, context.Canceled, situation{started: true, taskKnown: true}, outDrop},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, classify(c.op, c.err, c.sit).kind)
		})
	}
}

// active.stalled: the leg's context was cut by the stall limit, and the
// reads waited the limit since the last news.
func TestActiveStalled(t *testing.T) {
	cut := func(cause error) *active {
		ctx, cancel := context.WithCancelCause(context.Background())
		if cause != nil {
			cancel(cause)
		}
		return &active{ctx: ctx, cancel: cancel}
	}
	for _, c := range []struct {
		name         string
		a            *active
		quiet, limit time.Duration
		want         bool
	}{
		{"cut at the limit", cut(errStalled), time.Minute, time.Minute, true},
		{"cut past the limit", cut(errStalled), 2 * time.Minute, time.Minute, true},
		{"cut, but news since", cut(errStalled), 0, time.Minute, false},
		{"closed, not cut", cut(errors.New("closed")), time.Minute, time.Minute, false},
		{"running", cut(nil), time.Minute, time.Minute, false},
		{"no limit", cut(errStalled), time.Minute, 0, false},
		{"no leg context", &active{}, time.Minute, time.Minute, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, c.a.stalled(c.quiet, c.limit))
			c.a.close()
		})
	}
}
