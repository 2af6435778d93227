package a2agrpc_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// A Trace (stream.WithTrace) over the gRPC Transport: a stream cut once
// tells its two calls, their outcomes, the reconnect and one end, with the
// binding (the Transport's: gRPC) and the version of each call.
func TestDriverTraceOfACut(t *testing.T) {
	for name, opts := range versionOpts {
		t.Run(name, func(t *testing.T) {
			a := cutThenResumed(t)
			var (
				starts []stream.AttemptInfo
				dones  []stream.AttemptDoneInfo
				waits  []stream.WaitInfo
				ends   []stream.DoneInfo
			)
			trace := &stream.Trace{
				AttemptStart: func(a stream.AttemptInfo) { starts = append(starts, a) },
				AttemptDone:  func(d stream.AttemptDoneInfo) { dones = append(dones, d) },
				Wait:         func(w stream.WaitInfo) { waits = append(waits, w) },
				Done:         func(d stream.DoneInfo) { ends = append(ends, d) },
			}
			c := newClient(t, a.client(t), append(opts, stream.WithTrace(trace))...)
			s := c.Send(context.Background(), hello())
			defer s.Close()
			cut := false
			_, err := play(s, func(ev a2a.Event) {
				if u, ok := ev.(*a2a.ArtifactUpdate); ok && !cut && u.Artifact.Parts[0].Text == "Hello, " {
					cut = true
					a.cut()
				}
			})
			require.NoError(t, err)
			require.Len(t, starts, 2)
			require.Equal(t, stream.AttemptSend, starts[0].Kind)
			require.Equal(t, stream.AttemptSubscribe, starts[1].Kind)
			require.Equal(t, 1, starts[1].Attempt)
			for _, st := range starts {
				require.Equal(t, a2a.BindingGRPC, st.Binding, "the Transport's binding (Client.Binding stays empty)")
				require.True(t, st.Streaming)
				if name != "negotiated" {
					require.Equal(t, name, st.Version.String())
				}
			}
			require.Len(t, dones, 2)
			require.Equal(t, "drop", dones[0].Outcome)
			require.Error(t, dones[0].Err)
			require.Equal(t, 2, dones[0].Events)
			require.Equal(t, "ok", dones[1].Outcome)
			require.Len(t, waits, 1)
			require.Equal(t, stream.WaitBackoff, waits[0].Kind)
			require.Equal(t, []stream.DoneInfo{{TaskID: "t-1", State: a2a.StateCompleted, Calls: 2}}, ends)
			require.Empty(t, c.Binding())
		})
	}
}

// Trace.Header over the gRPC Transport: what a Trace adds to each call
// goes as that call's metadata, its values replacing the caller's of the
// same name, on the send and on the resubscribe after a cut.
func TestDriverTraceHeaderGoesAsMetadata(t *testing.T) {
	for name, opts := range versionOpts {
		t.Run(name, func(t *testing.T) {
			a := cutThenResumed(t)
			var added []string
			trace := &stream.Trace{Header: func(at stream.AttemptInfo, h http.Header) {
				v := fmt.Sprintf("call-%d-%s", at.Call, at.Kind)
				h.Set("Traceparent", v)
				added = append(added, v)
			}}
			c := newClient(t, a.client(t), append(opts, stream.WithTrace(trace), stream.WithHeader("Traceparent", "the caller's"))...)
			s := c.Send(context.Background(), hello())
			defer s.Close()
			cut := false
			_, err := play(s, func(ev a2a.Event) {
				if u, ok := ev.(*a2a.ArtifactUpdate); ok && !cut && u.Artifact.Parts[0].Text == "Hello, " {
					cut = true
					a.cut()
				}
			})
			require.NoError(t, err)
			require.Equal(t, []string{"call-1-send", "call-2-subscribe"}, added)
			var got []string
			for _, call := range a.seen() {
				if v := call.md.Get("traceparent"); len(v) > 0 {
					require.Len(t, v, 1, call.method)
					got = append(got, v[0])
				}
			}
			require.Equal(t, added, got, "each of the stream's calls carries what the Trace added, and only its own")
		})
	}
}
