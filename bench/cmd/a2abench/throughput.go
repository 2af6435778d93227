package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"

	ga "github.com/a2aproject/a2a-go/a2a"
	gaclient "github.com/a2aproject/a2a-go/a2aclient"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/decodebench"
	"github.com/a2astream/a2astream/bench/internal/grpcserver"
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

// drive sends one message with c and reads the stream to its end. With
// wantEvents >= 0 the stream must have that many events; check, when not
// nil, judges the task assembled.
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

// checkParts returns a check that the task holds one artifact of n parts,
// the throughput scenario's.
func checkParts(n int) func(*a2a.Task) error {
	return func(t *a2a.Task) error {
		if t == nil || len(t.Artifacts) != 1 || len(t.Artifacts[0].Parts) != n {
			return fmt.Errorf("assembled task does not hold the %d parts", n)
		}
		return nil
	}
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

// The throughput suite's contenders, in the order throughputContenders
// returns them.
const (
	ours03, rest03, a2ago, floor03, ours10, rest10, floor10 = 0, 1, 2, 3, 4, 5, 6
	grpc03, grpc10, a2agoGRPC                               = 7, 8, 9
)

// floorOf returns the decode floor contender i is set against: the floor
// of its version (the REST and gRPC drivers' too: the floor reads the
// JSON-RPC stream, the same events).
func floorOf(i int) int {
	switch i {
	case ours10, rest10, floor10, grpc10:
		return floor10
	}
	return floor03
}

// throughputContenders returns the throughput suite's contenders and the
// number of artifact chunks of their stream.
func throughputContenders(cfg *config) ([]contender, int) {
	n := 200_000
	if cfg.quick {
		n = 5_000
	}
	events := n + 3 // task, working, n chunks, completed
	url := func(v string) string { return fmt.Sprintf("%s/?s=throughput&n=%d&v=%s", cfg.base, n, v) }
	restBase := fmt.Sprintf("%s/rest/throughput/n=%d", cfg.base, n)
	check := checkParts(n)
	noRetry := stream.WithReconnect(reconnect.Never())
	chunks := stream.WithHeader(grpcserver.NKey, strconv.Itoa(n)) // the gRPC server's scenario
	return []contender{
		ours03: {name: "a2astream driver (Send → Next), 0.3", run: func() error { return sendOurs(cfg.hc, url("0.3"), a2a.V03, events, check, noRetry) }},
		rest03: {name: "a2astream REST driver (Send → Next), 0.3", run: func() error {
			return sendOursREST(cfg.hc, restBase, a2a.V03, events, check, noRetry)
		}},
		a2ago: {name: "a2a-go v0.3.3 SendStreamingMessage, 0.3", run: func() error {
			got, err := sendA2AGo(cfg.hc, url("0.3"))
			if err == nil && got != events {
				err = fmt.Errorf("got %d events; want %d", got, events)
			}
			return err
		}},
		floor03: {name: "decode floor (bufio scan + json.Unmarshal), 0.3", run: func() error { return floorRun(cfg.hc, url("0.3"), a2a.V03, events) }},
		ours10:  {name: "a2astream driver (Send → Next), 1.0", run: func() error { return sendOurs(cfg.hc, url("1.0"), a2a.V10, events, check, noRetry) }},
		rest10: {name: "a2astream REST driver (Send → Next), 1.0", run: func() error {
			return sendOursREST(cfg.hc, restBase, a2a.V10, events, check, noRetry)
		}},
		floor10: {name: "decode floor (bufio scan + json.Unmarshal), 1.0", run: func() error { return floorRun(cfg.hc, url("1.0"), a2a.V10, events) }},
		grpc03: {name: "a2astream gRPC driver (Send → Next), 0.3", run: func() error {
			return sendOursGRPC(cfg.grpcTr, a2a.V03, events, check, noRetry, chunks)
		}},
		grpc10: {name: "a2astream gRPC driver (Send → Next), 1.0", run: func() error {
			return sendOursGRPC(cfg.grpcTr, a2a.V10, events, check, noRetry, chunks)
		}},
		a2agoGRPC: {name: "a2a-go v0.3.3 SendStreamingMessage over gRPC, 0.3", run: func() error {
			got, err := sendA2AGoGRPC(cfg.gaConn, cfg.grpcAddr, n)
			if err == nil && got != events {
				err = fmt.Errorf("got %d events; want %d", got, events)
			}
			return err
		}},
	}, n
}

// perRoundRatio returns f(c)/f(ref) of each round.
func perRoundRatio(c, ref []measure.Sample, f func(measure.Sample) float64) []float64 {
	xs := make([]float64, len(c))
	for i := range c {
		xs[i] = f(c[i]) / f(ref[i])
	}
	return xs
}

// spreadFigure is the median of xs as a figure of where, with its range.
func spreadFigure(where string, xs []float64) (figure, ranged) {
	lo, med, hi := measure.Spread(xs)
	return figure{where, med}, ranged{lo, hi}
}

func throughput(cfg *config, w io.Writer) error {
	cs, n := throughputContenders(cfg)
	events := n + 3
	url := func(v string) string { return fmt.Sprintf("%s/?s=throughput&n=%d&v=%s", cfg.base, n, v) }
	wireBytes, err := measureWireBytes(cfg.hc, url("0.3"), url("1.0"))
	if err != nil {
		return err
	}
	restBytes, err := measureRESTWireBytes(cfg.hc, fmt.Sprintf("%s/rest/throughput/n=%d", cfg.base, n))
	if err != nil {
		return err
	}
	procs := cfg.procs
	if len(procs) == 0 {
		procs = []int{runtime.GOMAXPROCS(0)}
	}
	// The warm rounds run in this process: one untimed warm-up round of
	// each contender, then the interleaved rounds. The CPU profile, when
	// asked for, is of the JSON-RPC and gRPC drivers' warm rounds under the
	// last GOMAXPROCS.
	var prof cpuProfiler
	profiled := slices.Clone(cs)
	if cfg.cpuTop > 0 {
		for _, i := range []int{ours03, ours10, grpc03, grpc10, a2agoGRPC} {
			profiled[i].run = prof.wrap(cs[i].name, cs[i].run)
		}
	}
	var sets []runSet
	for k, p := range procs {
		err := withProcs(p, func() error {
			run := cs
			if k == len(procs)-1 {
				run = profiled
			}
			if _, err := interleave(1, false, run); err != nil {
				return err
			}
			prof.on = k == len(procs)-1
			defer func() { prof.on = false }()
			ss, err := interleave(cfg.rounds, false, run)
			sets = append(sets, runSet{procs: p, ss: ss})
			return err
		})
		if err != nil {
			return err
		}
		if cfg.fresh {
			ss, err := interleaveFresh(cfg, "throughput", cs, cfg.rounds, p)
			if err != nil {
				return err
			}
			sets = append(sets, runSet{fresh: true, procs: p, ss: ss})
		}
	}
	ev := float64(events)
	rate := func(s measure.Sample) float64 { return ev / s.Wall.Seconds() }
	cpu := func(s measure.Sample) float64 { return float64(s.CPU.Nanoseconds()) / ev }
	allocs := func(s measure.Sample) float64 { return float64(s.Mallocs) / ev }
	bytesPer := func(s measure.Sample) float64 { return float64(s.Bytes) / ev }
	spread := func(xs []float64) string { return measure.SpreadCell(xs, measure.F) }
	spreadX := func(xs []float64) string { return measure.SpreadCell(xs, measure.Ratio) }

	modes := "Warm rounds run in this process, interleaved, after one untimed warm-up round of each contender."
	if cfg.fresh {
		modes += " Fresh rounds run each contender's round in a new process (this binary with `-round`, GOMAXPROCS from its " +
			"environment), interleaved the same way and without a warm-up, so its heap, its pages, its pools and its connection " +
			"are cold; the child measures its own rusage and allocations and sends them back as JSON."
	}
	fmt.Fprintf(w, "## 1. Throughput\n\n")
	fmt.Fprintf(w, "One loopback server (a child process) streams a task, a working status, %s artifact chunks and a completed status "+
		"(%s events) per call; 0.3 in the a2a-go capture shape (%.0f B/event on the wire with the `id:` line), "+
		"1.0 in the js-1.3.0 shape (%.0f B/event). %s Each cell is min / median / max of %d rounds; "+
		"×floor is the per-round ratio to the decode floor of the same version (events/s: above 1 is faster; CPU: below 1 is cheaper). "+
		"CPU is the client process's user+system time (the server runs in its own process); allocations include net/http's and are medians.\n\n",
		measure.Thousands(int64(n)), measure.Thousands(int64(events)), wireBytes[0]/ev, wireBytes[1]/ev, modes, cfg.rounds)
	for _, set := range sets {
		ss := set.ss
		fmt.Fprintf(w, "### %s\n\n", set)
		t := measure.Table{Head: []string{"contender", "events/s", "events/s ×floor", "CPU ns/event", "CPU ×floor", "allocs/event", "B/event"},
			Align: []bool{false, true, true, true, true, true, true}}
		for i := range cs {
			t.Add(cs[i].name, spread(perRound(ss[i], rate)), spreadX(perRoundRatio(ss[i], ss[floorOf(i)], rate)),
				spread(perRound(ss[i], cpu)), spreadX(perRoundRatio(ss[i], ss[floorOf(i)], cpu)),
				measure.F(measure.Median(perRound(ss[i], allocs))), measure.F(measure.Median(perRound(ss[i], bytesPer))))
		}
		fmt.Fprintln(w, t.String())
	}

	// The targets read the fresh sets when there are any: those are the
	// figures that travel.
	read := "warm"
	var judged []runSet
	for _, set := range sets {
		if set.fresh == cfg.fresh {
			judged = append(judged, set)
		}
	}
	if cfg.fresh {
		read = "fresh"
	}
	wires := []struct {
		name string
		i    int
	}{{"JSON-RPC 0.3", ours03}, {"JSON-RPC 1.0", ours10}, {"HTTP+JSON 0.3", rest03}, {"HTTP+JSON 1.0", rest10}}
	res := cfg.res
	res.floor, res.floorRange, res.a2ago, res.a2agoRange, res.allocs = nil, nil, nil, nil, nil
	res.throughputRead = fmt.Sprintf("median of %d %s rounds under each GOMAXPROCS, min–max in brackets", cfg.rounds, read)
	var cpuA2AGo []string
	for _, set := range judged {
		ss := set.ss
		for _, wi := range wires {
			f, r := spreadFigure(fmt.Sprintf("%s (GOMAXPROCS %d)", wi.name, set.procs), perRoundRatio(ss[wi.i], ss[floorOf(wi.i)], rate))
			res.floor, res.floorRange = append(res.floor, f), append(res.floorRange, r)
		}
		f, r := spreadFigure(fmt.Sprintf("JSON-RPC 0.3 (GOMAXPROCS %d)", set.procs), perRoundRatio(ss[ours03], ss[a2ago], rate))
		res.a2ago, res.a2agoRange = append(res.a2ago, f), append(res.a2agoRange, r)
		cpuA2AGo = append(cpuA2AGo, fmt.Sprintf("%s under GOMAXPROCS %d", spreadX(perRoundRatio(ss[a2ago], ss[ours03], cpu)), set.procs))
	}
	// Allocations per event hardly move between rounds: the largest median
	// of the judged sets.
	for _, wi := range wires {
		x := 0.0
		for _, set := range judged {
			x = max(x, measure.Median(perRound(set.ss[wi.i], allocs)))
		}
		res.allocs = append(res.allocs, figure{wi.name, x})
	}
	listFigures := func(fs []figure, rs []ranged, format func(float64) string) string {
		parts := make([]string, len(fs))
		for i, f := range fs {
			parts[i] = "**" + format(f.x) + "** in " + f.where
			if rs != nil {
				parts[i] += " (" + format(rs[i].lo) + "–" + format(rs[i].hi) + ")"
			}
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
	fmt.Fprintf(w, "Targets (issue 21), judged on the %s:\n\n", res.throughputRead)
	fmt.Fprintf(w, "- events/s ≥ 1.2× the floor of the same version (HTTP+JSON against the JSON-RPC floor): %s — %s\n",
		listFigures(res.floor, res.floorRange, measure.Ratio), verdict(allOK(res.floor, func(x float64) bool { return x >= floorTarget })))
	fmt.Fprintf(w, "- events/s ≥ 3× a2a-go (0.3, JSON-RPC): %s (a2a-go spends %s our CPU per event) — %s\n",
		listFigures(res.a2ago, res.a2agoRange, measure.Ratio), strings.Join(cpuA2AGo, ", "),
		verdict(allOK(res.a2ago, func(x float64) bool { return x >= a2agoTarget })))
	fmt.Fprintf(w, "- allocations per event ≤ 4 (net/http included; the largest median of the %s sets): %s — %s\n",
		read, listFigures(res.allocs, nil, measure.F), verdict(allOK(res.allocs, func(x float64) bool { return x <= allocsTarget })))

	fmt.Fprintf(w, "\nHTTP+JSON (REST) beside JSON-RPC, the same stream from the same server in the same rounds: "+
		"`stream.NewRESTClient` under `/rest/throughput/n=%d`, which streams bare StreamResponse objects "+
		"(1.0: the JSON-RPC result's bytes; 0.3: the js-0.3.14 proto-JSON), %.0f and %.0f B/event on the wire in 0.3 and 1.0. "+
		"×JSON-RPC is the per-round ratio to the JSON-RPC driver of the same version, min / median / max.\n\n",
		n, restBytes[0]/ev, restBytes[1]/ev)
	t := measure.Table{Head: []string{"binding, version", "rounds", "events/s", "×JSON-RPC", "CPU ns/event", "×JSON-RPC", "allocs/event", "B/event"},
		Align: []bool{false, false, true, true, true, true, true, true}}
	restOK := true
	for _, set := range judged {
		ss := set.ss
		for _, row := range []struct {
			name      string
			i, rpcRow int
		}{
			{"a2astream JSON-RPC 0.3", ours03, ours03},
			{"a2astream REST 0.3 (proto-JSON)", rest03, ours03},
			{"a2astream JSON-RPC 1.0", ours10, ours10},
			{"a2astream REST 1.0", rest10, ours10},
		} {
			xs := perRoundRatio(ss[row.i], ss[row.rpcRow], rate)
			restOK = restOK && measure.Median(xs) >= 0.9
			t.Add(row.name, set.String(), spread(perRound(ss[row.i], rate)), spreadX(xs),
				spread(perRound(ss[row.i], cpu)), spreadX(perRoundRatio(ss[row.i], ss[row.rpcRow], cpu)),
				measure.F(measure.Median(perRound(ss[row.i], allocs))), measure.F(measure.Median(perRound(ss[row.i], bytesPer))))
		}
	}
	fmt.Fprintln(w, t.String())
	fmt.Fprintf(w, "- REST events/s within 10 %% of JSON-RPC (≥ 0.90×, on the median of each %s set) — %s\n", read, verdict(restOK))
	grpcTable(w, sets, judged, read, n, cs)
	if cfg.cpuTop > 0 {
		return prof.write(w, cfg.cpuTop, fmt.Sprintf("CPU profile of the driver's warm rounds under GOMAXPROCS %d (`-cpuprofile-top %d`)", procs[len(procs)-1], cfg.cpuTop))
	}
	return nil
}

// Issue 32's targets for the gRPC binding.
const (
	grpcRPCTarget    = 1.0 // gRPC events/s over JSON-RPC's on the same stream, at least
	grpcAllocsTarget = 5.0 // gRPC allocations per event, at most
	grpcA2AGoTarget  = 3.0 // gRPC events/s over the a2a-go gRPC client's, at least
)

// grpcTable writes the gRPC rows beside JSON-RPC, of every set, and issue
// 32's targets judged on the judged sets (read names them).
func grpcTable(w io.Writer, sets, judged []runSet, read string, n int, cs []contender) {
	ev := float64(n + 3)
	rate := func(s measure.Sample) float64 { return ev / s.Wall.Seconds() }
	cpu := func(s measure.Sample) float64 { return float64(s.CPU.Nanoseconds()) / ev }
	allocs := func(s measure.Sample) float64 { return float64(s.Mallocs) / ev }
	bytesPer := func(s measure.Sample) float64 { return float64(s.Bytes) / ev }
	spread := func(xs []float64) string { return measure.SpreadCell(xs, measure.F) }
	spreadX := func(xs []float64) string { return measure.SpreadCell(xs, measure.Ratio) }
	wire03 := float64(grpcserver.WireBytes(grpcserver.Encode("0.3", n))) / ev
	wire10 := float64(grpcserver.WireBytes(grpcserver.Encode("1.0", n))) / ev

	fmt.Fprintf(w, "\ngRPC beside JSON-RPC (issue 32), the same events from the same child process: its gRPC listener "+
		"(grpc-go, h2c on loopback) sends each version's StreamResponse messages, encoded once up front (%.0f and %.0f B/event "+
		"in 0.3 and 1.0 with the 5-byte message prefix, HTTP/2 framing left out). %s and %s are a2agrpc through "+
		"`stream.NewClientFor` (one `a2agrpc.Transport` per process), warm and fresh like the JSON-RPC contenders. "+
		"%s is a2a-go's client with `NewGRPCTransportFromClient` on one connection per process. "+
		"×JSON-RPC is the per-round ratio to the a2astream JSON-RPC driver of the same version, ×a2a-go gRPC to the a2a-go gRPC client "+
		"(0.3; for the 1.0 row across versions), min / median / max.\n\n",
		wire03, wire10, cs[grpc03].name, cs[grpc10].name, cs[a2agoGRPC].name)
	t := measure.Table{Head: []string{"binding, version", "rounds", "events/s", "×JSON-RPC", "×a2a-go gRPC", "CPU ns/event", "CPU ×JSON-RPC", "allocs/event", "B/event"},
		Align: []bool{false, false, true, true, true, true, true, true, true}}
	rows := []struct {
		name      string
		i, rpcRow int
	}{
		{"a2astream gRPC 0.3", grpc03, ours03},
		{"a2astream gRPC 1.0", grpc10, ours10},
		{"a2a-go v0.3.3 gRPC 0.3", a2agoGRPC, ours03},
	}
	for _, set := range sets {
		ss := set.ss
		for _, row := range rows {
			t.Add(row.name, set.String(), spread(perRound(ss[row.i], rate)), spreadX(perRoundRatio(ss[row.i], ss[row.rpcRow], rate)),
				spreadX(perRoundRatio(ss[row.i], ss[a2agoGRPC], rate)),
				spread(perRound(ss[row.i], cpu)), spreadX(perRoundRatio(ss[row.i], ss[row.rpcRow], cpu)),
				measure.F(measure.Median(perRound(ss[row.i], allocs))), measure.F(measure.Median(perRound(ss[row.i], bytesPer))))
		}
	}
	fmt.Fprintln(w, t.String())

	var vsRPC, vsA2AGo, alloc []string
	rpcOK, a2agoOK, allocOK := true, true, true
	for _, set := range judged {
		ss := set.ss
		for _, row := range rows[:2] {
			lo, med, hi := measure.Spread(perRoundRatio(ss[row.i], ss[row.rpcRow], rate))
			rpcOK = rpcOK && med >= grpcRPCTarget
			vsRPC = append(vsRPC, fmt.Sprintf("**%s** in %s (GOMAXPROCS %d) (%s–%s)", measure.Ratio(med), row.name, set.procs, measure.Ratio(lo), measure.Ratio(hi)))
			lo, med, hi = measure.Spread(perRoundRatio(ss[row.i], ss[a2agoGRPC], rate))
			a2agoOK = a2agoOK && med >= grpcA2AGoTarget
			vsA2AGo = append(vsA2AGo, fmt.Sprintf("**%s** in %s (GOMAXPROCS %d) (%s–%s)", measure.Ratio(med), row.name, set.procs, measure.Ratio(lo), measure.Ratio(hi)))
			x := measure.Median(perRound(ss[row.i], allocs))
			allocOK = allocOK && x <= grpcAllocsTarget
			alloc = append(alloc, fmt.Sprintf("**%s** in %s (GOMAXPROCS %d)", measure.F(x), row.name, set.procs))
		}
	}
	fmt.Fprintf(w, "Targets (issue 32), judged on the median of each %s set:\n\n", read)
	fmt.Fprintf(w, "- gRPC events/s ≥ JSON-RPC's on the same stream (≥ %s): %s — %s\n", measure.Ratio(grpcRPCTarget), strings.Join(vsRPC, ", "), verdict(rpcOK))
	fmt.Fprintf(w, "- gRPC allocations per event ≤ %s (grpc-go included): %s — %s\n", measure.F(grpcAllocsTarget), strings.Join(alloc, ", "), verdict(allocOK))
	fmt.Fprintf(w, "- gRPC events/s ≥ %s the a2a-go v0.3.3 gRPC client's: %s — %s\n", measure.Ratio(grpcA2AGoTarget), strings.Join(vsA2AGo, ", "), verdict(a2agoOK))
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
