package a2atest

import "github.com/a2astream/a2astream/a2a"

// serves reports whether the agent has a method for operation o at all;
// when it has not ([WithoutResubscribe]), the binding answers as it does
// for an unknown method (JSON-RPC: -32601; HTTP+JSON: 404, no such route).
func (a *Agent) serves(o op) bool {
	return !(a.cfg.noResubscribe && o == opSubscribe)
}

// refusal is the error the agent answers a call with because of an ability
// it was built without ([WithoutStreaming]), whatever the call's
// parameters and task say; ok is false if the agent serves the call.
//
// The JSON-RPC binding sends it as plain JSON with HTTP 200, the HTTP+JSON
// binding as an HTTP error (400 in both versions).
func (a *Agent) refusal(c call) (code int, message string, ok bool) {
	if a.cfg.noStreaming && (c.op == opStream || c.op == opSubscribe) {
		return a2a.CodeUnsupportedOperation, streamingRefusal(c), true
	}
	return 0, "", false
}

// streamingRefusal is the message @a2a-js/sdk answers a streaming method
// with when its card says capabilities.streaming: false. Both versions check
// the card before they look at the message or the task, and answer -32004
// as a plain JSON-RPC response with HTTP 200:
//
//   - 0.3 methods, in 0.3.14 (JsonRpcTransportHandler.handle) and in 1.3.0's
//     legacyCompat handler: "Unsupported operation: Method message/stream
//     requires streaming capability." (and the same for tasks/resubscribe);
//   - SendStreamingMessage, in 1.3.0 (DefaultRequestHandler.sendMessageStream,
//     whose error the express handler catches before the first event):
//     "Streaming is not supported.";
//   - SubscribeToTask, in 1.3.0 (DefaultRequestHandler.resubscribe):
//     "Streaming (and thus resubscription) is not supported.".
//
// In 1.0 the error carries a google.rpc.ErrorInfo with reason
// UNSUPPORTED_OPERATION, as every 1.0 -32004 of the agent does.
//
// Over HTTP+JSON, 1.3.0 answers with the same messages (they come from
// DefaultRequestHandler), while 0.3.14's RestTransportHandler checks the
// card itself, for message:stream and subscribe alike, with
// A2AError.unsupportedOperation("Agent does not support streaming"), whose
// message is "Unsupported operation: Agent does not support streaming".
func streamingRefusal(c call) string {
	switch {
	case c.v == a2a.V03 && c.binding == a2a.BindingHTTPJSON:
		return "Unsupported operation: Agent does not support streaming"
	case c.v == a2a.V03:
		return "Unsupported operation: Method " + c.method + " requires streaming capability."
	case c.op == opSubscribe:
		return "Streaming (and thus resubscription) is not supported."
	}
	return "Streaming is not supported."
}
