package proxy

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/encoding/protowire"
)

// msg is one gRPC message: the 5-byte prefix and n bytes of payload.
func msg(n int) []byte {
	b := make([]byte, 5+n)
	binary.BigEndian.PutUint32(b[1:5], uint32(n))
	return b
}

func TestMsgCounter(t *testing.T) {
	three := append(append(msg(10), msg(0)...), msg(20)...) // 15 + 5 + 25 bytes
	cases := []struct {
		name   string
		fault  Fault
		frames []int // how three is split into DATA frames
		sent   int   // bytes that go out before the point
		hit    bool
		events int
	}{
		{"pass", Fault{}, []int{45}, 45, false, 3},
		{"after the first", Fault{Action: Cut, AfterEvents: 1}, []int{45}, 15, true, 1},
		{"after an empty message", Fault{Action: Cut, AfterEvents: 2}, []int{45}, 20, true, 2},
		{"inside the third", Fault{Action: Cut, AfterEvents: 2, PlusBytes: 7}, []int{45}, 27, true, 2},
		{"frames split in the prefix", Fault{Action: Cut, AfterEvents: 1, PlusBytes: 3}, []int{2, 16, 27}, 18, true, 1},
		{"one message per frame", Fault{Action: Stall, AfterEvents: 2}, []int{15, 5, 25}, 20, true, 2},
		{"never reached", Fault{Action: Cut, AfterEvents: 4}, []int{45}, 45, false, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newMsgCounter(tc.fault)
			sent, hit, rest := 0, false, three
			for _, n := range tc.frames {
				k, h := m.feed(rest[:n])
				sent += k
				rest = rest[n:]
				if h {
					hit = true
					break
				}
				require.Equal(t, n, k)
			}
			require.Equal(t, tc.sent, sent)
			require.Equal(t, tc.hit, hit)
			require.Equal(t, tc.events, m.events)
		})
	}
}

func TestProtoField(t *testing.T) {
	inner := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "msg-1")
	var req []byte
	req = protowire.AppendVarint(protowire.AppendTag(req, 7, protowire.VarintType), 3)
	req = protowire.AppendString(protowire.AppendTag(req, 1, protowire.BytesType), "tenant")
	req = protowire.AppendBytes(protowire.AppendTag(req, 2, protowire.BytesType), inner)
	require.Equal(t, "msg-1", string(protoField(protoField(req, 2), 1)))
	require.Nil(t, protoField(req, 3))
	require.Nil(t, protoField([]byte{0xff}, 1))
}

// rawCodec passes messages as bytes, so that the test server needs no
// generated code.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *v.(*[]byte), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*v.(*[]byte) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

var _ encoding.Codec = rawCodec{}

// grpcServer serves a streaming SendStreamingMessage under A2A 1.0's
// service name that answers every request with n messages of 30 bytes.
func grpcServer(t *testing.T, n int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := grpc.NewServer(grpc.ForceServerCodec(rawCodec{}))
	s.RegisterService(&grpc.ServiceDesc{
		ServiceName: "lf.a2a.v1.A2AService",
		HandlerType: (*any)(nil),
		Streams: []grpc.StreamDesc{{
			StreamName:    "SendStreamingMessage",
			ServerStreams: true,
			Handler: func(_ any, ss grpc.ServerStream) error {
				var req []byte
				if err := ss.RecvMsg(&req); err != nil {
					return err
				}
				for i := range n {
					out := make([]byte, 30)
					out[0] = byte(i)
					if err := ss.SendMsg(&out); err != nil {
						return err
					}
				}
				return nil
			},
		}},
	}, struct{}{})
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(s.Stop)
	return ln.Addr().String()
}

// call makes one SendStreamingMessage through px with a request whose
// message ID is id, and returns the messages read and the call's error.
func call(t *testing.T, cc *grpc.ClientConn, id string) ([][]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return callCtx(ctx, cc, id)
}

func callCtx(ctx context.Context, cc *grpc.ClientConn, id string) ([][]byte, error) {
	st, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, "/lf.a2a.v1.A2AService/SendStreamingMessage", grpc.ForceCodec(rawCodec{}))
	if err != nil {
		return nil, err
	}
	m := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), id)
	req := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), m)
	if err := st.SendMsg(&req); err != nil {
		return nil, err
	}
	if err := st.CloseSend(); err != nil {
		return nil, err
	}
	var got [][]byte
	for {
		var b []byte
		if err := st.RecvMsg(&b); err != nil {
			if errors.Is(err, io.EOF) {
				return got, nil
			}
			return got, err
		}
		got = append(got, b)
	}
}

func TestGRPCCutsCountMessages(t *testing.T) {
	px, err := NewGRPC(grpcServer(t, 5))
	require.NoError(t, err)
	defer px.Close()
	px.Plan(Fault{Action: Cut, AfterEvents: 2}, Fault{}, Fault{Action: Cut, AfterEvents: 3, PlusBytes: 20})
	cc, err := grpc.NewClient(px.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cc.Close()

	got, err := call(t, cc, "m-1")
	require.Error(t, err)
	require.Len(t, got, 2)
	got, err = call(t, cc, "m-2") // a new connection
	require.NoError(t, err)
	require.Len(t, got, 5)
	got, err = call(t, cc, "m-3")
	require.Error(t, err)
	require.Len(t, got, 3)

	recs := px.Records()
	require.Len(t, recs, 3)
	require.True(t, recs[0].Fired)
	require.Equal(t, 2, recs[0].Events)
	require.Equal(t, int64(70), recs[0].Bytes)
	require.False(t, recs[1].Fired)
	require.Equal(t, 5, recs[1].Events)
	require.True(t, recs[2].Fired)
	require.Equal(t, int64(3*35+20), recs[2].Bytes)
	var ids []string
	for _, r := range px.Requests() {
		require.Equal(t, Send, r.Kind)
		require.Equal(t, "SendStreamingMessage", r.RPC)
		ids = append(ids, r.MessageID)
	}
	require.Equal(t, []string{"m-1", "m-2", "m-3"}, ids)
}

func TestGRPCStallHoldsUntilTheCallIsReset(t *testing.T) {
	px, err := NewGRPC(grpcServer(t, 5))
	require.NoError(t, err)
	defer px.Close()
	px.Plan(Fault{Action: Stall, AfterEvents: 1})
	cc, err := grpc.NewClient(px.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cc.Close()

	// The call gets one message, then nothing until its context ends; the
	// client's reset of the call closes the connection, and the next call
	// gets a new one and every message.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	got, err := callCtx(ctx, cc, "m-1")
	cancel()
	require.Error(t, err)
	require.Len(t, got, 1)
	got, err = call(t, cc, "m-2")
	require.NoError(t, err)
	require.Len(t, got, 5)
	require.True(t, px.Records()[0].Fired)
}
