package a2atest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

func ExampleNewAgent() {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03))

	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hello"}]}}}`
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "http://agent.example/", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := agent.Client().Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println(resp.Header.Get("Content-Type"))

	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var msg struct {
			Result struct {
				Kind   string `json:"kind"`
				Status struct {
					State string `json:"state"`
				} `json:"status"`
				Final bool `json:"final"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(data), &msg); err != nil {
			fmt.Println(err)
			return
		}
		r := msg.Result
		fmt.Println(r.Kind, r.Status.State, r.Final)
	}
	if err := sc.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// text/event-stream
	// task submitted false
	// status-update working false
	// artifact-update  false
	// artifact-update  false
	// status-update completed true
}

func ExampleWithBindings() {
	// An agent that, like @a2a-js/sdk 1.3.0's restHandler, speaks only
	// HTTP+JSON; its card lists only that interface.
	agent := a2atest.NewAgent(a2atest.WithBindings(a2a.BindingHTTPJSON))
	card := agent.Card("agent.example")
	fmt.Println(card.SupportedInterfaces[0].ProtocolBinding, card.SupportedInterfaces[0].URL)

	body := `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}`
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "http://agent.example/message:stream", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := agent.Client().Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()

	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		ev, err := a2a.Codec{Version: a2a.V10, Binding: a2a.BindingHTTPJSON}.DecodeEvent([]byte(data))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%T\n", ev)
	}
	if err := sc.Err(); err != nil {
		fmt.Println(err)
	}
	r := agent.Requests()[0]
	fmt.Println(r.Binding, r.Method, r.Path)
	// Output:
	// HTTP+JSON http://agent.example/
	// *a2a.Task
	// *a2a.StatusUpdate
	// *a2a.ArtifactUpdate
	// *a2a.ArtifactUpdate
	// *a2a.StatusUpdate
	// HTTP+JSON SendStreamingMessage /message:stream
}
