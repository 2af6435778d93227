package main

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// TestEmptyPollAllocatesLittle: an empty poll of a task of 10,000
// artifacts, whose body repeats the last poll's, allocates less than a
// tenth of what one a2a.Codec.DecodeTask of that task allocates, on the
// four wires: the body is neither decoded nor folded. A count in the same
// run, the same on every machine: a poll that decoded the body would
// allocate at least what the decode alone does.
func TestEmptyPollAllocatesLittle(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes the allocation counts")
	}
	const polls = 5
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
			t.Run(string(b)+"/"+v.String(), func(t *testing.T) {
				agent, err := newPollAgent(v, b, polls)
				require.NoError(t, err)
				agent.mallocs = make([]uint64, 0, polls+2)
				_, err = follow(agent)
				require.NoError(t, err)
				require.Len(t, agent.mallocs, polls+2)
				// Get 0 brings the artifacts; gets 1 … polls bring nothing
				// new: each span from one to the next is an empty poll.
				var perPoll []float64
				for i := 1; i <= polls; i++ {
					perPoll = append(perPoll, float64(agent.mallocs[i+1]-agent.mallocs[i]))
				}
				codec := a2a.Codec{Version: v, Binding: b}
				decode := testing.AllocsPerRun(2, func() {
					if _, err := codec.DecodeTask(agent.working); err != nil {
						t.Fatal(err)
					}
				})
				worst := slices.Max(perPoll)
				t.Logf("an empty poll: %v allocations; one DecodeTask: %.0f", perPoll, decode)
				require.Less(t, worst*10, decode, "an empty poll allocates %v, one DecodeTask of its task %.0f", perPoll, decode)
			})
		}
	}
}
