package interop_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/interop/proxy"
	"github.com/a2astream/a2astream/stream"
)

// grpcPushPeers are the JS peers with push notifications, reached over
// gRPC: @a2a-js/sdk 1.3.0's 1.0 service, its 0.3 service beside it
// (--legacy), and 0.3.14's. The config is registered with the push-config
// RPCs (a2agrpc's transport.PushConfigurer); the agent POSTs its
// notifications over HTTP as it does for the other bindings.
var grpcPushPeers = []peerDef{
	{name: "js-1.3.0-grpc-push", version: a2a.V10, grpc: true, command: nodePeer("js10", "--push", "--grpc-port", "0")},
	{name: "js-1.3.0-legacy-grpc-push", version: a2a.V03, grpc: true, command: nodePeer("js10", "--push", "--legacy", "--grpc-port", "0")},
	{name: "js-0.3.14-grpc-push", version: a2a.V03, grpc: true, command: nodePeer("js03", "--push", "--grpc-port", "0")},
}

// TestPushOverGRPC is TestPushFinishesACutStream over gRPC: the slow story,
// uncut (no push config), then with the stream cut after its first event,
// which registers a push config through the gRPC push-config RPC instead of
// resubscribing, and finishes by the polls the agent's notifications cause.
func TestPushOverGRPC(t *testing.T) {
	sc := slowStory(t)
	eachPeerOf(t, grpcPushPeers, func(peerDef) bool { return true }, func(t *testing.T, p *peer) {
		recv, _ := newPushReceiver(t, nil)
		uncut, rl := run(t, p, sc, faults{client: []stream.Option{stream.WithPush(recv), stream.WithPushPollInterval(pushPollInterval)}})
		require.Equal(t, withText(sc.want), uncut, "uncut run")
		require.Zero(t, noticesOf(rl.notices, stream.Pushing), "an uncut stream needs no push: %v", rl.notices)
		require.Zero(t, requestsOf(rl.px, isPushSet), "no push config for an uncut stream:\n%s", requestLog(rl.px))

		recv, log := newPushReceiver(t, nil)
		got, rl, took := pushRun(t, p, sc, []proxy.Fault{cut(1, 0)}, recv)
		checkFinishedByPush(t, sc, uncut, got, rl, log, took)
	})
}
