package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	"github.com/a2astream/a2astream/examples/internal/demo"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// noCollector clears the variables that would send the telemetry to a
// collector of the machine's environment.
func noCollector(t *testing.T) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"} {
		t.Setenv(v, "")
	}
}

// requireInOrder checks that each of want occurs in s, in this order.
func requireInOrder(t *testing.T, s string, want ...string) {
	t.Helper()
	rest := s
	for _, w := range want {
		i := strings.Index(rest, w)
		require.GreaterOrEqual(t, i, 0, "%q missing, or out of order, in:\n%s", w, s)
		rest = rest[i+len(w):]
	}
}

// requireTranscript checks the conversation the program writes: the drop,
// healed, and the question answered for the user.
func requireTranscript(t *testing.T, out string) {
	t.Helper()
	requireInOrder(t, out,
		"trace ",
		"you> Plan a weekend trip\n",
		"· working: Planning your trip…\n",
		"Here is a three-day plan.",
		"\n⟳ connection lost — reconnecting (1/3)…\n",
		"✓ resumed\n",
		"agent asks: "+demo.Question+"\n",
		"you> "+demo.Answer+"   (answered for you)\n",
		"Day three:",
		"summary: 3 days · old town · museums · coast\n",
		"· completed: Have a good trip!\n",
	)
}

// span is what the test reads of a span stdouttrace writes.
type span struct {
	Name        string
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct{ TraceID, SpanID string }
	Attributes  []struct {
		Key   string
		Value struct{ Value any }
	}
}

// attr returns the value of the span's attribute key, or nil.
func (s span) attr(key string) any {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.Value.Value
		}
	}
	return nil
}

// TestSpansAndMetricsToStdout runs the program as `go run .` does, with no
// collector named: after the conversation, stdout has the spans of the
// stream and of each call (the send that dropped, the resubscribe that
// healed it, the reply), in one trace under the program's span, then the
// module's metrics.
func TestSpansAndMetricsToStdout(t *testing.T) {
	noCollector(t)
	synctest.Test(t, func(t *testing.T) {
		var out, errOut strings.Builder
		code := run(t.Context(), &out, &errOut)
		require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		require.Empty(t, errOut.String())
		requireTranscript(t, out.String())

		transcript, rest, ok := strings.Cut(out.String(), "\nspans (stdouttrace):\n")
		require.True(t, ok, out.String())
		spansJSON, metricsJSON, ok := strings.Cut(rest, "\nmetrics (stdoutmetric):\n")
		require.True(t, ok, rest)
		traceID := strings.TrimPrefix(strings.SplitN(transcript, "\n", 2)[0], "trace ")
		require.Len(t, traceID, 32)

		var spans []span
		dec := json.NewDecoder(strings.NewReader(spansJSON))
		for {
			var s span
			if err := dec.Decode(&s); err == io.EOF {
				break
			} else {
				require.NoError(t, err)
			}
			spans = append(spans, s)
		}
		var names []string
		byName := map[string]span{}
		for _, s := range spans {
			names = append(names, s.Name)
			byName[s.Name] = s
			require.Equal(t, traceID, s.SpanContext.TraceID, "one trace: %s", s.Name)
		}
		// The batcher exports spans as they end: each call's before the
		// stream's, the stream's before the program's.
		require.Equal(t, []string{"a2a.send", "a2a.subscribe", "a2a.reply", "a2a.stream", "chat turn"}, names)

		turn, strm := byName["chat turn"], byName["a2a.stream"]
		require.Equal(t, "0000000000000000", turn.Parent.SpanID, "the program's span is the root")
		require.Equal(t, turn.SpanContext.SpanID, strm.Parent.SpanID)
		require.Equal(t, "completed", strm.attr("a2a.stream.end"))
		for name, outcome := range map[string]string{"a2a.send": "drop", "a2a.subscribe": "ok", "a2a.reply": "ok"} {
			call := byName[name]
			require.Equal(t, strm.SpanContext.SpanID, call.Parent.SpanID, name)
			require.Equal(t, outcome, call.attr("a2a.outcome"), name)
		}
		require.Equal(t, "SubscribeToTask", byName["a2a.subscribe"].attr("rpc.method"))

		var metrics struct {
			ScopeMetrics []struct {
				Scope   struct{ Name string }
				Metrics []struct{ Name string }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(metricsJSON), &metrics), metricsJSON)
		var instruments []string
		for _, sm := range metrics.ScopeMetrics {
			if sm.Scope.Name == a2aotelScope {
				for _, m := range sm.Metrics {
					instruments = append(instruments, m.Name)
				}
			}
		}
		require.Subset(t, instruments, []string{"a2a.client.attempts", "a2a.client.reconnects", "a2a.client.streams",
			"a2a.client.time_to_first_event"})
	})
}

// a2aotelScope is the module's instrumentation scope.
const a2aotelScope = "github.com/a2astream/a2astream/otel"

// post is one request a fake collector received.
type post struct {
	method, path, contentType string
	body                      []byte
}

// collector is a fake OTLP/HTTP collector: it records every request and
// answers each with HTTP 200, or with refuse[path] when set.
type collector struct {
	refuse map[string]int
	mu     sync.Mutex
	posts  []post
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.posts = append(c.posts, post{r.Method, r.URL.Path, r.Header.Get("Content-Type"), body})
	c.mu.Unlock()
	if code, ok := c.refuse[r.URL.Path]; ok {
		w.WriteHeader(code)
	}
}

func (c *collector) received() []post {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]post(nil), c.posts...)
}

// TestSpansAndMetricsOverOTLP points the program at a collector on
// 127.0.0.1 with OTEL_EXPORTER_OTLP_ENDPOINT: the spans and the metrics go
// there as OTLP protobuf, none to stdout, and the spans posted are the
// stream's and its calls'.
func TestSpansAndMetricsOverOTLP(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	noCollector(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)

	var out, errOut strings.Builder
	code := run(context.Background(), &out, &errOut)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	require.Empty(t, errOut.String())
	requireTranscript(t, out.String())
	require.True(t, strings.HasSuffix(out.String(), "· completed: Have a good trip!\nspans and metrics sent over OTLP/HTTP to "+srv.URL+"\n"), out.String())
	require.NotContains(t, out.String(), `"Name"`, "no JSON on stdout")

	var traces, metrics int
	var names []string
	for _, p := range col.received() {
		require.Equal(t, http.MethodPost, p.method)
		require.Equal(t, "application/x-protobuf", p.contentType, p.path)
		require.NotEmpty(t, p.body, p.path)
		switch p.path {
		case "/v1/traces":
			traces++
			var req coltracepb.ExportTraceServiceRequest
			require.NoError(t, proto.Unmarshal(p.body, &req))
			for _, rs := range req.GetResourceSpans() {
				for _, ss := range rs.GetScopeSpans() {
					for _, s := range ss.GetSpans() {
						names = append(names, s.GetName())
					}
				}
			}
		case "/v1/metrics":
			metrics++
		default:
			t.Errorf("a POST to %s", p.path)
		}
	}
	require.Positive(t, traces, "a POST of spans")
	require.Positive(t, metrics, "a POST of metrics")
	require.ElementsMatch(t, []string{"a2a.send", "a2a.subscribe", "a2a.reply", "a2a.stream", "chat turn"}, names)
}

// TestCollectorRefuses: a collector that refuses the spans (HTTP 400, which
// the exporter does not retry) and takes the metrics leaves the
// conversation as it was and makes the exit status 2, with the reason on
// stderr.
func TestCollectorRefuses(t *testing.T) {
	col := &collector{refuse: map[string]int{"/v1/traces": http.StatusBadRequest}}
	srv := httptest.NewServer(col)
	defer srv.Close()
	noCollector(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)

	var out, errOut strings.Builder
	code := run(context.Background(), &out, &errOut)
	require.Equal(t, exitTelemetry, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	requireTranscript(t, out.String())
	require.True(t, strings.HasSuffix(out.String(), "· completed: Have a good trip!\n"), out.String())
	require.True(t, strings.HasPrefix(errOut.String(), "otelchat: flushing the telemetry: spans: "), errOut.String())
	require.Contains(t, errOut.String(), "400 Bad Request")
	require.NotContains(t, errOut.String(), "metrics: ")
	var paths []string
	for _, p := range col.received() {
		paths = append(paths, p.path)
	}
	require.ElementsMatch(t, []string{"/v1/traces", "/v1/metrics"}, paths)
}
