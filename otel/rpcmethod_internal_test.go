package a2aotel

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// TestRPCMethodAndServiceOfEachCall: rpc.method is the method as the
// call's version and binding name it (0.3 over gRPC: the service's
// methods, not JSON-RPC's), rpc.service the gRPC service, for gRPC only.
func TestRPCMethodAndServiceOfEachCall(t *testing.T) {
	type call struct {
		kind      stream.AttemptKind
		streaming bool
	}
	send, sendUnary, reply := call{stream.AttemptSend, true}, call{stream.AttemptSend, false}, call{stream.AttemptReply, true}
	sub, get, poll, push := call{stream.AttemptSubscribe, true}, call{stream.AttemptGetTask, false}, call{stream.AttemptPoll, false},
		call{stream.AttemptPushConfig, false}
	v10 := map[call]string{send: "SendStreamingMessage", sendUnary: "SendMessage", reply: "SendStreamingMessage",
		sub: "SubscribeToTask", get: "GetTask", poll: "GetTask", push: "CreateTaskPushNotificationConfig"}
	cases := []struct {
		b       a2a.Binding
		v       a2a.Version
		methods map[call]string
		service string
	}{
		{a2a.BindingGRPC, a2a.V03, map[call]string{send: "SendStreamingMessage", sendUnary: "SendMessage", reply: "SendStreamingMessage",
			sub: "TaskSubscription", get: "GetTask", poll: "GetTask", push: "CreateTaskPushNotificationConfig"}, "a2a.v1.A2AService"},
		{a2a.BindingGRPC, a2a.V10, v10, "lf.a2a.v1.A2AService"},
		{a2a.BindingJSONRPC, a2a.V03, map[call]string{send: "message/stream", sendUnary: "message/send", reply: "message/stream",
			sub: "tasks/resubscribe", get: "tasks/get", poll: "tasks/get", push: "tasks/pushNotificationConfig/set"}, ""},
		{a2a.BindingJSONRPC, a2a.V10, v10, ""},
		{a2a.BindingHTTPJSON, a2a.V10, v10, ""},
		// a Transport that names no binding: the version's JSON-RPC names
		{"", a2a.V03, map[call]string{send: "message/stream", sub: "tasks/resubscribe"}, ""},
	}
	for _, tc := range cases {
		for c, want := range tc.methods {
			t.Run(fmt.Sprintf("%s-%s-%s-%v", tc.b, tc.v, c.kind, c.streaming), func(t *testing.T) {
				a := stream.AttemptInfo{Kind: c.kind, Streaming: c.streaming, Binding: tc.b, Version: tc.v}
				require.Equal(t, want, rpcMethod(a))
				require.Equal(t, tc.service, rpcService(a))
			})
		}
	}
}
