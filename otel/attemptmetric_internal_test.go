package a2aotel

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// A call's count in the attempts metric carries its kind and outcome, and
// its binding only when the Client knows it: a Transport without a Binding
// method adds no empty a2a.binding.
func TestAttemptMetricAttrs(t *testing.T) {
	for _, c := range []struct {
		name    string
		binding a2a.Binding
		want    []attribute.KeyValue
	}{
		{"a known binding", a2a.BindingGRPC, []attribute.KeyValue{
			attribute.String("a2a.attempt.kind", "subscribe"), attribute.String("a2a.outcome", "drop"),
			attribute.String("a2a.binding", "GRPC"),
		}},
		{"no binding known", "", []attribute.KeyValue{
			attribute.String("a2a.attempt.kind", "subscribe"), attribute.String("a2a.outcome", "drop"),
		}},
	} {
		d := stream.AttemptDoneInfo{AttemptInfo: stream.AttemptInfo{Kind: stream.AttemptSubscribe, Binding: c.binding}, Outcome: "drop"}
		require.Equal(t, c.want, attemptMetricAttrs(d), c.name)
	}
}
