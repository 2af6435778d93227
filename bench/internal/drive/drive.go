// Package drive is the benchmarks' use of the driver: one message sent
// with a stream.Client and its stream read to the end, as a2abench's
// contenders and cmd/grpcworker run it.
package drive

import (
	"context"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// Send sends one message with c and reads the stream to its end. With
// wantEvents >= 0 the stream must have that many events; check, when not
// nil, judges the task assembled.
func Send(c *stream.Client, wantEvents int, check func(*a2a.Task) error) error {
	s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
	defer s.Close()
	n := 0
	for s.Next() {
		n++
	}
	if err := s.Err(); err != nil {
		return err
	}
	if wantEvents >= 0 && n != wantEvents {
		return fmt.Errorf("got %d events; want %d", n, wantEvents)
	}
	if check != nil {
		return check(s.Task())
	}
	return nil
}

// CheckParts returns a check that the task holds one artifact of n parts,
// the throughput scenario's.
func CheckParts(n int) func(*a2a.Task) error {
	return func(t *a2a.Task) error {
		if t == nil || len(t.Artifacts) != 1 || len(t.Artifacts[0].Parts) != n {
			return fmt.Errorf("assembled task does not hold the %d parts", n)
		}
		return nil
	}
}
