package agentcard_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"
)

// cardServer serves a card with the given Cache-Control and ETag headers
// and header's lines, answering 304 to a matching If-None-Match (with the
// ETag etag304 when set), and counts what it answered.
type cardServer struct {
	mu                 sync.Mutex
	cacheControl, etag string
	header             http.Header
	etag304            string
	full, notModified  int
	conditional        []string
}

func (s *cardServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conditional = append(s.conditional, r.Header.Get("If-None-Match"))
	if s.cacheControl != "" {
		w.Header().Set("Cache-Control", s.cacheControl)
	}
	for k, vs := range s.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if s.etag != "" {
		w.Header().Set("ETag", s.etag)
		if r.Header.Get("If-None-Match") == s.etag {
			if s.etag304 != "" {
				w.Header().Set("ETag", s.etag304)
			}
			s.notModified++
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	s.full++
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"name":"etag agent","url":"http://agent.test/","protocolVersion":"0.3.0","capabilities":{"streaming":true}}`))
}

// cardOrigin serves an agent card whose response headers a test sets for
// each request, and records the card requests.
type cardOrigin struct {
	mu     sync.Mutex
	reqs   []*http.Request
	answer func(n int, r *http.Request, w http.ResponseWriter) // n counts card requests from 0
}

func (o *cardOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	n := len(o.reqs)
	o.reqs = append(o.reqs, r.Clone(context.Background()))
	o.mu.Unlock()
	o.answer(n, r, w)
}

func (o *cardOrigin) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.reqs)
}

func (o *cardOrigin) last() *http.Request {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.reqs[len(o.reqs)-1]
}

// namedCard is the body of a card named name.
func namedCard(name string) []byte {
	return []byte(`{"name":"` + name + `","description":"d","version":"1","supportedInterfaces":[{"url":"http://agent.test/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`)
}

// serveNamedCard answers with the card and the header lines given ("Name:
// value" each, repeated names making several field lines).
func serveNamedCard(w http.ResponseWriter, name string, lines ...string) {
	for _, l := range lines {
		k, v, _ := strings.Cut(l, ":")
		w.Header().Add(k, strings.TrimSpace(v))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(namedCard(name))
}

// fixedCard serves the same headers on every request.
func fixedCard(lines ...string) *cardOrigin {
	return &cardOrigin{answer: func(n int, r *http.Request, w http.ResponseWriter) { serveNamedCard(w, "card", lines...) }}
}

// targetRecorder serves h and records the method and request target (the
// path and query exactly as sent) of every request.
type targetRecorder struct {
	h http.Handler

	mu   sync.Mutex
	seen []string
}

func (s *targetRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.seen = append(s.seen, r.Method+" "+r.RequestURI)
	s.mu.Unlock()
	s.h.ServeHTTP(w, r)
}

// since returns the targets recorded from the n-th on.
func (s *targetRecorder) since(n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen[n:]...)
}

// waitFake lets d pass on the bubble's fake clock.
func waitFake(d time.Duration) {
	if d > 0 {
		<-time.After(d)
	}
}
