package chat

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/a2astream/a2astream/examples/internal/demo"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// shutdownTimeout bounds how long Run waits for open requests to end.
const shutdownTimeout = 5 * time.Second

// secretEnv passes the conversation IDs' secret from the parent to its
// replicas (not on the command line, where ps shows it).
const secretEnv = "WEBCHAT_SECRET"

// StoreFunc opens the relay.Store at a Redis address, and returns a
// function that closes it.
type StoreFunc func(addr string) (relay.Store, func(), error)

// Run is the whole program: it parses args, serves until ctx ends, then
// shuts the server down and waits for every conversation to end. It
// returns the exit code: 0 after a clean stop, 1 when the server could not
// start or failed, 2 for bad flags. redis opens the store of -redis; nil
// means this build has none (the flag is refused).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, redis StoreFunc) int {
	flags := flag.NewFlagSet("webchat", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", "127.0.0.1:8080", "`host:port` to listen on (port 0 picks a free one)")
	agentURL := flags.String("agent", "", "base `URL` of an A2A agent (default: the built-in demo trip planner)")
	redisAddr := flags.String("redis", "", "keep the conversations in the Redis at `host:port` (default: in memory)")
	replicas := flags.Int("replicas", 1, "run `n` replica processes behind a round-robin proxy on -addr (needs -redis)")
	replica := flags.Bool("replica", false, "run as one replica of a parent webchat (set by -replicas)")
	endpoint := flags.String("agent-endpoint", "", "the agent's A2A endpoint `URL`, without resolving its card (set by -replicas)")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "webchat: "+format+"\n", a...)
		return 2
	}
	switch {
	case flags.NArg() > 0:
		return bad("unexpected arguments: %q", flags.Args())
	case *redisAddr != "" && redis == nil:
		return bad("-redis: this build keeps conversations in memory only; run examples/webchat/redis (see its doc)")
	case *replicas < 1:
		return bad("-replicas %d: want 1 or more", *replicas)
	case *replicas > 1 && *redisAddr == "":
		return bad("-replicas %d: replicas share their conversations through Redis: give -redis", *replicas)
	case *replicas > 1 && *replica:
		return bad("-replicas and -replica do not go together")
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	if *replicas > 1 {
		return runParent(ctx, parentConfig{
			addr: *addr, agentURL: *agentURL, redis: *redisAddr, replicas: *replicas,
		}, stdout, stderr, logger)
	}

	cfg := serverConfig{}
	if *redisAddr != "" {
		store, closeStore, err := redis(*redisAddr)
		if err != nil {
			fmt.Fprintln(stderr, "webchat: redis:", err)
			return 1
		}
		defer closeStore()
		cfg.store = store
	}
	if *replica {
		secret, err := hex.DecodeString(os.Getenv(secretEnv))
		if err != nil || len(secret) == 0 {
			return bad("-replica: no secret in $%s", secretEnv)
		}
		cfg.secret, cfg.replicas = secret, true
		cfg.owner = fmt.Sprintf("replica/%d", os.Getpid())
	}
	dial := func(opts ...stream.Option) (*stream.Client, error) {
		opts = append(opts, stream.WithLogger(logger))
		switch {
		case *endpoint != "":
			return stream.NewClient(*endpoint, opts...)
		case *agentURL != "":
			return stream.Resolve(ctx, *agentURL, opts...)
		}
		agent := demo.TripAgent()
		return stream.NewClient(demo.URL, append(opts, stream.WithHTTPClient(agent.Client()))...)
	}
	app, err := newServer(ctx, dial, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "webchat: cannot reach the agent:", err)
		return 1
	}
	defer app.Close()
	return serve(ctx, cancel, *addr, app, stdout, stderr, logger)
}

// serve serves h on addr until ctx ends, then shuts the server down. It
// prints "webchat listening on URL" once listening.
func serve(ctx context.Context, cancel context.CancelFunc, addr string, h http.Handler, stdout, stderr io.Writer, logger *slog.Logger) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(stderr, "webchat:", err)
		return 1
	}
	fmt.Fprintf(stdout, "webchat listening on %s\n", pageURL(ln.Addr()))

	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		// Every request's context ends with ctx, so open event streams end
		// when the program stops.
		BaseContext: func(net.Listener) context.Context { return ctx },
		ErrorLog:    slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}
	cancel() // ends every conversation and event stream

	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer scancel()
	if err := hs.Shutdown(sctx); err != nil {
		fmt.Fprintln(stderr, "webchat: shutdown:", err)
	}
	if serveErr == nil {
		serveErr = <-served // Serve returns at once after Shutdown
	}
	if !errors.Is(serveErr, http.ErrServerClosed) {
		fmt.Fprintln(stderr, "webchat:", serveErr)
		return 1
	}
	return 0
}

// pageURL is the URL of the page served on addr. An unspecified host
// (":8080", "0.0.0.0:8080") is shown as localhost.
func pageURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}
