package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	ga "github.com/a2aproject/a2a-go/a2a"
	gaclient "github.com/a2aproject/a2a-go/a2aclient"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/decodebench"
	"github.com/a2astream/a2astream/bench/internal/measure"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

type contender struct {
	name string
	run  func() error
}

// interleave runs every contender once per round, in order, and returns
// the samples by contender.
func interleave(rounds int, peak bool, cs []contender) ([][]measure.Sample, error) {
	out := make([][]measure.Sample, len(cs))
	for range rounds {
		for i, c := range cs {
			p := measure.Start(peak)
			err := c.run()
			s := p.Stop()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.name, err)
			}
			out[i] = append(out[i], s)
		}
	}
	return out, nil
}

// perRound returns f of each sample.
func perRound(ss []measure.Sample, f func(measure.Sample) float64) []float64 {
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = f(s)
	}
	return xs
}

// ratios returns the median over rounds of f(c)/f(first).
func ratio(c, first []measure.Sample, f func(measure.Sample) float64) float64 {
	xs := make([]float64, len(c))
	for i := range c {
		xs[i] = f(c[i]) / f(first[i])
	}
	return measure.Median(xs)
}

// sendOurs runs the full driver over JSON-RPC: Send, then Next until the end.
func sendOurs(hc *http.Client, url string, v a2a.Version, wantEvents int, check func(*a2a.Task) error, opts ...stream.Option) error {
	opts = append([]stream.Option{stream.WithHTTPClient(hc), stream.WithVersion(v)}, opts...)
	c, err := stream.NewClient(url, opts...)
	if err != nil {
		return err
	}
	return drive(c, wantEvents, check)
}

// sendOursREST runs the full driver over the HTTP+JSON (REST) binding,
// under the base URL base.
func sendOursREST(hc *http.Client, base string, v a2a.Version, wantEvents int, check func(*a2a.Task) error, opts ...stream.Option) error {
	opts = append([]stream.Option{stream.WithHTTPClient(hc), stream.WithVersion(v)}, opts...)
	c, err := stream.NewRESTClient(base, opts...)
	if err != nil {
		return err
	}
	return drive(c, wantEvents, check)
}

// drive sends one message with c and reads the stream to its end.
func drive(c *stream.Client, wantEvents int, check func(*a2a.Task) error) error {
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

// sendA2AGo runs the a2a-go v0.3.3 client's SendStreamingMessage loop.
func sendA2AGo(hc *http.Client, url string) (int, error) {
	ctx := context.Background()
	c, err := gaclient.NewFromEndpoints(ctx, []ga.AgentInterface{{URL: url, Transport: ga.TransportProtocolJSONRPC}},
		gaclient.WithJSONRPCTransport(hc))
	if err != nil {
		return 0, err
	}
	n := 0
	msg := &ga.MessageSendParams{Message: ga.NewMessage(ga.MessageRoleUser, ga.TextPart{Text: "hello"})}
	var last ga.Event
	for ev, err := range c.SendStreamingMessage(ctx, msg) {
		if err != nil {
			return n, err
		}
		last = ev
		n++
	}
	if u, ok := last.(*ga.TaskStatusUpdateEvent); !ok || u.Status.State != ga.TaskStateCompleted {
		return n, fmt.Errorf("last event %T; want a completed status update", last)
	}
	return n, nil
}

// floorRun is the decode floor: the same POST, a bufio line scan, and one
// encoding/json decode of each data line into a minimal struct.
func floorRun(hc *http.Client, url string, v a2a.Version, wantEvents int) error {
	method := "SendStreamingMessage"
	if v == a2a.V03 {
		method = "message/stream"
	}
	body := `{"jsonrpc":"2.0","id":"1","method":"` + method + `","params":{"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"hello"}]}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n, parts := 0, 0
	for sc.Scan() {
		line, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		n++
		if v == a2a.V03 {
			var ev decodebench.Floor03
			if err := json.Unmarshal(line, &ev); err != nil {
				return err
			}
			parts += len(ev.Result.Artifact.Parts)
		} else {
			var ev decodebench.Floor10
			if err := json.Unmarshal(line, &ev); err != nil {
				return err
			}
			if ev.Result.ArtifactUpdate != nil {
				parts += len(ev.Result.ArtifactUpdate.Artifact.Parts)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if n != wantEvents || parts != wantEvents-3 {
		return fmt.Errorf("got %d events, %d parts; want %d, %d", n, parts, wantEvents, wantEvents-3)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return nil
}

func throughput(cfg *config, w io.Writer) error {
	n := 200_000
	if cfg.quick {
		n = 5_000
	}
	events := n + 3 // task, working, n chunks, completed
	url := func(v string) string { return fmt.Sprintf("%s/?s=throughput&n=%d&v=%s", cfg.base, n, v) }
	restBase := fmt.Sprintf("%s/rest/throughput/n=%d", cfg.base, n)
	checkParts := func(t *a2a.Task) error {
		if t == nil || len(t.Artifacts) != 1 || len(t.Artifacts[0].Parts) != n {
			return fmt.Errorf("assembled task does not hold the %d parts", n)
		}
		return nil
	}
	wireBytes, err := measureWireBytes(cfg.hc, url("0.3"), url("1.0"))
	if err != nil {
		return err
	}
	restBytes, err := measureRESTWireBytes(cfg.hc, restBase)
	if err != nil {
		return err
	}
	noRetry := stream.WithReconnect(reconnect.Never())
	cs := []contender{
		{"a2astream driver (Send → Next), 0.3", func() error { return sendOurs(cfg.hc, url("0.3"), a2a.V03, events, checkParts, noRetry) }},
		{"a2astream REST driver (Send → Next), 0.3", func() error {
			return sendOursREST(cfg.hc, restBase, a2a.V03, events, checkParts, noRetry)
		}},
		{"a2a-go v0.3.3 SendStreamingMessage, 0.3", func() error {
			got, err := sendA2AGo(cfg.hc, url("0.3"))
			if err == nil && got != events {
				err = fmt.Errorf("got %d events; want %d", got, events)
			}
			return err
		}},
		{"decode floor (bufio scan + json.Unmarshal), 0.3", func() error { return floorRun(cfg.hc, url("0.3"), a2a.V03, events) }},
		{"a2astream driver (Send → Next), 1.0", func() error { return sendOurs(cfg.hc, url("1.0"), a2a.V10, events, checkParts, noRetry) }},
		{"a2astream REST driver (Send → Next), 1.0", func() error {
			return sendOursREST(cfg.hc, restBase, a2a.V10, events, checkParts, noRetry)
		}},
		{"decode floor (bufio scan + json.Unmarshal), 1.0", func() error { return floorRun(cfg.hc, url("1.0"), a2a.V10, events) }},
	}
	var prof cpuProfiler
	if cfg.cpuTop > 0 {
		for _, i := range []int{0, 4} { // the JSON-RPC drivers, 0.3 and 1.0
			cs[i].run = prof.wrap(cs[i].name, cs[i].run)
		}
	}
	// One untimed warm-up of each, then the interleaved rounds.
	if _, err := interleave(1, false, cs); err != nil {
		return err
	}
	prof.on = true
	ss, err := interleave(cfg.rounds, false, cs)
	if err != nil {
		return err
	}
	ev := float64(events)
	rate := func(s measure.Sample) float64 { return ev / s.Wall.Seconds() }
	cpu := func(s measure.Sample) float64 { return float64(s.CPU.Nanoseconds()) / ev }
	allocs := func(s measure.Sample) float64 { return float64(s.Mallocs) / ev }
	bytesPer := func(s measure.Sample) float64 { return float64(s.Bytes) / ev }

	fmt.Fprintf(w, "## 1. Throughput\n\n")
	fmt.Fprintf(w, "One loopback server (a child process) streams a task, a working status, %s artifact chunks and a completed status "+
		"(%s events) per call; 0.3 in the a2a-go capture shape (%.0f B/event on the wire with the `id:` line), "+
		"1.0 in the js-1.3.0 shape (%.0f B/event). Medians of %d interleaved rounds after one warm-up round; "+
		"×first is the median of the per-round ratios to the first row of the table. CPU is the client process's user+system time "+
		"(the server runs in its own process); allocations include net/http's.\n\n",
		measure.Thousands(int64(n)), measure.Thousands(int64(events)), wireBytes[0]/ev, wireBytes[1]/ev, cfg.rounds)
	const (
		ours03, rest03, a2ago, floor03, ours10, rest10, floor10 = 0, 1, 2, 3, 4, 5, 6
	)
	for _, group := range [][]int{{ours03, a2ago, floor03}, {ours10, floor10}} {
		t := measure.Table{Head: []string{"contender", "events/s", "×first", "CPU ns/event", "×first", "allocs/event", "B/event"},
			Align: []bool{false, true, true, true, true, true, true}}
		first := ss[group[0]]
		for _, i := range group {
			t.Add(cs[i].name, measure.F(measure.Median(perRound(ss[i], rate))), measure.Ratio(ratio(ss[i], first, rate)),
				measure.F(measure.Median(perRound(ss[i], cpu))), measure.Ratio(ratio(ss[i], first, cpu)),
				measure.F(measure.Median(perRound(ss[i], allocs))), measure.F(measure.Median(perRound(ss[i], bytesPer))))
		}
		fmt.Fprintln(w, t.String())
	}
	a2agoX := 1 / ratio(ss[a2ago], ss[ours03], rate)
	cpuA2AGo := ratio(ss[a2ago], ss[ours03], cpu)
	// The REST drivers are set against the floor of their version: the
	// floor reads the JSON-RPC stream, the same events.
	wires := []struct {
		name      string
		i, floorI int
	}{
		{"JSON-RPC 0.3", ours03, floor03}, {"JSON-RPC 1.0", ours10, floor10},
		{"HTTP+JSON 0.3", rest03, floor03}, {"HTTP+JSON 1.0", rest10, floor10},
	}
	var floorX, allocX []figure
	for _, wi := range wires {
		floorX = append(floorX, figure{wi.name, ratio(ss[wi.i], ss[wi.floorI], rate)})
		allocX = append(allocX, figure{wi.name, measure.Median(perRound(ss[wi.i], allocs))})
	}
	cfg.res.floor, cfg.res.allocs = floorX, allocX
	cfg.res.a2ago = []figure{{"JSON-RPC 0.3", a2agoX}}
	listFigures := func(fs []figure, format func(float64) string) string {
		parts := make([]string, len(fs))
		for i, f := range fs {
			parts[i] = "**" + format(f.x) + "** in " + f.where
		}
		return strings.Join(parts, ", ")
	}
	allOK := func(fs []figure, ok func(float64) bool) bool {
		for _, f := range fs {
			if !ok(f.x) {
				return false
			}
		}
		return true
	}
	fmt.Fprintf(w, "Targets (issue 21):\n\n")
	fmt.Fprintf(w, "- events/s ≥ 1.2× the floor of the same version (HTTP+JSON against the JSON-RPC floor): %s — %s\n",
		listFigures(floorX, measure.Ratio), verdict(allOK(floorX, func(x float64) bool { return x >= floorTarget })))
	fmt.Fprintf(w, "- events/s ≥ 3× a2a-go (0.3, JSON-RPC): **%s** (a2a-go spends %s our CPU per event) — %s\n",
		measure.Ratio(a2agoX), measure.Ratio(cpuA2AGo), verdict(a2agoX >= a2agoTarget))
	fmt.Fprintf(w, "- allocations per event ≤ 4 (net/http included): %s — %s\n",
		listFigures(allocX, measure.F), verdict(allOK(allocX, func(x float64) bool { return x <= allocsTarget })))

	fmt.Fprintf(w, "\nHTTP+JSON (REST) beside JSON-RPC, the same stream from the same server in the same rounds: "+
		"`stream.NewRESTClient` under `/rest/throughput/n=%d`, which streams bare StreamResponse objects "+
		"(1.0: the JSON-RPC result's bytes; 0.3: the js-0.3.14 proto-JSON), %.0f and %.0f B/event on the wire in 0.3 and 1.0. "+
		"×JSON-RPC is the median of the per-round ratios to the JSON-RPC driver of the same version.\n\n",
		n, restBytes[0]/ev, restBytes[1]/ev)
	t := measure.Table{Head: []string{"binding, version", "events/s", "×JSON-RPC", "CPU ns/event", "×JSON-RPC", "allocs/event", "B/event"},
		Align: []bool{false, true, true, true, true, true, true}}
	restX := map[int]float64{}
	for _, row := range []struct {
		name      string
		i, rpcRow int
	}{
		{"a2astream JSON-RPC 0.3", ours03, ours03},
		{"a2astream REST 0.3 (proto-JSON)", rest03, ours03},
		{"a2astream JSON-RPC 1.0", ours10, ours10},
		{"a2astream REST 1.0", rest10, ours10},
	} {
		x := ratio(ss[row.i], ss[row.rpcRow], rate)
		restX[row.i] = x
		t.Add(row.name, measure.F(measure.Median(perRound(ss[row.i], rate))), measure.Ratio(x),
			measure.F(measure.Median(perRound(ss[row.i], cpu))), measure.Ratio(ratio(ss[row.i], ss[row.rpcRow], cpu)),
			measure.F(measure.Median(perRound(ss[row.i], allocs))), measure.F(measure.Median(perRound(ss[row.i], bytesPer))))
	}
	fmt.Fprintln(w, t.String())
	spread := func(c, rpc []measure.Sample) string {
		lo, hi := 0.0, 0.0
		for i := range c {
			x := rate(c[i]) / rate(rpc[i])
			if i == 0 || x < lo {
				lo = x
			}
			if i == 0 || x > hi {
				hi = x
			}
		}
		return measure.F(lo) + "–" + measure.Ratio(hi)
	}
	fmt.Fprintf(w, "- REST events/s within 10 %% of JSON-RPC (≥ 0.90×): **%s** in 0.3 (rounds %s), **%s** in 1.0 (rounds %s) — %s\n",
		measure.Ratio(restX[rest03]), spread(ss[rest03], ss[ours03]), measure.Ratio(restX[rest10]), spread(ss[rest10], ss[ours10]),
		verdict(restX[rest03] >= 0.9 && restX[rest10] >= 0.9))
	if cfg.cpuTop > 0 {
		return prof.write(w, cfg.cpuTop)
	}
	return nil
}

// measureRESTWireBytes reads one REST stream of each version (0.3, 1.0)
// under base and returns its size.
func measureRESTWireBytes(hc *http.Client, base string) ([]float64, error) {
	out := make([]float64, 2)
	for i, path := range []string{"/v1/message:stream", "/message:stream"} {
		req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(`{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}`))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("POST %s: %s", path, resp.Status)
		}
		if err != nil {
			return nil, err
		}
		out[i] = float64(n)
	}
	return out, nil
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// measureWireBytes reads one response of each version and returns its size.
func measureWireBytes(hc *http.Client, urls ...string) ([]float64, error) {
	out := make([]float64, len(urls))
	for i, u := range urls {
		method := "message/stream"
		if strings.Contains(u, "v=1.0") {
			method = "SendStreamingMessage"
		}
		req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":"00000000-0000-4000-8000-000000000000","method":"`+method+`","params":{}}`))
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		out[i] = float64(n)
	}
	return out, nil
}
