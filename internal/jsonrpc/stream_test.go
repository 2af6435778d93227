package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

func TestStreamDecoder(t *testing.T) {
	d := newOne(a2a.V10)
	// One decoder serves a whole stream of mixed responses, in either version.
	inputs := []string{
		`{"jsonrpc":"2.0","id":"r1","result":{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"submitted"}}}`,
		"  {\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"result\":{\"statusUpdate\":{\"taskId\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}}\n",
		`{"jsonrpc":"2.0","id":"r1","result":{"kind":"artifact-update","taskId":"t-1","contextId":"c-1","artifact":{"artifactId":"a1","parts":[{"kind":"text","text":"hi"}]},"append":true}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"task not found","data":{"error":"x"}}}`,
	}
	var got []string
	for _, in := range inputs {
		ev, err := d.Decode([]byte(in))
		var rpcErr *a2a.RPCError
		if errors.As(err, &rpcErr) {
			require.Equal(t, a2a.CodeTaskNotFound, rpcErr.Code)
			require.JSONEq(t, `{"error":"x"}`, string(rpcErr.Data))
			require.Equal(t, "7", string(d.ResponseID()))
			got = append(got, "error")
			continue
		}
		require.NoError(t, err, in)
		require.Equal(t, `"r1"`, string(d.ResponseID()))
		switch e := ev.(type) {
		case *a2a.Task:
			got = append(got, "task "+string(e.Status.State))
		case *a2a.StatusUpdate:
			got = append(got, "status "+string(e.Status.State))
		case *a2a.ArtifactUpdate:
			require.True(t, e.Append)
			got = append(got, "artifact "+e.Artifact.Text())
		}
	}
	require.Equal(t, []string{"task submitted", "status working", "artifact hi", "error"}, got)
}

func TestStreamDecoderRejects(t *testing.T) {
	cases := map[string]string{
		"truncated":                `{"jsonrpc":"2.0","id":1,"result":{"kind":`,
		"two objects":              `{"jsonrpc":"2.0","id":1,"error":{"code":1}}{"jsonrpc":"2.0"}`,
		"trailing bracket":         `{"jsonrpc":"2.0","id":1,"error":{"code":1}}]`,
		"not an object":            `[1,2]`,
		"empty":                    ``,
		"neither result nor error": `{"jsonrpc":"2.0","id":1}`,
		"unknown result":           `{"jsonrpc":"2.0","id":1,"result":{"surprise":true}}`,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			d := newOne(a2a.V10)
			_, err := d.Decode([]byte(in))
			require.Error(t, err)
			require.True(t, errors.Is(err, ErrNotAResponse) || errors.Is(err, a2a.ErrUnknownResult), "%v", err)
			// The decoder recovers: the next good response decodes.
			ev, err := d.Decode([]byte(`{"jsonrpc":"2.0","id":1,"result":{"kind":"message","messageId":"m","role":"agent","parts":[]}}`))
			require.NoError(t, err)
			require.IsType(t, &a2a.Message{}, ev)
		})
	}
}

func TestStreamDecoderBigResponses(t *testing.T) {
	d := newOne(a2a.V10)
	big := strings.Repeat("x", 200<<10)
	for range 2 {
		ev, err := d.Decode([]byte(`{"jsonrpc":"2.0","id":"x","result":{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"kind":"text","text":"` + big + `"}]}}}`))
		require.NoError(t, err)
		require.Equal(t, big, ev.(*a2a.ArtifactUpdate).Artifact.Text())
		ev, err = d.Decode([]byte(`{"jsonrpc":"2.0","id":"x","result":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"small"}]}}`))
		require.NoError(t, err, "small and big responses alternate on one decoder")
		require.Equal(t, "small", ev.(*a2a.Message).Text())
	}
	_, err := d.Decode([]byte(`{"jsonrpc":"2.0","id":"x","result":{"kind":"message","messageId":"` + big + `"`))
	require.ErrorIs(t, err, ErrNotAResponse)
}

func TestStreamDecoderMatchesDecodeEvent(t *testing.T) {
	// The single-pass decoder and the two-step path agree on every capture
	// result (the capture tests feed Codec.DecodeEvent; this ties the two).
	results := [][]byte{
		[]byte(`{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"input-required","message":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"q?"}]},"timestamp":"2026-11-22T02:52:45.330535456Z"},"final":true}`),
		[]byte(`{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x","mediaType":"text/plain","metadata":{}},{"data":{"k":[1,2]}},{"raw":"aGk="},{"url":"https://x/y"}]},"append":true,"lastChunk":true,"metadata":{}}}`),
	}
	d := newOne(a2a.V10)
	for _, res := range results {
		want, err := a2a.Codec{}.DecodeEvent(res)
		require.NoError(t, err)
		ev, err := d.Decode([]byte(`{"jsonrpc":"2.0","id":"x","result":` + string(res) + `}`))
		require.NoError(t, err)
		require.Equal(t, want, ev)
	}
}

// The envelope's corners over JSON-RPC: an error member wins over a result,
// a null result is no result, and the ID is always the response's just
// decoded (nil after data that was not one).
func TestStreamDecoderEnvelopes(t *testing.T) {
	d := newOne(a2a.V03)
	msg := `{"kind":"message","messageId":"m","role":"agent","parts":[]}`

	_, err := d.Decode([]byte(`{"jsonrpc":"2.0","id":"a","result":` + msg + `,"error":{"code":-32603,"message":"boom"}}`))
	var rpcErr *a2a.RPCError
	require.ErrorAs(t, err, &rpcErr, "an error member wins")
	require.Equal(t, a2a.CodeInternalError, rpcErr.Code)
	require.Equal(t, `"a"`, string(d.ResponseID()))

	_, err = d.Decode([]byte(`{"jsonrpc":"2.0","id":2,"result":null}`))
	require.ErrorIs(t, err, ErrNotAResponse, "a null result is no result, as for unary responses")
	require.Nil(t, d.ResponseID(), "what is not a response has no ID")
	_, err = d.Decode([]byte(`{"jsonrpc":"2.0","id":3,"result":{}}`))
	require.ErrorIs(t, err, a2a.ErrUnknownResult, "an empty result is a result this client does not know")
	require.NotErrorIs(t, err, ErrNotAResponse)

	// What is not a response at all.
	for _, in := range []string{
		`{"kind":"message","messageId":"m","role":"agent","parts":[]}`,   // a bare 0.3 result
		`{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[]}}`,   // a bare 1.0 result
		`{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{}}`, // a request
		`{}`, `{"jsonrpc":"2.0","id":1}`, `null`,
	} {
		_, err = d.Decode([]byte(in))
		require.ErrorIs(t, err, ErrNotAResponse, in)
		require.NotErrorIs(t, err, a2a.ErrUnknownResult, in)
	}

	_, err = d.Decode([]byte(`{"jsonrpc":"2.0","error":{"code":"not a number","message":"x"}}`))
	require.ErrorIs(t, err, ErrNotAResponse)
	require.Nil(t, d.ResponseID(), "no ID is left over from the response before")

	ev, err := d.Decode([]byte(`{"jsonrpc":"2.0","result":` + msg + `}`))
	require.NoError(t, err)
	require.IsType(t, &a2a.Message{}, ev)
	require.Nil(t, d.ResponseID(), "a response without an id")
}

// oneDecoder reads a stream's responses as stream does: a response's error
// member is its error, and ResponseID the ID of the response just read.
type oneDecoder struct {
	d  *StreamDecoder
	id json.RawMessage
}

func newOne(v a2a.Version) *oneDecoder { return &oneDecoder{d: NewStreamDecoder(v)} }

func (o *oneDecoder) Decode(data []byte) (a2a.Event, error) {
	o.id = nil
	r, ev, err := o.d.Decode(data)
	if err != nil {
		return nil, err
	}
	o.id = r.ID
	if r.Error != nil {
		return nil, r.Error
	}
	return ev, nil
}

func (o *oneDecoder) ResponseID() json.RawMessage { return o.id }

// TestStreamDecoderFastEnvelopeMatchesFrame: the fast path for the usual
// envelope gives what encoding/json reading the whole response gives (the
// response's ID and error member, the event, and the kind of error), for
// envelopes it reads and ones a step away from them, and for every
// response of the captures in the repository.
func TestStreamDecoderFastEnvelopeMatchesFrame(t *testing.T) {
	t.Parallel()
	upd := `{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}`
	inputs := []string{
		`{"jsonrpc":"2.0","id":"r1","result":` + upd + `}`,
		` {"jsonrpc" : "2.0" , "id" : "r\u0031" , "result" : ` + upd + ` } ` + "\n",
		`{"id":7,"jsonrpc":"2.0","result":` + upd + `}`,
		`{"jsonrpc":"2.0","id":-1.5e3,"result":` + upd + `}`,
		`{"jsonrpc":"2.0","id":null,"result":` + upd + `}`,
		`{"jsonrpc":"2.0","result":` + upd + `}`,
		`{"result":` + upd + `}`,
		`{"jsonrpc":"2.0","id":01,"result":` + upd + `}`,
		`{"jsonrpc":"2.0","id":{"a":1},"result":` + upd + `}`,
		`{"jsonrpc":"2.0","id":true,"result":` + upd + `}`,
		`{"jsonrpc":2,"id":1,"result":` + upd + `}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"result":` + upd + `}`,
		`{"jsonrpc":"2.0","ID":1,"result":` + upd + `}`,
		`{"jsonrpc":"2.0","id":1,"Result":` + upd + `}`,
		`{"jsonrpc":"2.0","id":1,"result":` + upd + `,"error":{"code":-32603,"message":"boom"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"},"result":` + upd + `}`,
		`{"result":` + upd + `,"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"result":` + upd + `,"result":` + upd + `}`,
		`{"jsonrpc":"2.0","id":1,"result":` + upd + `}}`,
		`{"jsonrpc":"2.0","id":1,"result":` + upd + `]`,
		`{"jsonrpc":"2.0","id":1,"result":` + upd,
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":}`,
		`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","status":{"state":"working"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":5}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"artifact":{"parts":[{"text":"\ud800"}]}}}}`,
	}
	for _, dir := range []string{"../../a2a/testdata/captures", "../../stream/testdata", "../sse/testdata"} {
		names, err := filepath.Glob(filepath.Join(dir, "*.txt"))
		require.NoError(t, err)
		require.NotEmpty(t, names, dir)
		for _, name := range names {
			b, err := os.ReadFile(name)
			require.NoError(t, err)
			for line := range strings.Lines(string(b)) {
				if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok {
					inputs = append(inputs, data)
				}
			}
		}
	}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		fast, frame, pieced := NewStreamDecoder(v), NewStreamDecoder(v), NewStreamDecoder(v)
		for _, in := range inputs {
			wr, wev, werr := frame.decodeFrame([]byte(in))
			check := func(how string, r *Response, ev a2a.Event, err error) {
				require.Equal(t, werr == nil, err == nil, "%s: %s: %s: error %v; encoding/json's %v", how, v, in, err, werr)
				require.Equal(t, errors.Is(werr, ErrNotAResponse), errors.Is(err, ErrNotAResponse), "%s: %s: %s: %v; %v", how, v, in, err, werr)
				require.Equal(t, errors.Is(werr, a2a.ErrUnknownResult), errors.Is(err, a2a.ErrUnknownResult), "%s: %s: %s: %v; %v", how, v, in, err, werr)
				require.Equal(t, wev, ev, "%s: %s: %s", how, v, in)
				require.Equal(t, wr == nil, r == nil, "%s: %s: %s", how, v, in)
				if r != nil {
					require.Equal(t, wr.ID, r.ID, "%s: %s: %s", how, v, in)
					require.Equal(t, wr.Error, r.Error, "%s: %s: %s", how, v, in)
				}
			}
			r, ev, err := fast.Decode([]byte(in))
			check("whole", r, ev, err)
			// In pieces, as a big event comes; the pieces are left as they were.
			for _, n := range []int{1, 2, 3, 7} {
				pieces := cutInto([]byte(in), n)
				before := slices.Clone(pieces)
				r, ev, err := pieced.DecodePieces(pieces)
				check(fmt.Sprintf("in %d pieces", n), r, ev, err)
				require.Equal(t, before, pieces, "%s: %s: pieces not restored", v, in)
			}
		}
	}
}

// A response holding "result" twice is read as encoding/json reads it: the
// last member wins, and a result followed by "result":null is no result.
func TestStreamDecoderTakesTheLastOfARepeatedResult(t *testing.T) {
	const update = `{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"kind":"text","text":"%s"}]}}`
	d := NewStreamDecoder(a2a.V03)
	r, ev, err := d.Decode([]byte(`{"jsonrpc":"2.0","id":"1","result":` + fmt.Sprintf(update, "first") + `,"result":` + fmt.Sprintf(update, "second") + `}`))
	require.NoError(t, err)
	require.Equal(t, `"1"`, string(r.ID))
	u, ok := ev.(*a2a.ArtifactUpdate)
	require.True(t, ok, "%T", ev)
	require.Equal(t, "second", u.Artifact.Text())

	_, _, err = d.Decode([]byte(`{"jsonrpc":"2.0","id":"1","result":` + fmt.Sprintf(update, "first") + `,"result":null}`))
	require.ErrorIs(t, err, ErrNotAResponse)
}

// cutInto cuts b into n pieces of about the same length (empty pieces
// included when b is short).
func cutInto(b []byte, n int) [][]byte {
	pieces := make([][]byte, 0, n)
	for i := range n {
		pieces = append(pieces, b[i*len(b)/n:(i+1)*len(b)/n])
	}
	return pieces
}
