package a2a_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// TestEventDecoderCaptures decodes every REST stream capture with one
// EventDecoder per stream, and checks it against UnmarshalEventFor.
func TestEventDecoderCaptures(t *testing.T) {
	t.Parallel()
	for _, file := range []string{
		"js-0.3.14-rest-stream-hello.txt", "js-0.3.14-rest-followup.txt",
		"js-0.3.14-rest-subscribe-input-required.txt", "js-0.3.14-rest-subscribe-completed.txt",
		"js-1.3.0-rest-stream-hello.txt", "js-1.3.0-rest-followup.txt", "js-1.3.0-rest-subscribe-input-required.txt",
	} {
		c := readRESTCapture(t, file)
		want, lines := restEvents(t, c)
		d := a2a.NewEventDecoder(c.version, a2a.BindingHTTPJSON)
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
	u, err := a2a.NewEventDecoder(a2a.V03, a2a.BindingHTTPJSON).Decode(in)
	require.NoError(t, err)
	require.True(t, u.(*a2a.StatusUpdate).Final)
	require.Equal(t, `{"k":1}`, string(u.(*a2a.StatusUpdate).Status.Message.Parts[0].Data))
	u, err = a2a.NewEventDecoder(a2a.V10, a2a.BindingHTTPJSON).Decode(in)
	require.NoError(t, err)
	require.False(t, u.(*a2a.StatusUpdate).Final, "1.0 has no final")

	// Over JSON-RPC, the decoder reads the result in its response, as
	// UnmarshalEvent reads it bare; a bare result is not a response.
	res := []byte(`{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"kind":"data","data":{"data":1}}]}}`)
	want, err := a2a.UnmarshalEvent(res)
	require.NoError(t, err)
	d := a2a.NewEventDecoder(a2a.V03, a2a.BindingJSONRPC)
	got, err := d.Decode([]byte(`{"jsonrpc":"2.0","id":"r","result":` + string(res) + `}`))
	require.NoError(t, err)
	require.Equal(t, want, got)
	_, err = d.Decode(res)
	require.ErrorIs(t, err, a2a.ErrNotAResponse, "a bare result is not a response")
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
			d := a2a.NewEventDecoder(a2a.V03, a2a.BindingHTTPJSON)
			_, err := d.Decode([]byte(in))
			require.Error(t, err)
			_, err = a2a.UnmarshalEventFor(a2a.V03, a2a.BindingHTTPJSON, []byte(in))
			require.Error(t, err, "UnmarshalEventFor agrees")
			// The decoder recovers: the next good event decodes.
			ev, err := d.Decode(good)
			require.NoError(t, err)
			require.Equal(t, "ok", ev.(*a2a.ArtifactUpdate).Artifact.Text())
		})
	}
}

func TestEventDecoderBigEvents(t *testing.T) {
	t.Parallel()
	d := a2a.NewEventDecoder(a2a.V03, a2a.BindingHTTPJSON)
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
