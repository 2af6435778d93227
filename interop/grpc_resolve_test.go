package interop_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/interop/proxy"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// Each SDK's gRPC server reached as an application that knows only the
// agent's URL reaches it: stream.Resolve reads the card, which names the
// gRPC interface, and, given the gRPC binding (a2agrpc.Opener with
// stream.WithTransportFor and stream.WithBinding), opens it.
//
// The peers' cards name their own gRPC address (127.0.0.1:PORT), which the
// proxy, a TCP proxy in gRPC mode, cannot rewrite: it does not serve the
// card. So the card is read from the peer's HTTP interface by an
// http.Client that rewrites that address in the card to the gRPC proxy's
// (cardRewriter), as the HTTP proxy rewrites a card's HTTP URLs to its own:
// the interface Resolve opens is then the proxy, and every call of the
// Client goes through it.

// cardRewriter is an http.RoundTripper that replaces the JSON string from
// (a quoted address) by to in every response body, and records the paths
// it was asked for and how many strings it replaced.
type cardRewriter struct {
	from, to string

	mu       sync.Mutex
	paths    []string
	rewrites int
}

func (c *cardRewriter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := (&http.Transport{DisableKeepAlives: true}).RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	quoted := strconv.Quote(c.from)
	c.mu.Lock()
	c.paths = append(c.paths, req.URL.Path)
	c.rewrites += bytes.Count(body, []byte(quoted))
	c.mu.Unlock()
	body = bytes.ReplaceAll(body, []byte(quoted), []byte(strconv.Quote(c.to)))
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// resolveGRPC returns a client of the gRPC peer p made by stream.Resolve
// from p's card (read with a cardRewriter, so that its gRPC interface names
// the proxy px), given the gRPC binding, with opts after those, closed in
// t's cleanup. It checks that Resolve picked the card's gRPC interface of
// p's version, at px, that the Client speaks neither HTTP binding (Binding
// and Endpoint are "" for a Client over a Transport), and that nothing but
// the card was read over HTTP.
func resolveGRPC(t *testing.T, px *proxy.Proxy, p *peer, opts ...stream.Option) *stream.Client {
	t.Helper()
	if !p.def.grpc {
		t.Fatalf("%s is no gRPC peer", p.def.name)
	}
	rw := &cardRewriter{from: p.grpcAddr, to: px.Addr()}
	var (
		mu     sync.Mutex
		opened []a2a.AgentInterface
	)
	open := a2agrpc.Opener(a2agrpc.WithInsecure())
	record := func(in a2a.AgentInterface) (transport.Transport, error) {
		mu.Lock()
		opened = append(opened, in)
		mu.Unlock()
		return open(in)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := stream.Resolve(ctx, p.url, append([]stream.Option{
		stream.WithVersion(p.def.version),
		stream.WithHTTPClient(&http.Client{Transport: rw}),
		stream.WithBinding(a2a.BindingGRPC),
		stream.WithTransportFor(a2a.BindingGRPC, record),
	}, opts...)...)
	if err != nil {
		t.Fatalf("Resolve %s with the gRPC binding: %v", p.url, err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Client.Close: %v", err)
		}
	})
	mu.Lock()
	defer mu.Unlock()
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.rewrites == 0 {
		t.Fatalf("the card (read at %q) names no gRPC interface at %s", rw.paths, p.grpcAddr)
	}
	if len(opened) != 1 {
		t.Fatalf("Resolve opened %d interfaces (%+v), want 1", len(opened), opened)
	}
	in := opened[0]
	grpcBinding := in.ProtocolBinding == string(a2a.BindingGRPC) || in.Transport == string(a2a.BindingGRPC)
	if !grpcBinding || in.URL != px.Addr() {
		t.Fatalf("Resolve opened %+v, want the gRPC interface at the proxy %s", in, px.Addr())
	}
	if v := a2a.Version(in.ProtocolVersion); v != "" && v != p.def.version {
		t.Fatalf("Resolve opened the interface of version %s, want %s", v, p.def.version)
	}
	if c.Binding() != "" || c.Endpoint() != "" {
		t.Fatalf("the Client speaks %q at %q, want neither HTTP binding (a Client over a Transport)", c.Binding(), c.Endpoint())
	}
	if c.Version() != p.def.version {
		t.Fatalf("the Client speaks %s, want %s", c.Version(), p.def.version)
	}
	for _, path := range rw.paths {
		if !strings.Contains(path, "agent") || !strings.HasSuffix(path, ".json") {
			t.Fatalf("an HTTP request for %s besides the card: the calls must go over gRPC", path)
		}
	}
	return c
}

// TestGRPCResolve: on each SDK's gRPC server, a client made by
// stream.Resolve from the card with the gRPC binding (resolveGRPC) runs
// the stream scenario to its end, uncut and with its stream cut through
// the proxy after the first event and in the middle of an event, each run
// ending as the scenario wants, the message sent once, and every call a
// gRPC call of the peer's version's service.
func TestGRPCResolve(t *testing.T) {
	var sc scenario
	for _, s := range scenarios {
		if s.name == "stream" {
			sc = s
		}
	}
	cuts := map[string]bool{"cut-after-first": true, "cut-mid-event": true}
	service := map[a2a.Version]string{a2a.V03: "/a2a.v1.A2AService/", a2a.V10: "/lf.a2a.v1.A2AService/"}
	eachPeerOf(t, grpcPeerDefs, grpcAllPeers, func(t *testing.T, p *peer) {
		variants := []variant{{name: "uncut"}}
		for _, v := range streamVariants {
			if cuts[v.name] {
				variants = append(variants, v)
			}
		}
		for _, v := range variants {
			t.Run(v.name, func(t *testing.T) {
				f := faults{viaCard: true}
				if v.plan != nil {
					f.plan = v.plan(sc)
				}
				got, rl := run(t, p, sc, f)
				px := rl.px
				recs := px.Records()
				t.Logf("faults %v; streams: %+v; requests:\n%s", f, recs, requestLog(px))
				if len(f.plan) > 0 && (len(recs) == 0 || !recs[0].Fired) {
					t.Fatalf("the cut (%v) never fired: streams %+v; the run ended with %v", f.plan[0], recs, got)
				}
				if want := withText(sc.want); !reflect.DeepEqual(got, want) {
					t.Fatalf("with %v:\n got: %v\nwant: %v", f, got, want)
				}
				checkSends(t, px, sc)
				reqs := px.Requests()
				if len(reqs) == 0 {
					t.Fatal("no call went through the proxy")
				}
				for _, r := range reqs {
					if !strings.HasPrefix(r.Path, service[p.def.version]) {
						t.Fatalf("a call of %s, want %s* (the interface of version %s)", r.Path, service[p.def.version], p.def.version)
					}
				}
			})
		}
	})
}
