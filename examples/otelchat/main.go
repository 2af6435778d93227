// Command otelchat is the in-process demo of examples/chat traced with
// OpenTelemetry: one message to the demo trip agent, whose first
// connection drops in the middle of its answer and heals by itself, and
// whose question is answered for you (it reads no stdin). The stream is
// traced by the a2aotel module (docs/otel.md): a span for the stream, a
// child span for each call to the agent (the send, the resubscribe after
// the drop, the reply), under a span of the program's own ("chat turn").
//
// By default the spans and the metrics are written to stdout, as JSON, by
// the SDK's stdout exporters (stdouttrace, stdoutmetric), once the
// conversation has ended. With OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, they go to that collector over
// OTLP/HTTP instead (otlptracehttp, otlpmetrichttp), and the exporters read
// the other standard variables too: OTEL_EXPORTER_OTLP_HEADERS,
// OTEL_EXPORTER_OTLP_TIMEOUT, OTEL_EXPORTER_OTLP_CERTIFICATE, and their
// _TRACES_ and _METRICS_ forms. OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES name the service (otelchat by default).
//
// The program ends by itself in about a second, after flushing the
// exporters (at most 5 s more when a collector does not answer). Run it
// from this directory (it is a module of its own, so that the library does
// not depend on OpenTelemetry):
//
//	go run .
//	OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 go run .
//
// Exit status: 0 when the task completed and the telemetry was flushed,
// 1 when the task ended otherwise, 2 when the telemetry could not be set
// up or flushed, 130 when interrupted.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chatview"
	"github.com/a2astream/a2astream/examples/internal/demo"
	"github.com/a2astream/a2astream/hitl"
	a2aotel "github.com/a2astream/a2astream/otel"
	"github.com/a2astream/a2astream/stream"
)

// Exit statuses.
const (
	exitOK        = 0   // the task completed and the telemetry was flushed
	exitTask      = 1   // the task ended unsuccessfully
	exitTelemetry = 2   // the telemetry could not be set up or flushed
	exitInterrupt = 130 // Ctrl-C
)

// delay is the pause between two words of the demo agent: a third of
// examples/chat's, so that the program ends in about a second.
const delay = demo.Delay / 3

// flushTimeout bounds the exporters' flush at the end.
const flushTimeout = 5 * time.Second

// message is what the program says to the agent.
const message = "Plan a weekend trip"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program: it sets up the exporters, has the
// conversation, writes it to stdout, flushes the exporters and returns
// the exit status. Problems go to stderr.
func run(ctx context.Context, stdout, stderr io.Writer) int {
	tel, err := newTelemetry(ctx, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "otelchat: %v\n", err)
		return exitTelemetry
	}
	code := converse(ctx, tel, stdout, stderr)

	// Flush and stop the exporters even when ctx is done: what was traced
	// is what the run was for.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	if err := tel.shutdown(fctx); err != nil {
		fmt.Fprintf(stderr, "otelchat: flushing the telemetry: %v\n", err)
		if code == exitOK {
			code = exitTelemetry
		}
	}
	return code
}

// telemetry is the program's OpenTelemetry set-up: the SDK's providers on
// the chosen exporters, and the a2aotel module on them.
type telemetry struct {
	tp       *sdktrace.TracerProvider
	mp       *sdkmetric.MeterProvider
	mod      *a2aotel.Telemetry
	spanErrs *keptErrors // the span exporter
	otlp     string      // the collector's endpoint; "" when writing to stdout
	out      io.Writer
}

// keptErrors is a span exporter that keeps the errors of its exports.
type keptErrors struct {
	sdktrace.SpanExporter
	mu  sync.Mutex
	err error
}

// ExportSpans exports spans, keeping the error if any.
func (k *keptErrors) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := k.SpanExporter.ExportSpans(ctx, spans)
	if err != nil {
		k.mu.Lock()
		k.err = errors.Join(k.err, err)
		k.mu.Unlock()
	}
	return err
}

// kept returns the errors of the exports so far, joined.
func (k *keptErrors) kept() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

// otlpEndpoint returns the OTLP endpoint the environment names for traces,
// or "" for none.
func otlpEndpoint() string {
	if e := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); e != "" {
		return e
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
}

// newTelemetry builds the providers: OTLP/HTTP exporters when the
// environment names an endpoint, stdout ones (on out) otherwise.
func newTelemetry(ctx context.Context, out io.Writer) (*telemetry, error) {
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "otelchat")),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES win
		resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("resource: %w", err)
	}
	t := &telemetry{otlp: otlpEndpoint(), out: out}
	var (
		spans   sdktrace.SpanExporter
		metrics sdkmetric.Exporter
	)
	if t.otlp != "" {
		// Both read OTEL_EXPORTER_OTLP_* themselves.
		if spans, err = otlptracehttp.New(ctx); err != nil {
			return nil, fmt.Errorf("OTLP trace exporter: %w", err)
		}
		if metrics, err = otlpmetrichttp.New(ctx); err != nil {
			_ = spans.Shutdown(ctx)
			return nil, fmt.Errorf("OTLP metric exporter: %w", err)
		}
	} else {
		if spans, err = stdouttrace.New(stdouttrace.WithWriter(out), stdouttrace.WithPrettyPrint()); err != nil {
			return nil, fmt.Errorf("stdout trace exporter: %w", err)
		}
		if metrics, err = stdoutmetric.New(stdoutmetric.WithWriter(out), stdoutmetric.WithPrettyPrint()); err != nil {
			_ = spans.Shutdown(ctx)
			return nil, fmt.Errorf("stdout metric exporter: %w", err)
		}
	}
	// The batcher and the periodic reader export when the providers shut
	// down, after the conversation: the JSON does not interleave with it.
	// The batcher gives its export errors to OpenTelemetry's global error
	// handler (a log line on stderr) and not to Shutdown: keptErrors keeps
	// them for the exit status.
	t.spanErrs = &keptErrors{SpanExporter: spans}
	t.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(t.spanErrs), sdktrace.WithResource(res))
	t.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics)), sdkmetric.WithResource(res))
	if t.mod, err = a2aotel.New(a2aotel.WithTracerProvider(t.tp), a2aotel.WithMeterProvider(t.mp)); err != nil {
		_ = t.shutdown(ctx)
		return nil, fmt.Errorf("a2aotel: %w", err)
	}
	return t, nil
}

// shutdown flushes the spans, then the metrics, and stops the exporters.
func (t *telemetry) shutdown(ctx context.Context) error {
	if t.otlp == "" {
		fmt.Fprintln(t.out, "\nspans (stdouttrace):")
	}
	errT := errors.Join(t.tp.Shutdown(ctx), t.spanErrs.kept())
	if t.otlp == "" {
		fmt.Fprintln(t.out, "\nmetrics (stdoutmetric):")
	}
	errM := t.mp.Shutdown(ctx)
	if errT != nil {
		errT = fmt.Errorf("spans: %w", errT)
	}
	if errM != nil {
		errM = fmt.Errorf("metrics: %w", errM)
	}
	if t.otlp != "" && errT == nil && errM == nil {
		fmt.Fprintf(t.out, "spans and metrics sent over OTLP/HTTP to %s\n", t.otlp)
	}
	return errors.Join(errT, errM)
}

// converse has the conversation with the demo agent, traced, and returns
// the exit status.
func converse(ctx context.Context, tel *telemetry, stdout, stderr io.Writer) int {
	c := &chat{out: stdout}
	client, err := stream.NewClient(demo.URL,
		stream.WithHTTPClient(demo.PacedTripAgent(delay).Client()),
		stream.WithNotify(c.notice),
		stream.WithHumanInput(hitl.Func(c.ask)))
	if err != nil {
		fmt.Fprintf(stderr, "otelchat: %v\n", err)
		return exitTask
	}

	// The program's span: the stream's span is its child, so the whole
	// turn is one trace.
	ctx, turn := tel.tp.Tracer("github.com/a2astream/a2astream/examples/otelchat").Start(ctx, "chat turn")
	defer turn.End()
	c.line("trace %s", a2aotel.TraceID(ctx))
	c.line("you> %s", message)
	s := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, message), tel.mod.Stream(ctx, client))
	defer s.Close()
	for s.Next() {
		c.show(s.Event(), s.Task())
	}
	c.endLine()
	end := s.Ending()
	switch {
	case end.Err == nil:
		return exitOK
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "canceled")
		return exitInterrupt
	default:
		fmt.Fprintf(stderr, "otelchat: %v\n", end.Err)
		return exitTask
	}
}

// chat renders one conversation on out, as examples/chat does (without
// its terminal input). Stream.Next calls its notice and ask methods on the
// goroutine that reads the stream, so it needs no locking.
type chat struct {
	out     io.Writer
	midLine bool // the last thing written did not end its line

	screen  chatview.Screen // what each event adds to the screen
	first   string          // ID of the task's first artifact: the answer, shown bare
	current chatview.Pane   // the pane whose text is on the current line
	state   a2a.TaskState   // the last state shown
}

// show writes what one stream event adds: its text, where chatview.Screen
// says it goes, and the task's state when it changes.
func (c *chat) show(ev a2a.Event, task *a2a.Task) {
	t := c.screen.Add(ev)
	if su, ok := ev.(*a2a.StatusUpdate); ok {
		c.showStatus(su.Status.State, t)
		return
	}
	if t.Role == a2a.RoleUser || t.Content == "" && !t.Replace {
		return // our own words (already on screen), or no text
	}
	if t.Pane != c.current || t.Replace || !c.midLine {
		c.endLine()
		fmt.Fprint(c.out, c.label(t, task))
	}
	fmt.Fprint(c.out, t.Content)
	c.midLine, c.current = true, t.Pane
}

// label is what starts a line of text t: nothing for the answer (the
// task's first artifact), the name of any other artifact, "agent: " for a
// new message, and a mark for a message continued or rewritten.
func (c *chat) label(t chatview.Text, task *a2a.Task) string {
	switch {
	case t.Pane.Kind == chatview.PaneArtifact:
		if c.first == "" {
			c.first = t.Pane.ID
		}
		if t.Pane.ID == c.first {
			return ""
		}
		if task != nil {
			if art := task.Artifact(t.Pane.ID); art != nil && art.Name != "" {
				return art.Name + ": "
			}
		}
		return t.Pane.ID + ": "
	case t.Replace:
		return "· revised: "
	case t.Opens:
		return "agent: "
	}
	return "  … "
}

// showStatus writes a state change, with the agent's status message if any.
func (c *chat) showStatus(state a2a.TaskState, t chatview.Text) {
	if state == c.state && t.Content == "" {
		return
	}
	c.state = state
	c.endLine()
	switch {
	case state == a2a.StateInputRequired && t.Content != "":
		fmt.Fprintf(c.out, "agent asks: %s", t.Content)
	case t.Content != "":
		fmt.Fprintf(c.out, "· %s: %s", state, t.Content)
	default:
		fmt.Fprintf(c.out, "· %s", state)
	}
	c.midLine, c.current = true, t.Pane
}

// notice writes a reconnect or resume notice; see stream.WithNotify.
func (c *chat) notice(n stream.Notice) {
	switch n.Kind {
	case stream.Reconnecting:
		c.line("⟳ connection lost — reconnecting (%d/%d)…", n.Attempt, n.MaxAttempts)
	case stream.Resumed:
		c.line("✓ resumed")
	}
}

// ask is the human-input hook: the program answers the demo's question
// itself, as examples/chat does when stdin is closed.
func (c *chat) ask(context.Context, *hitl.Request) ([]a2a.Part, error) {
	c.line("you> %s   (answered for you)", demo.Answer)
	return hitl.Text(demo.Answer), nil
}

// line writes one whole line, ending a streamed line first.
func (c *chat) line(format string, args ...any) {
	c.endLine()
	fmt.Fprintf(c.out, format+"\n", args...)
}

// endLine ends the line the streamed text is on, if any.
func (c *chat) endLine() {
	if c.midLine {
		fmt.Fprintln(c.out)
		c.midLine = false
	}
}
