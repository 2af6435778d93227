package relay_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// BenchmarkDrivePerEvent drives a task of 2,000 artifact chunks, with no
// pause, from an in-process agent into a MemoryStore, and reports the cost
// per event: the agent, the stream, the entries, and (since Drive commits a
// checkpoint with each delta) the checkpoint of each event.
func BenchmarkDrivePerEvent(b *testing.B) {
	const n = 2000
	script, _ := longAnswer(n, func(int) a2atest.Step { return a2atest.Pause(0) })
	agent := a2atest.NewAgent(a2atest.WithScript(script...))
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		b.Fatal(err)
	}
	start := relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello"))
	b.ReportAllocs()
	for b.Loop() {
		log, err := newMemoryStore(b).Open(context.Background(), "k")
		if err != nil {
			b.Fatal(err)
		}
		f, err := log.Acquire(context.Background(), "driver", time.Hour)
		if err != nil {
			b.Fatal(err)
		}
		if err := relay.Drive(context.Background(), log, f, start); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/event")
}

// BenchmarkRelayHeapOfAFiftyMegabyteAnswer relays a 50 MiB answer from an
// a2atest agent through Drive, a MemoryStore whose retention is 1 MiB, and
// one reader of the Handler, and reports the peak of the heap above what
// it was before (peak-MiB), sampled every 200µs with GOGC at 2, so that
// garbage adds at most 2%. "stream only" drains the
// same stream without the relay: the agent's task and the stream's ledger
// (each the whole answer) and the wire buffers. The relay's cost is the
// difference; "store-MiB" is what the MemoryStore holds at the end (its
// entries and its snapshot).
func BenchmarkRelayHeapOfAFiftyMegabyteAnswer(b *testing.B) {
	for _, tt := range []struct {
		name  string
		relay bool
		drive []relay.DriveOption
	}{
		{"stream only", false, nil},
		{"relay", true, nil},
		{"relay without snapshots", true, []relay.DriveOption{relay.WithSnapshotEvery(1<<30, 1<<40), relay.WithoutTrim()}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			var peak, store float64
			gones := 0
			for b.Loop() {
				p, s, g := relayOnce(b, tt.relay, tt.drive)
				peak = max(peak, p)
				store, gones = s, gones+g
			}
			b.ReportMetric(peak, "peak-MiB")
			b.ReportMetric(store, "store-MiB")
			b.ReportMetric(float64(gones), "gones")
		})
	}
}

func relayOnce(b *testing.B, withRelay bool, opts []relay.DriveOption) (peakMiB, storeMiB float64, gones int) {
	const mib = 1 << 20
	ctx := context.Background()
	agent := a2atest.NewAgent(a2atest.WithScript(fiftyMegabytes()...))
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		b.Fatal(err)
	}
	msg := a2a.NewTextMessage(a2a.RoleUser, "hi")
	start := relay.Send(client, msg)
	// Collect often, so that the samples are close to the live heap.
	defer debug.SetGCPercent(debug.SetGCPercent(2))
	base := heapNow()
	stop := heapPeak()
	if !withRelay {
		s := client.Send(ctx, msg)
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			b.Fatal(err)
		}
		s.Close()
		return float64(stop()-base) / mib, 0, 0
	}

	store := newMemoryStore(b, relay.WithRetention(mib))
	log, err := store.Open(ctx, "k")
	if err != nil {
		b.Fatal(err)
	}
	fence, err := log.Acquire(ctx, "driver", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	var driveErr error
	wg.Go(func() { driveErr = relay.Drive(ctx, log, fence, start, opts...) })
	h := newHandler(b, store, func(*http.Request) (string, bool) { return "k", true })
	req, _ := http.NewRequest(http.MethodGet, "http://relay.test/events", nil)
	resp, err := a2atest.NewClient(h).Do(req)
	if err != nil {
		b.Fatal(err)
	}
	dec := sse.NewDecoder(resp.Body, 512*mib)
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if ev.Type == relay.EventGone {
			gones++
		}
	}
	resp.Body.Close()
	wg.Wait()
	peak := stop()
	if driveErr != nil {
		b.Fatal(driveErr)
	}
	held := 0
	snap, _ := log.LoadSnapshot(ctx)
	held += len(snap.Data)
	for after := snap.Seq; ; {
		es, err := log.Read(ctx, after, 100)
		if err != nil || len(es) == 0 {
			break
		}
		for _, e := range es {
			held += len(e.Name) + len(e.Data)
		}
		after = es[len(es)-1].Seq
	}
	for after := uint64(0); ; {
		// Entries before the snapshot that the store still holds.
		es, err := log.Read(ctx, after, 100)
		if err != nil || len(es) == 0 || es[0].Seq > snap.Seq {
			break
		}
		for _, e := range es {
			if e.Seq <= snap.Seq {
				held += len(e.Name) + len(e.Data)
			}
		}
		after = es[len(es)-1].Seq
	}
	return float64(peak-base) / mib, float64(held) / mib, gones
}

// heapPeak samples the bytes of live and not yet swept heap objects every
// 200µs, until stop is called, which returns the highest sample.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// heapNow returns the live heap after a collection.
func heapNow() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// fiftyMegabytes is an answer of 800 chunks of 64 KiB (50 MiB), the chunks
// sharing one string so the agent's script costs 64 KiB.
func fiftyMegabytes() []a2atest.Step {
	chunk := strings.Repeat("0123456789abcdef", 4<<10)
	steps := []a2atest.Step{a2atest.Working("")}
	for i := range 800 {
		steps = append(steps, a2atest.Chunk("a1", chunk, i > 0, i == 799))
	}
	return append(steps, a2atest.Finish(a2a.StateCompleted, ""))
}
