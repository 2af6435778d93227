// Command agent serves a demo A2A agent over HTTP on this machine, for
// pointing a client at: your own program, the chat example, or any A2A
// client.
//
//	go run ./examples/agent
//	go run ./examples/agent -mode cut -version 0.3 -binding rest
//
// It prints its URL on the first line ("a2a demo agent at
// http://127.0.0.1:9999/"), then one line per request it receives; a
// request that carries W3C trace context (a traceparent header, as
// package a2aotel's streams send) is logged with its trace ID and its
// caller's span ID, so that it is found in the caller's trace. Its
// agent card is at the well-known paths under that URL, so
// stream.Resolve(ctx, url) finds it. It speaks A2A 0.3 and 1.0 over
// JSON-RPC and HTTP+JSON unless -version and -binding narrow it, and
// every message starts a task that runs the -mode's script:
//
//   - answer: streams a short travel plan word by word and completes;
//   - ask: streams half the plan, asks which city to start from
//     (input-required), and after the answer streams the rest;
//   - fail: starts working, then fails with a reason and a structured
//     failure (error_type, error_code) as terminal.ReadStructured reads it;
//   - cut: answers as in answer, but drops the connection in the middle of
//     every task's first stream, so that the client has to resume.
//
// Exit status: 0 once stopped, 1 when it cannot listen (the port is taken,
// say), 2 for bad flags.
//
// With -nostream its card says it cannot stream: clients send with a unary
// send and poll. The agent keeps its tasks in memory and forgets them when
// it stops. SIGINT (Ctrl-C) or SIGTERM stops it: it stops accepting
// connections and gives the streams under way a few seconds to finish.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2) // the flag set has said what was wrong
	default:
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// run serves the demo agent that args describe until ctx is done, writing
// its URL and then its request log to stdout. It returns an error, without
// serving, for bad flags (flag.ErrHelp for -h) or an address it cannot
// listen on, and nil once it has shut down.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	cfg, err := parseFlags(args, stdout)
	if err != nil {
		return err
	}
	return serve(ctx, cfg, stdout)
}
