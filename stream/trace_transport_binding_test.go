package stream_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// namedBinding is memBinding that names its binding, as a2agrpc's
// Transport does.
type namedBinding struct {
	memBinding
	b a2a.Binding
}

func (n namedBinding) Binding() a2a.Binding { return n.b }

// TestTraceNamesTheBindingOfATransport: a Client of NewClientFor tells a
// Trace the binding its Transport names with a method Binding(), on every
// call, a cut stream's resubscribe too; a Transport that names none leaves
// it "". Client.Binding stays "" either way.
func TestTraceNamesTheBindingOfATransport(t *testing.T) {
	for name, tc := range map[string]struct {
		named bool
		want  a2a.Binding
	}{"named": {true, a2a.BindingGRPC}, "unnamed": {false, ""}} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := newMemAgent(2, "drop after 2")
				var b transport.Transport = memBinding{agent}
				if tc.named {
					b = namedBinding{memBinding{agent}, a2a.BindingGRPC}
				}
				c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10))
				require.NoError(t, err)
				var kinds []string
				var bindings []a2a.Binding
				tr := &stream.Trace{AttemptStart: func(a stream.AttemptInfo) {
					kinds = append(kinds, a.Kind.String())
					bindings = append(bindings, a.Binding)
				}}
				_, err = drain(t, c.Send(background(), hello(), stream.WithTrace(tr)))
				require.NoError(t, err)
				require.Equal(t, []string{"send", "subscribe"}, kinds)
				require.Equal(t, []a2a.Binding{tc.want, tc.want}, bindings)
				require.Empty(t, c.Binding())
			})
		})
	}
}
