package a2aotel_test

// The module on the real OpenTelemetry SDK (tracetest's in-memory span
// exporter, sdk/metric's ManualReader), against a2atest's agents on
// JSON-RPC and HTTP+JSON, 0.3 and 1.0: a stream cut and resubscribed, a
// send refused with a retry hint and made again, a prompt answered.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	a2aotel "github.com/a2astream/a2astream/otel"
	"github.com/a2astream/a2astream/stream"
)

// rig is a Telemetry on the SDK, with what it exported.
type rig struct {
	spans  *tracetest.InMemoryExporter
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
	tel    *a2aotel.Telemetry
}

func newRig(t *testing.T) *rig {
	r := &rig{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.spans))
	r.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	tel, err := a2aotel.New(a2aotel.WithTracerProvider(r.tp), a2aotel.WithMeterProvider(r.mp))
	require.NoError(t, err)
	r.tel = tel
	t.Cleanup(func() {
		require.NoError(t, r.tp.Shutdown(context.Background()))
		require.NoError(t, r.mp.Shutdown(context.Background()))
	})
	return r
}

// metrics collects the metrics: each data point's value by instrument name
// and its attributes (sum for counters, count for histograms).
func (r *rig) metrics(t *testing.T) (map[string]int64, metricdata.ResourceMetrics) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					got[m.Name+attrKey(p.Attributes)] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					got[m.Name+attrKey(p.Attributes)] += int64(p.Count)
				}
			}
		}
	}
	return got, rm
}

// attrKey writes a set of attributes as {k=v,…}, "" when empty.
func attrKey(s attribute.Set) string {
	if s.Len() == 0 {
		return ""
	}
	var parts []string
	for _, kv := range s.ToSlice() {
		parts = append(parts, string(kv.Key)+"="+kv.Value.String())
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// wire is a binding in a version.
type wire struct {
	v a2a.Version
	b a2a.Binding
}

func (w wire) String() string { return fmt.Sprintf("%s-%s", w.b, w.v) }

var wires = []wire{
	{a2a.V03, a2a.BindingJSONRPC}, {a2a.V10, a2a.BindingJSONRPC},
	{a2a.V03, a2a.BindingHTTPJSON}, {a2a.V10, a2a.BindingHTTPJSON},
}

// onEveryWire runs f for each wire, in a synctest bubble (backoffs take no
// wall time).
func onEveryWire(t *testing.T, f func(t *testing.T, w wire)) {
	for _, w := range wires {
		t.Run(w.String(), func(t *testing.T) { synctest.Test(t, func(t *testing.T) { f(t, w) }) })
	}
}

// agent returns an a2atest agent that speaks only w.
func (w wire) agent(opts ...a2atest.Option) *a2atest.Agent {
	return a2atest.NewAgent(append([]a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, opts...)...)
}

// client returns a Client of w's binding on agent (nil: opts say how to
// reach the endpoint).
func (w wire) client(t *testing.T, agent *a2atest.Agent, endpoint string, opts ...stream.Option) *stream.Client {
	newClient := stream.NewClient
	if w.b == a2a.BindingHTTPJSON {
		newClient = stream.NewRESTClient
	}
	all := []stream.Option{stream.WithVersion(w.v)}
	if agent != nil {
		all = append(all, stream.WithHTTPClient(agent.Client()))
	}
	c, err := newClient(endpoint, append(all, opts...)...)
	require.NoError(t, err)
	return c
}

// tree is the exported spans: the application's root, the stream's span,
// and its calls' spans in the order they started.
type tree struct {
	root, stream tracetest.SpanStub
	calls        []tracetest.SpanStub
}

func (r *rig) tree(t *testing.T) tree {
	t.Helper()
	var tr tree
	for _, s := range r.spans.GetSpans() {
		switch {
		case s.Name == "app":
			tr.root = s
		case s.Name == "a2a.stream":
			require.Empty(t, tr.stream.Name, "one stream span")
			tr.stream = s
		default:
			tr.calls = append(tr.calls, s)
		}
	}
	require.Equal(t, "a2a.stream", tr.stream.Name)
	// calls end in the order they start, one at a time
	for _, c := range tr.calls {
		require.Equal(t, tr.stream.SpanContext.SpanID(), c.Parent.SpanID(), "%s: a call's parent is the stream's span", c.Name)
		require.Equal(t, tr.stream.SpanContext.TraceID(), c.SpanContext.TraceID())
		require.Equal(t, trace.SpanKindClient, c.SpanKind)
	}
	if tr.root.Name != "" {
		require.Equal(t, tr.root.SpanContext.SpanID(), tr.stream.Parent.SpanID(), "the stream's parent is the span in the caller's ctx")
		require.Equal(t, tr.root.SpanContext.TraceID(), tr.stream.SpanContext.TraceID())
	}
	return tr
}

// attr returns the span's attribute k, and whether it has one.
func attr(attrs []attribute.KeyValue, k string) (attribute.Value, bool) {
	for _, kv := range attrs {
		if string(kv.Key) == k {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func strAttr(t *testing.T, s tracetest.SpanStub, k string) string {
	t.Helper()
	v, ok := attr(s.Attributes, k)
	require.True(t, ok, "%s has no %s", s.Name, k)
	return v.String()
}

// events names the span's events, with their kind attribute when they
// have one.
func events(s tracetest.SpanStub) []string {
	var out []string
	for _, e := range s.Events {
		name := e.Name
		for _, k := range []string{"a2a.wait.kind", "a2a.gap.kind", "a2a.ask.kind"} {
			if v, ok := attr(e.Attributes, k); ok {
				name += " " + v.String()
			}
		}
		out = append(out, name)
	}
	return out
}

// requireTraceparents asserts that each request the agent received carried
// the traceparent of its call's span, in order, and the caller's baggage.
func requireTraceparents(t *testing.T, agent *a2atest.Agent, tr tree, wantBaggage string) {
	t.Helper()
	reqs := agent.Requests()
	require.Len(t, reqs, len(tr.calls), "a span per call")
	for i, req := range reqs {
		c := tr.calls[i].SpanContext
		want := fmt.Sprintf("00-%s-%s-01", c.TraceID(), c.SpanID())
		require.Equal(t, want, req.Header.Get("Traceparent"), "request %d (%s): its call's span", i, req.Method)
		require.Equal(t, wantBaggage, req.Header.Get("Baggage"), "request %d", i)
		require.Equal(t, req.Method, strAttr(t, tr.calls[i], "rpc.method"), "rpc.method is the request's")
	}
}

// appContext is a context with the application's span and baggage.
func appContext(t *testing.T, r *rig) (context.Context, trace.Span) {
	m, err := baggage.NewMember("tenant", "acme")
	require.NoError(t, err)
	b, err := baggage.New(m)
	require.NoError(t, err)
	ctx, span := r.tp.Tracer("app").Start(baggage.ContextWithBaggage(t.Context(), b), "app")
	return ctx, span
}

func drain(t *testing.T, s *stream.Stream) {
	t.Helper()
	for s.Next() {
	}
	require.NoError(t, s.Err())
}

// slowScript is a task still running when a stream cut after its first
// two events resubscribes.
func slowScript() a2atest.Option {
	return a2atest.WithScript(a2atest.Working(""), a2atest.Chunk("a1", "one", false, false), a2atest.Pause(10*time.Second),
		a2atest.Chunk("a1", "two", true, true), a2atest.Finish(a2a.StateCompleted, ""))
}

func TestCutAndResubscribe(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		r := newRig(t)
		agent := w.agent(slowScript(), a2atest.WithFaults(a2atest.CutAfterEvents(2)))
		c := w.client(t, agent, "http://agent.test/")
		ctx, app := appContext(t, r)
		drain(t, c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello"), r.tel.Stream(ctx, c)))
		app.End()

		tr := r.tree(t)
		require.Len(t, tr.calls, 2)
		require.Equal(t, []string{"a2a.send", "a2a.subscribe"}, []string{tr.calls[0].Name, tr.calls[1].Name})
		require.Equal(t, "drop", strAttr(t, tr.calls[0], "a2a.outcome"))
		require.Equal(t, codes.Error, tr.calls[0].Status.Code)
		require.Equal(t, "drop", tr.calls[0].Status.Description)
		require.Equal(t, "unexpected_eof", strAttr(t, tr.calls[0], "error.type"))
		require.Equal(t, "ok", strAttr(t, tr.calls[1], "a2a.outcome"))
		require.Equal(t, "1", strAttr(t, tr.calls[1], "a2a.reconnect.attempt"))
		require.Equal(t, "2", strAttr(t, tr.calls[1], "a2a.call"))
		require.Equal(t, "agent.test", strAttr(t, tr.calls[1], "server.address"))
		require.Equal(t, "80", strAttr(t, tr.calls[1], "server.port"))
		require.Equal(t, "http://agent.test/", strAttr(t, tr.calls[1], "url.full"))
		require.Equal(t, string(w.v), strAttr(t, tr.calls[1], "a2a.version"))
		require.Equal(t, string(w.b), strAttr(t, tr.calls[1], "a2a.binding"))
		wantSystem := map[a2a.Binding]string{a2a.BindingJSONRPC: "jsonrpc", a2a.BindingHTTPJSON: "http"}[w.b]
		require.Equal(t, wantSystem, strAttr(t, tr.calls[1], "rpc.system"))
		taskID := strAttr(t, tr.calls[1], "a2a.task.id")
		require.NotEmpty(t, taskID)
		require.Equal(t, []string{"a2a.connected", "a2a.first_event"}, events(tr.calls[0]))
		require.ElementsMatch(t, []string{"a2a.connected", "a2a.gap opened", "a2a.first_event", "a2a.gap healed"}, events(tr.calls[1]))
		require.Equal(t, []string{"a2a.wait backoff"}, events(tr.stream), "the backoff, between the calls")
		require.Equal(t, "completed", strAttr(t, tr.stream, "a2a.stream.end"))
		require.Equal(t, taskID, strAttr(t, tr.stream, "a2a.task.id"))
		require.Equal(t, "2", strAttr(t, tr.stream, "a2a.calls"))
		requireTraceparents(t, agent, tr, "tenant=acme")

		got, _ := r.metrics(t)
		b := string(w.b)
		require.Equal(t, map[string]int64{
			"a2a.client.attempts{a2a.attempt.kind=send,a2a.binding=" + b + ",a2a.outcome=drop}":    1,
			"a2a.client.attempts{a2a.attempt.kind=subscribe,a2a.binding=" + b + ",a2a.outcome=ok}": 1,
			"a2a.client.reconnects":                        1,
			"a2a.client.streams{a2a.stream.end=completed}": 1,
			"a2a.client.time_to_first_event":               1,
			"a2a.client.gap.duration{a2a.gap.kind=healed}": 1,
		}, got)
	})
}

func TestRetryHintAndResend(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		r := newRig(t)
		agent := w.agent(a2atest.WithFaults(a2atest.HTTPStatusWithHeader(http.StatusServiceUnavailable, "busy",
			http.Header{"Retry-After": {"2"}})))
		c := w.client(t, agent, "http://agent.test/")
		ctx, app := appContext(t, r)
		drain(t, c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello"), stream.WithIdempotentSends(), r.tel.Stream(ctx, c)))
		app.End()

		tr := r.tree(t)
		require.Len(t, tr.calls, 2)
		require.Equal(t, "retry", strAttr(t, tr.calls[0], "a2a.outcome"))
		require.Equal(t, "503", strAttr(t, tr.calls[0], "error.type"))
		require.Equal(t, "false", strAttr(t, tr.calls[0], "a2a.resend"))
		require.Equal(t, "true", strAttr(t, tr.calls[1], "a2a.resend"))
		require.Equal(t, "ok", strAttr(t, tr.calls[1], "a2a.outcome"))
		require.Len(t, tr.stream.Events, 1)
		asked, ok := attr(tr.stream.Events[0].Attributes, "a2a.wait.asked_seconds")
		require.True(t, ok)
		require.Equal(t, 2.0, asked.AsFloat64())
		requireTraceparents(t, agent, tr, "tenant=acme")

		got, _ := r.metrics(t)
		require.Equal(t, int64(1), got["a2a.client.retry_hints"])
		require.Equal(t, int64(1), got["a2a.client.reconnects"])
		require.Equal(t, int64(1), got["a2a.client.resends{a2a.attempt.kind=send}"])
	})
}

func TestPromptAnswered(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		r := newRig(t)
		agent := w.agent(a2atest.WithScript(a2atest.Working(""), a2atest.AskInput("which city?"), a2atest.Finish(a2a.StateCompleted, "done")))
		c := w.client(t, agent, "http://agent.test/")
		ctx := t.Context() // no span: the stream's is a root
		answer := stream.WithHumanInput(hitlText("Lisbon"))
		checkpoint := stream.WithCheckpointBeforeReply(func(context.Context, *stream.Checkpoint) error { return nil })
		drain(t, c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello"), answer, checkpoint, r.tel.Stream(ctx, c)))

		tr := r.tree(t)
		require.False(t, tr.stream.Parent.IsValid(), "a root")
		require.Len(t, tr.calls, 2)
		require.Equal(t, []string{"a2a.send", "a2a.reply"}, []string{tr.calls[0].Name, tr.calls[1].Name})
		require.Equal(t, []string{"a2a.ask human-input", "a2a.ask human-input", "a2a.checkpoint"}, events(tr.stream))
		before, ok := attr(tr.stream.Events[2].Attributes, "a2a.checkpoint.before_reply")
		require.True(t, ok)
		require.True(t, before.AsBool())
		requireTraceparents(t, agent, tr, "")
	})
}

// TestBudgetSpent: a stream whose every resubscribe is dropped
// ends in a spent budget: a span per call, each call's error, the budget
// counted.
func TestBudgetSpent(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		r := newRig(t)
		drop := a2atest.Drop()
		agent := w.agent(slowScript(), a2atest.WithFaults(a2atest.CutAfterEvents(1), drop, drop, drop, drop, drop))
		c := w.client(t, agent, "http://agent.test/")
		s := c.Send(t.Context(), a2a.NewTextMessage(a2a.RoleUser, "hello"), r.tel.Stream(t.Context(), c))
		for s.Next() {
		}
		require.Error(t, s.Err())

		tr := r.tree(t)
		require.Len(t, tr.calls, len(agent.Requests()))
		require.Equal(t, "error", strAttr(t, tr.stream, "a2a.stream.end"))
		require.Equal(t, "reconnect", strAttr(t, tr.stream, "error.type"))
		require.Equal(t, codes.Error, tr.stream.Status.Code)
		got, _ := r.metrics(t)
		require.Equal(t, int64(1), got["a2a.client.budgets_spent"])
		require.Equal(t, int64(1), got["a2a.client.streams{a2a.stream.end=error}"])
		var drops int64
		for k, v := range got {
			if strings.HasPrefix(k, "a2a.client.attempts{") {
				drops += v
			}
		}
		require.Equal(t, int64(len(tr.calls)), drops, "an attempt counted per call")
	})
}

// TestNoSecretIsExported puts a secret in every header, the endpoint's
// query, the message, the agent's texts, its prompt, the reply and a
// server's error, and searches every exported span, event and metric.
func TestNoSecretIsExported(t *testing.T) {
	const secret = "s3cr3t-7f2a"
	onEveryWire(t, func(t *testing.T, w wire) {
		r := newRig(t)
		agent := w.agent(
			a2atest.WithScript(a2atest.Working("working on "+secret), a2atest.AskInput("which "+secret+"?"),
				a2atest.Chunk("a1", "the answer "+secret, false, true), a2atest.Finish(a2a.StateCompleted, "done "+secret)),
			a2atest.WithFaults(a2atest.RetryableError(-32603, "busy "+secret, time.Second, a2atest.ErrorAsJSON), a2atest.CutAfterEvents(2)))
		c := w.client(t, agent, "http://agent.test/?api_key="+secret,
			stream.WithHeader("Authorization", "Bearer "+secret), stream.WithHeader("X-Api-Key", secret))
		ctx, app := appContext(t, r)
		s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "my "+secret), stream.WithIdempotentSends(),
			stream.WithHeader("X-Call", secret), stream.WithHumanInput(hitlText("reply "+secret)), r.tel.Stream(ctx, c))
		for s.Next() {
			_ = s.Checkpoint()
		}
		app.End()
		require.NoError(t, s.Err())

		spans := r.spans.GetSpans()
		require.GreaterOrEqual(t, len(spans), 4, "the test proves something")
		for _, sp := range spans {
			b, err := json.Marshal(sp)
			require.NoError(t, err)
			require.NotContains(t, string(b), secret, "span %s", sp.Name)
			require.NotContains(t, fmt.Sprintf("%+v", sp), secret)
		}
		_, rm := r.metrics(t)
		require.NotEmpty(t, rm.ScopeMetrics)
		b, err := json.Marshal(rm)
		require.NoError(t, err)
		require.NotContains(t, string(b), secret)
		require.NotContains(t, fmt.Sprintf("%+v", rm), secret)
		// the secret was there to be found
		var sawAuth bool
		for _, req := range agent.Requests() {
			sawAuth = sawAuth || strings.Contains(req.Header.Get("Authorization"), secret)
		}
		require.True(t, sawAuth)
	})
}

// hitlText is a human-input hook that answers text.
func hitlText(text string) hitl.Hook {
	return hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text(text), nil })
}

// TestPolled: an agent that cannot stream refuses the streaming send; the
// message goes again in a unary send, and the task is polled: a span per call, the poll waits on the stream's span, every poll
// carries its own traceparent.
func TestPolled(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		r := newRig(t)
		agent := w.agent(slowScript(), a2atest.WithoutStreaming())
		c := w.client(t, agent, "http://agent.test/")
		ctx, app := appContext(t, r)
		drain(t, c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello"), r.tel.Stream(ctx, c)))
		app.End()

		tr := r.tree(t)
		require.GreaterOrEqual(t, len(tr.calls), 3)
		// the streaming send the agent refuses, the same message sent unary
		require.Equal(t, []string{"a2a.send", "a2a.send"}, []string{tr.calls[0].Name, tr.calls[1].Name})
		require.Equal(t, "true", strAttr(t, tr.calls[0], "a2a.streaming"))
		require.Equal(t, "false", strAttr(t, tr.calls[1], "a2a.streaming"))
		require.Equal(t, "true", strAttr(t, tr.calls[1], "a2a.resend"))
		polls := 0
		for _, call := range tr.calls[2:] {
			require.Equal(t, "a2a.poll", call.Name)
			polls++
		}
		waits := 0
		for _, e := range events(tr.stream) {
			require.Equal(t, "a2a.wait poll", e)
			waits++
		}
		require.Equal(t, polls, waits, "a wait before each poll")
		requireTraceparents(t, agent, tr, "tenant=acme")
		got, _ := r.metrics(t)
		require.Equal(t, int64(polls), got["a2a.client.attempts{a2a.attempt.kind=poll,a2a.binding="+string(w.b)+",a2a.outcome=ok}"])
	})
}
