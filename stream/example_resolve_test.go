package stream_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/stream"
)

// ExampleResolve_binding resolves an agent whose card offers JSON-RPC and
// HTTP+JSON, preferring HTTP+JSON; Client.Card is the card Resolve read.
// A card that offers nothing usable ends in an *InvalidCardError.
func ExampleResolve_binding() {
	agent := a2atest.NewAgent(a2atest.WithBindings(a2a.BindingJSONRPC, a2a.BindingHTTPJSON), a2atest.WithRESTBase("/rest"))
	client, err := stream.Resolve(context.Background(), "http://agent.test/",
		stream.WithHTTPClient(agent.Client()), stream.WithBinding(a2a.BindingHTTPJSON))
	if err != nil {
		panic(err)
	}
	fmt.Println(client.Endpoint(), len(client.Card().SupportedInterfaces), "interfaces")
	task, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hi")).Wait()
	fmt.Println(task.Status.State, err, agent.Requests()[0].Path)

	bare := a2atest.NewAgent(a2atest.WithCardJSON([]byte(`{"name":"no interfaces","url":"ftp://agent.test/"}`)))
	_, err = stream.Resolve(context.Background(), "http://agent.test/", stream.WithHTTPClient(bare.Client()))
	var bad *agentcard.InvalidError
	fmt.Println("invalid card:", errors.As(err, &bad))
	// Output:
	// http://agent.test/rest 2 interfaces
	// completed <nil> /rest/message:stream
	// invalid card: true
}
