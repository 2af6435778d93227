package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
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
