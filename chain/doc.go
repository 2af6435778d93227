// Package chain carries an error across a chain of agents. An agent that
// calls another agent, its downstream, and fails because that call failed
// answers its own caller with an error object that says so: whose call
// failed, how, and whether it is worth trying again, without copying
// anything of the downstream call that may be secret.
//
// In the agent, [Error] builds that answer from the error its downstream
// call ended in (any error of package stream, or a fan-out's
// *fanout.QuorumError):
//
//	_, err := flights.Send(ctx, msg).Wait()
//	if err != nil {
//		answer := chain.Error(err, a2a.V10, "planner", "flights")
//		// write answer as the JSON-RPC error of the response, or over
//		// HTTP+JSON with a2a.MarshalHTTPError
//	}
//
// The answer is a JSON-RPC internal error (-32603) whose data holds one
// [Link] per agent: this agent's, the downstream agent's and, when the
// downstream agent answered such a chain itself, the links of the agents
// behind it. In A2A 0.3 each link nests the next; in 1.0 each link is a
// google.rpc.ErrorInfo of its own. Either way the retry hint is where any
// client reads it ([a2a.RPCError.Retryable]), so that a caller that knows
// nothing of chains still sees when to try again.
//
// In the caller, [Of] reads the links back, through any number of hops and
// whatever version each hop spoke:
//
//	for _, l := range chain.Of(err) {
//		fmt.Println(l.Agent, l.Code, l.Message, l.Retryable, l.RetryAfter)
//	}
//
// An agent whose work is part of a trace (W3C trace context: its caller
// sent a traceparent header) builds its answer with [ErrorInTrace] and the
// trace's ID, so that each link carries it ([Link].TraceID) and the caller
// finds every hop's spans; the library knows nothing of OpenTelemetry, so
// the ID comes as a string (package a2aotel's TraceID reads it from a
// context). A link keeps a trace ID only of the W3C form, 32 lowercase
// hexadecimal digits, not all zeros: nothing else can ride in it.
//
// [Encode] writes links an agent built itself. Every link is bounded
// ([Link.Bounded]): messages are cut to 256 bytes, agents named by URL are
// cut to their origin, at most [MaxLinks] links are kept and the data is at
// most [MaxData] bytes.
//
// The chain's 1.0 ErrorInfo (reason DOWNSTREAM_AGENT_ERROR, domain
// github.com/a2astream/a2astream) is this library's convention, not part of
// A2A: an agent of another library reads the error's code, message and
// retry hint, and leaves the links alone.
package chain
