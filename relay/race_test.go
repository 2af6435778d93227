package relay_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
)

// races is how many seeded races TestReconnectRacesDuringABurstLoseAndDuplicateNothing
// runs: 200 by default, 1,000 in CI (.ci/run); RELIABILITY.md records 10,000.
var races = flag.Int("relay.races", 200, "how many seeded races TestReconnectRacesDuringABurstLoseAndDuplicateNothing runs (CI: 1,000)")

func TestReconnectRacesDuringABurstLoseAndDuplicateNothing(t *testing.T) {
	races := *races
	var lost, duplicated, reconnects int
	rates := make([]float64, 0, races) // events a second of each burst
	for seed := range uint64(races) {
		rng := rand.New(rand.NewPCG(seed, 20))
		store := newMemoryStore(t)
		log, err := store.Open(t.Context(), "k")
		require.NoError(t, err)
		fence, err := log.Acquire(t.Context(), "driver", time.Hour)
		require.NoError(t, err)
		client := a2atest.NewClient(newHandler(t, store, func(*http.Request) (string, bool) { return "k", true }, relay.WithPageSize(1+rng.IntN(32))))

		n := 50 + rng.IntN(200)
		var wg sync.WaitGroup
		wg.Go(func() {
			took := burst(t, log, fence, n, rand.New(rand.NewPCG(seed, 21)))
			rates = append(rates, float64(n)/took.Seconds())
		})

		got := map[uint64]int{}
		last := ""
		for cut := 0; ; cut++ {
			rd := connect(t, client, last)
			require.Equal(t, http.StatusOK, rd.status, "seed %d", seed)
			// Read a few events, then drop the connection, three times;
			// then read to the end.
			take := -1
			if cut < 3 {
				take = rng.IntN(n / 2)
			}
			ended := false
			for i := 0; !ended && (take < 0 || i < take); i++ {
				ev, ok := rd.next()
				if !ok {
					ended = true
					break
				}
				got[ev.seq(t)]++
				last = ev.ID
				ended = ev.Name == relay.EventEnd
			}
			rd.close()
			if ended {
				break
			}
			reconnects++
		}
		wg.Wait()
		for seq := uint64(1); seq <= uint64(n); seq++ {
			switch c := got[seq]; {
			case c == 0:
				lost++
			case c > 1:
				duplicated += c - 1
			}
		}
		require.Len(t, got, n, "seed %d: every event arrived", seed)
	}
	slices.Sort(rates)
	t.Logf("%d races, %d reconnects during bursts of %.0f events/s at the median (%.0f at the slowest): %d lost, %d duplicated",
		races, reconnects, rates[len(rates)/2], rates[0], lost, duplicated)
	require.Zero(t, lost)
	require.Zero(t, duplicated)
	require.Greater(t, reconnects, 2*races, "most races reconnect three times")
}

// burst appends n entries to log as fast as it can, in batches of 1 to 16,
// the last one EventEnd, and returns how long it took.
func burst(t *testing.T, log relay.Log, fence relay.Fence, n int, rng *rand.Rand) time.Duration {
	began := time.Now()
	seq := uint64(1)
	for seq <= uint64(n) {
		var batch []relay.Entry
		for range 1 + rng.IntN(16) {
			if seq > uint64(n) {
				break
			}
			name := relay.EventArtifact
			if seq == uint64(n) {
				name = relay.EventEnd
			}
			batch = append(batch, relay.Entry{Seq: seq, Name: name, Data: fmt.Appendf(nil, `{"n":%d}`, seq)})
			seq++
		}
		if err := log.Commit(context.Background(), fence, nil, batch...); err != nil {
			t.Errorf("append: %v", err)
			return time.Since(began)
		}
		runtime.Gosched()
	}
	return time.Since(began)
}
