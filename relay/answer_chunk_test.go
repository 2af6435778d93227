package relay_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
)

// No entry grows with the answer, the person's answer included: a long
// one is split into answered entries of at most the chunk size, the later
// ones adding to the first, and the agent gets it whole.
func TestALongAnswerIsSplitLikeAnyOtherText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(askScript()...)}, drive: []relay.DriveOption{relay.WithChunkSize(64), relay.WithoutTrim()}})
		rd := r.connect("")
		in, seen := untilInput(t, rd)
		answer := strings.Repeat("Paris, é ✓ ", 56<<10/14) // 56 KiB
		code, out := r.post("answer", "key-1", map[string]any{"prompt": in.Prompt, "text": answer})
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, answer, out["text"])

		rest := rd.rest()
		require.NoError(t, r.wait())
		require.Equal(t, []string{answer}, followUps(r.agent), "the agent got the answer whole")
		var n int
		for _, e := range r.logEntries(0) {
			if e.Name != relay.EventAnswered {
				continue
			}
			var a relay.AnsweredData
			require.NoError(t, json.Unmarshal(e.Data, &a))
			require.LessOrEqual(t, len(a.Text), 64, "entry %d", e.Seq)
			require.Equal(t, n > 0, a.Append, "entry %d: the first opens the answer's pane, the others add to it", e.Seq)
			n++
		}
		require.GreaterOrEqual(t, n, 56<<10/64)
		sc := fold(t, append(seen, rest...))
		require.Nil(t, sc.Question)
		require.Equal(t, answer, sc.Pane("answer:"+itoa(in.Prompt)).Text())
	})
}
