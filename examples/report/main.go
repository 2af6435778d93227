// Command report asks an agent for a report that takes minutes, and follows
// it by push notifications once its connection drops: the program mounts a
// push receiver on its own HTTP server, and the stream registers it with
// the agent instead of holding a connection or polling every second.
//
// By default it starts a demo agent of its own, in the same process, whose
// first stream is cut after the first section, and whose sections come
// every -step (10 s: the report takes 80 s). With -agent it asks a real agent
// instead, which must be able to reach -hooks (the URL the receiver is
// mounted at, as the agent sees it).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/stream"
)

func main() {
	agent := flag.String("agent", "", "the base URL of an A2A agent (default: a demo agent in this process)")
	hooks := flag.String("hooks", "", "the URL the agent POSTs notifications to: this program's server, as the agent reaches it (default: the local address)")
	step := flag.Duration("step", 10*time.Second, "the demo agent's time between two sections")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *agent, *hooks, *step); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// sections are the demo report's, one artifact chunk each.
var sections = []string{
	"Revenue rose 4% on the quarter. ",
	"Costs fell in logistics. ",
	"Headcount is flat. ",
	"Cash covers eleven months. ",
	"Two risks: supply and rates. ",
	"The outlook is stable. ",
	"Recommendation: hold. ",
	"End of report.",
}

// run serves the push receiver on a loopback port, asks the agent (or a
// demo agent it starts) for the report, and prints each section as it
// comes, and each notice. It returns nil when the report completed.
func run(ctx context.Context, out io.Writer, agentURL, hooksURL string, step time.Duration) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	if hooksURL == "" {
		hooksURL = "http://" + ln.Addr().String() + "/hooks/a2a"
	}
	recv, err := push.NewReceiver(hooksURL)
	if err != nil {
		return err
	}
	mux := http.NewServeMux() // the application's own server
	mux.Handle("POST /hooks/a2a/{id}", recv)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	if agentURL == "" {
		agent, url, stopAgent, err := demoAgent(step)
		if err != nil {
			return err
		}
		defer stopAgent()
		defer agent.Close()
		agentURL = url
	}
	client, err := stream.Resolve(ctx, agentURL,
		stream.WithPush(recv),
		stream.WithPushPollInterval(5*time.Minute), // a safety net: notifications drive the stream
		stream.WithStallTimeout(10*time.Minute),
		stream.WithNotify(func(n stream.Notice) { fmt.Fprintf(out, "[%s]\n", n.Kind) }))
	if err != nil {
		return err
	}
	defer client.Close()
	s := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "The quarterly report, please."))
	defer s.Close()
	for s.Next() {
		if u, ok := s.Event().(*a2a.ArtifactUpdate); ok {
			fmt.Fprintln(out, strings.TrimSpace(u.Artifact.Text()))
		}
	}
	fmt.Fprintln(out, s.Ending())
	return s.Ending().Err
}

// demoAgent serves an agent on a loopback port that writes the report one
// section every step, pushes each event to the webhooks it is given, and
// cuts its first stream after the first section.
func demoAgent(step time.Duration) (*a2atest.Agent, string, func(), error) {
	steps := []a2atest.Step{a2atest.Working("Writing the report.")}
	for i, text := range sections {
		if i > 0 {
			steps = append(steps, a2atest.Pause(step))
		}
		steps = append(steps, a2atest.Chunk("report", text, i > 0, i == len(sections)-1))
	}
	steps = append(steps, a2atest.Finish(a2a.StateCompleted, "The report is ready."))
	agent := a2atest.NewAgent(a2atest.WithPush(), a2atest.WithScript(steps...),
		a2atest.WithFaults(a2atest.CutAfterEvents(3))) // the task, working, the first section: then the connection drops
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, err
	}
	srv := &http.Server{Handler: agent, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "demo agent:", err)
		}
	}()
	return agent, "http://" + ln.Addr().String() + "/", func() { _ = srv.Close() }, nil
}
