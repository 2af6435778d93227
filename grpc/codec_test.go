package a2agrpc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	pbv03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/grpc/internal/convert"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// rawCodec is the codec of a rawAgent: a message is its bytes, as given.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

// rawAgent is a gRPC server on a bufconn listener that answers every
// streaming call, of any method, with the bytes of events, as they are
// (pre-encoded StreamResponse messages), from its events function, then
// an OK status. md gets the metadata of each call.
type rawAgent struct {
	lis    *bufconn.Listener
	events func() [][]byte
	mu     sync.Mutex
	md     []metadata.MD
}

func newRawAgent(tb testing.TB, events func() [][]byte) *rawAgent {
	a := &rawAgent{lis: bufconn.Listen(1 << 20), events: events}
	srv := grpc.NewServer(grpc.ForceServerCodecV2(rawCodec{}), grpc.UnknownServiceHandler(func(_ any, ss grpc.ServerStream) error {
		md, _ := metadata.FromIncomingContext(ss.Context())
		a.mu.Lock()
		a.md = append(a.md, md)
		a.mu.Unlock()
		var req []byte
		if err := ss.RecvMsg(&req); err != nil {
			return err
		}
		for _, ev := range a.events() {
			if err := ss.SendMsg(&ev); err != nil {
				return err
			}
		}
		return nil
	}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(a.lis)
	}()
	tb.Cleanup(func() {
		srv.Stop()
		<-done
	})
	return a
}

func (a *rawAgent) client(tb testing.TB) *a2agrpc.Transport {
	tr, err := a2agrpc.New("passthrough:///raw", a2agrpc.WithInsecure(),
		a2agrpc.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return a.lis.DialContext(ctx)
		})))
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, tr.Close()) })
	return tr
}

// readStream reads every event of a stream to its end.
func readStream(tb testing.TB, tr *a2agrpc.Transport, v a2a.Version) []a2a.Event {
	r, err := tr.SendStream(context.Background(), transport.Call{Version: v}, a2a.NewTextMessage(a2a.RoleUser, "go"))
	require.NoError(tb, err)
	defer r.Close()
	var out []a2a.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(tb, err)
		out = append(out, ev)
	}
}

// bigChunks returns n artifact chunks of each version, each with text and
// IDs of its own, over grpc-go's pooling threshold, so that its receive
// buffers come from its pool and hold message after message.
func bigChunks(tb testing.TB, n int) (v10, v03 [][]byte) {
	for i := range n {
		text := strings.Repeat(string(rune('a'+i%26)), 3000+i)
		id := fmt.Sprintf("task-%04d", i)
		b10, err := proto.Marshal(&pbv1.StreamResponse{Payload: &pbv1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pbv1.TaskArtifactUpdateEvent{
			TaskId: id, ContextId: "ctx-" + id, Append: i > 0,
			Artifact: &pbv1.Artifact{ArtifactId: "art-" + id, Parts: []*pbv1.Part{{Content: &pbv1.Part_Text{Text: text}, MediaType: "text/plain"}}},
		}}})
		require.NoError(tb, err)
		b03, err := proto.Marshal(&pbv03.StreamResponse{Payload: &pbv03.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pbv03.TaskArtifactUpdateEvent{
			TaskId: id, ContextId: "ctx-" + id, Append: i > 0,
			Artifact: &pbv03.Artifact{ArtifactId: "art-" + id, Parts: []*pbv03.Part{{Part: &pbv03.Part_Text{Text: text}}}},
		}}})
		require.NoError(tb, err)
		v10, v03 = append(v10, b10), append(v03, b03)
	}
	return v10, v03
}

// TestStreamEventsOwnTheirBytes: the events of a stream keep their values
// after the stream went on and ended, though grpc-go received them into
// pooled buffers it reuses for the next messages: the decoder copied what
// they keep. Each is what the generated message and the converter make of
// its bytes.
func TestStreamEventsOwnTheirBytes(t *testing.T) {
	v10, v03 := bigChunks(t, 200)
	for _, tc := range []struct {
		v    a2a.Version
		msgs [][]byte
	}{{a2a.V10, v10}, {a2a.V03, v03}} {
		a := newRawAgent(t, func() [][]byte { return tc.msgs })
		got := readStream(t, a.client(t), tc.v)
		require.Len(t, got, len(tc.msgs))
		for i, b := range tc.msgs {
			var want a2a.Event
			var err error
			if tc.v == a2a.V03 {
				var m pbv03.StreamResponse
				require.NoError(t, proto.Unmarshal(b, &m))
				want, err = convert.EventOf03(&m)
			} else {
				var m pbv1.StreamResponse
				require.NoError(t, proto.Unmarshal(b, &m))
				want, err = convert.EventOf10(&m)
			}
			require.NoError(t, err)
			require.Equal(t, want, got[i], "%s: event %d changed after it was read", tc.v, i)
		}
	}
}

// TestStreamCallsKeepTheContentType: a streaming call, whose codec is the
// Transport's own, says content-type application/grpc, as the unary calls
// (grpc-go's proto codec) say it.
func TestStreamCallsKeepTheContentType(t *testing.T) {
	v10, _ := bigChunks(t, 1)
	a := newRawAgent(t, func() [][]byte { return v10 })
	require.Len(t, readStream(t, a.client(t), a2a.V10), 1)
	a.mu.Lock()
	defer a.mu.Unlock()
	require.Len(t, a.md, 1)
	require.Equal(t, []string{"application/grpc"}, a.md[0].Get("content-type"))
}

// TestStreamBadBytesAsBefore: bytes that are no StreamResponse end the
// stream with grpc-go's INTERNAL status of an unmarshal error, as grpc-go's
// proto codec made it; a StreamResponse the model cannot hold (no payload)
// with the converter's *transport.ProtocolError; the events before each
// are read.
func TestStreamBadBytesAreProtocolErrors(t *testing.T) {
	v10, _ := bigChunks(t, 1)
	empty := []byte{}
	for _, tc := range []struct {
		name  string
		bad   []byte
		check func(t *testing.T, err error)
	}{
		// Bytes that are no StreamResponse: proto's error, in a
		// ProtocolError, not the INTERNAL status grpc-go makes of it
		// (which would read as the agent's, a drop).
		{"no StreamResponse", []byte{0x0a}, func(t *testing.T, err error) {
			var pe *transport.ProtocolError
			require.ErrorAs(t, err, &pe)
			var se *a2agrpc.StatusError
			require.False(t, errors.As(err, &se), "not a status: %v", err)
			var m pbv1.StreamResponse
			require.ErrorContains(t, err, proto.Unmarshal([]byte{0x0a}, &m).Error())
		}},
		{"no payload", empty, func(t *testing.T, err error) {
			var pe *transport.ProtocolError
			require.ErrorAs(t, err, &pe)
			_, want := convert.EventOf10(&pbv1.StreamResponse{})
			require.Equal(t, want.Error(), err.Error())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newRawAgent(t, func() [][]byte { return [][]byte{v10[0], tc.bad, v10[0]} })
			r, err := a.client(t).SendStream(context.Background(), transport.Call{Version: a2a.V10}, a2a.NewTextMessage(a2a.RoleUser, "go"))
			require.NoError(t, err)
			defer r.Close()
			_, err = r.Next()
			require.NoError(t, err)
			_, err = r.Next()
			tc.check(t, err)
			_, again := r.Next()
			require.Equal(t, err, again, "the call has ended")
		})
	}
}

// A unary call's answer that does not decode is a *transport.ProtocolError
// too, on each unary call of both versions.
func TestUnaryBadBytesAreProtocolErrors(t *testing.T) {
	a := newRawAgent(t, func() [][]byte { return [][]byte{{0x0a}} })
	tr := a.client(t)
	for _, v := range []a2a.Version{a2a.V10, a2a.V03} {
		call := transport.Call{Version: v}
		_, err := tr.GetTask(context.Background(), call, "t-1")
		var pe *transport.ProtocolError
		require.ErrorAs(t, err, &pe, "GetTask %s", v)
		_, err = tr.Cancel(context.Background(), call, "t-1")
		require.ErrorAs(t, err, &pe, "Cancel %s", v)
		_, err = tr.SendUnary(context.Background(), call, a2a.NewTextMessage(a2a.RoleUser, "go"))
		require.ErrorAs(t, err, &pe, "SendUnary %s", v)
	}
}

// A stream whose agent sends an event that does not decode ends at once in
// a *transport.ProtocolError, as over HTTP: it is not a drop, and nothing is
// made again (it was resubscribed until the budget was spent).
func TestMalformedEventEndsTheStream(t *testing.T) {
	v10, _ := bigChunks(t, 1)
	task, err := proto.Marshal(&pbv1.StreamResponse{Payload: &pbv1.StreamResponse_Task{Task: &pbv1.Task{Id: "t-1", ContextId: "c-1",
		Status: &pbv1.TaskStatus{State: pbv1.TaskState_TASK_STATE_WORKING}}}})
	require.NoError(t, err)
	for name, bad := range map[string][]byte{"cut short": v10[0][:len(v10[0])-3], "no StreamResponse": {0x0a}} {
		t.Run(name, func(t *testing.T) {
			a := newRawAgent(t, func() [][]byte { return [][]byte{task, bad} })
			c, err := stream.NewClientFor(a.client(t), stream.WithVersion(a2a.V10),
				stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Millisecond}))
			require.NoError(t, err)
			s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "go"))
			defer s.Close()
			for s.Next() {
			}
			var pe *transport.ProtocolError
			require.ErrorAs(t, s.Err(), &pe)
			a.mu.Lock()
			defer a.mu.Unlock()
			require.Len(t, a.md, 1, "no call made again")
		})
	}
}

// --- end to end: a stream of events through grpc-go, in process ---

// BenchmarkStreamChunks: the text artifact chunks of one stream, from a
// server sending pre-encoded bytes over bufconn, each read by the
// Transport's reader (the new path: the stream codec and its decoder). An
// op is one event; the allocations are the process's, the server's
// included (see BenchmarkStreamChunksBaseline for those of grpc-go and the
// server alone).
func BenchmarkStreamChunks10(b *testing.B) { benchStream(b, a2a.V10, "transport") }

func BenchmarkStreamChunks03(b *testing.B) { benchStream(b, a2a.V03, "transport") }

// BenchmarkStreamChunksGenerated10: the same stream read the old way: a
// grpc-go stream of generated StreamResponse messages, each converted by
// EventOf10, as the Transport read them before its stream codec.
func BenchmarkStreamChunksGenerated10(b *testing.B) { benchStream(b, a2a.V10, "generated") }

// BenchmarkStreamChunksBaseline: the same stream read with a codec that
// reads nothing: what grpc-go (client and server) and the server cost per
// message.
func BenchmarkStreamChunksBaseline(b *testing.B) { benchStream(b, a2a.V10, "baseline") }

// nothingCodec reads no message: grpc-go's own per message, measured.
type nothingCodec struct{ rawCodec }

func (nothingCodec) Name() string                         { return "" }
func (nothingCodec) Unmarshal(mem.BufferSlice, any) error { return nil }

func benchStream(b *testing.B, v a2a.Version, how string) {
	var n atomic.Int64
	chunk10, err := proto.Marshal(&pbv1.StreamResponse{Payload: &pbv1.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pbv1.TaskArtifactUpdateEvent{
		TaskId: "bff0492c-bf72-4b0b-8ac9-d35bf8bb82d2", ContextId: "b797c749-b41f-4038-b7b3-81997bb919d9", Append: true,
		Artifact: &pbv1.Artifact{ArtifactId: "a1", Parts: []*pbv1.Part{{Content: &pbv1.Part_Text{Text: "a chunk of the answer, forty bytes long."}}}},
	}}})
	require.NoError(b, err)
	chunk03, err := proto.Marshal(&pbv03.StreamResponse{Payload: &pbv03.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pbv03.TaskArtifactUpdateEvent{
		TaskId: "bff0492c-bf72-4b0b-8ac9-d35bf8bb82d2", ContextId: "b797c749-b41f-4038-b7b3-81997bb919d9", Append: true,
		Artifact: &pbv03.Artifact{ArtifactId: "a1", Parts: []*pbv03.Part{{Part: &pbv03.Part_Text{Text: "a chunk of the answer, forty bytes long."}}}},
	}}})
	require.NoError(b, err)
	chunk := chunk10
	if v == a2a.V03 {
		chunk = chunk03
	}
	events := func() [][]byte {
		out := make([][]byte, n.Load())
		for i := range out {
			out[i] = chunk
		}
		return out
	}
	a := newRawAgent(b, events)
	n.Store(int64(b.N))
	b.ReportAllocs()
	switch how {
	case "transport":
		tr := a.client(b)
		r, err := tr.SendStream(context.Background(), transport.Call{Version: v}, a2a.NewTextMessage(a2a.RoleUser, "go"))
		require.NoError(b, err)
		defer r.Close()
		b.ResetTimer()
		for range b.N {
			if _, err := r.Next(); err != nil {
				b.Fatal(err)
			}
		}
	default:
		cc, err := grpc.NewClient("passthrough:///raw", grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return a.lis.DialContext(ctx) }))
		require.NoError(b, err)
		defer func() { _ = cc.Close() }()
		var opts []grpc.CallOption
		if how == "baseline" {
			opts = append(opts, grpc.ForceCodecV2(nothingCodec{}))
		}
		cs, err := cc.NewStream(context.Background(), &grpc.StreamDesc{ServerStreams: true}, pbv1.A2AService_SendStreamingMessage_FullMethodName, opts...)
		require.NoError(b, err)
		req := &pbv1.SendMessageRequest{Message: &pbv1.Message{MessageId: "m"}}
		if how == "baseline" {
			raw, err := proto.Marshal(req)
			require.NoError(b, err)
			require.NoError(b, cs.SendMsg(&raw))
		} else {
			require.NoError(b, cs.SendMsg(req))
		}
		require.NoError(b, cs.CloseSend())
		b.ResetTimer()
		for range b.N {
			if how == "baseline" {
				var x []byte
				if err := cs.RecvMsg(&x); err != nil {
					b.Fatal(err)
				}
				continue
			}
			var m pbv1.StreamResponse
			if err := cs.RecvMsg(&m); err != nil {
				b.Fatal(err)
			}
			if _, err := convert.EventOf10(&m); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkClientChunks10: the whole stream client (stream.NewClientFor
// over the Transport, its driver folding each chunk into the task) reading
// one stream: a working task, b.N text artifact chunks, completed. An op is
// one chunk; the allocations are the process's, the server's included (a
// memory profile tells the client's from the server's).
func BenchmarkClientChunks10(b *testing.B) { benchClient(b, a2a.V10) }

func BenchmarkClientChunks03(b *testing.B) { benchClient(b, a2a.V03) }

func benchClient(b *testing.B, v a2a.Version) {
	const task, ctx = "bff0492c-bf72-4b0b-8ac9-d35bf8bb82d2", "b797c749-b41f-4038-b7b3-81997bb919d9"
	enc := func(e a2a.Event) []byte {
		var m proto.Message
		var err error
		if v == a2a.V03 {
			m, err = convert.StreamResponse03(e)
		} else {
			m, err = convert.StreamResponse10(e)
		}
		require.NoError(b, err)
		out, err := proto.Marshal(m)
		require.NoError(b, err)
		return out
	}
	first := enc(&a2a.Task{ID: task, ContextID: ctx, Status: a2a.TaskStatus{State: a2a.StateWorking}})
	chunk := enc(&a2a.ArtifactUpdate{TaskID: task, ContextID: ctx, Append: true,
		Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: "a chunk of the answer, forty bytes long."}}}})
	last := enc(&a2a.StatusUpdate{TaskID: task, ContextID: ctx, Status: a2a.TaskStatus{State: a2a.StateCompleted}, Final: true})
	var n atomic.Int64
	a := newRawAgent(b, func() [][]byte {
		out := [][]byte{first}
		for range n.Load() {
			out = append(out, chunk)
		}
		return append(out, last)
	})
	c, err := stream.NewClientFor(a.client(b), stream.WithVersion(v))
	require.NoError(b, err)
	n.Store(int64(b.N))
	b.ReportAllocs()
	b.ResetTimer()
	s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "go"))
	defer s.Close()
	events := 0
	for s.Next() {
		events++
	}
	require.NoError(b, s.Err())
	require.Equal(b, b.N+2, events)
}
