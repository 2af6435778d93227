package stream_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// ExampleWithHTTPClient_h2c streams a task over HTTP/2 without TLS (h2c,
// with prior knowledge) to an agent that serves it, such as a local agent
// whose http.Server sets Protocols with SetUnencryptedHTTP2. Over HTTPS,
// net/http's Transport negotiates HTTP/2 by itself.
//
// HTTP/2 is the lighter choice for a process that holds many idle streams:
// a Client's streams share connections (250 to one against a Go server),
// and each idle stream costs net/http about 8 KiB (its request writer's
// goroutine and stack, and a 1 KiB receive buffer) instead of a connection
// of about 22 KiB (4 KiB read and write buffers, two goroutines and their
// stacks). The benchmark's 10,000 idle streams (bench/, suite many)
// measured 14.5 KiB per stream everything included over h2c and 28.9 KiB
// over HTTP/1.1. Over loopback, though, a stream's events/s were about 25 %
// lower over h2c than over HTTP/1.1.
//
// Over HTTP/1.1, smaller Transport buffers cut the connection's share:
// ReadBufferSize and WriteBufferSize of 1 KiB (4 KiB each by default) saved
// about 6 KiB per idle stream (21.9 KiB in all), with no throughput loss
// beyond the noise of the measurement (5 %):
//
//	tr := http.DefaultTransport.(*http.Transport).Clone()
//	tr.ReadBufferSize, tr.WriteBufferSize = 1<<10, 1<<10
func ExampleWithHTTPClient_h2c() {
	// An agent in process, served over h2c only.
	agent := a2atest.NewAgent()
	proto := make(chan string, 10)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto <- r.Proto
		agent.ServeHTTP(w, r)
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	defer srv.Close()

	// The recipe: a Transport that speaks h2c only.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	client, err := stream.NewClient(srv.URL+"/", stream.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		panic(err)
	}

	s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
	defer s.Close()
	for s.Next() {
		if u, ok := s.Event().(*a2a.ArtifactUpdate); ok {
			fmt.Print(u.Artifact.Text())
		}
	}
	fmt.Println()
	fmt.Println("error:", s.Err())
	fmt.Println("over", <-proto)
	// Output:
	// hello world
	// error: <nil>
	// over HTTP/2.0
}
