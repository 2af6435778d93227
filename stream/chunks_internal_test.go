package stream

import (
	"bytes"
	"strings"
	"testing"

	"github.com/a2astream/a2astream/internal/sse"
	"github.com/stretchr/testify/require"
)

// The data of a big SSE event, in chunks, is trimmed and told a keep-alive
// as the same data in one slice is, however it is cut.
func TestChunkedDataTrimmedAsWhole(t *testing.T) {
	t.Parallel()
	for _, data := range []string{
		"", " ", "\x1e", " \t\x1e \n", "\x1e\x1e", " x", "\x1e{}", "  \x1e  {\"a\":1} ", " \x1e \x1e{}", "{}\x1e",
		strings.Repeat(" ", 40) + "\x1e" + strings.Repeat("\n", 40), strings.Repeat(" ", 40) + "{" + strings.Repeat(" ", 40) + "}",
	} {
		wholeTrim := string(trimRecordSeparator([]byte(data)))
		wholeBlank := keepAlive(sse.Event{Data: []byte(data)})
		for _, n := range []int{1, 2, 3, 7, 64} {
			var chunks [][]byte
			for i := 0; i < len(data); i += n {
				chunks = append(chunks, []byte(data[i:min(len(data), i+n)]))
			}
			ev := sse.Event{Chunks: chunks}
			require.Equal(t, wholeBlank, keepAlive(ev), "%q in chunks of %d: keep-alive", data, n)
			got := string(bytes.Join(trimRecordSeparatorPieces(chunks), nil))
			require.Equal(t, wholeTrim, got, "%q in chunks of %d: trimmed", data, n)
		}
	}
}
