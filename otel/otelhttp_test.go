package a2aotel_test

// The module with otelhttp on the same http.Client (its Transport) and on
// the agent's server (its Handler). The library cannot hand the call's
// span to the request's context, so otelhttp's client span of a call is a
// sibling of the call's span, not its child, and otelhttp's traceparent
// replaces the module's: each call has two client spans, and the agent
// continues otelhttp's. With otelhttp.WithFilter(a2aotel.Untraced),
// otelhttp leaves the stream's calls alone: one client span per call, the
// agent continuing it, and the Client's other requests still traced.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	a2aotel "github.com/a2astream/a2astream/otel"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// otelhttpRun runs a stream that drops once (a send, then a subscribe or
// a get-task) through otelhttp's Transport with opts, to an agent behind
// otelhttp's Handler, then one GET of the agent's card on the same
// Client; it returns the spans and the app's span.
func otelhttpRun(t *testing.T, opts ...otelhttp.Option) (tracetest.SpanStubs, trace.SpanContext) {
	r := newRig(t)
	prop := otelhttp.WithPropagators(propagation.TraceContext{})
	agent := a2atest.NewAgent(
		a2atest.WithScript(a2atest.Working(""), a2atest.Chunk("a", "one ", false, false), a2atest.Chunk("a", "two", true, true),
			a2atest.Finish(a2a.StateCompleted, "")),
		a2atest.WithFaults(a2atest.CutAfterEvents(2)))
	srv := httptest.NewServer(otelhttp.NewHandler(agent, "agent", otelhttp.WithTracerProvider(r.tp), prop))
	defer srv.Close()
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	httpc := &http.Client{Transport: otelhttp.NewTransport(base, append([]otelhttp.Option{otelhttp.WithTracerProvider(r.tp), prop}, opts...)...)}

	c, err := stream.NewClient(srv.URL+"/", stream.WithHTTPClient(httpc),
		stream.WithReconnect(reconnect.Policy{Backoff: time.Millisecond}))
	require.NoError(t, err)
	ctx, app := r.tp.Tracer("app").Start(context.Background(), "app")
	_, err = c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hi"), r.tel.Stream(ctx, c)).Wait()
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/.well-known/agent-card.json", nil)
	require.NoError(t, err)
	resp, err := httpc.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	app.End()
	srv.Close() // the server's spans end with their handlers
	spans := r.spans.GetSpans()
	t.Log("the trace:\n" + printTree(spans))
	for _, s := range spans {
		require.Equal(t, app.SpanContext().TraceID(), s.SpanContext.TraceID(), s.Name)
	}
	return spans, app.SpanContext()
}

// ours reports whether the module made s.
func ours(s tracetest.SpanStub) bool { return s.InstrumentationScope.Name == a2aotel.ScopeName }

// calls are the module's call spans; httpClients otelhttp's client spans;
// servers the agent's server spans, by their parent.
func sortSpans(spans tracetest.SpanStubs) (calls, httpClients []tracetest.SpanStub, servers map[trace.SpanID][]tracetest.SpanStub) {
	servers = map[trace.SpanID][]tracetest.SpanStub{}
	for _, s := range spans {
		switch {
		case ours(s) && s.Name != "a2a.stream":
			calls = append(calls, s)
		case !ours(s) && s.SpanKind == trace.SpanKindClient:
			httpClients = append(httpClients, s)
		case s.SpanKind == trace.SpanKindServer:
			servers[s.Parent.SpanID()] = append(servers[s.Parent.SpanID()], s)
		}
	}
	return calls, httpClients, servers
}

// Without a filter: each call has its span and otelhttp's, which is a
// child of the app's span (the ctx given to Send), not of the call's; the
// agent continues otelhttp's span, and no server span is under a call's.
func TestWithOtelhttpOnTheTransportEachCallHasTwoClientSpans(t *testing.T) {
	spans, app := otelhttpRun(t)
	calls, httpClients, servers := sortSpans(spans)
	require.GreaterOrEqual(t, len(calls), 2, "a send cut, then a subscribe or a get-task")
	require.Len(t, httpClients, len(calls)+1, "one of otelhttp per call, and the card's GET")
	for _, h := range httpClients {
		require.Equal(t, app.SpanID(), h.Parent.SpanID(), "%s: a child of the app's span", h.Name)
		require.Len(t, servers[h.SpanContext.SpanID()], 1, "the agent continues otelhttp's span")
	}
	for _, c := range calls {
		require.Empty(t, servers[c.SpanContext.SpanID()], "%s: otelhttp's traceparent replaced the call's", c.Name)
	}
}

// With otelhttp.WithFilter(a2aotel.Untraced): one client span per call,
// the module's, which the agent continues; the card's GET, which no
// stream made, is otelhttp's.
func TestWithOtelhttpFilteredByUntracedEachCallHasOneClientSpan(t *testing.T) {
	spans, app := otelhttpRun(t, otelhttp.WithFilter(a2aotel.Untraced))
	calls, httpClients, servers := sortSpans(spans)
	require.GreaterOrEqual(t, len(calls), 2)
	for _, c := range calls {
		require.Len(t, servers[c.SpanContext.SpanID()], 1, "%s: the agent continues the call's span", c.Name)
	}
	require.Len(t, httpClients, 1, "the card's GET only")
	require.Equal(t, app.SpanID(), httpClients[0].Parent.SpanID())
	require.Len(t, servers[httpClients[0].SpanContext.SpanID()], 1)
}
