package jsonrpc

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// FuzzDecodePiecesReadsAsWhole: a response cut into pieces, as a big
// event's data comes, decodes as it does whole (the same response, event
// and kind of error), and DecodePieces leaves the pieces as they were.
func FuzzDecodePiecesReadsAsWhole(f *testing.F) {
	upd := `{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"kind":"text","text":"line\nnext \u00e9"}]},"append":true,"lastChunk":false}`
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"r1","result":` + upd + `}`,
		` {"jsonrpc" : "2.0" , "id" : 7 , "result" : ` + upd + ` } ` + "\n",
		`{"jsonrpc":"2.0","id":null,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"working"}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found"}}`,
		`{"jsonrpc":"2.0","id":1,"result":` + upd + `,"result":null}`,
		`{"jsonrpc":"2.0","id":1,"result":}`,
	} {
		f.Add([]byte(s), uint16(17), uint16(60), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, c1, c2 uint16, v10 bool) {
		v := a2a.V03
		if v10 {
			v = a2a.V10
		}
		a, b := min(int(c1), len(data)), min(int(c2), len(data))
		if a > b {
			a, b = b, a
		}
		pieces := [][]byte{data[:a], data[a:b], data[b:]}
		before := slices.Clone(pieces)
		wr, wev, werr := NewStreamDecoder(v).Decode(slices.Clone(data))
		r, ev, err := NewStreamDecoder(v).DecodePieces(pieces)
		require.Equal(t, before, pieces, "pieces not restored")
		require.Equal(t, werr == nil, err == nil, "error %v; whole: %v", err, werr)
		require.Equal(t, errors.Is(werr, ErrNotAResponse), errors.Is(err, ErrNotAResponse), "%v; whole: %v", err, werr)
		require.Equal(t, errors.Is(werr, a2a.ErrUnknownResult), errors.Is(err, a2a.ErrUnknownResult), "%v; whole: %v", err, werr)
		require.Equal(t, wev, ev)
		require.Equal(t, wr == nil, r == nil)
		if r != nil {
			require.Equal(t, wr.ID, r.ID)
			require.Equal(t, wr.Error, r.Error)
		}
	})
}
