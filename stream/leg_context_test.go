package stream_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// A leg gets a context of its own only when the stall limit's timer may cut
// it, that is with an idle timeout: an idle stream without one keeps no
// context, and no map of children in the stream's, for each leg it opens
// (about 400 bytes of every idle stream; BENCHMARKS.md, "Many streams").
func TestALegHasItsOwnContextOnlyWhenTheStallTimerMayCutIt(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []stream.Option
		own  bool
	}{
		{"no idle timeout", nil, false},
		{"idle timeout, no stall limit", []stream.Option{stream.WithIdleTimeout(time.Minute), stream.WithStallTimeout(0)}, false},
		{"idle timeout and the stall limit", []stream.Option{stream.WithIdleTimeout(time.Minute)}, true},
	} {
		for _, w := range wires() {
			t.Run(c.name+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
						kindStream: func(ww *wireWriter, call wireCall) {
							ww.sse()
							ww.event(snap(a2a.StateWorking))
							<-call.ctx.Done()
						},
					})
					s := a.client(t, c.opts...).Send(background(), hello())
					defer s.Close()
					require.True(t, s.Next(), "%v", s.Err())
					require.Equal(t, !c.own, stream.LegReadsUnderStreamContext(s))
				})
			})
		}
	}
}
