// Command a2ago is a scripted A2A 0.3 agent built on github.com/a2aproject/a2a-go
// v0.3.3, used as a real peer by the interop tests of a2astream.
//
// It listens on -addr (port 0 picks a free port), prints one line
//
//	A2A_PEER_URL=http://127.0.0.1:PORT/
//
// to stdout once it accepts connections, and serves JSON-RPC on "/" and the
// agent card on /.well-known/agent-card.json until it is killed.
//
// With -grpc ADDR (127.0.0.1:0 picks a free port) it also serves A2A 0.3 over
// gRPC there, with a2a-go's a2agrpc handler over the same request handler,
// lists that interface in the card's additionalInterfaces, and prints
//
//	A2A_PEER_GRPC=127.0.0.1:PORT
//
// before the A2A_PEER_URL line.
//
// The user's text selects the script (see the scenario table in
// interop/README.md); events are spaced by -delay.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2agrpc"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	delay := flag.Duration("delay", 60*time.Millisecond, "pause between events")
	grpcAddr := flag.String("grpc", "", "also serve gRPC on this address (empty: no gRPC)")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/"

	card := &a2a.AgentCard{
		Name:               "a2astream interop peer (a2a-go v0.3.3)",
		Description:        "A scripted agent: the user's text picks the script.",
		URL:                url,
		Version:            "1.0.0",
		ProtocolVersion:    "0.3.0",
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{
			ID:          "script",
			Name:        "script",
			Description: "Plays the scenario named in the message text.",
			Tags:        []string{"test"},
		}},
	}

	handler := a2asrv.NewHandler(&executor{delay: *delay})
	if *grpcAddr != "" {
		gln, err := net.Listen("tcp", *grpcAddr)
		if err != nil {
			log.Fatal(err)
		}
		card.AdditionalInterfaces = []a2a.AgentInterface{
			{Transport: a2a.TransportProtocolJSONRPC, URL: url},
			{Transport: a2a.TransportProtocolGRPC, URL: gln.Addr().String()},
		}
		gs := grpc.NewServer()
		a2agrpc.NewHandler(handler).RegisterWith(gs)
		go func() { log.Fatal(gs.Serve(gln)) }()
		fmt.Printf("A2A_PEER_GRPC=%s\n", gln.Addr())
	}
	mux := http.NewServeMux()
	mux.Handle("/", a2asrv.NewJSONRPCHandler(handler))
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))

	fmt.Printf("A2A_PEER_URL=%s\n", url)
	os.Stdout.Sync()
	log.Fatal(http.Serve(ln, mux))
}

// executor plays the scenario named by the user's text.
type executor struct {
	delay time.Duration
}

// script is one run of Execute: it writes events with a pause before each.
type script struct {
	ctx    context.Context
	req    *a2asrv.RequestContext
	q      eventqueue.Queue
	delay  time.Duration
	artIDs map[string]a2a.ArtifactID
}

func (s *script) pause(factor int) error {
	t := time.NewTimer(time.Duration(factor) * s.delay)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		return s.ctx.Err()
	case <-t.C:
		return nil
	}
}

func (s *script) write(ev a2a.Event) error {
	return s.q.Write(s.ctx, ev)
}

func (s *script) status(state a2a.TaskState, text string, final bool) error {
	var msg *a2a.Message
	if text != "" {
		msg = a2a.NewMessageForTask(a2a.MessageRoleAgent, s.req, a2a.TextPart{Text: text})
	}
	ev := a2a.NewStatusUpdateEvent(s.req, state, msg)
	ev.Final = final
	return s.write(ev)
}

// chunk writes one chunk of the artifact called name: the first chunk of a
// name gets a fresh artifact ID (append=false), later ones append to it.
func (s *script) chunk(name, text string, last bool) error {
	var ev *a2a.TaskArtifactUpdateEvent
	if id, ok := s.artIDs[name]; ok {
		ev = a2a.NewArtifactUpdateEvent(s.req, id, a2a.TextPart{Text: text})
	} else {
		ev = a2a.NewArtifactEvent(s.req, a2a.TextPart{Text: text})
		s.artIDs[name] = ev.Artifact.ID
	}
	ev.Artifact.Name = name
	ev.LastChunk = last
	return s.write(ev)
}

// steps runs each step after a pause of factor × delay, stopping at the
// first error.
func (s *script) steps(factor int, steps ...func() error) error {
	for _, step := range steps {
		if err := s.pause(factor); err != nil {
			return err
		}
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// bigText is the deterministic 2 MiB text of the "big" scenario.
func bigText() string {
	const line = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_\n" // 64 bytes
	return strings.Repeat(line, (2<<20)/len(line))
}

func textOf(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if tp, ok := p.(a2a.TextPart); ok {
			b.WriteString(tp.Text)
		}
	}
	return b.String()
}

func (e *executor) Execute(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
	s := &script{ctx: ctx, req: req, q: q, delay: e.delay, artIDs: map[string]a2a.ArtifactID{}}
	text := textOf(req.Message)
	lower := strings.ToLower(text)

	if req.StoredTask != nil {
		// A follow-up turn: the answer to the input-required prompt.
		return s.steps(1,
			func() error { return s.status(a2a.TaskStateWorking, "", false) },
			func() error { return s.chunk("result", "Booked ", false) },
			func() error { return s.chunk("result", "for "+text+".", true) },
			func() error { return s.status(a2a.TaskStateCompleted, "", true) },
		)
	}

	if strings.Contains(lower, "message") {
		if err := s.pause(1); err != nil {
			return err
		}
		msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.TextPart{Text: "pong: a message, not a task"})
		msg.ContextID = req.ContextID
		return s.write(msg)
	}

	if err := s.write(a2a.NewSubmittedTask(req, req.Message)); err != nil {
		return err
	}
	working := func() error { return s.status(a2a.TaskStateWorking, "", false) }

	switch {
	case strings.Contains(lower, "cancel"):
		if err := s.steps(1, working, func() error { return s.chunk("log", "started; ", false) }); err != nil {
			return err
		}
		// Wait for tasks/cancel; the server cancels ctx once the canceled
		// event has been applied. Complete if it never comes, so that a test
		// that failed to cancel sees a wrong final state.
		if err := s.pause(400); err != nil {
			return nil
		}
		return s.steps(1,
			func() error { return s.chunk("log", "never canceled.", true) },
			func() error { return s.status(a2a.TaskStateCompleted, "", true) },
		)
	case strings.Contains(lower, "reject"):
		return s.steps(1, func() error { return s.status(a2a.TaskStateRejected, "I will not do that.", true) })
	case strings.Contains(lower, "auth"):
		return s.steps(1, working,
			func() error { return s.chunk("log", "needs credentials", true) },
			func() error { return s.status(a2a.TaskStateAuthRequired, "Please sign in to the calendar.", true) },
		)
	case strings.Contains(lower, "error"):
		// The executor fails after working: the server, not the script,
		// ends the call.
		if err := s.steps(1, working); err != nil {
			return err
		}
		return errors.New("scripted executor error")
	case strings.Contains(lower, "fail"):
		return s.steps(1, working,
			func() error { return s.chunk("log", "step 1 ok", true) },
			func() error { return s.status(a2a.TaskStateFailed, "upstream API timed out", true) },
		)
	case strings.Contains(lower, "big"):
		return s.steps(1, working,
			func() error { return s.chunk("blob", bigText(), true) },
			func() error { return s.status(a2a.TaskStateCompleted, "", true) },
		)
	case strings.Contains(lower, "input"):
		return s.steps(1, working,
			func() error { return s.chunk("draft", "Planning the trip.", true) },
			func() error { return s.status(a2a.TaskStateInputRequired, "Which dates?", true) },
		)
	default: // "stream", and "slow" with five times the delay
		factor := 1
		if strings.Contains(lower, "slow") {
			factor = 5
		}
		return s.steps(factor, working,
			func() error { return s.chunk("story", "Once upon a time, ", false) },
			func() error { return s.chunk("story", "a gopher ", false) },
			func() error { return s.chunk("story", "met a node.", true) },
			func() error { return s.chunk("summary", "A short story.", true) },
			func() error { return s.status(a2a.TaskStateCompleted, "", true) },
		)
	}
}

func (e *executor) Cancel(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
	ev := a2a.NewStatusUpdateEvent(req, a2a.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}
