package wirematrix

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
)

// FirstSendCutAtEveryByte: the streaming send of a new message (the agent
// plays ChunkyScript) answered and cut at a byte offset of its stream
// (inside or after one of its first events) is never sent again, whatever
// style the server resubscribes in: the stream either ends in
// reconnect.ErrNoTask (no task ID was seen) or follows the task to its end
// with the uncut run's artifacts. The offsets are w.CutOffsets', or every
// offset below 900 (each byte under snapshot-first, every fifth under the
// other styles).
func FirstSendCutAtEveryByte(t *testing.T, w Wire) {
	for _, style := range ResubscribeStyles() {
		for _, n := range w.cutOffsets(t, style) {
			t.Run(fmt.Sprintf("%s/%s/%d", w, style, n), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := w.Agent(a2atest.WithScript(ChunkyScript()...), a2atest.WithStyle(style),
						a2atest.WithFaults(a2atest.CutAfterBytes(n)))
					c := w.Client(t, agent, Quick()...)
					col, err := Drain(t, c.Send(context.Background(), hello()))
					first, _ := SendCountsOf(agent, false)
					require.Equal(t, 1, first, "the message went out once")
					if err != nil {
						require.ErrorIs(t, err, reconnect.ErrNoTask, "an ending other than no-task: %v", err)
						return
					}
					text := ""
					if a := col.Task.Artifact("a1"); a != nil {
						text = a.Text()
					}
					require.Equal(t, "one two three", text)
				})
			})
		}
	}
}

// cutOffsets are the offsets FirstSendCutAtEveryByte cuts at under style:
// w.CutOffsets', or every offset below 900, each byte under snapshot-first
// and every fifth under the other styles.
func (w Wire) cutOffsets(t *testing.T, style a2atest.ResubscribeStyle) []int {
	if w.CutOffsets != nil {
		return w.CutOffsets(t, style)
	}
	step := 1
	if style != a2atest.SnapshotFirst {
		step = 5
	}
	var out []int
	for n := 0; n < 900; n += step {
		out = append(out, n)
	}
	return out
}

// CutsAroundEvents are cut offsets around each event of the send stream
// of ChunkyScript, in w's version over the JSON-RPC binding (what a bridge
// to an a2atest agent, such as grpc/a2agrpctest, reads): 0 and 1 (before
// the first event), and for each event the byte half-way through it, its
// last byte, its end and the byte after it (inside it, and after it),
// below the stream's length. It is for a wire on which a cut at any byte
// inside an event reads as one at its start, so that a few offsets cover
// what every byte does on the HTTP wires.
func CutsAroundEvents(t *testing.T, w Wire) []int {
	t.Helper()
	ends, size := eventEnds(t, w.Version)
	out := []int{0, 1}
	start := 0
	for _, e := range ends {
		out = append(out, (start+e)/2, e-1, e, e+1)
		start = e
	}
	out = slices.DeleteFunc(out, func(n int) bool { return n >= size })
	slices.Sort(out)
	return slices.Compact(out)
}

// eventEnds are the offsets at which the events of ChunkyScript's send
// stream end, in version v over the JSON-RPC binding, and the stream's
// length, read from an uncut run.
func eventEnds(t *testing.T, v a2a.Version) (ends []int, size int) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(ChunkyScript()...))
		msg, err := a2a.Codec{Version: v, Binding: a2a.BindingJSONRPC}.EncodeMessage(hello())
		require.NoError(t, err)
		method := "SendStreamingMessage"
		if v == a2a.V03 {
			method = "message/stream"
		}
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "1", "method": method,
			"params": map[string]json.RawMessage{"message": msg}})
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodPost, "http://agent.test/", bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("A2A-Version", string(v))
		resp, err := agent.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		for off := 0; ; {
			i := bytes.Index(b[off:], []byte("\n\n"))
			if i < 0 {
				break
			}
			off += i + 2
			ends = append(ends, off)
		}
		size = len(b)
		require.NotEmpty(t, ends, "the send stream holds events")
	})
	return ends, size
}
