package a2aotel_test

// One trace across a chain of three agents in one process, over real
// loopback HTTP: A calls B through this library, B calls C, C's task
// fails. The three share the SDK's in-memory exporter.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chain"
	a2aotel "github.com/a2astream/a2astream/otel"
	"github.com/a2astream/a2astream/stream"
)

// serverSpan is what an agent's HTTP server does with W3C trace context
// (otelhttp's handler does as much): it continues the trace of the
// request's traceparent with a server span named name, and marks it an
// error when the response's status is 5xx or the handler says so with
// failed.
func serverSpan(tp trace.TracerProvider, name string, h func(ctx context.Context, w http.ResponseWriter, r *http.Request) (failed bool)) http.Handler {
	prop := propagation.TraceContext{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tp.Tracer("agent").Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", r.Method)))
		defer span.End()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		if h(ctx, sw, r.WithContext(ctx)) || sw.status >= 500 {
			span.SetStatus(codes.Error, "")
		}
		span.SetAttributes(attribute.Int("http.response.status_code", sw.status))
	})
}

// statusWriter keeps the status a handler wrote; it flushes, for SSE.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// printTree writes the spans as a tree, each with its kind, status and the
// attributes that say what the hop did.
func printTree(spans tracetest.SpanStubs) string {
	children := map[trace.SpanID][]tracetest.SpanStub{}
	ids := map[trace.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanContext.SpanID()] = true
	}
	var roots []tracetest.SpanStub
	for _, s := range spans {
		if p := s.Parent.SpanID(); p.IsValid() && ids[p] {
			children[p] = append(children[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	var b strings.Builder
	var walk func(s tracetest.SpanStub, depth int)
	walk = func(s tracetest.SpanStub, depth int) {
		fmt.Fprintf(&b, "%s%s (%s)", strings.Repeat("  ", depth), s.Name, s.SpanKind)
		for _, kv := range s.Attributes {
			switch kv.Key {
			case "server.address", "server.port", "url.full", "a2a.task.id", "a2a.call", "a2a.reconnect.attempt", "a2a.resend",
				"a2a.streaming", "a2a.version", "a2a.binding", "a2a.events", "a2a.calls", "rpc.system", "http.request.method":
				continue
			}
			fmt.Fprintf(&b, " %s=%s", kv.Key, kv.Value.String())
		}
		if s.Status.Code == codes.Error {
			b.WriteString(" ERROR")
		}
		b.WriteString("\n")
		kids := children[s.SpanContext.SpanID()]
		slices.SortFunc(kids, func(x, y tracetest.SpanStub) int { return x.StartTime.Compare(y.StartTime) })
		for _, c := range kids {
			walk(c, depth+1)
		}
	}
	for _, r := range roots {
		fmt.Fprintf(&b, "trace %s\n", r.SpanContext.TraceID())
		walk(r, 0)
	}
	return b.String()
}

// A chain of three agents: the application A calls agent B through this
// library, B calls agent C the same way, and C's task fails. Every span of
// the three is in one trace, whose tree shows the hop that failed: B's
// stream to C ended in state failed, and A's call to B in B's -32603.
// The chain error A receives has a link for B and one for C, each with the
// trace's ID.
func TestOneTraceAcrossAChainOfThree(t *testing.T) {
	r := newRig(t)
	httpc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(httpc.CloseIdleConnections)

	// C: an agent whose task fails.
	agentC := a2atest.NewAgent(a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateFailed, "no seats")))
	c := httptest.NewServer(serverSpan(r.tp, "agent C", func(_ context.Context, w http.ResponseWriter, req *http.Request) bool {
		agentC.ServeHTTP(w, req)
		return false
	}))
	defer c.Close()

	// B: a JSON-RPC agent of A2A 1.0, reduced to calling C and answering
	// A with the chain of how that call ended.
	b := httptest.NewServer(serverSpan(r.tp, "agent B", func(ctx context.Context, w http.ResponseWriter, req *http.Request) bool {
		var in struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.NewDecoder(req.Body).Decode(&in); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return true
		}
		toC, err := stream.NewClient(c.URL+"/", stream.WithHTTPClient(httpc), stream.WithVersion(a2a.V10))
		if err == nil {
			_, err = toC.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "seats to Lisbon?"), r.tel.Stream(ctx, toC)).Wait()
		}
		answer := chain.ErrorInTrace(err, a2a.V10, "B", "C", a2aotel.TraceID(ctx))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": in.ID, "error": answer})
		return answer != nil
	}))
	defer b.Close()

	// A: the application, with a span of its own.
	ctx, app := r.tp.Tracer("app").Start(context.Background(), "A: plan a trip")
	toB, err := stream.NewClient(b.URL+"/", stream.WithHTTPClient(httpc), stream.WithVersion(a2a.V10))
	require.NoError(t, err)
	_, err = toB.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "plan a trip"), r.tel.Stream(ctx, toB)).Wait()
	app.End()
	require.Error(t, err)
	traceID := app.SpanContext().TraceID()

	// The chain error's links carry the trace's ID.
	links := chain.Of(err)
	require.Len(t, links, 2)
	require.Equal(t, []string{"B", "C"}, []string{links[0].Agent, links[1].Agent})
	require.Equal(t, a2a.StateFailed, links[1].State)
	for _, l := range links {
		require.Equal(t, traceID.String(), l.TraceID, l.Agent)
	}

	// One trace, whose tree is A → stream → send → B → stream → send → C.
	// The agents' spans end after their responses went out: closing the
	// servers waits for their handlers.
	b.Close()
	c.Close()
	spans := r.spans.GetSpans()
	t.Log("the chain's trace:\n" + printTree(spans))
	byName := map[string][]tracetest.SpanStub{}
	for _, s := range spans {
		require.Equal(t, traceID, s.SpanContext.TraceID(), "%s is in the one trace", s.Name)
		byName[s.Name] = append(byName[s.Name], s)
	}
	require.Len(t, spans, 7)
	require.Len(t, byName["a2a.stream"], 2)
	require.Len(t, byName["a2a.send"], 2)
	parentOf := func(s tracetest.SpanStub) trace.SpanID { return s.Parent.SpanID() }
	spanOf := func(s tracetest.SpanStub) trace.SpanID { return s.SpanContext.SpanID() }
	serverB, serverC := byName["agent B"][0], byName["agent C"][0]
	var streamA, streamB, sendA, sendB tracetest.SpanStub
	for _, s := range byName["a2a.stream"] {
		if parentOf(s) == app.SpanContext().SpanID() {
			streamA = s
		} else {
			streamB = s
		}
	}
	for _, s := range byName["a2a.send"] {
		if parentOf(s) == spanOf(streamA) {
			sendA = s
		} else {
			sendB = s
		}
	}
	require.Equal(t, spanOf(streamA), parentOf(sendA), "A's call is a child of A's stream")
	require.Equal(t, spanOf(sendA), parentOf(serverB), "B continues the trace of A's call")
	require.Equal(t, spanOf(serverB), parentOf(streamB), "B's stream to C is a child of B's server span")
	require.Equal(t, spanOf(streamB), parentOf(sendB))
	require.Equal(t, spanOf(sendB), parentOf(serverC), "C continues the trace of B's call")

	// The hop that failed: B's stream to C ended in C's failed task; every
	// span above it says the error came from below.
	require.Equal(t, "error", strAttr(t, streamB, "a2a.stream.end"))
	require.Equal(t, "failed", strAttr(t, streamB, "a2a.task.state"))
	require.Equal(t, "*terminal.FailedError", strAttr(t, streamB, "error.type"))
	require.Equal(t, codes.Error, streamB.Status.Code)
	require.Equal(t, "ok", strAttr(t, sendB, "a2a.outcome"), "C answered: its task failed, the call did not")
	require.NotEqual(t, codes.Error, serverC.Status.Code)
	require.Equal(t, codes.Error, serverB.Status.Code)
	require.Equal(t, "rpc -32603", strAttr(t, sendA, "error.type"))
	require.Equal(t, codes.Error, sendA.Status.Code)
	require.Equal(t, "error", strAttr(t, streamA, "a2a.stream.end"))
}
