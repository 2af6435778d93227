// Command webchat is a small chat page for an A2A agent. A Go server drives
// the agent's task with a2astream and relays it to the browser with package
// relay, over Server-Sent Events: the streamed answer, the task state,
// reconnects and resumes, the agent's questions (answered in a form on the
// page) and the typed endings. A browser that reconnects gets exactly the
// events it missed (Last-Event-ID).
//
//	go run ./examples/webchat                       # the built-in demo trip planner
//	go run ./examples/webchat -agent https://agent.example
//	go run ./examples/webchat -addr 127.0.0.1:0     # any free port
//
// Once listening, it prints one line, "webchat listening on URL", to stdout.
// It stops on SIGINT or SIGTERM.
//
// The HTTP API the page uses:
//
//	POST /api/messages                    {"text": "...", "contextId": "..."} → 202 {"id": "..."}
//	GET  /api/conversations/{id}/events   text/event-stream of the conversation (relay.Handler)
//	POST /api/conversations/{id}/answer   {"prompt": <seq>, "text": "..."} + Idempotency-Key (relay.Handler)
//	POST /api/conversations/{id}/cancel   cancels the task (relay.Handler)
//	GET  /api/conversations/{id}/driver   200 {"owner", "pid"} when this server drives it, else 404
//
// The events' names and data are package relay's (see relay/event.go).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/a2astream/a2astream/examples/internal/demo"
	"github.com/a2astream/a2astream/stream"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// shutdownTimeout bounds how long run waits for open requests to end.
const shutdownTimeout = 5 * time.Second

// run is the whole program: it parses args, serves until ctx ends, then shuts
// the server down and waits for every conversation to end. It returns the exit
// code: 0 after a clean stop, 1 when the server could not start or failed,
// 2 for bad flags.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("webchat", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", "127.0.0.1:8080", "`host:port` to listen on (port 0 picks a free one)")
	agentURL := flags.String("agent", "", "base `URL` of an A2A agent (default: the built-in demo trip planner)")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "webchat: unexpected arguments: %q\n", flags.Args())
		return 2
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	logger := slog.New(slog.NewTextHandler(stderr, nil))
	dial := func(opts ...stream.Option) (*stream.Client, error) {
		opts = append(opts, stream.WithLogger(logger))
		if *agentURL != "" {
			return stream.Resolve(ctx, *agentURL, opts...)
		}
		agent := demo.TripAgent()
		return stream.NewClient(demo.URL, append(opts, stream.WithHTTPClient(agent.Client()))...)
	}
	app, err := newServer(ctx, dial, serverConfig{})
	if err != nil {
		fmt.Fprintln(stderr, "webchat: cannot reach the agent:", err)
		return 1
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		app.Close()
		fmt.Fprintln(stderr, "webchat:", err)
		return 1
	}
	fmt.Fprintf(stdout, "webchat listening on %s\n", pageURL(ln.Addr()))

	hs := &http.Server{
		Handler:           app,
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
	app.Close()
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
