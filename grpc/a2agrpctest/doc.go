// Package a2agrpctest serves an [a2atest.Agent] over gRPC, in process: the
// same agent, with its scripts, resubscribe styles, abilities and faults,
// reached through A2A 1.0's lf.a2a.v1.A2AService and 0.3's a2a.v1.A2AService
// instead of HTTP. It is for the tests of gRPC A2A clients, as a2atest is for
// HTTP ones:
//
//	agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.CutAfterEvents(2)))
//	srv := a2agrpctest.NewServer(agent)
//	defer srv.Close()
//	tr, err := srv.Transport() // an *a2agrpc.Transport to the server
//	if err != nil { … }
//	defer tr.Close()
//	client, err := stream.NewClientFor(tr)
//
// The server listens on an in-memory listener (google.golang.org/grpc's
// bufconn): no socket, no port. [Server.DialOption] connects any gRPC client
// to it.
//
// Each gRPC call is made of the agent's JSON-RPC binding, in the call's
// version, over an in-memory round trip ([a2atest.NewTransport]): the
// request is converted to its JSON-RPC twin (the gRPC metadata becoming its
// HTTP header, a2a-version included), and the JSON-RPC answer back to gRPC.
// The agent therefore records every call ([a2atest.Agent.Requests]) under
// its JSON-RPC method name, and must serve the JSON-RPC binding (its
// default). What does not carry over as it is:
//
//   - A fault that cuts or drops the connection (CutAfterEvents,
//     CutAfterBytes, Drop) ends the call with UNAVAILABLE, as a lost stream
//     does; CloseAfterEvents ends it with OK. The event faults count the
//     events of a stream only: a unary call's answer, which has none, goes
//     out whole unless n is 0. A Refuse fault ends the call
//     with UNAVAILABLE too: over gRPC the request was already on its way
//     when the agent refused it, so the client cannot tell it was never
//     processed (over HTTP it can).
//   - An A2A error is a gRPC status. In 1.0 it is the code and
//     google.rpc.ErrorInfo (domain a2a-protocol.org, the A2A reason) that
//     @a2a-js/sdk 1.3.0 sends; in 0.3 the bare code @a2a-js/sdk 0.3.14 sends,
//     with no details. A retry hint is a google.rpc.RetryInfo in both.
//     Method not found (a method of a version the agent does not speak, or
//     an ability it lacks) is UNIMPLEMENTED with gRPC's own "unknown method"
//     message, as a server without the service answers, so that clients
//     fall back to 0.3 as they do over HTTP.
//   - The extended card calls, 1.0 GetExtendedAgentCard and 0.3
//     GetAgentCard, are the JSON-RPC GetExtendedAgentCard and
//     agent/getAuthenticatedExtendedCard, and the card answered is
//     converted to the proto's AgentCard. An a2atest.Agent serves no
//     extended card: it answers method not found, so UNIMPLEMENTED; a
//     handler of NewHandlerServer answers them as it likes (a card, an
//     A2A error, a 401).
//   - An HTTPStatus fault is the status's gRPC twin: 401 UNAUTHENTICATED,
//     403 PERMISSION_DENIED, 429 RESOURCE_EXHAUSTED, 502/503/504
//     UNAVAILABLE, 500 INTERNAL, and so on ([CodeOfHTTP]); a Retry-After
//     header becomes a RetryInfo.
//
// A stream's response headers are sent when the agent's are (so a Hang
// fault is an open stream that sends nothing), and its events one gRPC
// message each, converted as the library's gRPC binding reads them.
//
// NewHandlerServer serves, the same way, any http.Handler of the JSON-RPC
// binding instead of an agent: a hand-written server whose answers a test
// controls event by event reaches gRPC clients unchanged.
package a2agrpctest
