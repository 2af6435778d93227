package a2agrpc

import (
	"context"
	"sync/atomic"

	"google.golang.org/grpc/stats"
)

// A status the server sent is its answer, whether it came after response
// headers or alone (a trailers-only response: a refusal before any event),
// and a request it answered may have reached the agent: it is never sent
// again, as over the HTTP bindings, where any response counts. A status
// grpc-go makes of a failed connection is no answer. Only the frames tell
// them apart, so the Transport watches them with a stats handler: a call
// puts a flag in its context, which the handler sets when the call's
// response headers or trailers arrive.

// answeredKey is the context key of a call's flag.
type answeredKey struct{}

// withAnswered returns ctx carrying flag, which answerWatch sets.
func withAnswered(ctx context.Context, flag *atomic.Bool) context.Context {
	return context.WithValue(ctx, answeredKey{}, flag)
}

// answerWatch is the stats handler that sets a call's flag when the server
// sends it headers or trailers.
type answerWatch struct{}

func (answerWatch) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

func (answerWatch) HandleRPC(ctx context.Context, s stats.RPCStats) {
	switch s.(type) {
	case *stats.InHeader, *stats.InTrailer:
		if flag, ok := ctx.Value(answeredKey{}).(*atomic.Bool); ok {
			flag.Store(true)
		}
	}
}

func (answerWatch) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

func (answerWatch) HandleConn(context.Context, stats.ConnStats) {}
