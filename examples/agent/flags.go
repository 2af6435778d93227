package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/examples/internal/demo"
)

// defaultAddr is where the agent listens unless -addr says otherwise: a
// fixed port, so that the URL in the README and in a client's flags stays
// the same from one run to the next. It is the port of the A2A samples'
// hello-world agent. "-addr 127.0.0.1:0" picks a free port.
const defaultAddr = "127.0.0.1:9999"

// errUsage reports bad flags; the flag set has already said what was wrong.
var errUsage = errors.New("usage")

// config is what the flags ask for.
type config struct {
	addr     string
	mode     demo.Mode
	versions []a2a.Version // in the card's order
	bindings []a2a.Binding // in the card's order, the first preferred
	noStream bool
	delay    time.Duration // between two streamed words
}

// parseFlags reads args into a config. Problems are written to out, with
// the usage, and returned as errUsage; -h returns flag.ErrHelp.
func parseFlags(args []string, out io.Writer) (config, error) {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(out)
	addr := fs.String("addr", defaultAddr, "listen on `host:port`; port 0 picks a free one")
	modeName := fs.String("mode", string(demo.ModeAsk), "what the agent does with each message: answer, ask, fail or cut")
	version := fs.String("version", "both", "A2A protocol version to speak: 0.3, 1.0 or both")
	binding := fs.String("binding", "both", "protocol binding to serve: jsonrpc, rest (HTTP+JSON) or both")
	noStream := fs.Bool("nostream", false, "serve an agent that cannot stream: its card says so, and clients poll")
	delay := fs.Duration("delay", demo.Delay, "pause before each streamed word")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: agent [flags]\n\nagent serves a demo A2A agent on this machine and prints its URL.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, fmt.Errorf("%w: %w", errUsage, err)
	}
	bad := func(format string, a ...any) (config, error) {
		err := fmt.Errorf(format, a...)
		fmt.Fprintf(fs.Output(), "agent: %v\n", err)
		fs.Usage()
		return config{}, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return bad("unexpected argument %q", fs.Arg(0))
	}
	cfg := config{addr: *addr, mode: demo.Mode(*modeName), noStream: *noStream, delay: *delay}
	switch *version {
	case "both":
		cfg.versions = []a2a.Version{a2a.V10, a2a.V03}
	case "0.3":
		cfg.versions = []a2a.Version{a2a.V03}
	case "1.0":
		cfg.versions = []a2a.Version{a2a.V10}
	default:
		return bad("-version %q: want 0.3, 1.0 or both", *version)
	}
	switch *binding {
	case "both":
		cfg.bindings = []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON}
	case "jsonrpc":
		cfg.bindings = []a2a.Binding{a2a.BindingJSONRPC}
	case "rest":
		cfg.bindings = []a2a.Binding{a2a.BindingHTTPJSON}
	default:
		return bad("-binding %q: want jsonrpc, rest or both", *binding)
	}
	switch {
	case !slices.Contains(demo.Modes(), cfg.mode):
		return bad("-mode %q: want answer, ask, fail or cut", *modeName)
	case cfg.mode == demo.ModeCut && cfg.noStream:
		return bad("-mode cut cuts a stream: it needs an agent that streams (drop -nostream)")
	case cfg.delay < 0:
		return bad("-delay %v: must not be negative", cfg.delay)
	}
	return cfg, nil
}
