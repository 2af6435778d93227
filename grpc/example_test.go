package a2agrpc_test

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/credentials"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/stream"
)

// A Transport for an agent's gRPC interface, handed to stream.NewClientFor:
// the stream is the same as over HTTP.
func ExampleNew() {
	tr, err := a2agrpc.New("agent.example:443",
		a2agrpc.WithTransportCredentials(credentials.NewTLS(nil)),
		a2agrpc.WithConnectTimeout(5*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tr.Close()
	client, err := stream.NewClientFor(tr,
		stream.WithIdleTimeout(time.Minute),
		stream.WithHeader("Authorization", "Bearer …"))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "Say hello"))
	defer s.Close()
	for s.Next() {
		fmt.Printf("%T\n", s.Event())
	}
	if err := s.Err(); err != nil {
		fmt.Println(err)
	}
}

// Resolve reads the agent's card and, when the interface it picks is gRPC,
// opens it with Opener; Client.Close closes the connection.
func ExampleOpener() {
	client, err := stream.Resolve(context.Background(), "https://agent.example/",
		stream.WithTransportFor(a2a.BindingGRPC,
			a2agrpc.Opener(a2agrpc.WithTransportCredentials(credentials.NewTLS(nil)))),
		stream.WithHeader("Authorization", "Bearer …"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "Say hello"))
	defer s.Close()
	for s.Next() {
		fmt.Printf("%T\n", s.Event())
	}
	if err := s.Err(); err != nil {
		fmt.Println(err)
	}
}
