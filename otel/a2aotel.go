// Package a2aotel traces and measures a2astream's streams with
// OpenTelemetry: a span for each stream, a child span for each call the
// stream makes to the agent, span events for its waits, gaps, prompts and
// checkpoints, W3C trace context on every call, and the metrics an
// operator watches (attempts by outcome, reconnects, retry hints honoured,
// resends, budgets spent, time to first event, gap length). Relay gives a
// relay its metrics (leases, takeovers, entries appended, readers);
// TraceID gives chain.ErrorInTrace the trace an agent's work is part of.
//
// It builds on stream.WithTrace and stream.Trace only, and lives in a
// module of its own so that the library keeps its two dependencies:
//
//	tel, err := a2aotel.New() // the global TracerProvider, MeterProvider
//	…
//	s := client.Send(ctx, msg, tel.Stream(ctx, client))
//
// The stream's span is a child of the span in ctx. docs/otel.md lists every
// span, attribute, event and metric.
//
// Nothing secret becomes an attribute: no task or message text, no header
// value, no token, no error text (an error is named by its kind in
// error.type), and url.full is the Client's endpoint without its user
// name, password, query and fragment.
package a2aotel

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// ScopeName is the instrumentation scope of the module's tracer and meter.
const ScopeName = "github.com/a2astream/a2astream/otel"

// Option configures New.
type Option func(*config)

type config struct {
	tp   trace.TracerProvider
	mp   metric.MeterProvider
	prop propagation.TextMapPropagator
}

// WithTracerProvider sets the TracerProvider spans are made with; by
// default the global one (otel.GetTracerProvider). A nil one is ignored.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) {
		if tp != nil {
			c.tp = tp
		}
	}
}

// WithMeterProvider sets the MeterProvider the instruments are made with;
// by default the global one (otel.GetMeterProvider). A nil one is ignored.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) {
		if mp != nil {
			c.mp = mp
		}
	}
}

// WithPropagator sets what each call of a stream carries of the trace
// context: by default W3C trace context and baggage (traceparent,
// tracestate, baggage). propagation.NewCompositeTextMapPropagator() with
// no argument carries nothing. A nil one is ignored.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) {
		if p != nil {
			c.prop = p
		}
	}
}

// Telemetry makes the tracing and the metrics of streams. It is safe for
// concurrent use: one Telemetry serves every stream of a program.
type Telemetry struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator

	attempts     metric.Int64Counter
	reconnects   metric.Int64Counter
	retryHints   metric.Int64Counter
	resends      metric.Int64Counter
	budgetsSpent metric.Int64Counter
	streams      metric.Int64Counter
	firstEvent   metric.Float64Histogram
	gaps         metric.Float64Histogram

	relay relayMetrics
}

// New returns a Telemetry configured by opts. Its error is the
// MeterProvider's, if it refuses an instrument.
func New(opts ...Option) (*Telemetry, error) {
	cfg := config{
		tp:   otel.GetTracerProvider(),
		mp:   otel.GetMeterProvider(),
		prop: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	m := cfg.mp.Meter(ScopeName)
	t := &Telemetry{tracer: cfg.tp.Tracer(ScopeName), prop: cfg.prop}
	var errs []error
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	histogram := func(name, desc string, bounds ...float64) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
			metric.WithExplicitBucketBoundaries(bounds...))
		errs = append(errs, err)
		return h
	}
	t.attempts = counter("a2a.client.attempts", "{call}", "Calls a stream made to the agent, by kind and outcome.")
	t.reconnects = counter("a2a.client.reconnects", "{reconnect}", "Reconnect attempts scheduled (backoff waits).")
	t.retryHints = counter("a2a.client.retry_hints", "{wait}", "Backoff waits that honoured the server's Retry-After or retry hint.")
	t.resends = counter("a2a.client.resends", "{call}", "Calls that sent a message the stream had sent before.")
	t.budgetsSpent = counter("a2a.client.budgets_spent", "{stream}", "Streams that ended because their reconnect budget was spent.")
	t.streams = counter("a2a.client.streams", "{stream}", "Streams ended, by how they ended.")
	t.firstEvent = histogram("a2a.client.time_to_first_event", "From a stream's first call to its first event.",
		0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
	t.gaps = histogram("a2a.client.gap.duration", "From a gap opened (a subscribe after a drop) to its heal, or to the stream giving up on it.",
		0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60)
	rm, err := newRelayMetrics(m)
	errs = append(errs, err)
	t.relay = rm
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// Stream returns the option that traces one stream of c: give it to
// Client.Send, Client.Subscribe or Client.Resume, with the ctx given there.
// The stream's span is a child of the span in ctx (a root when there is
// none); its calls carry the trace context of their own spans, with ctx's
// baggage, to the origin the caller named only (stream.Trace's Header).
// c may be nil: the spans then lack server.address and url.full.
//
// The option is for one stream: give each stream its own (not to a
// Client's constructor, whose streams would share it).
func (t *Telemetry) Stream(ctx context.Context, c *stream.Client) stream.Option {
	st := &streamTrace{t: t, parent: ctx}
	if c != nil {
		st.server = serverAttrs(c.Endpoint())
	}
	return stream.WithTrace(&stream.Trace{
		AttemptStart: st.attemptStart,
		Header:       st.header,
		Connected:    st.connected,
		FirstEvent:   st.firstEvent,
		AttemptDone:  st.attemptDone,
		Wait:         st.wait,
		Gap:          st.gap,
		Ask:          st.ask,
		Checkpoint:   st.checkpoint,
		Done:         st.done,
	})
}

// streamTrace is one stream's spans and clocks.
type streamTrace struct {
	t      *Telemetry
	parent context.Context
	server []attribute.KeyValue

	mu sync.Mutex
	// span is the stream's, from its first call (or whatever the stream
	// tells first) to Done; ctx holds it.
	span    trace.Span
	ctx     context.Context
	started time.Time
	// attempt is the span of the call in flight, nil between calls; actx
	// holds it.
	attempt trace.Span
	actx    context.Context
	// first: the stream's first event came (time to first event is
	// recorded once per stream).
	first bool
	// gapOpened is when the gap being watched opened; zero if none.
	gapOpened time.Time
	ended     bool
}

// begin starts the stream's span if it has not started. Called with mu
// held.
func (s *streamTrace) begin(taskID string) {
	if s.span != nil {
		return
	}
	s.started = time.Now()
	attrs := make([]attribute.KeyValue, 0, len(s.server)+1)
	attrs = append(attrs, s.server...)
	if taskID != "" {
		attrs = append(attrs, taskIDAttr(taskID))
	}
	s.ctx, s.span = s.t.tracer.Start(s.parent, "a2a.stream",
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(s.started), trace.WithAttributes(attrs...))
}

// current is the span events go on: the call's in flight, else the
// stream's. Called with mu held.
func (s *streamTrace) current() trace.Span {
	if s.attempt != nil {
		return s.attempt
	}
	return s.span
}

func (s *streamTrace) attemptStart(a stream.AttemptInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin(a.TaskID)
	if s.attempt != nil { // never left open by the stream; end it rather than leak it
		s.attempt.End()
	}
	attrs := make([]attribute.KeyValue, 0, 16)
	attrs = append(attrs, s.server...)
	attrs = append(attrs, attemptAttrs(a)...)
	s.actx, s.attempt = s.t.tracer.Start(s.ctx, "a2a."+a.Kind.String(),
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	if a.Resend {
		s.t.resends.Add(s.parent, 1, metric.WithAttributes(attribute.String("a2a.attempt.kind", a.Kind.String())))
	}
}

func (s *streamTrace) header(_ stream.AttemptInfo, h http.Header) {
	s.mu.Lock()
	ctx := s.actx
	s.mu.Unlock()
	if ctx != nil {
		s.t.prop.Inject(ctx, propagation.HeaderCarrier(h))
	}
}

func (s *streamTrace) connected(stream.AttemptInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.attempt != nil {
		s.attempt.AddEvent("a2a.connected")
	}
}

func (s *streamTrace) firstEvent(stream.AttemptInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.attempt != nil {
		s.attempt.AddEvent("a2a.first_event")
	}
	if !s.first && s.span != nil {
		s.first = true
		s.t.firstEvent.Record(s.parent, time.Since(s.started).Seconds())
	}
}

func (s *streamTrace) attemptDone(d stream.AttemptDoneInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.t.attempts.Add(s.parent, 1, metric.WithAttributes(attemptMetricAttrs(d)...))
	outcome := attribute.String("a2a.outcome", d.Outcome)
	if s.attempt == nil {
		return
	}
	s.attempt.SetAttributes(outcome, attribute.Int("a2a.events", d.Events))
	if d.TaskID != "" {
		s.attempt.SetAttributes(taskIDAttr(d.TaskID))
	}
	if d.Err != nil {
		s.attempt.SetAttributes(attribute.String("error.type", errorType(d.Err)))
		if code, ok := grpcCode(d.Err); ok {
			s.attempt.SetAttributes(attribute.Int("rpc.grpc.status_code", code))
		}
		s.attempt.SetStatus(codes.Error, d.Outcome)
	}
	s.attempt.End()
	s.attempt, s.actx = nil, nil
}

func (s *streamTrace) wait(w stream.WaitInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin(w.TaskID)
	attrs := []attribute.KeyValue{
		attribute.String("a2a.wait.kind", w.Kind.String()),
		attribute.Float64("a2a.wait.seconds", w.Wait.Seconds()),
	}
	if w.Kind == stream.WaitBackoff {
		attrs = append(attrs, attribute.Int("a2a.reconnect.attempt", w.Attempt), attribute.Int("a2a.reconnect.max_attempts", w.MaxAttempts))
		if w.Cause != nil {
			attrs = append(attrs, attribute.String("error.type", errorType(w.Cause)))
		}
		s.t.reconnects.Add(s.parent, 1)
	}
	if w.Asked > 0 {
		attrs = append(attrs, attribute.Float64("a2a.wait.asked_seconds", w.Asked.Seconds()))
		s.t.retryHints.Add(s.parent, 1)
	}
	if w.Push {
		attrs = append(attrs, attribute.Bool("a2a.wait.push", true))
	}
	s.current().AddEvent("a2a.wait", trace.WithAttributes(attrs...))
}

func (s *streamTrace) gap(g stream.GapInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin(g.TaskID)
	attrs := []attribute.KeyValue{attribute.String("a2a.gap.kind", g.Kind.String())}
	if g.Kind == stream.GapHealed {
		attrs = append(attrs, attribute.Bool("a2a.gap.fetched", g.Fetched))
	}
	s.current().AddEvent("a2a.gap", trace.WithAttributes(attrs...))
	switch g.Kind {
	case stream.GapOpened:
		s.gapOpened = time.Now()
	case stream.GapHealed, stream.GapUnhealed:
		if !s.gapOpened.IsZero() {
			s.t.gaps.Record(s.parent, time.Since(s.gapOpened).Seconds(),
				metric.WithAttributes(attribute.String("a2a.gap.kind", g.Kind.String())))
			s.gapOpened = time.Time{}
		}
	}
}

func (s *streamTrace) ask(a stream.AskInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin(a.TaskID)
	attrs := []attribute.KeyValue{attribute.String("a2a.ask.kind", a.Kind.String()), attribute.Bool("a2a.ask.returned", a.Returned)}
	if a.Err != nil {
		attrs = append(attrs, attribute.String("error.type", errorType(a.Err)))
	}
	s.current().AddEvent("a2a.ask", trace.WithAttributes(attrs...))
}

func (s *streamTrace) checkpoint(c stream.CheckpointInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin(c.TaskID)
	attrs := []attribute.KeyValue{attribute.Bool("a2a.checkpoint.before_reply", c.BeforeReply)}
	if c.Err != nil {
		attrs = append(attrs, attribute.String("error.type", errorType(c.Err)))
	}
	s.current().AddEvent("a2a.checkpoint", trace.WithAttributes(attrs...))
}

func (s *streamTrace) done(d stream.DoneInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended = true
	s.begin(d.TaskID)
	if s.attempt != nil {
		s.attempt.End()
		s.attempt, s.actx = nil, nil
	}
	end := endOf(d)
	var re *reconnect.Error
	if errors.As(d.Err, &re) && re.Attempts > 0 {
		s.t.budgetsSpent.Add(s.parent, 1)
	}
	s.t.streams.Add(s.parent, 1, metric.WithAttributes(attribute.String("a2a.stream.end", end)))
	attrs := []attribute.KeyValue{
		attribute.String("a2a.stream.end", end),
		attribute.Int("a2a.calls", d.Calls),
	}
	if d.TaskID != "" {
		attrs = append(attrs, taskIDAttr(d.TaskID))
	}
	if d.State != "" {
		attrs = append(attrs, attribute.String("a2a.task.state", string(d.State)))
	}
	if d.Err != nil {
		attrs = append(attrs, attribute.String("error.type", errorType(d.Err)))
		s.span.SetStatus(codes.Error, end)
	}
	s.span.SetAttributes(attrs...)
	s.span.End()
}

// endOf names how a stream ended: "closed", "error", or the task's last
// state ("completed", "input-required" …; "message" for a message
// answer, whose stream has no task).
func endOf(d stream.DoneInfo) string {
	switch {
	case d.Closed:
		return "closed"
	case d.Err != nil:
		return "error"
	case d.State != "":
		return string(d.State)
	}
	return "message"
}

// attemptMetricAttrs are the attributes of a call's count in the attempts
// metric: its kind and outcome, and its binding when the Client knows it (a
// Transport of another module without a Binding method leaves it out, as
// on the call's span, rather than counting an empty one).
func attemptMetricAttrs(d stream.AttemptDoneInfo) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		attribute.String("a2a.attempt.kind", d.Kind.String()),
		attribute.String("a2a.outcome", d.Outcome),
	}
	if d.Binding != "" {
		attrs = append(attrs, attribute.String("a2a.binding", string(d.Binding)))
	}
	return attrs
}

// attemptAttrs are a call's attributes when it starts.
func attemptAttrs(a stream.AttemptInfo) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		attribute.String("a2a.attempt.kind", a.Kind.String()),
		attribute.Int("a2a.call", a.Call),
		attribute.Int("a2a.reconnect.attempt", a.Attempt),
		attribute.Bool("a2a.resend", a.Resend),
		attribute.Bool("a2a.streaming", a.Streaming),
		attribute.String("a2a.version", string(a.Version)),
	}
	if a.Binding != "" {
		attrs = append(attrs, attribute.String("a2a.binding", string(a.Binding)))
	}
	if sys := rpcSystem(a.Binding); sys != "" {
		attrs = append(attrs, attribute.String("rpc.system", sys))
	}
	if m := rpcMethod(a); m != "" {
		attrs = append(attrs, attribute.String("rpc.method", m))
	}
	if svc := rpcService(a); svc != "" {
		attrs = append(attrs, attribute.String("rpc.service", svc))
	}
	if a.TaskID != "" {
		attrs = append(attrs, taskIDAttr(a.TaskID))
	}
	return attrs
}

// rpcSystem is rpc.system of a binding: "jsonrpc", "grpc", or "http" for
// HTTP+JSON (REST); "" when unknown.
func rpcSystem(b a2a.Binding) string {
	switch b {
	case a2a.BindingJSONRPC:
		return "jsonrpc"
	case a2a.BindingGRPC:
		return "grpc"
	case a2a.BindingHTTPJSON:
		return "http"
	}
	return ""
}

// rpcMethod is the A2A method a call makes, as the version and the
// binding name it: over gRPC the service's method (0.3 TaskSubscription);
// else JSON-RPC's method (0.3 message/stream), whose 1.0 names are also
// the operations of HTTP+JSON and gRPC.
func rpcMethod(a stream.AttemptInfo) string {
	pick := func(m03, grpc03, m10 string) string {
		switch {
		case a.Version != a2a.V03:
			return m10
		case a.Binding == a2a.BindingGRPC:
			return grpc03
		}
		return m03
	}
	switch a.Kind {
	case stream.AttemptSend, stream.AttemptReply:
		if a.Streaming {
			return pick("message/stream", "SendStreamingMessage", "SendStreamingMessage")
		}
		return pick("message/send", "SendMessage", "SendMessage")
	case stream.AttemptSubscribe:
		return pick("tasks/resubscribe", "TaskSubscription", "SubscribeToTask")
	case stream.AttemptGetTask, stream.AttemptPoll:
		return pick("tasks/get", "GetTask", "GetTask")
	case stream.AttemptPushConfig:
		return pick("tasks/pushNotificationConfig/set", "CreateTaskPushNotificationConfig", "CreateTaskPushNotificationConfig")
	}
	return ""
}

// rpcService is the gRPC service a gRPC call is made to: 1.0's
// lf.a2a.v1.A2AService, 0.3's a2a.v1.A2AService; "" for another binding.
func rpcService(a stream.AttemptInfo) string {
	if a.Binding != a2a.BindingGRPC {
		return ""
	}
	if a.Version == a2a.V03 {
		return "a2a.v1.A2AService"
	}
	return "lf.a2a.v1.A2AService"
}

// errorType names an error by its kind, never its text: an HTTP status
// code, an A2A error's code ("rpc -32001"), "idle_timeout", "timeout",
// "canceled", "unexpected_eof", "reconnect" (a stream's reconnect.Error), else the
// error's Go type (of the outermost error of a known kind).
func errorType(err error) string {
	var (
		he  *transport.HTTPError
		rpc *a2a.RPCError
		re  *reconnect.Error
		te  terminal.Error
		pe  *transport.ProtocolError
		se  *stream.StalledError
		he2 *hitl.Error
	)
	switch {
	case errors.As(err, &re):
		return "reconnect"
	case errors.As(err, &he):
		return strconv.Itoa(he.StatusCode)
	case errors.As(err, &rpc):
		return "rpc " + strconv.Itoa(rpc.Code)
	case errors.Is(err, transport.ErrIdleTimeout):
		return "idle_timeout"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected_eof"
	case errors.As(err, &te):
		return fmt.Sprintf("%T", te)
	case errors.As(err, &pe):
		return fmt.Sprintf("%T", pe)
	case errors.As(err, &se):
		return fmt.Sprintf("%T", se)
	case errors.As(err, &he2):
		return fmt.Sprintf("%T", he2)
	}
	return exportedType(err)
}

// grpcCode is the gRPC status code err carries: that of the first error
// along its chain with grpc-go's method GRPCStatus() *status.Status
// (a2agrpc's StatusError has it), read without the module requiring grpc:
// the status's method Code() returns a uint32. ok is false when no error
// of the chain has such a method, or a nil one. The methods are looked up
// by constant names, so that the linker still drops the methods no one
// calls from the program.
func grpcCode(err error) (code int, ok bool) {
	for e := err; e != nil; e = errors.Unwrap(e) {
		v := reflect.ValueOf(e)
		if v.Kind() == reflect.Pointer && v.IsNil() {
			continue
		}
		st, ok := returnsOne(v.MethodByName("GRPCStatus"), reflect.Pointer)
		if !ok || st.IsNil() {
			continue
		}
		c, ok := returnsOne(st.MethodByName("Code"), reflect.Uint32)
		if !ok {
			continue
		}
		return int(c.Uint()), true
	}
	return 0, false
}

// returnsOne calls m when it is a method that takes nothing and returns
// one value of kind k.
func returnsOne(m reflect.Value, k reflect.Kind) (reflect.Value, bool) {
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 || m.Type().Out(0).Kind() != k {
		return reflect.Value{}, false
	}
	return m.Call(nil)[0], true
}

// exportedType names the first error along err's chain whose type is
// exported, so that a library's own wrappers (a text withheld, the task
// attached) do not name the kind; err's own type when none is.
func exportedType(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		t := reflect.TypeOf(e)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Name() != "" && ast.IsExported(t.Name()) {
			return fmt.Sprintf("%T", e)
		}
	}
	return fmt.Sprintf("%T", err)
}

// maxTaskID bounds the a2a.task.id attribute: a task ID is the agent's,
// of any length.
const maxTaskID = 256

// taskIDAttr is the a2a.task.id attribute of id, cut to maxTaskID bytes
// (whole UTF-8 characters).
func taskIDAttr(id string) attribute.KeyValue {
	if len(id) > maxTaskID {
		cut := maxTaskID
		for cut > 0 && !utf8.RuneStart(id[cut]) {
			cut--
		}
		id = id[:cut]
	}
	return attribute.String("a2a.task.id", id)
}

// serverAttrs are server.address, server.port and url.full of an
// endpoint: url.full without user name, password, query or fragment.
func serverAttrs(endpoint string) []attribute.KeyValue {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return nil
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	attrs := []attribute.KeyValue{attribute.String("server.address", host)}
	if p, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, attribute.Int("server.port", p))
	}
	clean := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	attrs = append(attrs, attribute.String("url.full", clean.String()))
	return attrs
}

// TraceID is the W3C trace ID of the span in ctx, as 32 lowercase
// hexadecimal digits, or "" when ctx holds no valid span context. An
// agent gives it to chain.ErrorInTrace, so that the links of the error it
// answers carry the trace its work was part of:
//
//	answer := chain.ErrorInTrace(err, a2a.V10, "planner", "flights", a2aotel.TraceID(ctx))
func TraceID(ctx context.Context) string {
	id := trace.SpanContextFromContext(ctx).TraceID()
	if !id.IsValid() {
		return ""
	}
	return id.String()
}

// Untraced reports whether r carries no W3C traceparent header: a request
// that no stream traced by this module made (the module's calls carry
// their own span's traceparent, with the default propagator). Give it to
// otelhttp's Transport as a filter, otelhttp.WithFilter(a2aotel.Untraced),
// when the http.Client of a traced stream is also wrapped by otelhttp:
// otelhttp then leaves the stream's calls to the module (one client span
// each, the agent continuing it) and traces the Client's other requests.
// Without it, each call gets a second client span, otelhttp's, a child of
// the ctx given to Send rather than of the call's span, and the agent
// continues otelhttp's span instead of the call's (docs/otel.md).
func Untraced(r *http.Request) bool {
	return r.Header.Get("Traceparent") == ""
}
