package a2aotel_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	a2aotel "github.com/a2astream/a2astream/otel"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// Example traces a stream whose connection drops once, then asks for a
// reply: the stream's span, a span for each call with its outcome, and
// the events of each. A real program would export to a collector (see
// docs/otel.md); here an in-memory exporter keeps the spans to print.
func Example() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	tel, err := a2aotel.New(a2aotel.WithTracerProvider(tp))
	if err != nil {
		panic(err)
	}

	agent := a2atest.NewAgent(
		a2atest.WithScript(
			a2atest.Working(""),
			a2atest.Chunk("answer", "Day one. ", false, false),
			a2atest.AskInput("Which city?"),
			a2atest.Chunk("answer", "Day two.", true, true),
			a2atest.Finish(a2a.StateCompleted, "")),
		a2atest.WithFaults(a2atest.CutAfterEvents(2))) // the first stream drops after two events
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()),
		stream.WithReconnect(reconnect.Policy{Backoff: time.Millisecond}),
		stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
			return hitl.Text("Lisbon"), nil
		})))
	if err != nil {
		panic(err)
	}

	ctx, app := tp.Tracer("example").Start(context.Background(), "chat turn")
	s := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "Two days in Lisbon?"), tel.Stream(ctx, client))
	if _, err := s.Wait(); err != nil {
		panic(err)
	}
	app.End()

	for _, sp := range spans.GetSpans() {
		indent := ""
		switch sp.Name {
		case "chat turn":
			continue
		case "a2a.stream":
		default:
			indent = "  "
		}
		line := indent + sp.Name
		for _, kv := range sp.Attributes {
			switch kv.Key {
			case "a2a.outcome", "a2a.stream.end", "rpc.method":
				line += " " + string(kv.Key) + "=" + kv.Value.String()
			}
		}
		for _, e := range sp.Events {
			line += " [" + e.Name + "]"
		}
		fmt.Println(line)
	}
	// Output:
	//   a2a.send rpc.method=SendStreamingMessage a2a.outcome=drop [a2a.connected] [a2a.first_event]
	//   a2a.subscribe rpc.method=SubscribeToTask a2a.outcome=ok [a2a.gap] [a2a.connected] [a2a.first_event] [a2a.gap]
	//   a2a.reply rpc.method=SendStreamingMessage a2a.outcome=ok [a2a.connected] [a2a.first_event]
	// a2a.stream a2a.stream.end=completed [a2a.wait] [a2a.ask] [a2a.ask]
}

// ExampleUntraced: a program whose http.Client is wrapped by otelhttp
// traces its streams with the module all the same, one client span per
// call: the filter leaves the calls that carry the module's traceparent to
// the module, and otelhttp traces the Client's other requests (here a GET
// of the agent's card).
func ExampleUntraced() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	otelhttpTP := otelhttp.WithTracerProvider(tp) // a program sets the global one instead
	tel, err := a2aotel.New(a2aotel.WithTracerProvider(tp))
	if err != nil {
		panic(err)
	}
	agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateCompleted, "done")))
	srv := httptest.NewServer(agent)
	defer srv.Close()
	defer http.DefaultTransport.(*http.Transport).CloseIdleConnections()

	filter := otelhttp.WithFilter(a2aotel.Untraced)
	httpc := &http.Client{Transport: otelhttp.NewTransport(http.DefaultTransport, filter, otelhttpTP)}
	client, err := stream.NewClient(srv.URL+"/", stream.WithHTTPClient(httpc))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if _, err := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hi"), tel.Stream(ctx, client)).Wait(); err != nil {
		panic(err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/.well-known/agent-card.json", nil)
	if resp, err := httpc.Do(req); err == nil {
		_ = resp.Body.Close()
	}
	for _, sp := range spans.GetSpans() {
		fmt.Println(sp.Name, sp.SpanKind)
	}
	// Output:
	// a2a.send client
	// a2a.stream internal
	// HTTP GET client
}
