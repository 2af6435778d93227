package a2a_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/jsonrpc"
)

// TestEventDecoderCaptures decodes every REST stream capture with one
// EventDecoder per stream, and checks it against DecodeEvent.
func TestEventDecoderCaptures(t *testing.T) {
	t.Parallel()
	for _, file := range []string{
		"js-0.3.14-rest-stream-hello.txt", "js-0.3.14-rest-followup.txt",
		"js-0.3.14-rest-subscribe-input-required.txt", "js-0.3.14-rest-subscribe-completed.txt",
		"js-1.3.0-rest-stream-hello.txt", "js-1.3.0-rest-followup.txt", "js-1.3.0-rest-subscribe-input-required.txt",
	} {
		c := readRESTCapture(t, file)
		want, lines := restEvents(t, c)
		d := a2a.NewEventDecoder(a2a.Codec{Version: c.version, Binding: a2a.BindingHTTPJSON})
		for i, line := range lines {
			got, err := d.Decode(line)
			require.NoError(t, err, "%s: %s", file, line)
			require.Equal(t, want[i], got, "%s: %s", file, line)
		}
	}
}

func TestEventDecoderDialect(t *testing.T) {
	t.Parallel()
	in := []byte(`{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED",` +
		`"message":{"messageId":"m","role":"ROLE_AGENT","content":[{"data":{"data":{"k":1}}}]}},"final":true}}`)
	u, err := a2a.NewEventDecoder(a2a.Codec{Version: a2a.V03, Binding: a2a.BindingHTTPJSON}).Decode(in)
	require.NoError(t, err)
	require.True(t, u.(*a2a.StatusUpdate).Final)
	require.Equal(t, `{"k":1}`, string(u.(*a2a.StatusUpdate).Status.Message.Parts[0].Data))
	u, err = a2a.NewEventDecoder(a2a.Codec{Version: a2a.V10, Binding: a2a.BindingHTTPJSON}).Decode(in)
	require.NoError(t, err)
	require.False(t, u.(*a2a.StatusUpdate).Final, "1.0 has no final")

}

func TestEventDecoderRejects(t *testing.T) {
	t.Parallel()
	good := []byte(`{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"ok"}]}}}`)
	cases := map[string]string{
		"truncated":        `{"task":{"id":`,
		"two objects":      `{"task":{"id":"t"}} {"task":{"id":"t"}}`,
		"trailing bracket": `{"task":{"id":"t"}}]`,
		"not an object":    `[1,2]`,
		"empty":            ``,
		"blank":            " \n",
		"unknown result":   `{"surprise":true}`,
		"error body":       `{"code":-32001,"message":"Task not found: t"}`,
		"JSON-RPC":         `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t"}}}`,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := a2a.NewEventDecoder(a2a.Codec{Version: a2a.V03, Binding: a2a.BindingHTTPJSON})
			_, err := d.Decode([]byte(in))
			require.Error(t, err)
			_, err = a2a.Codec{Version: a2a.V03, Binding: a2a.BindingHTTPJSON}.DecodeEvent([]byte(in))
			require.Error(t, err, "DecodeEvent agrees")
			// The decoder recovers: the next good event decodes.
			ev, err := d.Decode(good)
			require.NoError(t, err)
			require.Equal(t, "ok", ev.(*a2a.ArtifactUpdate).Artifact.Text())
		})
	}
}

func TestEventDecoderBigEvents(t *testing.T) {
	t.Parallel()
	d := a2a.NewEventDecoder(a2a.Codec{Version: a2a.V03, Binding: a2a.BindingHTTPJSON})
	big := strings.Repeat("x", 200<<10)
	for range 2 {
		ev, err := d.Decode([]byte(`{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"` + big + `"}]}}}`))
		require.NoError(t, err)
		require.Equal(t, big, ev.(*a2a.ArtifactUpdate).Artifact.Text())
		ev, err = d.Decode([]byte(`{"message":{"messageId":"m","role":"ROLE_AGENT","content":[{"text":"small"}]}}`))
		require.NoError(t, err, "small and big events alternate on one decoder")
		require.Equal(t, "small", ev.(*a2a.Message).Text())
	}
	_, err := d.Decode([]byte(`{"message":{"messageId":"` + big + `"`))
	require.Error(t, err)
}

// sizedEvent is the data of an artifact update of exactly size bytes in
// version v over binding b (in its response, over JSON-RPC), ending in ws,
// and the text of its one part. ok is false when the event cannot be that
// small.
func sizedEvent(t *testing.T, v a2a.Version, b a2a.Binding, size int, ws string) (data []byte, text string, ok bool) {
	t.Helper()
	frame := func(text string) []byte {
		ev := &a2a.ArtifactUpdate{TaskID: "t", ContextID: "c", Artifact: a2a.Artifact{ID: "a", Parts: []a2a.Part{{Text: text}}}}
		raw, err := a2a.Codec{Version: v, Binding: b}.EncodeEvent(ev)
		require.NoError(t, err)
		if b == a2a.BindingJSONRPC {
			raw = []byte(`{"jsonrpc":"2.0","id":1,"result":` + string(raw) + `}`)
		}
		return append(raw, ws...)
	}
	pad := size - len(frame("x"))
	if pad < 0 {
		return nil, "", false
	}
	text = strings.Repeat("x", 1+pad)
	data = frame(text)
	require.Len(t, data, size)
	return data, text, true
}

// TestEventDecoderTrailingWhiteSpace decodes events whose data ends in white
// space, of sizes around those where the decoder's buffer fills (512 bytes
// at first, then larger) and where events are decoded in place (64 KiB),
// each followed by other events on the same decoder. The white space
// belongs to its event: nothing of one event may reach the next.
func TestEventDecoderTrailingWhiteSpace(t *testing.T) {
	t.Parallel()
	var sizes []int
	for _, around := range []int{512, 4096, 65536} {
		for n := around - 8; n <= around+8; n++ {
			sizes = append(sizes, n)
		}
	}
	spaces := []string{" ", "\n", "\r\n", "\t", "  ", " \t\r\n ", strings.Repeat(" \n", 300)}
	for _, p := range []struct {
		v a2a.Version
		b a2a.Binding
	}{
		{a2a.V03, a2a.BindingJSONRPC}, {a2a.V03, a2a.BindingHTTPJSON},
		{a2a.V10, a2a.BindingJSONRPC}, {a2a.V10, a2a.BindingHTTPJSON},
	} {
		t.Run(string(p.v)+"/"+p.b.String(), func(t *testing.T) {
			t.Parallel()
			small, smallText, _ := sizedEvent(t, p.v, p.b, 200, "")
			// Over JSON-RPC the event is a response, read with its result
			// by the binding's decoder (jsonrpc.StreamDecoder).
			newDecoder := func() func([]byte) (a2a.Event, error) {
				if p.b == a2a.BindingJSONRPC {
					d := jsonrpc.NewStreamDecoder(p.v)
					return func(b []byte) (a2a.Event, error) {
						_, ev, err := d.Decode(b)
						return ev, err
					}
				}
				return a2a.NewEventDecoder(a2a.Codec{Version: p.v, Binding: p.b}).Decode
			}
			decode := func(d func([]byte) (a2a.Event, error), data []byte, text string) {
				t.Helper()
				ev, err := d(data)
				require.NoError(t, err, "%d bytes ending in %q", len(data), data[max(0, len(data)-8):])
				require.Equal(t, text, ev.(*a2a.ArtifactUpdate).Artifact.Text())
			}
			// One decoder for a whole stream of such events, as the stream
			// keeps one per connection.
			long := newDecoder()
			for _, ws := range spaces {
				for _, size := range sizes {
					data, text, ok := sizedEvent(t, p.v, p.b, size, ws)
					if !ok {
						continue
					}
					// A fresh decoder, whose first buffer the event may
					// overrun, then the same event and another one.
					d := newDecoder()
					for range 2 {
						decode(d, data, text)
						decode(d, small, smallText)
					}
					decode(d, data, text)
					decode(d, data, text)
					decode(long, data, text)
					decode(long, small, smallText)
				}
			}
		})
	}
}

// wires are the four codecs: each version over each binding.
var wires = []a2a.Codec{
	{Version: a2a.V03, Binding: a2a.BindingJSONRPC}, {Version: a2a.V03, Binding: a2a.BindingHTTPJSON},
	{Version: a2a.V10, Binding: a2a.BindingJSONRPC}, {Version: a2a.V10, Binding: a2a.BindingHTTPJSON},
}

// otherEvent is decoded between two decodings of the same data, so that
// anything a decoder kept of one event would show in the next.
var otherEvent = []byte(`{"artifactUpdate":{"taskId":"other-task","contextId":"other-context","artifact":{"artifactId":"other","parts":[{"text":"other text"}]},"append":true}}`)

// requireDecodersAgree decodes data, as a stream result, with each codec's
// EventDecoder, whose fast path reads the hot shapes, and with
// Codec.DecodeEvent, which is encoding/json: the events must be equal, or
// both must fail. One EventDecoder reads data twice, with another event
// between. Over JSON-RPC, data in a response and data as a response itself
// go through the binding's StreamDecoder (a fast path for the envelope,
// then EventDecoder.Decode), whose event and ID must be those encoding/json
// reads: the envelope with its result raw (jsonrpc.DecodeResponse), then
// Codec.DecodeEvent of the result.
func requireDecodersAgree(t *testing.T, data []byte) {
	t.Helper()
	for _, c := range wires {
		want, wantErr := c.DecodeEvent(data)
		d := a2a.NewEventDecoder(c)
		for i := range 2 {
			got, err := d.Decode(data)
			require.Equal(t, wantErr == nil, err == nil, "%s/%s (round %d) of %q: error %v; DecodeEvent's %v", c.Version, c.Binding, i, data, err, wantErr)
			require.Equal(t, want, got, "%s/%s (round %d) of %q", c.Version, c.Binding, i, data)
			_, err = d.Decode(otherEvent)
			require.NoError(t, err)
		}
		// In pieces, as a big event's data comes: the same event.
		for _, pieces := range cuts(data) {
			got, err := d.DecodePieces(pieces)
			require.Equal(t, wantErr == nil, err == nil, "%s/%s in %d pieces of %q: error %v; DecodeEvent's %v", c.Version, c.Binding, len(pieces), data, err, wantErr)
			require.Equal(t, want, got, "%s/%s in %d pieces of %q", c.Version, c.Binding, len(pieces), data)
		}
		if c.Binding != a2a.BindingJSONRPC {
			continue
		}
		sd := jsonrpc.NewStreamDecoder(c.Version)
		for _, in := range [][]byte{slices.Concat([]byte(`{"jsonrpc":"2.0","id":"r-1","result":`), data, []byte(`}`)), data} {
			// The reference: encoding/json reads the envelope with its
			// result raw (a member written twice: the last one), then
			// DecodeEvent the result.
			ref, raw, wantErr := jsonrpc.DecodeResponse(in)
			var want a2a.Event
			if wantErr == nil && ref.Error == nil {
				want, wantErr = c.DecodeEvent(raw)
			}
			for i := range 2 + len(cuts(in)) {
				var (
					r   *jsonrpc.Response
					got a2a.Event
					err error
				)
				if i < 2 {
					r, got, err = sd.Decode(in)
				} else {
					// In pieces, as a big event's data comes.
					r, got, err = sd.DecodePieces(cuts(in)[i-2])
				}
				if wantErr != nil || ref.Error != nil {
					require.True(t, err != nil || r.Error != nil, "%s/%s (round %d): response %q decoded: %#v; encoding/json: %v", c.Version, c.Binding, i, in, got, wantErr)
					continue
				}
				require.NoError(t, err, "%s/%s (round %d): response %q", c.Version, c.Binding, i, in)
				require.Nil(t, r.Error)
				require.Equal(t, want, got, "%s/%s (round %d): response %q", c.Version, c.Binding, i, in)
				require.Equal(t, ref.ID, r.ID, "%s/%s (round %d): response %q", c.Version, c.Binding, i, in)
			}
		}
	}
}

// cuts returns data cut into pieces: in two at a third of it, in pieces of
// 7 bytes with an empty piece after each, and, when it is short, in bytes.
func cuts(data []byte) [][][]byte {
	k := len(data) / 3
	out := [][][]byte{{data[:k], data[k:]}}
	sizes := []int{7}
	if len(data) <= 256 {
		sizes = append(sizes, 1)
	}
	for _, n := range sizes {
		var p [][]byte
		for i := 0; i < len(data); i += n {
			p = append(p, data[i:min(len(data), i+n)])
			if n == 7 {
				p = append(p, nil)
			}
		}
		out = append(out, p)
	}
	return out
}

// repositoryCaptures returns the data of every SSE event of every stream
// capture in the repository (a2a's, internal/sse's and stream's testdata),
// and every unary response body, each a JSON-RPC response or an HTTP+JSON
// result.
func repositoryCaptures(t testing.TB) map[string][][]byte {
	t.Helper()
	out := map[string][][]byte{}
	for _, pattern := range []string{
		"testdata/captures/*", "testdata/rest/*", "../internal/sse/testdata/*", "../stream/testdata/*",
	} {
		names, err := filepath.Glob(pattern)
		require.NoError(t, err)
		require.NotEmpty(t, names, pattern)
		for _, name := range names {
			base := filepath.Base(name)
			if strings.HasSuffix(base, ".headers.txt") || strings.HasSuffix(base, ".md") || base == "SUMMARY.txt" {
				continue
			}
			b, err := os.ReadFile(name)
			require.NoError(t, err)
			if strings.HasSuffix(base, ".json") || !bytes.Contains(b, []byte("data:")) {
				out[name] = [][]byte{b}
				continue
			}
			for _, ev := range readSSE(t, b) {
				out[name] = append(out[name], ev.data)
			}
		}
	}
	return out
}

// TestEventDecoderMatchesDecodeEventOnEveryCapture runs every capture in
// the repository through the fast decoders and encoding/json: each event
// and each JSON-RPC response's result, on every wire, decodes to the same.
func TestEventDecoderMatchesDecodeEventOnEveryCapture(t *testing.T) {
	t.Parallel()
	n := 0
	for name, events := range repositoryCaptures(t) {
		for _, data := range events {
			requireDecodersAgree(t, data)
			n++
			var env struct {
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(data, &env) == nil && env.Result != nil {
				requireDecodersAgree(t, env.Result)
			}
		}
		require.NotEmpty(t, events, name)
	}
	require.Greater(t, n, 100, "the captures hold over 100 events")
}

// TestEventDecoderStringsAsEncodingJSON pins the values of strings that
// need unescaping or repair, read by the fast path, to those encoding/json
// gives (written out here, not computed): escapes, surrogate pairs, a lone
// surrogate and invalid UTF-8 each as U+FFFD.
func TestEventDecoderStringsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, raw, want string
	}{
		{"short escapes", `\"\\\/\b\f\n\r\t`, "\"\\/\b\f\n\r\t"},
		{"unicode escapes", `\u0041\u00e9\u20AC\u0000`, "Aé€\x00"},
		{"surrogate pair", `\ud83d\ude00!`, "😀!"},
		{"lone high surrogate", `\ud83dx`, "\uFFFDx"},
		{"lone low surrogate", `\ude00x`, "\uFFFDx"},
		{"high surrogate at the end", `x\ud83d`, "x\uFFFD"},
		{"two high surrogates, then a low one", `\ud83d\ud83d\ude00`, "\uFFFD😀"},
		{"high surrogate, then a short escape", `\ud83d\n`, "\uFFFD\n"},
		{"invalid UTF-8 byte", "a\xffb", "a\uFFFDb"},
		{"truncated character", "a\xf0\x9f\x98", "a\uFFFD\uFFFD\uFFFD"},
		{"encoded surrogate", "\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"valid multi-byte", "é€😀\uFFFD", "é€😀\uFFFD"},
		{"long text with escapes", strings.Repeat(`0123456789abcdef\n`, 600) + `\u00e9`, strings.Repeat("0123456789abcdef\n", 600) + "é"},
		{"long text, invalid UTF-8 at the end", strings.Repeat("x", 5000) + "\xc3", strings.Repeat("x", 5000) + "\uFFFD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range wires {
				data := []byte(`{"artifactUpdate":{"taskId":"` + tc.raw + `","contextId":"c","artifact":{"artifactId":"a","name":"` +
					tc.raw + `","parts":[{"text":"` + tc.raw + `"}]}}}`)
				ev, err := a2a.NewEventDecoder(c).Decode(data)
				require.NoError(t, err)
				u := ev.(*a2a.ArtifactUpdate)
				require.Equal(t, tc.want, u.TaskID)
				require.Equal(t, tc.want, u.Artifact.Name)
				require.Equal(t, tc.want, u.Artifact.Parts[0].Text)
				want, err := c.DecodeEvent(data)
				require.NoError(t, err)
				require.Equal(t, want, ev, "encoding/json agrees")
			}
		})
	}
}

// TestEventDecoderKeepsNothingOfTheData: an event decoded from a buffer
// that is then overwritten with the next event, as the SSE decoder reuses
// its buffer, keeps its values; and the next event has nothing of the one
// before. Over JSON-RPC too, through the binding's StreamDecoder.
func TestEventDecoderKeepsNothingOfTheData(t *testing.T) {
	t.Parallel()
	results := [][]byte{
		[]byte(`{"artifactUpdate":{"taskId":"task-aaaa","contextId":"ctx-aaaa","artifact":{"artifactId":"art-aaaa","name":"n","parts":[{"text":"text of a","mediaType":"text/plain"}]},"append":true,"lastChunk":true}}`),
		[]byte(`{"artifactUpdate":{"taskId":"task-bbbb","contextId":"ctx-bbbb","artifact":{"artifactId":"art-bbbb","parts":[{"text":"text of b, longer","mediaType":"text/html"}]}}}`),
		[]byte(`{"statusUpdate":{"taskId":"task-cccc","contextId":"ctx-cccc","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m-c","role":"ROLE_AGENT","parts":[{"text":"working on c"}]},"timestamp":"2026-11-22T02:53:05.112Z"},"final":true}}`),
		[]byte(`{"statusUpdate":{"taskId":"task-dddd","contextId":"ctx-dddd","status":{"state":"TASK_STATE_COMPLETED"}}}`),
		[]byte(`{"kind":"artifact-update","taskId":"task-eeee","contextId":"ctx-eeee","artifact":{"artifactId":"art-eeee","parts":[{"kind":"text","text":"` + strings.Repeat("e", 5000) + `"}]}}`),
	}
	for _, c := range wires {
		decode := a2a.NewEventDecoder(c).Decode
		frame := func(b []byte) []byte { return b }
		if c.Binding == a2a.BindingJSONRPC {
			sd := jsonrpc.NewStreamDecoder(c.Version)
			decode = func(data []byte) (a2a.Event, error) {
				_, ev, err := sd.Decode(data)
				return ev, err
			}
			frame = func(b []byte) []byte {
				return slices.Concat([]byte(`{"jsonrpc":"2.0","id":1,"result":`), b, []byte(`}`))
			}
		}
		buf := make([]byte, 0, 8<<10)
		var got, want []a2a.Event
		for _, r := range results {
			w, err := c.DecodeEvent(r)
			require.NoError(t, err)
			want = append(want, w)
			// One buffer for every event, overwritten by the next one
			// and then by garbage, as a stream's read buffer is.
			buf = append(buf[:0], frame(r)...)
			ev, err := decode(buf)
			require.NoError(t, err)
			require.Equal(t, w, ev, "%s/%s: %s", c.Version, c.Binding, r)
			got = append(got, ev)
		}
		for i := range buf[:cap(buf)] {
			buf[:cap(buf)][i] = '#'
		}
		require.Equal(t, want, got, "%s/%s: events decoded earlier changed with the buffer", c.Version, c.Binding)
	}
}

// TestEventDecoderAllocations: the fast path decodes an artifact update
// with one text part in three allocations (the event with its part, the
// text, and one buffer for its other strings), and a status update with a
// message of one text part in three, on every wire (over JSON-RPC through
// the binding's StreamDecoder, envelope included). An event whose short
// strings (IDs, state, timestamp…) are the last event's, as the next chunk
// of an artifact repeats its IDs, takes two: they are not copied again.
func TestEventDecoderAllocations(t *testing.T) {
	status10 := []byte(`{"statusUpdate":{"taskId":"45cca664-8eb5-41df-a5b8-4751ba90c17b","contextId":"dc471aba-e1b1-45fa-9368-8f43db5dcc27","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"06325c56-f4d2-49c2-a8ed-1dddcfcdeb6d","contextId":"dc471aba-e1b1-45fa-9368-8f43db5dcc27","taskId":"45cca664-8eb5-41df-a5b8-4751ba90c17b","role":"ROLE_AGENT","parts":[{"text":"working","metadata":{},"mediaType":"text/plain"}],"metadata":{}},"timestamp":"2026-11-22T02:53:03.909Z"},"metadata":{}}}`)
	status03 := []byte(`{"kind":"status-update","contextId":"01a2012b-974f-76f9-9aea-fd8810f6e4b8","final":false,"status":{"message":{"kind":"message","messageId":"01a2012b-98e0-76dd-8f2f-b24337e26211","contextId":"01a2012b-974f-76f9-9aea-fd8810f6e4b8","parts":[{"kind":"text","text":"working"}],"role":"agent","taskId":"01a2012b-974f-761f-b805-9c1314c44506"},"state":"working","timestamp":"2026-11-22T02:52:44.128482303Z"},"taskId":"01a2012b-974f-761f-b805-9c1314c44506"}`)
	status03REST := []byte(`{"statusUpdate":{"taskId":"d3129619-12f1-4813-b8db-b884a03f3ea0","contextId":"1dd87d71-a7a9-40dd-acaf-23bde28988cc","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e3686e45-3e90-4b47-9585-aecc358f4514","contextId":"1dd87d71-a7a9-40dd-acaf-23bde28988cc","taskId":"d3129619-12f1-4813-b8db-b884a03f3ea0","role":"ROLE_AGENT","content":[{"text":"working"}]},"timestamp":"2026-11-23T00:19:40.511Z"}}}`)
	for _, tc := range []struct {
		c      a2a.Codec
		events [][]byte
	}{
		{wires[0], [][]byte{benchArtifact03, status03}},
		{wires[1], [][]byte{benchArtifact03REST, status03REST}},
		{wires[2], [][]byte{benchArtifact10, status10}},
		{wires[3], [][]byte{benchArtifact10, status10}},
	} {
		for _, data := range tc.events {
			// newDecode returns a new decoder's Decode: one that has read
			// no event yet.
			newDecode := func() func([]byte) (a2a.Event, error) { return a2a.NewEventDecoder(tc.c).Decode }
			if tc.c.Binding == a2a.BindingJSONRPC {
				data = slices.Concat([]byte(`{"jsonrpc":"2.0","id":"1faab19d-2b15-47fc-bd65-fee8174ca091","result":`), data, []byte(`}`))
				newDecode = func() func([]byte) (a2a.Event, error) {
					sd := jsonrpc.NewStreamDecoder(tc.c.Version)
					return func(data []byte) (a2a.Event, error) {
						_, ev, err := sd.Decode(data)
						return ev, err
					}
				}
			}
			var err error
			// The first event of a decoder: the allocations of a new
			// decoder and its first event, less those of a new decoder.
			made := testing.AllocsPerRun(100, func() { _ = newDecode() })
			first := testing.AllocsPerRun(100, func() { _, err = newDecode()(data) })
			require.NoError(t, err)
			require.Equal(t, 3.0, first-made, "%s/%s: allocations to decode %s", tc.c.Version, tc.c.Binding, data)
			// The same event again, on the same decoder.
			decode := newDecode()
			next := testing.AllocsPerRun(100, func() { _, err = decode(data) })
			require.NoError(t, err)
			require.Equal(t, 2.0, next, "%s/%s: allocations to decode %s again", tc.c.Version, tc.c.Binding, data)
		}
	}
}

// TestEventDecoderBigTextOneCopy: a big text part is copied once, into a
// buffer of its size, out of the event's data: decoding a 1 MiB artifact
// update allocates little more than 1 MiB (encoding/json allocates twice
// that: the unescaped bytes, then the string made of them).
func TestEventDecoderBigTextOneCopy(t *testing.T) {
	text := strings.Repeat("a line of an agent's long answer, with an escaped newline at its end\\n", (1<<20)/70)
	for _, c := range wires {
		data := []byte(`{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"` + text + `"}]}}}`)
		d := a2a.NewEventDecoder(c)
		var (
			ev  a2a.Event
			err error
		)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ev, err = d.Decode(data)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		size := len(ev.(*a2a.ArtifactUpdate).Artifact.Parts[0].Text)
		require.Equal(t, len(text)-len(text)/70, size, "each \\n is one byte")
		allocated := after.TotalAlloc - before.TotalAlloc
		require.LessOrEqual(t, allocated, uint64(size)+64<<10, "%s/%s: %d bytes allocated to decode a text of %d", c.Version, c.Binding, allocated, size)
	}
}

// TestEventDecoderTextKeepsNoIDsAlive: a stream's task keeps the text of
// every chunk, and nothing else of its event: the text of a part has a
// buffer of its own, not one shared with the event's IDs (three UUIDs,
// 108 bytes, beside a chunk of often a few bytes).
func TestEventDecoderTextKeepsNoIDsAlive(t *testing.T) {
	const n = 10000
	d := a2a.NewEventDecoder(a2a.Codec{Version: a2a.V10, Binding: a2a.BindingHTTPJSON})
	texts := make([]string, 0, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		ev, err := d.Decode([]byte(`{"artifactUpdate":{"taskId":"45cca664-8eb5-41df-a5b8-4751ba90c17b","contextId":"dc471aba-e1b1-45fa-9368-8f43db5dcc27","artifact":{"artifactId":"ee6201aa-c32c-4c5f-afae-b16d97c60692","parts":[{"text":"tok` + strconv.Itoa(i%10) + `"}]},"append":true}}`))
		require.NoError(t, err)
		texts = append(texts, ev.(*a2a.ArtifactUpdate).Artifact.Parts[0].Text)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	require.Less(t, kept, int64(n*32), "%d bytes kept for %d texts of 4 bytes", kept, n)
	require.Equal(t, "tok9", texts[n-1])
}

// A part kept after its event, as an artifact keeps the parts appended to
// it, keeps nothing of the event alive but its text, on every wire: its
// empty media type and file name are empty strings, not empty slices of
// the buffer that holds the event's IDs.
func TestEventDecoderPartKeepsNoIDsAlive(t *testing.T) {
	const n = 10000
	events := map[a2a.Version]string{
		a2a.V03: `{"kind":"artifact-update","taskId":"45cca664-8eb5-41df-a5b8-4751ba90c17b","contextId":"dc471aba-e1b1-45fa-9368-8f43db5dcc27","artifact":{"artifactId":"ee6201aa-c32c-4c5f-afae-b16d97c60692","parts":[{"kind":"text","text":"tok%d"}]},"append":true}`,
		a2a.V10: `{"artifactUpdate":{"taskId":"45cca664-8eb5-41df-a5b8-4751ba90c17b","contextId":"dc471aba-e1b1-45fa-9368-8f43db5dcc27","artifact":{"artifactId":"ee6201aa-c32c-4c5f-afae-b16d97c60692","parts":[{"text":"tok%d"}]},"append":true}}`,
	}
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			t.Run(string(b)+" "+string(v), func(t *testing.T) {
				d := a2a.NewEventDecoder(a2a.Codec{Version: v, Binding: b})
				data := make([][]byte, n)
				for i := range data {
					data[i] = fmt.Appendf(nil, events[v], i%10)
				}
				parts := make([]a2a.Part, 0, n)
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				for i := range n {
					ev, err := d.Decode(data[i])
					require.NoError(t, err)
					parts = append(parts, ev.(*a2a.ArtifactUpdate).Artifact.Parts[0])
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
				require.Less(t, kept, int64(n*32), "%d bytes kept for %d parts of 4 bytes of text", kept, n)
				require.Equal(t, "tok9", parts[n-1].Text)
				runtime.KeepAlive(data)
			})
		}
	}
}

// TestEventDecoderGivesRepeatedStringsAgain: a short string the last event
// had in its place (the task, context and artifact IDs of an artifact's
// next chunk) is that event's string again, not a copy; one written with
// escapes, one that differs, and one whose place was empty in the last
// event are read as they are. Every event still equals what encoding/json
// gives, on every wire.
func TestEventDecoderGivesRepeatedStringsAgain(t *testing.T) {
	t.Parallel()
	results := [][]byte{
		[]byte(`{"artifactUpdate":{"taskId":"task-1","contextId":"ctx-1","artifact":{"artifactId":"art-1","name":"report","parts":[{"text":"one","mediaType":"text/plain"}]},"append":true}}`),
		[]byte(`{"artifactUpdate":{"taskId":"task-1","contextId":"ctx-1","artifact":{"artifactId":"art-1","name":"report","parts":[{"text":"two","mediaType":"text/plain"}]},"append":true}}`),
		[]byte(`{"artifactUpdate":{"taskId":"task-\u0031","contextId":"ctx-1","artifact":{"artifactId":"art-2","parts":[{"text":"three"}]},"append":true}}`),
		[]byte(`{"artifactUpdate":{"taskId":"task-1","contextId":"ctx-1","artifact":{"artifactId":"art-2","description":"d","parts":[{"text":"four","mediaType":"text/html"}]},"append":true}}`),
		[]byte(`{"statusUpdate":{"taskId":"task-1","contextId":"ctx-1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m-1","role":"ROLE_AGENT","parts":[{"text":"working"}]},"timestamp":"2026-11-22T02:53:05.112Z"}}}`),
		[]byte(`{"statusUpdate":{"taskId":"task-1","contextId":"ctx-2","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m-2","role":"ROLE_AGENT","parts":[{"text":"working"}]},"timestamp":"2026-11-22T02:53:05.112Z"}}}`),
	}
	for _, c := range wires {
		d := a2a.NewEventDecoder(c)
		var got []a2a.Event
		for _, r := range results {
			want, err := c.DecodeEvent(r)
			require.NoError(t, err)
			ev, err := d.Decode(bytes.Clone(r))
			require.NoError(t, err)
			require.Equal(t, want, ev, "%s/%s: %s", c.Version, c.Binding, r)
			got = append(got, ev)
		}
		same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
		one, two := got[0].(*a2a.ArtifactUpdate), got[1].(*a2a.ArtifactUpdate)
		require.True(t, same(one.TaskID, two.TaskID) && same(one.ContextID, two.ContextID) &&
			same(one.Artifact.ID, two.Artifact.ID) && same(one.Artifact.Name, two.Artifact.Name),
			"%s/%s: the next chunk's IDs are the last one's", c.Version, c.Binding)
		require.False(t, same(one.Artifact.Parts[0].Text, two.Artifact.Parts[0].Text), "a text is never given again")
		three := got[2].(*a2a.ArtifactUpdate)
		require.False(t, same(two.TaskID, three.TaskID), "%s/%s: an ID written with escapes is read as it is", c.Version, c.Binding)
		require.True(t, same(two.ContextID, three.ContextID))
		five, six := got[4].(*a2a.StatusUpdate), got[5].(*a2a.StatusUpdate)
		require.True(t, same(five.TaskID, six.TaskID))
		require.False(t, same(five.ContextID, six.ContextID))
	}
}
