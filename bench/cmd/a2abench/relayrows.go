package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// scaleShape is one row of the relay-scale suite that -relay-rows names:
// a store (memory or redis) and its readers, streams × per.
type scaleShape struct {
	store        string
	streams, per int
}

// parseScaleShapes reads -relay-rows: "store:streamsxper", comma-separated.
func parseScaleShapes(v string) ([]scaleShape, error) {
	if v == "" {
		return nil, nil
	}
	var out []scaleShape
	for item := range strings.SplitSeq(v, ",") {
		store, shape, ok := strings.Cut(item, ":")
		s, p, ok2 := strings.Cut(shape, "x")
		streams, err1 := strconv.Atoi(s)
		per, err2 := strconv.Atoi(p)
		if !ok || !ok2 || err1 != nil || err2 != nil || streams <= 0 || per <= 0 || (store != "memory" && store != "redis") {
			return nil, fmt.Errorf("-relay-rows: %q is not store:streamsxreaders (store memory or redis)", item)
		}
		out = append(out, scaleShape{store: store, streams: streams, per: per})
	}
	return out, nil
}

func formatScaleShapes(rows []scaleShape) string {
	var parts []string
	for _, r := range rows {
		parts = append(parts, fmt.Sprintf("%s:%dx%d", r.store, r.streams, r.per))
	}
	return strings.Join(parts, ",")
}

// scaleRows measures the rows of -relay-rows only, over HTTP/1.1.
func scaleRows(ctx context.Context, cfg *config, sc *scaleResult, stores []scaleStore, rd *readers) error {
	for _, sh := range cfg.relayRows {
		var st *scaleStore
		for i := range stores {
			if (sh.store == "redis") == (stores[i].redis != nil) {
				st = &stores[i]
			}
		}
		if st == nil {
			return fmt.Errorf("-relay-rows: no %s store (%s)", sh.store, sc.redisLine)
		}
		prefix := fmt.Sprintf("a2abench-%d-%d", time.Now().UnixNano(), len(sc.rows))
		t0 := time.Now()
		row, err := scaleRun(ctx, cfg, sc.sz, *st, rd, false, sh.streams, sh.per, prefix)
		if err != nil {
			return fmt.Errorf("%s, %s, %s: %w", st.name, row.proto, row.shape(), err)
		}
		fmt.Fprintf(os.Stderr, "relay-scale: %s, %s, %s: %s: %s\n", st.name, row.proto, row.shape(), time.Since(t0).Round(time.Second), row.summary())
		sc.rows = append(sc.rows, row)
		if st.redis != nil {
			if err := st.redis.flush(); err != nil {
				return err
			}
		}
		debugFree()
	}
	return nil
}
