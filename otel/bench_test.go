package a2aotel_test

// What the module costs a stream: allocations per event with and without
// it, measured in the same run (a count, not a time), and a benchmark of
// a stream of events with it on.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/a2astream/a2astream/a2a"
	a2aotel "github.com/a2astream/a2astream/otel"
	"github.com/a2astream/a2astream/stream"
)

// eventsBody is a JSON-RPC 1.0 stream of a task, n artifact chunks and its
// completion.
func eventsBody(n int) []byte {
	var b bytes.Buffer
	write := func(ev a2a.Event) {
		raw, err := a2a.Codec{Version: a2a.V10}.EncodeEvent(ev)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(&b, "data: {\"jsonrpc\":\"2.0\",\"id\":null,\"result\":%s}\n\n", raw)
	}
	const task, ctx = "01a2012b-974f-761f-b805-9c1314c44506", "01a2012b-974f-76f9-9aea-fd8810f6e4b8"
	write(&a2a.Task{ID: task, ContextID: ctx, Status: a2a.TaskStatus{State: a2a.StateWorking}})
	for i := range n {
		write(&a2a.ArtifactUpdate{TaskID: task, ContextID: ctx, Append: i > 0,
			Artifact: a2a.Artifact{ID: "01a2012b-9a71-7764-a7f7-28d5f2ef6cbb", Parts: []a2a.Part{{Text: fmt.Sprintf("chunk %06d of the answer ", i)}}}})
	}
	write(&a2a.StatusUpdate{TaskID: task, ContextID: ctx, Status: a2a.TaskStatus{State: a2a.StateCompleted}, Final: true})
	return b.Bytes()
}

// bodyTransport answers every request with body, as a stream of events.
type bodyTransport struct{ body []byte }

func (t bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(t.body)), Request: r}, nil
}

// sdkTelemetry is a Telemetry on the SDK, its spans kept in memory.
func sdkTelemetry(tb testing.TB) *a2aotel.Telemetry {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tb.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	tel, err := a2aotel.New(a2aotel.WithTracerProvider(tp), a2aotel.WithMeterProvider(mp))
	require.NoError(tb, err)
	return tel
}

// allocsOfStream is the allocations of one stream of n events, with tel
// (nil: without the module).
func allocsOfStream(t *testing.T, n int, tel *a2aotel.Telemetry) float64 {
	c, err := stream.NewClient("http://bench.test/", stream.WithVersion(a2a.V10),
		stream.WithHTTPClient(&http.Client{Transport: bodyTransport{eventsBody(n)}}))
	require.NoError(t, err)
	ctx := context.Background()
	return testing.AllocsPerRun(5, func() {
		var opts []stream.Option
		if tel != nil {
			opts = append(opts, tel.Stream(ctx, c))
		}
		s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "go"), opts...)
		events := 0
		for s.Next() {
			events++
		}
		require.NoError(t, s.Err())
		require.Equal(t, n+2, events)
	})
}

// TestAllocationsPerEventWithTheModule: the module adds no allocation per
// event (at most one is allowed): the growth of a stream's allocations
// from 1000 to 3000 events, with the module and without, in the same run.
// Its cost per stream (spans, attributes, the trace context) is reported.
func TestAllocationsPerEventWithTheModule(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("counts allocations of streams of thousands of events: not under -short, nor the race detector (see race_test.go)")
	}
	const n1, n2 = 1000, 3000
	tel := sdkTelemetry(t)
	off1, off2 := allocsOfStream(t, n1, nil), allocsOfStream(t, n2, nil)
	on1, on2 := allocsOfStream(t, n1, tel), allocsOfStream(t, n2, tel)
	offPer, onPer := (off2-off1)/(n2-n1), (on2-on1)/(n2-n1)
	t.Logf("allocations per event: %.3f without the module, %.3f with it; per stream of %d events: %.0f without, %.0f with",
		offPer, onPer, n1, off1, on1)
	require.LessOrEqual(t, onPer-offPer, 1.0, "at most one allocation more per event")
}

// BenchmarkStreamWithTheModule reads a stream of 2000 events with the
// module on (on=true) and off, reporting allocations per event.
func BenchmarkStreamWithTheModule(b *testing.B) {
	const n = 2000
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("on=%t", on), func(b *testing.B) {
			var tel *a2aotel.Telemetry
			if on {
				tel = sdkTelemetry(b)
			}
			c, err := stream.NewClient("http://bench.test/", stream.WithVersion(a2a.V10),
				stream.WithHTTPClient(&http.Client{Transport: bodyTransport{eventsBody(n)}}))
			require.NoError(b, err)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				var opts []stream.Option
				if tel != nil {
					opts = append(opts, tel.Stream(ctx, c))
				}
				s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "go"), opts...)
				for s.Next() {
				}
				if s.Err() != nil {
					b.Fatal(s.Err())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(n+2)), "ns/event")
		})
	}
}
