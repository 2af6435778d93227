package relay_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// Stranger BC: over real connections, 100 browsers join (first connection
// or from an ID), leave after some events, and come back with their last
// ID, while a driver commits 600 times as fast as it can: every browser
// gets each entry once and in order, and every one that stays gets the end.
func TestTurnsExactlyOnceInOrderUnderChurn(t *testing.T) {
	mem := newMemoryStore(t)
	w := newWriter(t, mem, "a")
	w.texts("first")
	hs := httptest.NewServer(newHandler(t, mem, pathKey, relay.WithPageSize(8), relay.WithStoreCalls(2)))
	defer hs.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 400}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	ctx := t.Context()

	// read follows the stream from after, leaving after leave events (0:
	// never), and returns the IDs it got.
	read := func(after string, leave int) ([]string, error) {
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		req, err := http.NewRequestWithContext(rctx, http.MethodGet, hs.URL+"/s/a/events", nil)
		if err != nil {
			return nil, err
		}
		if after != "" {
			req.Header.Set("Last-Event-ID", after)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		var ids []string
		rd := newRawReader(t, resp.Body)
		for e, ok := rd.next(); ok; e, ok = rd.next() {
			ids = append(ids, e.ID)
			if len(ids) == leave {
				cancel()
				return ids, nil
			}
		}
		return ids, rd.err
	}

	const browsers, commits = 100, 600
	var wg sync.WaitGroup
	errs := make(chan error, browsers)
	for i := range browsers {
		wg.Go(func() {
			var last string
			var seen []string
			for round := 0; ; round++ {
				leave := 0
				if round < 3 && i%2 == 0 {
					leave = 5 + i%40
				}
				ids, err := read(last, leave)
				if err != nil {
					errs <- fmt.Errorf("browser %d: %w", i, err)
					return
				}
				seen = append(seen, ids...)
				if len(ids) > 0 {
					last = ids[len(ids)-1]
				}
				if leave == 0 {
					break
				}
			}
			for j, id := range seen {
				if id != w.id(uint64(j+1)) {
					errs <- fmt.Errorf("browser %d: event %d is %s, not %s", i, j, id, w.id(uint64(j+1)))
					return
				}
			}
			if len(seen) != commits*2+2 {
				errs <- fmt.Errorf("browser %d: %d events of %d", i, len(seen), commits*2+2)
			}
		})
	}
	for i := range commits {
		w.texts(fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i))
	}
	w.end()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}
