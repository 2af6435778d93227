package stream_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// bodyCounter is a RoundTripper that counts the response bodies it hands
// out and those closed.
type bodyCounter struct {
	next           http.RoundTripper
	opened, closed atomic.Int64
}

func (b *bodyCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	b.opened.Add(1)
	resp.Body = &countedBody{ReadCloser: resp.Body, b: b}
	return resp, nil
}

type countedBody struct {
	io.ReadCloser
	b    *bodyCounter
	once sync.Once
}

func (c *countedBody) Close() error {
	c.once.Do(func() { c.b.closed.Add(1) })
	return c.ReadCloser.Close()
}

// TestLeaks runs 1,000 concurrent streams on one Client against one agent
// (paced scripts, some connections cut), each ended at a random point: by a
// context deadline, by cancelling after some events, by Close after some
// events, or by running to its end. Every response body opened is closed,
// every stream ends in its context's error or a normal ending, and no
// goroutine is left: synctest.Test fails on one left in the bubble, and
// goleak (TestMain) on one left outside.
func TestLeaks(t *testing.T) {
	t.Parallel()
	const streams = 1000
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 1000))
		faults := make([]a2atest.Fault, 3*streams)
		for i := range faults {
			if rng.IntN(4) == 0 {
				faults[i] = a2atest.CutAfterEvents(2 + rng.IntN(wirematrix.PacedEvents-2))
			}
		}
		agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03, a2a.V10), a2atest.WithScript(wirematrix.Paced()...),
			a2atest.WithStyle(a2atest.SnapshotFirst), a2atest.WithFaults(faults...))
		counter := &bodyCounter{next: agent.Client().Transport}
		client, err := stream.NewClient(endpoint, stream.WithHTTPClient(&http.Client{Transport: counter}))
		require.NoError(t, err)

		const (
			byDeadline = iota
			byCancel
			byClose
			toTheEnd
			ways
		)
		// At most 20 streams at a time: the race detector slows down
		// with every live goroutine.
		slots := make(chan struct{}, 20)
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			counts [ways]int
			errs   []string
		)
		for i := range streams {
			way, n := rng.IntN(ways), rng.IntN(wirematrix.PacedEvents+1)
			delay := time.Duration(rng.IntN(1500)) * time.Millisecond
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				ctx, cancel := context.WithCancel(background())
				if way == byDeadline {
					ctx, cancel = context.WithTimeout(background(), delay)
				}
				defer cancel()
				s := client.Send(ctx, hello())
				events := 0
				for s.Next() {
					events++
					if events == n && way == byCancel {
						cancel()
					}
					if events == n && way == byClose {
						break
					}
				}
				_ = s.Close()
				err := s.Err()
				var re *reconnect.Error
				ok := err == nil || // completed, or closed by the caller
					(way == byDeadline && errors.Is(err, context.DeadlineExceeded)) ||
					(way == byCancel && errors.Is(err, context.Canceled)) ||
					errors.As(err, &re) // cuts in a row spent the budget: a typed ending
				mu.Lock()
				defer mu.Unlock()
				counts[way]++
				if !ok {
					errs = append(errs, fmt.Sprintf("stream %d (way %d after %d events): %T %v", i, way, n, err, err))
				}
			})
		}
		wg.Wait()
		require.Empty(t, errs)
		require.Equal(t, streams, counts[byDeadline]+counts[byCancel]+counts[byClose]+counts[toTheEnd])
		require.Positive(t, counter.opened.Load())
		require.Equal(t, counter.opened.Load(), counter.closed.Load(), "response bodies opened and closed")
		require.Positive(t, wirematrix.Resubscribes(agent), "some streams were cut and resubscribed")
		t.Logf("%d streams (deadline %d, cancel %d, close %d, to the end %d), %d requests, %d bodies opened and closed",
			streams, counts[byDeadline], counts[byCancel], counts[byClose], counts[toTheEnd], len(agent.Requests()), counter.opened.Load())
	})
}
