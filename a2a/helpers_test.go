package a2a_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// sseEvent is one dispatched server-sent event: its "event:" type (empty for
// the default "message") and its joined "data:" lines.
type sseEvent struct {
	typ  string
	data []byte
}

// readSSE is a deliberately small SSE reader for the captures: it keeps only
// "event:" and "data:" fields, joins multi-line data with "\n" and dispatches
// on a blank line. It is not the project's SSE parser and must not become one.
func readSSE(tb testing.TB, body []byte) []sseEvent {
	tb.Helper()
	var (
		out  []sseEvent
		cur  sseEvent
		data [][]byte
	)
	flush := func() {
		if data != nil {
			cur.data = bytes.Join(data, []byte("\n"))
			out = append(out, cur)
		}
		cur, data = sseEvent{}, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			flush()
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			data = append(data, []byte(value))
		case "event":
			cur.typ = value
		}
	}
	require.NoError(tb, sc.Err())
	flush()
	return out
}

// envelope is a JSON-RPC 2.0 response.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *a2a.RPCError   `json:"error"`
}

func readCapture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "captures", name))
	require.NoError(tb, err)
	return b
}

func decodeEnvelope(tb testing.TB, b []byte) envelope {
	tb.Helper()
	var env envelope
	require.NoError(tb, json.Unmarshal(b, &env))
	require.Truef(tb, (env.Result != nil) != (env.Error != nil), "want exactly one of result and error in %s", b)
	return env
}

// streamCaptures lists every SSE capture copied into testdata/captures.
func streamCaptures(tb testing.TB) []string {
	tb.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "captures", "*.txt"))
	require.NoError(tb, err)
	var out []string
	for _, n := range names {
		base := strings.TrimSuffix(filepath.Base(n), ".txt")
		// SUMMARY.txt is the index, and the 1.0 subscribe-unknown body is a
		// plain JSON error, not an SSE stream.
		if base == "SUMMARY" || base == "js-1.3.0-subscribe-unknown" {
			continue
		}
		out = append(out, base)
	}
	require.NotEmpty(tb, out)
	return out
}

// captureResults returns the "result" payloads of every event of every SSE
// capture, keyed by capture name.
func captureResults(tb testing.TB) map[string][][]byte {
	tb.Helper()
	out := map[string][][]byte{}
	for _, name := range streamCaptures(tb) {
		for _, ev := range readSSE(tb, readCapture(tb, name+".txt")) {
			if env := decodeEnvelope(tb, ev.data); env.Result != nil {
				out[name] = append(out[name], env.Result)
			}
		}
	}
	return out
}

// versionOf tells the wire version of a capture from its name.
func versionOf(name string) a2a.Version {
	if strings.HasPrefix(name, "js-1.3.0-") && !strings.HasPrefix(name, "js-1.3.0-compat03-") {
		return a2a.V10
	}
	return a2a.V03
}
