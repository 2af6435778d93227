package a2a_test

import (
	"strconv"
	"strings"
	"testing"

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

// seqFrame is a made-up framing, {"seq":n,"event":result}, to read frames
// with: the JSON-RPC response of internal/jsonrpc is the real one.
type seqFrame struct {
	Seq   int `json:"seq"`
	Event any `json:"event"`
}

func (f *seqFrame) Target(result any) any {
	f.Event = result
	return f
}

// TestEventDecoderFrames: a result framed in an object of a binding's is
// read in one pass with the frame, as DecodeEvent reads it bare; a frame
// without a result, or with a null one, is an unknown result for the
// binding to judge; data that is not the frame is another error; and the
// decoder goes on after each.
func TestEventDecoderFrames(t *testing.T) {
	t.Parallel()
	res := `{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"kind":"data","data":{"data":1}}]}}`
	for _, c := range []a2a.Codec{{Version: a2a.V03}, {Version: a2a.V03, Binding: a2a.BindingHTTPJSON}, {Version: a2a.V10}} {
		want, err := c.DecodeEvent([]byte(res))
		require.NoError(t, err)
		d := a2a.NewEventDecoder(c)
		for i := range 2 {
			var f seqFrame
			got, err := d.DecodeFrame([]byte(`{"seq":`+strconv.Itoa(i)+`,"event":`+res+`}`), &f)
			require.NoError(t, err)
			require.Equal(t, want, got)
			require.Equal(t, i, f.Seq)

			for _, none := range []string{`{"seq":1}`, `{"seq":1,"event":null}`, `{"seq":1,"event":{}}`} {
				_, err = d.DecodeFrame([]byte(none), &seqFrame{})
				require.ErrorIs(t, err, a2a.ErrUnknownResult, none)
			}
			for _, bad := range []string{`{"seq":"x","event":` + res + `}`, `{"seq":1,"event":5}`, `{"seq":1,`, `[1]`} {
				_, err = d.DecodeFrame([]byte(bad), &seqFrame{})
				require.Error(t, err, bad)
				require.NotErrorIs(t, err, a2a.ErrUnknownResult, bad)
			}
		}
	}
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
			// in one pass by the binding's decoder (DecodeFrame).
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
