package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/a2astream/a2astream/bench/internal/measure"
)

// A fresh round runs one contender once in a new process: the a2abench
// binary started again as
//
//	a2abench -round <suite>/<index> -base <server URL> -grpc <host:port> [-quick] [-cpuprofile <file>]
//
// with GOMAXPROCS in its environment. The child builds the suite's
// contenders as the parent does, runs the one named, measures it as a warm
// round is measured (its own rusage and runtime.MemStats, from a
// runtime.GC before the run to its end) and prints the measure.Sample as
// one line of JSON on its stdout. Its heap, its pages, its pools and its
// connection are new: nothing of an earlier round is in them.
const roundFlag = "-round"

// isRoundChild reports whether args (os.Args[1:]) ask for a fresh round.
func isRoundChild(args []string) bool {
	return len(args) > 0 && (args[0] == roundFlag || strings.HasPrefix(args[0], roundFlag+"="))
}

// freshContenders returns the contenders of a suite that runs fresh
// rounds, as both the parent and the child build them.
func freshContenders(cfg *config, suite string) ([]contender, error) {
	switch suite {
	case "throughput":
		cs, _ := throughputContenders(cfg)
		return cs, nil
	case "growth":
		return growthContenders(cfg), nil
	}
	return nil, fmt.Errorf("no fresh rounds for suite %q", suite)
}

// newHTTPClient returns the client every contender shares.
func newHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: tr}
}

// roundChild runs one fresh round (args are os.Args[1:]) and prints its
// sample.
func roundChild(args []string) error {
	fs := flag.NewFlagSet("a2abench -round", flag.ContinueOnError)
	key := fs.String("round", "", "the contender to run: `suite/index`")
	base := fs.String("base", "", "the server's base URL")
	grpcAddr := fs.String("grpc", "", "the server's gRPC `host:port`")
	quick := fs.Bool("quick", false, "small sizes")
	profPath := fs.String("cpuprofile", "", "write a CPU profile of the run to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	suite, idx, ok := strings.Cut(*key, "/")
	i, err := strconv.Atoi(idx)
	if !ok || err != nil {
		return fmt.Errorf("-round %q: want suite/index", *key)
	}
	cfg := &config{rounds: 1, quick: *quick, base: *base, hc: newHTTPClient(), res: &results{}, grpcAddr: *grpcAddr}
	if *grpcAddr != "" {
		if cfg.gaConn, err = newA2AGoConn(*grpcAddr); err != nil {
			return err
		}
		defer cfg.gaConn.Close()
		if cfg.grpcTr, err = newGRPCTransport(*grpcAddr); err != nil {
			return err
		}
		defer cfg.grpcTr.Close()
	}
	cs, err := freshContenders(cfg, suite)
	if err != nil {
		return err
	}
	if i < 0 || i >= len(cs) {
		return fmt.Errorf("-round %q: suite %s has %d contenders", *key, suite, len(cs))
	}
	var prof *os.File
	if *profPath != "" {
		if prof, err = os.Create(*profPath); err != nil {
			return err
		}
		defer prof.Close()
	}
	p := measure.Start(false)
	if prof != nil {
		if err := pprof.StartCPUProfile(prof); err != nil {
			return err
		}
	}
	err = cs[i].run()
	if prof != nil {
		pprof.StopCPUProfile()
	}
	s := p.Stop()
	if err != nil {
		return fmt.Errorf("%s: %w", cs[i].name, err)
	}
	return json.NewEncoder(os.Stdout).Encode(s)
}

// freshRound runs contender i of suite in a new process under GOMAXPROCS
// procs and returns its sample; with profPath, the child also writes a CPU
// profile of the run there.
func freshRound(cfg *config, suite string, i, procs int, profPath string) (measure.Sample, error) {
	exe, err := os.Executable()
	if err != nil {
		return measure.Sample{}, err
	}
	args := []string{roundFlag, fmt.Sprintf("%s/%d", suite, i), "-base", cfg.base, "-grpc", cfg.grpcAddr}
	if cfg.quick {
		args = append(args, "-quick")
	}
	if profPath != "" {
		args = append(args, "-cpuprofile", profPath)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return measure.Sample{}, fmt.Errorf("fresh round %s/%d: %w: %s", suite, i, err, bytes.TrimSpace(stderr.Bytes()))
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	var s measure.Sample
	if err := json.Unmarshal(lines[len(lines)-1], &s); err != nil {
		return measure.Sample{}, fmt.Errorf("fresh round %s/%d printed %q: %w", suite, i, out, err)
	}
	return s, nil
}

// interleaveFresh runs every contender of suite once per round, each in a
// new process under GOMAXPROCS procs, in order, and returns the samples by
// contender. There is no warm-up round: a fresh round is cold by design.
func interleaveFresh(cfg *config, suite string, cs []contender, rounds, procs int) ([][]measure.Sample, error) {
	out := make([][]measure.Sample, len(cs))
	for range rounds {
		for i := range cs {
			s, err := freshRound(cfg, suite, i, procs, "")
			if err != nil {
				return nil, err
			}
			out[i] = append(out[i], s)
		}
	}
	return out, nil
}

// freshProfile runs contender i of suite once more in a new process under
// GOMAXPROCS procs, profiled, and returns the profile.
func freshProfile(cfg *config, suite string, i, procs int) (*profile.Profile, error) {
	f, err := os.CreateTemp("", "a2abench-*.pprof")
	if err != nil {
		return nil, err
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	if _, err := freshRound(cfg, suite, i, procs, path); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return profile.ParseData(b)
}

// withProcs runs f under GOMAXPROCS procs, then restores the old value.
func withProcs(procs int, f func() error) error {
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	return f()
}

// parseProcs parses -procs: a comma-separated list of GOMAXPROCS values.
func parseProcs(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-procs %q: want positive integers separated by commas", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// runSet is the samples of one run of a suite's rounds: warm (in this
// process) or fresh (a process per round), under one GOMAXPROCS.
type runSet struct {
	fresh bool
	procs int
	ss    [][]measure.Sample
}

func (s runSet) String() string {
	mode := "warm"
	if s.fresh {
		mode = "fresh"
	}
	return fmt.Sprintf("%s, GOMAXPROCS %d", mode, s.procs)
}
