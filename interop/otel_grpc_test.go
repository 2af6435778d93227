package interop_test

// The OpenTelemetry module (otel/, package a2aotel) over the gRPC binding,
// on the real SDK (tracetest's in-memory span exporter, sdk/metric's
// ManualReader), against the gRPC module's in-process agent
// (a2agrpctest, A2A 1.0 and 0.3), and one row against a2a-go's gRPC server
// through the cutting proxy. The module's own tests cover JSON-RPC and
// HTTP+JSON; these live here because this module already requires both the
// gRPC module and the OTel SDK, and neither module's go.mod then gains the
// other.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/grpc/a2agrpctest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/interop/proxy"
	a2aotel "github.com/a2astream/a2astream/otel"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// telemetryRig is a Telemetry on the SDK, with what it exported.
type telemetryRig struct {
	spans  *tracetest.InMemoryExporter
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	tel    *a2aotel.Telemetry
}

func newTelemetryRig(t *testing.T) *telemetryRig {
	t.Helper()
	r := &telemetryRig{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	tel, err := a2aotel.New(a2aotel.WithTracerProvider(r.tp), a2aotel.WithMeterProvider(mp))
	require.NoError(t, err)
	r.tel = tel
	t.Cleanup(func() {
		require.NoError(t, r.tp.Shutdown(context.Background()))
		require.NoError(t, mp.Shutdown(context.Background()))
	})
	return r
}

// collect returns the metrics as they were exported, and each data point
// by its instrument's name and attributes ("name{k=v,…}"): a counter's sum,
// a histogram's count.
func (r *telemetryRig) collect(t *testing.T) (metricdata.ResourceMetrics, map[string]int64) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	points := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					points[m.Name+setString(p.Attributes)] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					points[m.Name+setString(p.Attributes)] += int64(p.Count)
				}
			}
		}
	}
	return rm, points
}

// setString writes an attribute set as {k=v,…} in key order; "" when empty.
func setString(s attribute.Set) string {
	if s.Len() == 0 {
		return ""
	}
	kvs := make([]string, 0, s.Len())
	for _, kv := range s.ToSlice() {
		kvs = append(kvs, fmt.Sprintf("%s=%s", kv.Key, kv.Value.String()))
	}
	return "{" + strings.Join(kvs, ",") + "}"
}

// tracedStream is the spans of one traced stream: the application's span
// (when the test made one), the stream's, and its calls' in the order they
// started.
type tracedStream struct {
	app, stream tracetest.SpanStub
	calls       []tracetest.SpanStub
}

// tracedStream sorts the exported spans, and checks the shape every traced
// stream has: one stream span, under the application's span when there is
// one; each call a client span, child of the stream's, in its trace.
func (r *telemetryRig) tracedStream(t *testing.T) tracedStream {
	t.Helper()
	var ts tracedStream
	for _, s := range r.spans.GetSpans() {
		switch s.Name {
		case "app":
			ts.app = s
		case "a2a.stream":
			require.Empty(t, ts.stream.Name, "one stream span")
			ts.stream = s
		default:
			ts.calls = append(ts.calls, s)
		}
	}
	require.Equal(t, "a2a.stream", ts.stream.Name)
	slices.SortStableFunc(ts.calls, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
	for _, c := range ts.calls {
		require.Equal(t, trace.SpanKindClient, c.SpanKind, c.Name)
		require.Equal(t, ts.stream.SpanContext.SpanID(), c.Parent.SpanID(), "%s: a call's parent is the stream's span", c.Name)
		require.Equal(t, ts.stream.SpanContext.TraceID(), c.SpanContext.TraceID(), c.Name)
	}
	if ts.app.Name != "" {
		require.Equal(t, ts.app.SpanContext.SpanID(), ts.stream.Parent.SpanID(), "the stream's parent is the application's span")
	}
	return ts
}

// names are the calls' span names.
func (ts tracedStream) names() []string {
	out := make([]string, len(ts.calls))
	for i, c := range ts.calls {
		out[i] = c.Name
	}
	return out
}

// spanAttr is the span's attribute k written as a string, and whether it
// has one.
func spanAttr(s tracetest.SpanStub, k string) (string, bool) {
	for _, kv := range s.Attributes {
		if string(kv.Key) == k {
			return kv.Value.String(), true
		}
	}
	return "", false
}

// mustAttr is the span's attribute k; the test fails when it has none.
func mustAttr(t *testing.T, s tracetest.SpanStub, k string) string {
	t.Helper()
	v, ok := spanAttr(s, k)
	require.True(t, ok, "%s has no %s: %v", s.Name, k, s.Attributes)
	return v
}

// eventNames are the span's events, each with its kind when it has one
// ("a2a.wait backoff").
func eventNames(s tracetest.SpanStub) []string {
	var out []string
	for _, e := range s.Events {
		name := e.Name
		for _, kv := range e.Attributes {
			switch kv.Key {
			case "a2a.wait.kind", "a2a.gap.kind", "a2a.ask.kind":
				name += " " + kv.Value.String()
			}
		}
		out = append(out, name)
	}
	return out
}

// grpcAgent serves a2atest's agent over gRPC in process; the returned
// Client, of stream.NewClientFor over the gRPC module's Transport, is fixed
// to v. The server and the Transport close when the test ends.
func grpcAgent(t *testing.T, v a2a.Version, agentOpts []a2atest.Option, opts ...stream.Option) (*a2atest.Agent, *stream.Client) {
	t.Helper()
	agent := a2atest.NewAgent(append([]a2atest.Option{a2atest.WithVersions(v)}, agentOpts...)...)
	srv := a2agrpctest.NewServer(agent)
	tr, err := srv.Transport()
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, tr.Close())
		srv.Close()
	})
	c, err := stream.NewClientFor(tr, append([]stream.Option{stream.WithVersion(v)}, opts...)...)
	require.NoError(t, err)
	return agent, c
}

// onEveryGRPCVersion runs f for A2A 1.0 and 0.3 over the in-process gRPC
// agent, each in a synctest bubble: backoffs and polls take no wall time.
func onEveryGRPCVersion(t *testing.T, f func(t *testing.T, v a2a.Version)) {
	for _, v := range []a2a.Version{a2a.V10, a2a.V03} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) { f(t, v) })
		})
	}
}

// appSpan starts the application's span, the parent of the stream's.
func (r *telemetryRig) appSpan(t *testing.T) (context.Context, trace.Span) {
	return r.tp.Tracer("interop").Start(t.Context(), "app")
}

// grpcMethod is the gRPC method of a call of kind (the span's name) in
// v: the service's method.
func grpcMethod(v a2a.Version, kind string, streaming bool) string {
	switch {
	case kind == "a2a.send" && !streaming:
		return "SendMessage"
	case kind == "a2a.send", kind == "a2a.reply":
		return "SendStreamingMessage"
	case kind == "a2a.subscribe" && v == a2a.V03:
		return "TaskSubscription"
	case kind == "a2a.subscribe":
		return "SubscribeToTask"
	case kind == "a2a.poll", kind == "a2a.get-task":
		return "GetTask"
	}
	return "unknown " + kind
}

// grpcService is the gRPC service of v's A2A.
func grpcService(v a2a.Version) string {
	if v == a2a.V03 {
		return "a2a.v1.A2AService"
	}
	return "lf.a2a.v1.A2AService"
}

// servedAs is the JSON-RPC method a2agrpctest's agent records a gRPC call
// under.
var servedAs = map[string]string{"SendStreamingMessage": "message/stream", "SendMessage": "message/send",
	"TaskSubscription": "tasks/resubscribe", "GetTask": "tasks/get"}

// requireGRPCCalls checks what every call's span carries over gRPC:
// rpc.system grpc, the binding, rpc.service and rpc.method as the call's
// version names its service and method (the method the agent served), the
// version, and no HTTP, URL or server attribute (a Client of NewClientFor
// names no endpoint); and that the agent received, as metadata, the
// traceparent of the call's own span.
func requireGRPCCalls(t *testing.T, v a2a.Version, agent *a2atest.Agent, ts tracedStream) {
	t.Helper()
	reqs := agent.Requests()
	require.Len(t, reqs, len(ts.calls), "a span per call")
	for i, c := range ts.calls {
		require.Equal(t, "grpc", mustAttr(t, c, "rpc.system"), c.Name)
		require.Equal(t, string(a2a.BindingGRPC), mustAttr(t, c, "a2a.binding"), c.Name)
		require.Equal(t, string(v), mustAttr(t, c, "a2a.version"), c.Name)
		require.Equal(t, grpcService(v), mustAttr(t, c, "rpc.service"), c.Name)
		method := mustAttr(t, c, "rpc.method")
		require.Equal(t, grpcMethod(v, c.Name, mustAttr(t, c, "a2a.streaming") == "true"), method, "call %d %s", i, c.Name)
		served := method
		if v == a2a.V03 {
			served = servedAs[method]
		}
		require.Equal(t, reqs[i].Method, served, "call %d: the method the agent served", i)
		_, coded := spanAttr(c, "rpc.grpc.status_code")
		require.Equal(t, c.Status.Code == codes.Error, coded, "call %d %s: a status code when it failed, only then", i, c.Name)
		for _, kv := range c.Attributes {
			k := string(kv.Key)
			require.False(t, strings.HasPrefix(k, "http.") || strings.HasPrefix(k, "url.") || strings.HasPrefix(k, "server."),
				"call %d %s: %s over gRPC", i, c.Name, k)
		}
		want := fmt.Sprintf("00-%s-%s-01", c.SpanContext.TraceID(), c.SpanContext.SpanID())
		require.Equal(t, []string{want}, reqs[i].Header.Values("Traceparent"), "call %d (%s): its own span's traceparent, in metadata", i, reqs[i].Method)
	}
}

// slowTask is a task still running when a stream cut after its first two
// events comes back.
func slowTask(text string) a2atest.Option {
	return a2atest.WithScript(a2atest.Working(""), a2atest.Chunk("a1", text, false, false), a2atest.Pause(10*time.Second),
		a2atest.Chunk("a1", " and more", true, true), a2atest.Finish(a2a.StateCompleted, ""))
}

func drainStream(t *testing.T, s *stream.Stream) {
	t.Helper()
	defer s.Close()
	for s.Next() {
	}
	require.NoError(t, s.Err())
}

// TestGRPCSpansOfACutStreamResubscribed: the send cut after two events
// (UNAVAILABLE over gRPC) and the resubscribe that heals it: a span each,
// the send's a drop in error, the resubscribe reconnect attempt 1, the
// gap on it, the backoff between them on the stream's span.
func TestGRPCSpansOfACutStreamResubscribed(t *testing.T) {
	onEveryGRPCVersion(t, func(t *testing.T, v a2a.Version) {
		r := newTelemetryRig(t)
		agent, c := grpcAgent(t, v, []a2atest.Option{slowTask("one"), a2atest.WithFaults(a2atest.CutAfterEvents(2))})
		ctx, app := r.appSpan(t)
		drainStream(t, c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello"), r.tel.Stream(ctx, c)))
		app.End()

		ts := r.tracedStream(t)
		require.Equal(t, []string{"a2a.send", "a2a.subscribe"}, ts.names())
		send, sub := ts.calls[0], ts.calls[1]
		require.Equal(t, "drop", mustAttr(t, send, "a2a.outcome"))
		require.Equal(t, codes.Error, send.Status.Code)
		require.Equal(t, "drop", send.Status.Description)
		require.Equal(t, "*a2agrpc.StatusError", mustAttr(t, send, "error.type"), "UNAVAILABLE, which means nothing to A2A")
		require.Equal(t, "14", mustAttr(t, send, "rpc.grpc.status_code"), "UNAVAILABLE")
		require.Equal(t, "send", mustAttr(t, send, "a2a.attempt.kind"))
		require.Equal(t, "subscribe", mustAttr(t, sub, "a2a.attempt.kind"))
		require.Equal(t, "ok", mustAttr(t, sub, "a2a.outcome"))
		require.Equal(t, "1", mustAttr(t, sub, "a2a.reconnect.attempt"))
		require.Equal(t, "2", mustAttr(t, sub, "a2a.call"))
		require.Equal(t, codes.Unset, sub.Status.Code)
		_, failed := spanAttr(sub, "error.type")
		require.False(t, failed)
		require.Equal(t, []string{"a2a.connected", "a2a.first_event"}, eventNames(send))
		require.ElementsMatch(t, []string{"a2a.connected", "a2a.gap opened", "a2a.first_event", "a2a.gap healed"}, eventNames(sub))
		require.Equal(t, []string{"a2a.wait backoff"}, eventNames(ts.stream))
		require.Equal(t, "completed", mustAttr(t, ts.stream, "a2a.stream.end"))
		require.Equal(t, "2", mustAttr(t, ts.stream, "a2a.calls"))
		requireGRPCCalls(t, v, agent, ts)

		_, points := r.collect(t)
		require.Equal(t, map[string]int64{
			"a2a.client.attempts{a2a.attempt.kind=send,a2a.binding=GRPC,a2a.outcome=drop}":    1,
			"a2a.client.attempts{a2a.attempt.kind=subscribe,a2a.binding=GRPC,a2a.outcome=ok}": 1,
			"a2a.client.reconnects":                        1,
			"a2a.client.streams{a2a.stream.end=completed}": 1,
			"a2a.client.time_to_first_event":               1,
			"a2a.client.gap.duration{a2a.gap.kind=healed}": 1,
		}, points)
	})
}

// TestGRPCSpansOfARetryHintHonouredAndASafeResend: the send refused busy
// (UNAVAILABLE with a google.rpc.RetryInfo of 2 s) is made again, after the
// wait the agent asked for, because the sends are idempotent: the first
// call a retry in error, the second a resend, the hint on the wait.
func TestGRPCSpansOfARetryHintHonouredAndASafeResend(t *testing.T) {
	onEveryGRPCVersion(t, func(t *testing.T, v a2a.Version) {
		r := newTelemetryRig(t)
		busy := a2atest.HTTPStatusWithHeader(http.StatusServiceUnavailable, "busy", http.Header{"Retry-After": {"2"}})
		agent, c := grpcAgent(t, v, []a2atest.Option{a2atest.WithFaults(busy)})
		ctx, app := r.appSpan(t)
		drainStream(t, c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello"), stream.WithIdempotentSends(), r.tel.Stream(ctx, c)))
		app.End()

		ts := r.tracedStream(t)
		require.Equal(t, []string{"a2a.send", "a2a.send"}, ts.names())
		refused, again := ts.calls[0], ts.calls[1]
		require.Equal(t, "retry", mustAttr(t, refused, "a2a.outcome"))
		require.Equal(t, codes.Error, refused.Status.Code)
		require.Equal(t, "rpc -32603", mustAttr(t, refused, "error.type"), "busy: a retryable internal error")
		require.Equal(t, "14", mustAttr(t, refused, "rpc.grpc.status_code"), "UNAVAILABLE, with a RetryInfo")
		require.Equal(t, "false", mustAttr(t, refused, "a2a.resend"))
		require.Equal(t, "true", mustAttr(t, again, "a2a.resend"))
		require.Equal(t, "ok", mustAttr(t, again, "a2a.outcome"))
		require.Equal(t, []string{"a2a.wait backoff"}, eventNames(ts.stream))
		var asked float64
		for _, kv := range ts.stream.Events[0].Attributes {
			if kv.Key == "a2a.wait.asked_seconds" {
				asked = kv.Value.AsFloat64()
			}
		}
		require.Equal(t, 2.0, asked, "the RetryInfo's delay, honoured")
		requireGRPCCalls(t, v, agent, ts)

		_, points := r.collect(t)
		require.Equal(t, int64(1), points["a2a.client.retry_hints"])
		require.Equal(t, int64(1), points["a2a.client.reconnects"])
		require.Equal(t, int64(1), points["a2a.client.resends{a2a.attempt.kind=send}"])
		require.Equal(t, int64(1), points["a2a.client.attempts{a2a.attempt.kind=send,a2a.binding=GRPC,a2a.outcome=retry}"])
		require.Equal(t, int64(1), points["a2a.client.attempts{a2a.attempt.kind=send,a2a.binding=GRPC,a2a.outcome=ok}"])
	})
}

// answerWith is a human-input hook that answers text.
func answerWith(text string) hitl.Hook {
	return hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text(text), nil })
}

// TestGRPCSpansOfAPromptAnswered: the agent asks for input; the hook
// answers, a checkpoint is taken before the reply, and the reply is a
// call of its own: a2a.send, then a2a.reply, the asks and the checkpoint
// on the stream's span (between the calls).
func TestGRPCSpansOfAPromptAnswered(t *testing.T) {
	onEveryGRPCVersion(t, func(t *testing.T, v a2a.Version) {
		r := newTelemetryRig(t)
		agent, c := grpcAgent(t, v, []a2atest.Option{
			a2atest.WithScript(a2atest.Working(""), a2atest.AskInput("which city?"), a2atest.Finish(a2a.StateCompleted, "done"))})
		ctx, app := r.appSpan(t)
		checkpoint := stream.WithCheckpointBeforeReply(func(context.Context, *stream.Checkpoint) error { return nil })
		drainStream(t, c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello"), stream.WithHumanInput(answerWith("Lisbon")), checkpoint,
			r.tel.Stream(ctx, c)))
		app.End()

		ts := r.tracedStream(t)
		require.Equal(t, []string{"a2a.send", "a2a.reply"}, ts.names())
		require.Equal(t, "ok", mustAttr(t, ts.calls[0], "a2a.outcome"))
		require.Equal(t, "ok", mustAttr(t, ts.calls[1], "a2a.outcome"))
		require.Equal(t, "false", mustAttr(t, ts.calls[1], "a2a.resend"))
		require.Equal(t, mustAttr(t, ts.calls[1], "a2a.task.id"), mustAttr(t, ts.stream, "a2a.task.id"))
		require.Equal(t, []string{"a2a.ask human-input", "a2a.ask human-input", "a2a.checkpoint"}, eventNames(ts.stream))
		require.Equal(t, "completed", mustAttr(t, ts.stream, "a2a.stream.end"))
		requireGRPCCalls(t, v, agent, ts)

		_, points := r.collect(t)
		require.Equal(t, int64(1), points["a2a.client.attempts{a2a.attempt.kind=reply,a2a.binding=GRPC,a2a.outcome=ok}"])
	})
}

// TestGRPCSpansOfAPolledTask: an agent that cannot stream refuses the
// streaming send; the message goes again unary and the task is polled
// with GetTask: a span per call, a poll wait on the stream's span before
// each poll, each poll with its own traceparent.
func TestGRPCSpansOfAPolledTask(t *testing.T) {
	onEveryGRPCVersion(t, func(t *testing.T, v a2a.Version) {
		r := newTelemetryRig(t)
		agent, c := grpcAgent(t, v, []a2atest.Option{slowTask("one"), a2atest.WithoutStreaming()})
		ctx, app := r.appSpan(t)
		drainStream(t, c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello"), r.tel.Stream(ctx, c)))
		app.End()

		ts := r.tracedStream(t)
		names := ts.names()
		require.GreaterOrEqual(t, len(names), 3)
		require.Equal(t, []string{"a2a.send", "a2a.send"}, names[:2], "the streaming send refused, the message sent unary")
		require.Equal(t, "true", mustAttr(t, ts.calls[0], "a2a.streaming"))
		require.Equal(t, codes.Error, ts.calls[0].Status.Code)
		require.Equal(t, "rpc -32004", mustAttr(t, ts.calls[0], "error.type"), "unsupported operation")
		// 1.0: FAILED_PRECONDITION with the A2A reason; 0.3: UNIMPLEMENTED
		// (a2agrpctest answers as the JS SDKs do)
		require.Equal(t, map[a2a.Version]string{a2a.V10: "9", a2a.V03: "12"}[v], mustAttr(t, ts.calls[0], "rpc.grpc.status_code"))
		require.Equal(t, "false", mustAttr(t, ts.calls[1], "a2a.streaming"))
		require.Equal(t, "true", mustAttr(t, ts.calls[1], "a2a.resend"))
		for _, n := range names[2:] {
			require.Equal(t, "a2a.poll", n)
		}
		polls := len(names) - 2
		waits := eventNames(ts.stream)
		require.Len(t, waits, polls, "a wait before each poll")
		for _, w := range waits {
			require.Equal(t, "a2a.wait poll", w)
		}
		require.Equal(t, "completed", mustAttr(t, ts.stream, "a2a.stream.end"))
		requireGRPCCalls(t, v, agent, ts)

		_, points := r.collect(t)
		require.Equal(t, int64(polls), points["a2a.client.attempts{a2a.attempt.kind=poll,a2a.binding=GRPC,a2a.outcome=ok}"])
	})
}

// TestGRPCSpansOfABudgetSpent: a stream cut after its first event whose
// every resubscribe is dropped (UNAVAILABLE) ends when its reconnect
// budget is spent: a span per call, each in error, the stream's ended in
// error.type reconnect, the budget counted once.
func TestGRPCSpansOfABudgetSpent(t *testing.T) {
	onEveryGRPCVersion(t, func(t *testing.T, v a2a.Version) {
		r := newTelemetryRig(t)
		drop := a2atest.Drop()
		agent, c := grpcAgent(t, v, []a2atest.Option{slowTask("one"),
			a2atest.WithFaults(a2atest.CutAfterEvents(1), drop, drop, drop, drop, drop, drop, drop, drop)},
			stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}))
		ctx, app := r.appSpan(t)
		s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello"), r.tel.Stream(ctx, c))
		for s.Next() {
		}
		require.Error(t, s.Err())
		s.Close()
		app.End()

		ts := r.tracedStream(t)
		require.Equal(t, []string{"a2a.send", "a2a.subscribe", "a2a.subscribe", "a2a.subscribe"}, ts.names())
		for i, call := range ts.calls {
			require.Equal(t, codes.Error, call.Status.Code, "call %d", i)
			require.Equal(t, "*a2agrpc.StatusError", mustAttr(t, call, "error.type"), "call %d", i)
			require.Equal(t, "14", mustAttr(t, call, "rpc.grpc.status_code"), "call %d: UNAVAILABLE", i)
			require.Equal(t, fmt.Sprint(i), mustAttr(t, call, "a2a.reconnect.attempt"), "call %d", i)
		}
		require.Equal(t, "error", mustAttr(t, ts.stream, "a2a.stream.end"))
		require.Equal(t, "reconnect", mustAttr(t, ts.stream, "error.type"))
		require.Equal(t, codes.Error, ts.stream.Status.Code)
		requireGRPCCalls(t, v, agent, ts)

		_, points := r.collect(t)
		require.Equal(t, int64(1), points["a2a.client.budgets_spent"])
		require.Equal(t, int64(1), points["a2a.client.streams{a2a.stream.end=error}"])
		require.Equal(t, int64(3), points["a2a.client.reconnects"])
		var attempts int64
		for k, n := range points {
			if strings.HasPrefix(k, "a2a.client.attempts{") {
				attempts += n
			}
		}
		require.Equal(t, int64(len(ts.calls)), attempts, "an attempt counted per call")
	})
}

// requireNothingSecretExported fails the test when secret appears in any
// exported span (its name, attributes, events, links, status) or in any
// metric, written as JSON and as Go values; it also fails when nothing was
// exported, which would prove nothing.
func requireNothingSecretExported(t *testing.T, r *telemetryRig, secret string) {
	t.Helper()
	spans := r.spans.GetSpans()
	require.NotEmpty(t, spans)
	for _, sp := range spans {
		raw, err := json.Marshal(sp)
		require.NoError(t, err)
		require.NotContains(t, string(raw), secret, "span %s", sp.Name)
		require.NotContains(t, fmt.Sprintf("%#v", sp), secret, "span %s", sp.Name)
	}
	rm, _ := r.collect(t)
	require.NotEmpty(t, rm.ScopeMetrics)
	raw, err := json.Marshal(rm)
	require.NoError(t, err)
	require.NotContains(t, string(raw), secret, "metrics")
	require.NotContains(t, fmt.Sprintf("%#v", rm), secret, "metrics")
}

// TestGRPCSpansCarryNoSecret: a secret in the metadata (the Client's
// headers and the call's), the message, the agent's texts, its prompt, the
// reply and a busy status's message, over a stream refused busy, cut and
// resubscribed: no exported span, event, attribute or metric holds it,
// though the agent received it.
func TestGRPCSpansCarryNoSecret(t *testing.T) {
	const secret = "s3cr3t-grpc-5d1e"
	onEveryGRPCVersion(t, func(t *testing.T, v a2a.Version) {
		r := newTelemetryRig(t)
		agent, c := grpcAgent(t, v, []a2atest.Option{
			a2atest.WithScript(a2atest.Working("working on "+secret), a2atest.AskInput("which "+secret+"?"),
				a2atest.Chunk("a1", "the answer "+secret, false, true), a2atest.Finish(a2a.StateCompleted, "done "+secret)),
			a2atest.WithFaults(a2atest.RetryableError(-32603, "busy "+secret, time.Second, a2atest.ErrorAsJSON), a2atest.CutAfterEvents(2))},
			stream.WithHeader("Authorization", "Bearer "+secret), stream.WithHeader("X-Api-Key", secret))
		ctx, app := r.appSpan(t)
		s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "my "+secret), stream.WithIdempotentSends(),
			stream.WithHeader("X-Call", secret), stream.WithHumanInput(answerWith("reply "+secret)), r.tel.Stream(ctx, c))
		for s.Next() {
			_ = s.Checkpoint()
		}
		require.NoError(t, s.Err())
		s.Close()
		app.End()

		ts := r.tracedStream(t)
		require.GreaterOrEqual(t, len(ts.calls), 3, "refused, cut, resubscribed, replied: the test proves something")
		requireNothingSecretExported(t, r, secret)
		// the secret was there to be found: in every call's metadata
		reqs := agent.Requests()
		require.Len(t, reqs, len(ts.calls))
		for i, req := range reqs {
			require.Equal(t, "Bearer "+secret, req.Header.Get("Authorization"), "call %d (%s)", i, req.Method)
			require.Equal(t, secret, req.Header.Get("X-Api-Key"), "call %d (%s)", i, req.Method)
		}
	})
}

// TestGRPCSpansOfAStreamFromARealPeerCut: a2a-go's gRPC server (0.3),
// through the cutting proxy in gRPC mode, its first stream cut after two
// events: the send's span a drop, then the calls that recover the task,
// each a client span of the stream's, in the application's trace, the
// stream's span ending completed, the attempts counted.
func TestGRPCSpansOfAStreamFromARealPeerCut(t *testing.T) {
	p := grpcPeerNamed(t, "a2a-go-0.3.3-grpc")
	r := newTelemetryRig(t)
	ctx, app := r.appSpan(t)
	sc := scenarioNamed(t, "stream")
	got, rl := run(t, p, sc, faults{plan: []proxy.Fault{cut(2, 0)}, client: []stream.Option{r.tel.Stream(ctx, nil)}})
	app.End()
	logRun(t, rl)
	require.Equal(t, withText(sc.want), got)

	ts := r.tracedStream(t)
	names := ts.names()
	require.GreaterOrEqual(t, len(names), 2)
	require.Equal(t, "a2a.send", names[0])
	require.Equal(t, "drop", mustAttr(t, ts.calls[0], "a2a.outcome"))
	require.Equal(t, codes.Error, ts.calls[0].Status.Code)
	require.Equal(t, "14", mustAttr(t, ts.calls[0], "rpc.grpc.status_code"), "the cut: UNAVAILABLE")
	reqs := rl.px.Requests()
	require.Len(t, reqs, len(ts.calls), "a span per call the peer got")
	for i, call := range ts.calls {
		require.Equal(t, "grpc", mustAttr(t, call, "rpc.system"), "call %d", i)
		require.Equal(t, reqs[i].Path, "/"+mustAttr(t, call, "rpc.service")+"/"+mustAttr(t, call, "rpc.method"),
			"call %d: the span names the method the proxy saw", i)
		require.Equal(t, "0.3", mustAttr(t, call, "a2a.version"), "call %d", i)
		require.Equal(t, fmt.Sprint(i+1), mustAttr(t, call, "a2a.call"), "call %d", i)
		if i > 0 {
			require.NotEqual(t, "a2a.send", call.Name, "call %d: the message is not sent again", i)
		}
	}
	require.Equal(t, app.SpanContext().TraceID(), ts.stream.SpanContext.TraceID())
	require.Equal(t, "completed", mustAttr(t, ts.stream, "a2a.stream.end"))
	require.Equal(t, fmt.Sprint(len(ts.calls)), mustAttr(t, ts.stream, "a2a.calls"))

	_, points := r.collect(t)
	require.Equal(t, int64(1), points["a2a.client.attempts{a2a.attempt.kind=send,a2a.binding=GRPC,a2a.outcome=drop}"])
	require.Equal(t, int64(1), points["a2a.client.streams{a2a.stream.end=completed}"])
	var tree strings.Builder
	for _, call := range ts.calls {
		outcome, _ := spanAttr(call, "a2a.outcome")
		errType, _ := spanAttr(call, "error.type")
		fmt.Fprintf(&tree, "  %s rpc.service=%s rpc.method=%s a2a.outcome=%s error.type=%s\n", call.Name,
			mustAttr(t, call, "rpc.service"), mustAttr(t, call, "rpc.method"), outcome, errType)
	}
	t.Log("the calls' spans:\n" + tree.String())
}
