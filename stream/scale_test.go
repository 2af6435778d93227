package stream_test

import (
	"flag"
	"fmt"
	"net/http"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
)

// One task of -scale messages, artifacts, statuses or appends, cut in the
// middle, against each resubscribe style: every step is delivered once.
func TestScaleOfOneTask(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("large")
	}
	n := *scaleSize
	kinds := []struct {
		name string
		step func(i int) a2atest.Step
	}{
		{"messages", func(i int) a2atest.Step { return a2atest.Say(fmt.Sprintf("message %d", i)) }},
		{"artifacts", func(i int) a2atest.Step {
			return a2atest.Chunk(fmt.Sprintf("a%d", i), fmt.Sprintf("part %d", i), false, true)
		}},
		{"statuses", func(i int) a2atest.Step { return a2atest.Working(fmt.Sprintf("step %d", i)) }},
		{"appends", func(i int) a2atest.Step { return a2atest.Chunk("a1", fmt.Sprintf("part %d ", i), i > 0, false) }},
	}
	for _, k := range kinds {
		for _, style := range wirematrix.Styles() {
			t.Run(k.name+"/"+style.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					v := a2a.V10
					script := make([]a2atest.Step, 0, n+3)
					for i := range n {
						script = append(script, k.step(i))
					}
					script = append(script, a2atest.Pause(wirematrix.Tick), a2atest.Finish(a2a.StateCompleted, ""))
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(style),
						a2atest.WithScript(script...), a2atest.WithFaults(a2atest.CutAfterEvents(n/2)))
					// A snapshot of 100,000 messages is over the default 16 MiB.
					s := newClient(t, agent, v, stream.WithMaxEventSize(256<<20)).Send(bounded(t), hello())
					defer s.Close()
					var msgs, parts, statuses int
					seen := make(map[string]bool, n)
					for s.Next() {
						switch e := s.Event().(type) {
						case *a2a.Message:
							require.False(t, seen[e.ID], "message %s twice", e.ID)
							seen[e.ID] = true
							msgs++
						case *a2a.StatusUpdate:
							statuses++
							if m := e.Status.Message; m != nil {
								require.False(t, seen[m.ID], "status message %s twice", m.ID)
								seen[m.ID] = true
							}
						case *a2a.ArtifactUpdate:
							parts += len(e.Artifact.Parts)
						}
					}
					require.NoError(t, s.Err())
					server := agent.Task(s.Task().ID)
					require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
					require.Equal(t, len(server.Artifacts), len(s.Task().Artifacts))
					for i := range server.Artifacts {
						require.Equal(t, server.Artifacts[i].ID, s.Task().Artifacts[i].ID)
						require.Equal(t, server.Artifacts[i].Parts, s.Task().Artifacts[i].Parts)
					}
					_ = statuses
					switch k.name {
					case "messages", "statuses":
						require.Len(t, seen, n, "each message once, as a Message or a status message (%d messages)", msgs)
					case "artifacts", "appends":
						if style != a2atest.LiveOnly {
							require.Equal(t, n, parts, "each part once")
						}
					}
				})
			})
		}
	}
}

// scaleSize is how many steps TestScaleOfOneTask gives one task; CI passes
// the full size (.ci/run).
var scaleSize = flag.Int("scale", 200, "how many messages, artifacts, statuses or appends TestScaleOfOneTask uses, and a fifth of the events of TestLongAndBigStreamsAsCodecDecodes (CI: 20,000; 100,000 was run once by hand)")

// pollsSize is the large run of the linear-cost polling tests; the small run
// is a tenth of it. It is also the size of the polled task of
// TestPolledTaskOfManyArtifactsDeliversOnlyWhatChanged. CI passes the full
// size (.ci/run).
var pollsSize = flag.Int("polls", 500, "how many idle polls, and artifacts or messages by polling, the large run of TestIdlePollsCostLinear and TestArtifactsByPollingCostLinear uses (the small run uses a tenth), and how many artifacts TestPolledTaskOfManyArtifactsDeliversOnlyWhatChanged polls (CI: 10,000)")

// README (Polling rules): "a poll with nothing new does neither"; the
// cost of a poll with nothing new must not grow with the number of polls
// before it. -polls idle polls (10,000 in CI) cost about ten times a tenth
// as many.
func TestIdlePollsCostLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			n := *pollsSize
			small := idlePolls(t, v, n/10)
			large := idlePolls(t, v, n)
			ratio := float64(large) / float64(small)
			t.Logf("%s: mallocs %d polls %d, %d polls %d, ratio %.1f (%.0f per poll)", v, n/10, small, n, large, ratio, float64(large)/float64(n))
			require.Less(t, ratio, 15.0, "linear: about 10")
		})
	}
}

// -polls artifacts (and as many history messages; 10,000 in CI) arriving by
// polling, in ten polls: the client's work is linear in the task's size.
func TestArtifactsByPollingCostLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	for _, v := range versions {
		for _, messages := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/messages %v", v, messages), func(t *testing.T) {
				n := *pollsSize
				small := growingPolls(t, v, n/10, messages)
				large := growingPolls(t, v, n, messages)
				ratio := float64(large) / float64(small)
				t.Logf("mallocs %d: %d, %d: %d, ratio %.1f", n/10, small, n, large, ratio)
				require.Less(t, ratio, 15.0, "linear: about 10")
			})
		}
	}
}

// idlePolls runs a stream whose task shows nothing new for n polls (1 ms
// apart, no stall limit), then completes; it returns the mallocs counted.
func idlePolls(t *testing.T, v a2a.Version, n int) uint64 {
	working := mustTask(v, busyTask(a2a.StateWorking))
	raws := make([][]byte, n+1)
	for i := range n {
		raws[i] = working
	}
	raws[n] = mustTask(v, busyTask(a2a.StateCompleted))
	first := mustEvent(v, snap(a2a.StateSubmitted))
	var before, after runtimeMem
	var gets int
	before.read()
	synctest.Test(t, func(t *testing.T) {
		srv := rawPolls(v, first, raws)
		s := restClient(t, srv, v, stream.WithPollInterval(time.Millisecond), stream.WithStallTimeout(0))
		start := time.Now()
		_, err := s.Send(background(), hello()).Wait()
		require.NoError(t, err)
		require.Equal(t, time.Duration(n+1)*time.Millisecond, time.Since(start))
		gets = srv.count("get")
	})
	after.read()
	require.Equal(t, n+1, gets)
	return after.mallocs - before.mallocs
}

// growingPolls runs a stream whose task gains n/10 artifacts (or history
// messages) on each of 10 polls, then completes; it returns the mallocs
// counted and checks that everything arrived once.
func growingPolls(t *testing.T, v a2a.Version, n int, messages bool) uint64 {
	build := func(k int, st a2a.TaskState) *a2a.Task {
		tk := snap(st)
		for i := range k {
			if messages {
				tk.History = append(tk.History, *agentMsg(fmt.Sprintf("m%d", i), "x"))
			} else {
				tk.Artifacts = append(tk.Artifacts, a2a.Artifact{ID: fmt.Sprintf("a%d", i), Parts: textParts("x")})
			}
		}
		return tk
	}
	var raws [][]byte
	for p := 1; p <= 10; p++ {
		raws = append(raws, mustTask(v, build(p*n/10, a2a.StateWorking)))
	}
	raws = append(raws, mustTask(v, build(n, a2a.StateCompleted)))
	first := mustEvent(v, snap(a2a.StateSubmitted))
	var before, after runtimeMem
	before.read()
	var arts, msgs int
	synctest.Test(t, func(t *testing.T) {
		s := restClient(t, rawPolls(v, first, raws), v, stream.WithMaxEventSize(256<<20)).Send(background(), hello())
		defer s.Close()
		seen := map[string]bool{}
		for s.Next() {
			switch e := s.Event().(type) {
			case *a2a.ArtifactUpdate:
				require.False(t, seen[e.Artifact.ID], "artifact %s twice", e.Artifact.ID)
				seen[e.Artifact.ID] = true
				arts++
			case *a2a.Message:
				require.False(t, seen[e.ID], "message %s twice", e.ID)
				seen[e.ID] = true
				msgs++
			}
		}
		require.NoError(t, s.Err())
		if messages {
			require.Len(t, s.Task().History, n+1, "the agent's messages and the user's")
		} else {
			require.Len(t, s.Task().Artifacts, n)
		}
	})
	after.read()
	if messages {
		require.Equal(t, n, msgs)
	} else {
		require.Equal(t, n, arts)
	}
	return after.mallocs - before.mallocs
}

type runtimeMem struct{ mallocs uint64 }

func (m *runtimeMem) read() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.mallocs = ms.Mallocs
}

// TestDriverAllocationsPerEvent: the whole runtime, from the response body
// to Next (decode, dedupe, delivery), allocates at most three times for
// each artifact chunk of a stream, on every wire: the event with its part,
// its text and the buffer of its other strings; and 300 times for the call
// itself (about 150 now: the request, the connection's reader, the
// ledger).
func TestDriverAllocationsPerEvent(t *testing.T) {
	const n = 2000
	for _, c := range []struct {
		v       a2a.Version
		binding a2a.Binding
	}{
		{a2a.V03, a2a.BindingJSONRPC}, {a2a.V10, a2a.BindingJSONRPC},
		{a2a.V03, a2a.BindingHTTPJSON}, {a2a.V10, a2a.BindingHTTPJSON},
	} {
		newClient := stream.NewClient
		if c.binding == a2a.BindingHTTPJSON {
			newClient = stream.NewRESTClient
		}
		client, err := newClient("http://bench.test/", stream.WithVersion(c.v),
			stream.WithHTTPClient(&http.Client{Transport: bodyTransport{benchBody(c.v, n, c.binding)}}))
		require.NoError(t, err)
		events := 0
		allocs := testing.AllocsPerRun(5, func() {
			s := client.Send(t.Context(), a2a.NewTextMessage(a2a.RoleUser, "go"))
			for events = 0; s.Next(); events++ {
			}
			require.NoError(t, s.Err())
		})
		require.Equal(t, n+2, events)
		require.LessOrEqual(t, allocs, float64(3*n+300), "%s/%s: %.0f allocations for %d events", c.v, c.binding, allocs, n)
	}
}
