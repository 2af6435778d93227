package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	r3 "github.com/r3labs/sse/v2"
	gosse "github.com/tmaxmax/go-sse"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/decodebench"
	"github.com/a2astream/a2astream/bench/internal/measure"
	"github.com/a2astream/a2astream/bench/internal/memnet"
	"github.com/a2astream/a2astream/bench/internal/wire"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

const readChunk = 16 << 10

// bigBodies renders a stream holding one artifact chunk of size bytes of
// text: the whole stream (task, the chunk, completed) with the request-ID
// marker, the chunk's SSE event alone, and its JSON payload alone.
func bigBodies(size int) (full, event, payload []byte) {
	t := wire.NewTask(1)
	text := wire.BigText(size)
	w := &wire.Writer{V: "0.3", ReqID: []byte(memnet.Marker)}
	w.TaskEvent(t)
	w.Artifact(t, wire.UUID('a', 0), text, false, true)
	w.Status(t, "completed", "", "", true)
	full = w.Buf
	e := &wire.Writer{V: "0.3", ReqID: []byte(`"7b0c5a1e-2f4d-4c8e-9a1b-3d5e7f9a1b2c"`)}
	e.Artifact(t, wire.UUID('a', 0), text, false, true)
	event = e.Buf
	_, rest, _ := bytes.Cut(event, []byte("data: "))
	payload = bytes.TrimRight(rest, "\n")
	return full, event, payload
}

func bigEvents(cfg *config, w io.Writer) error {
	sizes := []int{1 << 20, 4 << 20, 16 << 20, 64 << 20}
	if cfg.quick {
		sizes = []int{64 << 10, 256 << 10}
	}
	names := []string{
		"a2astream sse.Decoder",
		"a2astream driver (Send → Next)",
		"r3labs/sse/v2 EventStreamReader",
		"tmaxmax/go-sse Read",
		"json.Unmarshal of the payload",
	}
	type cell struct {
		samples []measure.Sample
		peak    uint64
		skipped string
	}
	res := make([][]cell, len(sizes))
	slowAt := make([]time.Duration, len(names)) // last timing, to skip hopeless runs
	// One untimed run of every contender on a small event first, with the
	// heap sampler on: the first run in the process pays for one-time
	// caches (encoding/json's per-type decoders and encoders, ~100 KiB;
	// runtime/metrics' and the sampler's start, ~25 KiB) that are not the
	// decoding of any event, and would land in the peak of the first size.
	warm, err := bigRuns(warmSize)
	if err != nil {
		return err
	}
	for ci, run := range warm {
		p := measure.Start(true)
		err := run()
		p.Stop()
		if err != nil {
			return fmt.Errorf("%s, warm-up: %w", names[ci], err)
		}
	}
	for si, size := range sizes {
		runs, err := bigRuns(size)
		if err != nil {
			return err
		}
		res[si] = make([]cell, len(names))
		// Round 0 samples the peak heap (and warms up at this size); the
		// others are timed without the sampler. A run that took over 4 s is
		// not repeated; one whose run at the previous size took over 3 s is
		// skipped (its growth is quadratic: ~16× per 4× size).
		for round := 0; round <= cfg.rounds; round++ {
			for ci, run := range runs {
				c := &res[si][ci]
				if c.skipped != "" || (round > 1 && len(c.samples) == 0) {
					continue
				}
				if round == 0 && si > 0 && slowAt[ci] > 3*time.Second {
					c.skipped = fmt.Sprintf("skipped (%s at %d MiB, ~16× that expected)", measure.Dur(slowAt[ci]), sizes[si-1]>>20)
					continue
				}
				if round > 0 && len(c.samples) > 0 && c.samples[0].Wall > 4*time.Second {
					continue
				}
				p := measure.Start(round == 0)
				err := run()
				s := p.Stop()
				if err != nil {
					return fmt.Errorf("%s, %d bytes: %w", names[ci], size, err)
				}
				slowAt[ci] = s.Wall
				if round == 0 {
					c.peak = s.Peak
					if s.Wall > 4*time.Second {
						c.samples = append(c.samples, s) // too slow to repeat: keep the sampled run
					}
					continue
				}
				c.samples = append(c.samples, s)
			}
		}
	}

	fmt.Fprintf(w, "## 2. Big events\n\n")
	fmt.Fprintf(w, "One artifact-update of N bytes of text (prose with an escaped newline every ~75 bytes) in the 0.3 shape, "+
		"read from an in-memory body in %d KiB reads. The decoders parse the event alone; the driver runs the whole call "+
		"(task, the chunk, completed) through an in-memory RoundTripper with WithMaxEventSize raised; json.Unmarshal decodes "+
		"the data line into the minimal struct of the floor. Limits are raised to the event size + 1 MiB everywhere. "+
		"Time: median of up to %d rounds (runs over 4 s are not repeated, and a contender that took over 3 s at one size is not run at the next; n is the sample count). "+
		"Peak heap: the highest heap-objects reading (runtime/metrics, sampled every 100 µs in a separate first round) "+
		"above the level before the run, as a multiple of the event size; it includes garbage not yet collected. "+
		"Before it, every contender runs once on a %d KiB event, untimed, so that no peak counts the process's "+
		"one-time caches (encoding/json's per-type codecs, the sampler's start).\n\n",
		readChunk>>10, cfg.rounds, warmSize>>10)
	head := []string{"contender"}
	for _, size := range sizes {
		head = append(head, sizeName(size)+" time", "×json", "peak/size")
	}
	head = append(head, "growth per 4× size")
	t := measure.Table{Head: head, Align: []bool{false, true, true, true, true, true, true, true, true, true, true, true, true, true}}
	jsonIdx := len(names) - 1
	med := func(c cell) float64 {
		return measure.Median(perRound(c.samples, func(s measure.Sample) float64 { return float64(s.Wall) }))
	}
	var summary []string
	driver := &bigFigures{}
	for ci, name := range names {
		row := []string{name}
		var growth []string
		for si, size := range sizes {
			c := res[si][ci]
			if c.skipped != "" {
				row = append(row, c.skipped, "–", "–")
				if ci == 1 {
					driver.skipped = append(driver.skipped, sizeName(size))
					summary = append(summary, sizeName(size)+": skipped")
				}
				continue
			}
			m := med(c)
			j := med(res[si][jsonIdx])
			row = append(row, fmt.Sprintf("%s (n=%d)", measure.Dur(time.Duration(m)), len(c.samples)), measure.Ratio(m/j),
				measure.Ratio(float64(c.peak)/float64(size)))
			if si > 0 && res[si-1][ci].skipped == "" {
				growth = append(growth, measure.Ratio(m/med(res[si-1][ci])))
			}
			if ci == 0 {
				driver.ssePeak = append(driver.ssePeak, figure{sizeName(size), float64(c.peak) / float64(size)})
			}
			if ci == 1 {
				tx, px := m/j, float64(c.peak)/float64(size)
				driver.time = append(driver.time, figure{sizeName(size), tx})
				driver.peak = append(driver.peak, figure{sizeName(size), px})
				summary = append(summary, fmt.Sprintf("%s: %s json.Unmarshal (%s), peak %s the event (%s)", sizeName(size),
					measure.Ratio(tx), verdict(tx <= bigTimeTarget), measure.Ratio(px), verdict(px <= bigPeakTarget)))
			}
		}
		row = append(row, strings.Join(growth, ", "))
		t.Add(row...)
	}
	fmt.Fprintln(w, t.String())
	cfg.res.big = driver
	fmt.Fprintf(w, "Driver against issue 21's targets (time ≤ 1.0× json.Unmarshal, peak heap ≤ 2.0× the event size): %s.\n\n",
		strings.Join(summary, "; "))

	// The a2a-go client on events around its 64 KiB scanner limit.
	fmt.Fprintf(w, "a2a-go v0.3.3 client on the same stream (its SSE parser is a bufio.Scanner with the default 64 KiB token limit):\n\n")
	t2 := measure.Table{Head: []string{"event size", "a2a-go v0.3.3 SendStreamingMessage", "a2astream driver (default limit 16 MiB)"}}
	for _, size := range []int{60 << 10, 70 << 10, 1 << 20} {
		full, _, _ := bigBodies(size)
		hc := &http.Client{Transport: memnet.NewSSETransport(full, readChunk)}
		gaErr := "ok"
		if _, err := sendA2AGoHC(hc); err != nil {
			gaErr = "fails: `" + err.Error() + "`"
		}
		ourErr := "ok"
		if err := sendOurs(hc, "http://agent.invalid/", a2a.V03, -1, nil, stream.WithReconnect(reconnect.Never())); err != nil {
			ourErr = "fails: `" + err.Error() + "`"
		}
		t2.Add(sizeName(size), gaErr, ourErr)
	}
	fmt.Fprintln(w, t2.String())
	return nil
}

// warmSize is the event size of the warm-up run before the big suite.
const warmSize = 64 << 10

// bigRuns returns the big suite's contenders' runs on one event of size
// bytes of text, in the order of their names in bigEvents.
func bigRuns(size int) ([]func() error, error) {
	full, event, payload := bigBodies(size)
	limit := len(event) + 1<<20
	// The decoded text must have the payload's length minus escapes.
	var want decodebench.Floor03
	if err := json.Unmarshal(payload, &want); err != nil {
		return nil, err
	}
	wantText := len(want.Result.Artifact.Parts[0].Text)
	hc := &http.Client{Transport: memnet.NewSSETransport(full, readChunk)}
	return []func() error{
		func() error {
			d := sse.NewDecoder(&memnet.ChunkReader{Segs: [][]byte{event}, Chunk: readChunk}, limit)
			ev, err := d.Next()
			n := len(ev.Data) // a big event comes in chunks
			for _, c := range ev.Chunks {
				n += len(c)
			}
			if err == nil && n != len(payload) {
				err = fmt.Errorf("data %d bytes; want %d", n, len(payload))
			}
			return err
		},
		func() error {
			return sendOurs(hc, "http://agent.invalid/", a2a.V03, -1, func(t *a2a.Task) error {
				if len(t.Artifacts) != 1 || len(t.Artifacts[0].Parts[0].Text) != wantText {
					return fmt.Errorf("artifact text not assembled")
				}
				return nil
			}, stream.WithMaxEventSize(limit), stream.WithReconnect(reconnect.Never()))
		},
		func() error {
			r := r3.NewEventStreamReader(&memnet.ChunkReader{Segs: [][]byte{event}, Chunk: readChunk}, limit)
			ev, err := r.ReadEvent()
			if err == nil && len(ev) < len(payload) {
				err = fmt.Errorf("event %d bytes; want ≥ %d", len(ev), len(payload))
			}
			return err
		},
		func() error {
			for ev, err := range gosse.Read(&memnet.ChunkReader{Segs: [][]byte{event}, Chunk: readChunk}, &gosse.ReadConfig{MaxEventSize: limit}) {
				if err != nil {
					return err
				}
				if len(ev.Data) != len(payload) {
					return fmt.Errorf("data %d bytes; want %d", len(ev.Data), len(payload))
				}
				return nil
			}
			return fmt.Errorf("no event")
		},
		func() error {
			var v decodebench.Floor03
			err := json.Unmarshal(payload, &v)
			if err == nil && len(v.Result.Artifact.Parts[0].Text) != wantText {
				err = fmt.Errorf("text not decoded")
			}
			return err
		},
	}, nil
}

func sendA2AGoHC(hc *http.Client) (int, error) { return sendA2AGo(hc, "http://agent.invalid/") }

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
