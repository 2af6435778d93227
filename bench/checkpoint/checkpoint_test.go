// Package checkpoint_test measures what a checkpoint after every event
// costs (issue 20's target: under 2 µs and 512 B per event).
//
//	cd bench && go test -run '^$' -bench . -benchmem ./checkpoint/
package checkpoint_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// answer is a task of n events: three artifacts growing by 40-byte chunks,
// with a status message and an agent message every 50 events.
func answer(n int) []a2atest.Step {
	steps := []a2atest.Step{a2atest.Working("thinking")}
	for i := range n {
		switch {
		case i%50 == 25:
			steps = append(steps, a2atest.Say(fmt.Sprintf("note %d", i)))
		case i%50 == 49:
			steps = append(steps, a2atest.Working(fmt.Sprintf("still working, %d", i)))
		default:
			id := fmt.Sprintf("a%d", i%3)
			steps = append(steps, a2atest.Chunk(id, fmt.Sprintf("chunk %05d of the answer, forty bytes. ", i), i >= 3, false))
		}
	}
	return append(steps, a2atest.Finish(a2a.StateCompleted, "done"))
}

// streamAt returns a stream of an n-event answer advanced by n events.
func streamAt(b *testing.B, n int) *stream.Stream {
	agent := a2atest.NewAgent(a2atest.WithScript(answer(n)...))
	c, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()), stream.WithVersion(a2a.V10))
	if err != nil {
		b.Fatal(err)
	}
	s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
	for range n {
		if !s.Next() {
			b.Fatalf("the stream ended early: %v", s.Err())
		}
	}
	return s
}

// BenchmarkTakeCheckpoint is the cost of one checkpoint, taken and written
// into a buffer kept across calls, after n events: what an application
// pays per event when it saves one after every event.
func BenchmarkTakeCheckpoint(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("after %d events", n), func(b *testing.B) {
			s := streamAt(b, n)
			defer s.Close()
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if buf, err = s.Checkpoint().AppendBinary(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(buf)), "checkpoint-bytes")
		})
	}
}

// BenchmarkStreamWithCheckpoints runs a whole 1,000-event answer, with and
// without a checkpoint written after every event: the difference per event
// is the checkpoint's cost, the bookkeeping every stream does included.
func BenchmarkStreamWithCheckpoints(b *testing.B) {
	const n = 1000
	script := answer(n)
	for _, every := range []bool{false, true} {
		b.Run(map[bool]string{false: "no checkpoint", true: "checkpoint after every event"}[every], func(b *testing.B) {
			agent := a2atest.NewAgent(a2atest.WithScript(script...))
			c, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()), stream.WithVersion(a2a.V10))
			if err != nil {
				b.Fatal(err)
			}
			var buf []byte
			events := 0
			b.ReportAllocs()
			for b.Loop() {
				s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
				for s.Next() {
					events++
					if every {
						if buf, err = s.Checkpoint().AppendBinary(buf[:0]); err != nil {
							b.Fatal(err)
						}
					}
				}
				if s.Err() != nil {
					b.Fatal(s.Err())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		})
	}
}
