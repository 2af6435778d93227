package interop_test

// W3C trace context with the retry peer, a real server in another process
// that reads traceparent (peers/retry records the trace each call
// continued): a stream traced by the OpenTelemetry module, cut and then
// refused with a retryable error, carries the trace on every call, each
// call from the span of its own attempt.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/a2astream/a2astream/interop/proxy"
	a2aotel "github.com/a2astream/a2astream/otel"
	"github.com/a2astream/a2astream/stream"
)

func TestTheRetryPeerContinuesTheTraceOfEveryCall(t *testing.T) {
	eachWire(t, []string{"-subscribe-errors", "1"}, func(t *testing.T, w wire, p *peer) {
		spans := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })
		tel, err := a2aotel.New(a2aotel.WithTracerProvider(tp))
		require.NoError(t, err)
		ctx, app := tp.Tracer("interop").Start(context.Background(), "app")

		// run makes one stream per client: the module's option may go to
		// the client's constructor here (a program gives it to each
		// stream).
		sc := scenarioNamed(t, "stream")
		got, rl := run(t, p, sc, faults{plan: []proxy.Fault{cut(2, 0)}, client: []stream.Option{tel.Stream(ctx, nil)}})
		app.End()
		logRun(t, rl)
		require.Equal(t, withText(sc.want), got)

		// The calls' spans, in the order they started: the send that was
		// cut, the subscribe refused with the retryable error, then the
		// subscribe served (or, when the task ended meanwhile, refused, and
		// a get-task).
		var calls []tracetest.SpanStub
		for _, s := range spans.GetSpans() {
			if s.Name != "app" && s.Name != "a2a.stream" {
				calls = append(calls, s)
			}
		}
		slices.SortFunc(calls, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
		names := make([]string, len(calls))
		for i, s := range calls {
			names[i] = s.Name
		}
		require.GreaterOrEqual(t, len(names), 3)
		require.Equal(t, []string{"a2a.send", "a2a.subscribe"}, names[:2])

		// What the peer received: each call continued the app's trace,
		// from the span of its own attempt.
		received := p.counts(t).Calls
		require.Len(t, received, len(calls))
		trace := app.SpanContext().TraceID().String()
		var tree strings.Builder
		fmt.Fprintf(&tree, "trace %s\napp\n  a2a.stream\n", trace)
		for i, c := range received {
			kind := strings.TrimPrefix(names[i], "a2a.")
			if kind == "get-task" || kind == "poll" {
				kind = "get"
			}
			require.Equal(t, kind, c.Call, "call %d", i)
			require.Equal(t, trace, c.Trace, "call %d is in the app's trace", i)
			require.Equal(t, calls[i].SpanContext.SpanID().String(), c.Parent, "call %d continues its own attempt's span", i)
			outcome := ""
			for _, kv := range calls[i].Attributes {
				if kv.Key == "a2a.outcome" {
					outcome = kv.Value.AsString()
				}
			}
			fmt.Fprintf(&tree, "    %s span %s a2a.outcome=%s\n      retry peer: %s in trace %s from span %s\n",
				names[i], calls[i].SpanContext.SpanID(), outcome, c.Call, c.Trace, c.Parent)
		}
		t.Log("the trace, and what the retry peer read:\n" + tree.String())
	})
}
