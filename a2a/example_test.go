package a2a_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
)

// ExampleCodec_DecodeEvent reads the same status update as a 0.3 server and a
// 1.0 server send it. Both decode into one *a2a.StatusUpdate; only the 0.3
// "final" flag tells them apart.
func ExampleCodec_DecodeEvent() {
	v03 := []byte(`{"kind":"status-update","taskId":"trip-7","contextId":"ctx-7","final":true,` +
		`"status":{"state":"input-required","message":{"kind":"message","messageId":"ask-1","role":"agent",` +
		`"parts":[{"kind":"text","text":"Which airport?"}]}}}`)
	v10 := []byte(`{"statusUpdate":{"taskId":"trip-7","contextId":"ctx-7",` +
		`"status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"ask-1","role":"ROLE_AGENT",` +
		`"parts":[{"text":"Which airport?"}]}}}}`)

	for _, data := range [][]byte{v03, v10} {
		ev, err := a2a.Codec{}.DecodeEvent(data)
		if err != nil {
			fmt.Println(err)
			return
		}
		switch e := ev.(type) {
		case *a2a.StatusUpdate:
			fmt.Printf("task %s: %s (interrupted: %t, final: %t) %s: %q\n", e.TaskID, e.Status.State,
				e.Status.State.Interrupted(), e.Final, e.Status.Message.Role, e.Status.Message.Text())
		default:
			fmt.Printf("other result %T\n", e)
		}
	}

	// An object that is none of the four results in either version.
	_, err := a2a.Codec{}.DecodeEvent([]byte(`{"kind":"heartbeat"}`))
	fmt.Println(errors.Is(err, a2a.ErrUnknownResult))
	// Output:
	// task trip-7: input-required (interrupted: true, final: true) agent: "Which airport?"
	// task trip-7: input-required (interrupted: true, final: false) agent: "Which airport?"
	// true
}

// ExampleCodec_EncodeEvent writes one artifact chunk as a stream result of each
// version, as a fake server would send it.
func ExampleCodec_EncodeEvent() {
	u := &a2a.ArtifactUpdate{
		TaskID: "trip-7", ContextID: "ctx-7", Append: true, LastChunk: true,
		Artifact: a2a.Artifact{ID: "itinerary", Parts: []a2a.Part{a2a.TextPart("Day 2: the harbour.")}},
	}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		data, err := a2a.Codec{Version: v}.EncodeEvent(u)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s %s\n", v, data)
	}
	// Output:
	// 0.3 {"kind":"artifact-update","taskId":"trip-7","contextId":"ctx-7","artifact":{"artifactId":"itinerary","parts":[{"kind":"text","text":"Day 2: the harbour."}]},"append":true,"lastChunk":true}
	// 1.0 {"artifactUpdate":{"taskId":"trip-7","contextId":"ctx-7","artifact":{"artifactId":"itinerary","parts":[{"text":"Day 2: the harbour."}]},"append":true,"lastChunk":true}}
}

// ExampleCodec_EncodeTask writes the result of a get-task call in A2A 1.0 and
// reads it back. A zero timestamp is not written.
func ExampleCodec_EncodeTask() {
	task := &a2a.Task{
		ID: "trip-7", ContextID: "ctx-7",
		Status: a2a.TaskStatus{State: a2a.StateSubmitted},
		History: []a2a.Message{{
			ID: "req-1", TaskID: "trip-7", ContextID: "ctx-7", Role: a2a.RoleUser,
			Parts: []a2a.Part{a2a.TextPart("Plan two days in Lisbon.")},
		}},
	}
	data, err := a2a.Codec{Version: a2a.V10}.EncodeTask(task)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(data))

	back, err := a2a.Codec{}.DecodeTask(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.Status.State, back.History[0].Role, back.History[0].Text())
	// Output:
	// {"id":"trip-7","contextId":"ctx-7","status":{"state":"TASK_STATE_SUBMITTED"},"history":[{"messageId":"req-1","role":"ROLE_USER","parts":[{"text":"Plan two days in Lisbon."}],"taskId":"trip-7","contextId":"ctx-7"}]}
	// submitted user Plan two days in Lisbon.
}

// ExampleCodec_EncodeTask_httpJSON writes the same finished task over the JSON-RPC and
// the HTTP+JSON bindings of A2A 0.3, which differ, and reads the HTTP+JSON
// body back with DecodeTask.
func ExampleCodec_EncodeTask_httpJSON() {
	task := &a2a.Task{
		ID: "trip-7", ContextID: "ctx-7",
		Status: a2a.TaskStatus{State: a2a.StateCompleted},
		Artifacts: []a2a.Artifact{{
			ID: "budget", Name: "budget",
			Parts: []a2a.Part{{Data: json.RawMessage(`{"eur":420}`)}},
		}},
	}
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		data, err := a2a.Codec{Version: a2a.V03, Binding: b}.EncodeTask(task)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s\n", b, data)
	}

	body := []byte(`{"id":"trip-7","contextId":"ctx-7","status":{"state":"TASK_STATE_COMPLETED"},` +
		`"artifacts":[{"artifactId":"budget","name":"budget","parts":[{"data":{"data":{"eur":420}}}]}]}`)
	back, err := a2a.Codec{Version: a2a.V03, Binding: a2a.BindingHTTPJSON}.DecodeTask(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.Status.State, back.Status.State.Terminal(), string(back.Artifacts[0].Parts[0].Data))
	// Output:
	// JSONRPC: {"kind":"task","id":"trip-7","contextId":"ctx-7","status":{"state":"completed"},"artifacts":[{"artifactId":"budget","name":"budget","parts":[{"kind":"data","data":{"eur":420}}]}]}
	// HTTP+JSON: {"id":"trip-7","contextId":"ctx-7","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"budget","name":"budget","parts":[{"data":{"data":{"eur":420}}}]}]}
	// completed true {"eur":420}
}

// ExampleCodec_EncodeMessage converts a message from a 0.3 client into the 1.0
// shape: DecodeMessage reads either version.
func ExampleCodec_EncodeMessage() {
	in := []byte(`{"kind":"message","messageId":"req-2","role":"user","parts":[` +
		`{"kind":"text","text":"Here is my passport."},` +
		`{"kind":"file","file":{"uri":"https://files.example/p.pdf","mimeType":"application/pdf","name":"p.pdf"}}]}`)
	m, err := a2a.Codec{}.DecodeMessage(in)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := a2a.Codec{Version: a2a.V10}.EncodeMessage(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// {"messageId":"req-2","role":"ROLE_USER","parts":[{"text":"Here is my passport."},{"url":"https://files.example/p.pdf","mediaType":"application/pdf","filename":"p.pdf"}]}
}

// ExampleCodec_EncodeMessage_httpJSON writes the message of a send request for a 0.3
// HTTP+JSON server, whose proto-JSON puts the parts under "content", and
// reads such a body with DecodeMessage.
func ExampleCodec_EncodeMessage_httpJSON() {
	m := &a2a.Message{
		ID: "req-3", ContextID: "ctx-7", Role: a2a.RoleUser,
		Parts: []a2a.Part{a2a.TextPart("Lisbon, from 3 May.")},
	}
	out, err := a2a.Codec{Version: a2a.V03, Binding: a2a.BindingHTTPJSON}.EncodeMessage(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))

	back, err := a2a.Codec{Version: a2a.V03, Binding: a2a.BindingHTTPJSON}.DecodeMessage(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.ID, back.Role, back.Text())
	// Output:
	// {"messageId":"req-3","contextId":"ctx-7","role":"ROLE_USER","content":[{"text":"Lisbon, from 3 May."}]}
	// req-3 user Lisbon, from 3 May.
}

// ExampleNewEventDecoder decodes the SSE data of one A2A 1.0 stream over
// HTTP+JSON: each event is a bare stream result. A result of a kind this
// package does not know wraps ErrUnknownResult, and the stream goes on.
func ExampleNewEventDecoder() {
	dec := a2a.NewEventDecoder(a2a.Codec{Version: a2a.V10, Binding: a2a.BindingHTTPJSON})
	events := []string{
		`{"task":{"id":"trip-7","contextId":"ctx-7","status":{"state":"TASK_STATE_WORKING"}}}`,
		`{"ping":{}}`,
		`{"artifactUpdate":{"taskId":"trip-7","contextId":"ctx-7",` +
			`"artifact":{"artifactId":"itinerary","parts":[{"text":"Day 1: Alfama."}]}}}`,
	}
	for _, data := range events {
		ev, err := dec.Decode([]byte(data))
		switch {
		case errors.Is(err, a2a.ErrUnknownResult):
			fmt.Println("unknown result, skipped")
		case err != nil:
			fmt.Println(err)
		default:
			fmt.Printf("%T\n", ev)
		}
	}
	// Output:
	// *a2a.Task
	// unknown result, skipped
	// *a2a.ArtifactUpdate
}

// ExampleTaskState sorts every task state into those that end a task and
// those that wait on the client.
func ExampleTaskState() {
	states := []a2a.TaskState{
		a2a.StateSubmitted, a2a.StateWorking, a2a.StateInputRequired, a2a.StateAuthRequired,
		a2a.StateCompleted, a2a.StateCanceled, a2a.StateFailed, a2a.StateRejected, a2a.StateUnknown,
	}
	for _, s := range states {
		switch {
		case s.Terminal():
			fmt.Println(s, "terminal")
		case s.Interrupted():
			fmt.Println(s, "interrupted")
		default:
			fmt.Println(s, "active")
		}
	}
	// Output:
	// submitted active
	// working active
	// input-required interrupted
	// auth-required interrupted
	// completed terminal
	// canceled terminal
	// failed terminal
	// rejected terminal
	// unknown active
}

// ExamplePart_Equal compares parts by content, media type, file name and
// metadata; IsText tells a plain text part from the others.
func ExamplePart_Equal() {
	a := a2a.TextPart("Day 1: Alfama.")
	b := a2a.Part{Text: "Day 1: Alfama."}
	c := a2a.Part{Text: "Day 1: Alfama.", Metadata: map[string]any{"lang": "en"}}
	d := a2a.Part{Data: json.RawMessage(`{"day":1}`), MediaType: "application/json"}

	fmt.Println(a.Equal(&b), a.Equal(&c), a.Equal(&d))
	fmt.Println(a.IsText(), c.IsText(), d.IsText())
	// Output:
	// true false false
	// true true false
}

// ExamplePart_Equal_data compares data parts by JSON value: one value in
// two forms, as a server that keeps JSON in a database may give it back
// poll after poll, makes equal parts; another value does not.
func ExamplePart_Equal_data() {
	a := json.RawMessage(`{"city":"Lisbon","days":3,"price":12.50}`)
	b := json.RawMessage(`{ "price": 1250e-2, "days": 3.0, "city": "Lisb\u006fn" }`)
	c := json.RawMessage(`{"city":"Lisbon","days":4,"price":12.50}`)
	p, q, r := a2a.Part{Data: a}, a2a.Part{Data: b}, a2a.Part{Data: c}
	fmt.Println(p.Equal(&q), p.Equal(&r))
	// Output:
	// true false
}

// ExampleParseVersion reads the protocol version of an agent card or an
// A2A-Version header.
func ExampleParseVersion() {
	for _, s := range []string{"0.3.0", "1.0", "1.0.2", "0.2.6", "2.0"} {
		v, ok := a2a.ParseVersion(s)
		fmt.Printf("%q -> %q %t\n", s, v.String(), ok)
	}
	// Output:
	// "0.3.0" -> "0.3" true
	// "1.0" -> "1.0" true
	// "1.0.2" -> "1.0" true
	// "0.2.6" -> "" false
	// "2.0" -> "" false
}

// ExampleParseBinding reads the binding names agent cards use, including
// the "REST" some deployed cards write for HTTP+JSON.
func ExampleParseBinding() {
	for _, s := range []string{"JSONRPC", " rest ", "http+json", "grpc", "websocket"} {
		b, ok := a2a.ParseBinding(s)
		fmt.Printf("%q -> %q %t\n", s, b.String(), ok)
	}
	// A 0.3 card names its transport as a plain string.
	card := a2a.AgentCard{URL: "https://agent.example/a2a", PreferredTransport: "JSONRPC"}
	fmt.Println(card.PreferredTransport == string(a2a.BindingJSONRPC))
	// Output:
	// "JSONRPC" -> "JSONRPC" true
	// " rest " -> "HTTP+JSON" true
	// "http+json" -> "HTTP+JSON" true
	// "grpc" -> "GRPC" true
	// "websocket" -> "" false
	// true
}

// ExampleMarshalHTTPError writes the error body with which a fake HTTP+JSON
// server refuses an unknown task, in each version, and reads it back as a
// client does.
func ExampleMarshalHTTPError() {
	notFound := &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "no task trip-9"}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		status, contentType, body := a2a.MarshalHTTPError(v, notFound)
		fmt.Println(status, contentType, string(body))

		e, ok := a2a.ParseHTTPError(status, body)
		fmt.Println(ok, errors.Is(e, &a2a.RPCError{Code: a2a.CodeTaskNotFound}))
	}
	// Output:
	// 404 application/json {"code":-32001,"message":"no task trip-9"}
	// true true
	// 404 application/a2a+json {"error":{"code":404,"status":"NOT_FOUND","message":"no task trip-9","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}
	// true true
}

// ExampleRPCError_Is matches an error from deep in a call chain against an
// A2A error code: only the code is compared.
func ExampleRPCError_Is() {
	var err error = &a2a.RPCError{Code: a2a.CodeTaskNotCancelable, Message: "task trip-7 has completed"}
	err = fmt.Errorf("cancel trip-7: %w", err)

	fmt.Println(err)
	fmt.Println(errors.Is(err, &a2a.RPCError{Code: a2a.CodeTaskNotCancelable}))
	fmt.Println(errors.Is(err, &a2a.RPCError{Code: a2a.CodeTaskNotFound}))
	// Output:
	// cancel trip-7: a2a: json-rpc error -32002 (task not cancelable): task trip-7 has completed
	// true
	// false
}

// ExampleAgentCard decodes a card that carries both versions' fields, as
// agents that serve 0.3 and 1.0 clients publish it, and picks an endpoint.
func ExampleAgentCard() {
	data := []byte(`{
	  "name": "Trip planner",
	  "version": "2.1.0",
	  "provider": {"organization": "Example Travel", "url": "https://travel.example"},
	  "url": "https://agent.example/a2a/v03",
	  "preferredTransport": "JSONRPC",
	  "protocolVersion": "0.3.0",
	  "supportedInterfaces": [
	    {"url": "https://agent.example/a2a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
	    {"url": "https://agent.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
	  ],
	  "capabilities": {"streaming": true, "extensions": [{"uri": "https://travel.example/ext/fares", "required": true}]},
	  "skills": [{"id": "plan", "name": "Plan a trip", "tags": ["travel"]}]
	}`)
	var card a2a.AgentCard
	if err := json.Unmarshal(data, &card); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(card.Name, "by", card.Provider.Organization)
	fmt.Println("streaming:", *card.Capabilities.Streaming, "extension required:", card.Capabilities.Extensions[0].Required)

	// Prefer a 1.0 interface this client speaks, over JSON-RPC.
	for _, iface := range card.SupportedInterfaces {
		v, okV := a2a.ParseVersion(iface.ProtocolVersion)
		b, okB := a2a.ParseBinding(iface.ProtocolBinding)
		if okV && okB && b == a2a.BindingJSONRPC {
			fmt.Println("use", iface.URL, v, b)
		}
	}
	// Output:
	// Trip planner by Example Travel
	// streaming: true extension required: true
	// use https://agent.example/a2a 1.0 JSONRPC
}

// ExampleAgentCard_build builds the card of a fake agent for tests, with
// every part of a card typed out, and prints it as served.
func ExampleAgentCard_build() {
	streaming := true
	card := a2a.AgentCard{
		Name:     "Trip planner",
		Provider: &a2a.AgentProvider{Organization: "Example Travel"},
		SupportedInterfaces: []a2a.AgentInterface{
			{URL: "https://agent.example/a2a", ProtocolBinding: string(a2a.BindingJSONRPC), ProtocolVersion: a2a.V10.String()},
		},
		Capabilities: a2a.AgentCapabilities{
			Streaming:  &streaming,
			Extensions: []a2a.AgentExtension{{URI: "https://travel.example/ext/fares"}},
		},
		Skills: []a2a.AgentSkill{{
			ID: "book", Name: "Book a flight",
			SecurityRequirements: []a2a.SecurityRequirement{
				{Schemes: map[string]a2a.ScopeList{"oauth": {List: []string{"bookings:write"}}}},
			},
		}},
		SecuritySchemes: map[string]a2a.SecurityScheme{
			"oauth": {Type: "oauth2", OAuth2MetadataURL: "https://auth.example/.well-known/oauth-authorization-server"},
		},
	}
	out, err := json.MarshalIndent(card, "", "  ")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// {
	//   "name": "Trip planner",
	//   "provider": {
	//     "organization": "Example Travel"
	//   },
	//   "supportedInterfaces": [
	//     {
	//       "url": "https://agent.example/a2a",
	//       "protocolBinding": "JSONRPC",
	//       "protocolVersion": "1.0"
	//     }
	//   ],
	//   "capabilities": {
	//     "streaming": true,
	//     "extensions": [
	//       {
	//         "uri": "https://travel.example/ext/fares"
	//       }
	//     ]
	//   },
	//   "skills": [
	//     {
	//       "id": "book",
	//       "name": "Book a flight",
	//       "securityRequirements": [
	//         {
	//           "schemes": {
	//             "oauth": {
	//               "list": [
	//                 "bookings:write"
	//               ]
	//             }
	//           }
	//         }
	//       ]
	//     }
	//   ],
	//   "securitySchemes": {
	//     "oauth": {
	//       "type": "oauth2",
	//       "oauth2MetadataUrl": "https://auth.example/.well-known/oauth-authorization-server"
	//     }
	//   }
	// }
}

// ExampleAgentCard_Requirements reads security requirements whichever
// version's field holds them: "security" in 0.3, "securityRequirements"
// (one ScopeList per scheme) in 1.0. Each entry is one way to qualify.
func ExampleAgentCard_Requirements() {
	data := []byte(`{
	  "name": "Trip planner",
	  "security": [{"apiKey": []}],
	  "skills": [{
	    "id": "book", "name": "Book a flight",
	    "securityRequirements": [{"schemes": {"oauth": {"list": ["bookings:write", "profile"]}}}]
	  }]
	}`)
	var card a2a.AgentCard
	if err := json.Unmarshal(data, &card); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("card:", card.Requirements())
	fmt.Println("skill:", card.Skills[0].Requirements())
	// Output:
	// card: [map[apiKey:[]]]
	// skill: [map[oauth:[bookings:write profile]]]
}

// ExampleSecurityScheme reads a scheme in the 1.0 one-of shape and in the
// 0.3 OpenAPI shape into the same fields, and writes it back in the 0.3
// shape.
func ExampleSecurityScheme() {
	var v10, v03 a2a.SecurityScheme
	// json.Unmarshal calls UnmarshalJSON; calling it directly is the same.
	if err := v10.UnmarshalJSON([]byte(`{"apiKeySecurityScheme":{"location":"header","name":"X-Api-Key"}}`)); err != nil {
		fmt.Println(err)
		return
	}
	if err := json.Unmarshal([]byte(`{"type":"apiKey","in":"header","name":"X-Api-Key"}`), &v03); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range []a2a.SecurityScheme{v10, v03} {
		fmt.Println(s.Type, s.Location, s.Name)
	}

	out, err := v10.MarshalJSON()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// apiKey header X-Api-Key
	// apiKey header X-Api-Key
	// {"type":"apiKey","name":"X-Api-Key","in":"header"}
}
