package stream_test

import (
	"context"
	"fmt"
	"io"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chatview"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// memWire is a binding of another wire, here an in-memory one that plays a
// task of two chunks. A real one (gRPC, say) lives in a module of its own;
// transport.Transport says what each of its failures must be.
type memWire struct{}

func (memWire) SendStream(ctx context.Context, call transport.Call, m *a2a.Message) (transport.EventReader, error) {
	fmt.Println("sent over the wire, speaking", call.Version)
	chunk := func(text string, more bool) a2a.Event {
		return &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: more, Artifact: a2a.Artifact{ID: "answer", Parts: []a2a.Part{{Text: text}}}}
	}
	return &memEvents{ctx: ctx, evs: []a2a.Event{
		&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}},
		chunk("Hello, ", false),
		chunk("world", true),
		&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted}},
	}}, nil
}

func (memWire) SendUnary(context.Context, transport.Call, *a2a.Message) (a2a.Event, error) {
	return nil, &a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "streaming only"}
}

func (memWire) Subscribe(context.Context, transport.Call, string) (transport.EventReader, error) {
	return nil, &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "no such task"}
}

func (memWire) GetTask(context.Context, transport.Call, string) (*a2a.Task, error) {
	return nil, &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "no such task"}
}

func (memWire) Cancel(context.Context, transport.Call, string) (*a2a.Task, error) {
	return nil, &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "no such task"}
}

// memEvents reads the events of one streaming call, then io.EOF: the
// stream's clean end.
type memEvents struct {
	ctx context.Context
	evs []a2a.Event
}

func (r *memEvents) Next() (a2a.Event, error) {
	if err := r.ctx.Err(); err != nil {
		return nil, err // Next returns when the call's context ends
	}
	if len(r.evs) == 0 {
		return nil, io.EOF
	}
	ev := r.evs[0]
	r.evs = r.evs[1:]
	return ev, nil
}

func (r *memEvents) Close() {}

// A binding of another memWire implements transport.Transport and is handed
// to NewClientFor; the stream is the same as over HTTP.
func ExampleNewClientFor() {
	client, err := stream.NewClientFor(memWire{}, stream.WithVersion(a2a.V10))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "Say hello"))
	defer s.Close()
	var screen chatview.Screen
	for s.Next() {
		fmt.Print(screen.Add(s.Event()).Content)
	}
	fmt.Println("\n" + s.Ending().String())
	// Output:
	// sent over the wire, speaking 1.0
	// Hello, world
	// completed
}
