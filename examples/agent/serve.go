package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// shutdownGrace is how long the agent lets the streams under way finish
// once asked to stop, before it closes their connections.
const shutdownGrace = 5 * time.Second

// serve listens on cfg.addr, writes the agent's URL to stdout as its first
// line, and serves the agent until ctx is done; then it shuts down within
// shutdownGrace.
func serve(ctx context.Context, cfg config, stdout io.Writer) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", cfg.addr)
	if err != nil {
		return err
	}
	out := &lockedWriter{w: stdout}
	url := baseURL(ln.Addr())
	fmt.Fprintf(out, "a2a demo agent at %s\n", url)
	fmt.Fprintf(out, "mode %s · A2A %s · %s · %s · Ctrl-C stops it\n",
		cfg.mode, join(cfg.versions), join(cfg.bindings), streams(cfg.noStream))

	srv := &http.Server{
		Handler:           logRequests(newAgent(cfg), out),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(out, "agent: ", 0),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return err // Serve never returns nil
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(sctx)
	if err != nil {
		// Streams still open after the grace period: cut them.
		err = errors.Join(err, srv.Close())
	}
	<-served // http.ErrServerClosed
	if err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	fmt.Fprintln(out, "stopped")
	return nil
}

// baseURL is the agent's URL at addr. An address that listens on every
// interface is reached at 127.0.0.1.
func baseURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// join names versions or bindings for a person: "1.0 and 0.3",
// "JSON-RPC and HTTP+JSON".
func join[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
		if s[i] == string(a2a.BindingJSONRPC) {
			s[i] = "JSON-RPC"
		}
	}
	return strings.Join(s, " and ")
}

func streams(noStream bool) string {
	if noStream {
		return "no streaming (clients poll)"
	}
	return "streaming"
}

// logRequests writes one line to out for each request h serves: its HTTP
// method, path and, for JSON-RPC, the method called, its A2A-Version, and
// whether it carried an Authorization header (so that a user sees a
// per-call token arrive; the value is never written), and the W3C trace
// it is part of, when its traceparent header names one (traceOf); and one
// more when h cuts the connection on purpose.
func logRequests(h http.Handler, out io.Writer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := r.Method + " " + r.URL.Path
		if m := rpcMethod(r); m != "" {
			call += " " + m
		}
		if v := r.Header.Get("A2A-Version"); v != "" {
			call += " (A2A-Version: " + v + ")"
		}
		if r.Header.Get("Authorization") != "" {
			call += " with Authorization" // never its value
		}
		if trace, parent, ok := traceOf(r.Header); ok {
			call += " in trace " + trace + " from span " + parent
		}
		fmt.Fprintf(out, "← %s\n", call)
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					fmt.Fprintf(out, "✂ cut the connection of %s mid-answer\n", call)
				}
				panic(p)
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// rpcMethod is the method of a JSON-RPC request, "" for any other request.
// It leaves r's body as it found it.
func rpcMethod(r *http.Request) string {
	if r.Method != http.MethodPost || r.Body == nil {
		return ""
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil {
		return ""
	}
	var env struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
	}
	if json.Unmarshal(body, &env) != nil || env.JSONRPC == "" {
		return ""
	}
	return env.Method
}

// lockedWriter serializes the writes of concurrent handlers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
