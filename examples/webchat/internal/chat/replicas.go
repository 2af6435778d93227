package chat

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"sync/atomic"
	"time"

	"github.com/a2astream/a2astream/examples/internal/demo"
)

// startTimeout bounds how long a replica may take to print its URL.
const startTimeout = 15 * time.Second

// parentConfig is what runParent needs from the flags.
type parentConfig struct {
	addr     string
	agentURL string // "": the demo agent, which the parent serves
	redis    string
	replicas int
}

// runParent starts cfg.replicas replica processes of this program (the
// same binary with -replica), sharing the Redis store and the conversation
// IDs' secret, and serves a round-robin reverse proxy in front of them on
// cfg.addr. A replica that dies stays dead: the others take its
// conversations over. With no agent given, the parent serves the demo
// agent on a loopback port, so that the agent outlives any replica.
func runParent(ctx context.Context, cfg parentConfig, stdout, stderr io.Writer, logger *slog.Logger) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret) // never fails

	agentArgs := []string{"-agent", cfg.agentURL}
	if cfg.agentURL == "" {
		url, stop, err := serveDemoAgent()
		if err != nil {
			fmt.Fprintln(stderr, "webchat: demo agent:", err)
			return 1
		}
		defer stop()
		agentArgs = []string{"-agent-endpoint", url}
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "webchat:", err)
		return 1
	}
	var backends []*url.URL
	for range cfg.replicas {
		args := append([]string{"-replica", "-addr", "127.0.0.1:0", "-redis", cfg.redis}, agentArgs...)
		u, stop, err := startReplica(self, args, secret, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "webchat: replica:", err)
			return 1
		}
		defer stop()
		backends = append(backends, u)
	}
	return serve(ctx, cancel, cfg.addr, newProxy(backends, logger), stdout, stderr, logger)
}

// serveDemoAgent serves the demo trip agent on a free loopback port, and
// returns its URL and a function that stops it.
func serveDemoAgent() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: demo.TripAgent(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/", func() { _ = hs.Close() }, nil
}

var listening = regexp.MustCompile(`^webchat listening on (http://\S+/)\n$`)

// startReplica starts one replica and returns its URL, as it prints it,
// and a function that stops it: SIGTERM, then SIGKILL after a few
// seconds.
func startReplica(self string, args []string, secret []byte, stderr io.Writer) (*url.URL, func(), error) {
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), secretEnv+"="+hex.EncodeToString(secret))
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(shutdownTimeout + time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		s, _ := r.ReadString('\n')
		line <- s
		_, _ = io.Copy(io.Discard, r)
	}()
	select {
	case s := <-line:
		m := listening.FindStringSubmatch(s)
		if m == nil {
			stop()
			return nil, nil, fmt.Errorf("replica printed %q", s)
		}
		u, err := url.Parse(m[1])
		if err != nil {
			stop()
			return nil, nil, err
		}
		return u, stop, nil
	case <-time.After(startTimeout):
		stop()
		return nil, nil, errors.New("replica did not start in time")
	}
}

// newProxy returns the round-robin reverse proxy in front of backends. A
// request whose backend cannot be dialled (a dead replica) goes to the
// next one. Event streams flush each write. GET /api/conversations/{id}/driver
// asks every backend, and answers with the one that drives it.
func newProxy(backends []*url.URL, logger *slog.Logger) http.Handler {
	tr := &failover{base: http.DefaultTransport.(*http.Transport).Clone(), backends: backends}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(backends[0]); r.SetXForwarded() },
		Transport:     tr,
		FlushInterval: -1,
		ErrorLog:      slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	mux := http.NewServeMux()
	mux.Handle("/", rp)
	mux.HandleFunc("GET /api/conversations/{id}/driver", func(w http.ResponseWriter, r *http.Request) {
		for _, b := range backends {
			req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, b.JoinPath(r.URL.Path).String(), nil)
			if err != nil {
				continue
			}
			resp, err := tr.base.RoundTrip(req)
			if err != nil {
				continue
			}
			body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(body)
				return
			}
		}
		httpError(w, http.StatusNotFound, "no replica drives this conversation")
	})
	return mux
}

// failover sends each request to the next backend in turn, and to the one
// after when a backend cannot be dialled.
type failover struct {
	base     *http.Transport
	backends []*url.URL
	next     atomic.Uint64
}

// RoundTrip implements http.RoundTripper.
func (f *failover) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	n := uint64(len(f.backends))
	start := f.next.Add(1)
	var err error
	for i := range n {
		b := f.backends[(start+i)%n]
		out := r.Clone(r.Context())
		out.URL.Scheme, out.URL.Host, out.Host = b.Scheme, b.Host, b.Host
		if body != nil {
			out.Body, out.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		var resp *http.Response
		if resp, err = f.base.RoundTrip(out); err == nil {
			return resp, nil
		}
		var op *net.OpError
		if !errors.As(err, &op) || op.Op != "dial" {
			return nil, err
		}
	}
	return nil, err
}
