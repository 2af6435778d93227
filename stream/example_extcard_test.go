package stream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/stream"
)

// ExampleWithExtendedCard resolves an agent that offers an extended card
// and answers a caller it does not recognise with its public card, as the
// @a2a-js/sdk default does: without credentials the Client keeps the
// public card, and the notice says why; with them it holds the extended
// card, with one more skill.
func ExampleWithExtendedCard() {
	const public = `{"name":"travel agent","capabilities":{"extendedAgentCard":true},"skills":[{"id":"book","name":"book"}],` +
		`"supportedInterfaces":[{"url":"/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`
	const extended = `{"name":"travel agent","skills":[{"id":"book","name":"book"},{"id":"refund","name":"refund"}]}`
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == agentcard.Path {
			w.Write([]byte(public))
			return
		}
		var req struct{ ID json.RawMessage } // GetExtendedAgentCard
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		card := public
		if r.Header.Get("Authorization") == "Bearer s3cret" {
			card = extended
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, card)
	}))
	defer agent.Close()

	told := stream.WithNotify(func(n stream.Notice) { fmt.Println(n.Kind, "-", n.Cause) })
	for _, token := range []string{"", "s3cret"} {
		client, err := stream.Resolve(context.Background(), agent.URL, stream.WithExtendedCard(), told,
			stream.WithHeader("Authorization", "Bearer "+token))
		if err != nil {
			panic(err)
		}
		fmt.Println("extended:", client.CardExtended(), "skills:", len(client.Card().Skills))
	}
	// Output:
	// public-card-kept - stream: the agent answered the extended card call with its public card
	// extended: false skills: 1
	// extended: true skills: 2
}
