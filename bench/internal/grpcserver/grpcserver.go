// Package grpcserver is the benchmark's A2A agent over gRPC: it answers
// SendStreamingMessage of A2A 1.0 (lf.a2a.v1.A2AService) and 0.3
// (a2a.v1.A2AService) with the throughput scenario of package server (a
// task, a working status, N artifact chunks, a completed status), the same
// events the JSON-RPC stream carries, as protobuf StreamResponse messages.
//
// The messages are encoded once per version and N, up front, with protowire
// (the field numbers of grpc/proto/), and sent through a pass-through bytes
// codec by grpc-go's unknown-service handler: the server's cost per event is
// a SendMsg of bytes it already holds, not an encoding. So every stream of
// a version and N is the same bytes, task 1 of wire.NewTask (the first task
// a fresh server.Handler streams over JSON-RPC): the clients measured make
// one call each and never compare tasks across calls.
//
// N comes from the call's metadata, "a2abench-n" (1000 without it). A 1.0
// call must carry "a2a-version: 1.0", as @a2a-js/sdk 1.3.0 asks; anything
// but the two streaming sends is UNIMPLEMENTED.
//
// The shapes follow the JSON-RPC stream of package wire: 1.0 the
// @a2a-js/sdk 1.3.0 one (an empty metadata Struct where its JSON has
// "metadata":{}, a media type on the agent's parts), 0.3 the a2a-go v0.3.3
// one (no metadata, no timestamp on the task's submitted status).
package grpcserver

import (
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/a2astream/a2astream/bench/internal/wire"
)

// The full method names the server answers.
const (
	Method10 = "/lf.a2a.v1.A2AService/SendStreamingMessage"
	Method03 = "/a2a.v1.A2AService/SendStreamingMessage"
)

// NKey is the metadata key that carries the number of artifact chunks.
const NKey = "a2abench-n"

// Server streams the pre-encoded throughput scenario. The zero value is
// ready to use; Register (or NewGRPCServer) puts it in a grpc.Server.
type Server struct {
	mu      sync.Mutex
	streams map[streamKey][][]byte
}

type streamKey struct {
	v string
	n int
}

// NewGRPCServer returns a grpc.Server whose only handler is s, reading and
// writing raw message bytes.
func NewGRPCServer(s *Server) *grpc.Server {
	return grpc.NewServer(grpc.UnknownServiceHandler(s.handle), grpc.ForceServerCodecV2(rawCodec{}))
}

// Serve serves s on ln with a grpc.Server (HTTP/2 cleartext, as grpc-go
// serves without credentials) until ln fails.
func Serve(s *Server, ln net.Listener) error {
	return NewGRPCServer(s).Serve(ln)
}

func (s *Server) handle(_ any, ss grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(ss)
	v := ""
	switch method {
	case Method10:
		v = "1.0"
	case Method03:
		v = "0.3"
	default:
		return status.Errorf(codes.Unimplemented, "unknown method %s", method)
	}
	md, _ := metadata.FromIncomingContext(ss.Context())
	if v == "1.0" && first(md, "a2a-version") != "1.0" {
		return status.Error(codes.FailedPrecondition, "a2a-version 1.0 required")
	}
	n := 1000
	if x, err := strconv.Atoi(first(md, NKey)); err == nil && x >= 0 {
		n = x
	}
	var req []byte
	if err := ss.RecvMsg(&req); err != nil {
		return err
	}
	if len(req) == 0 {
		return status.Error(codes.InvalidArgument, "the request holds no message")
	}
	for _, m := range s.Stream(v, n) {
		if err := ss.SendMsg(m); err != nil {
			return err
		}
	}
	return nil
}

func first(md metadata.MD, key string) string {
	if vs := md.Get(key); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Stream returns the encoded StreamResponse messages of the throughput
// scenario of n chunks in version v ("0.3" or "1.0"), encoding them on the
// first call for (v, n). The caller must not change them.
func (s *Server) Stream(v string, n int) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := streamKey{v, n}
	if ms, ok := s.streams[k]; ok {
		return ms
	}
	if s.streams == nil {
		s.streams = map[streamKey][][]byte{}
	}
	ms := Encode(v, n)
	s.streams[k] = ms
	return ms
}

// WireBytes is the bytes of ms on the wire as gRPC messages: each one's
// 5-byte prefix and body (HTTP/2 framing left out).
func WireBytes(ms [][]byte) int {
	total := 0
	for _, m := range ms {
		total += 5 + len(m)
	}
	return total
}

// Encode returns the StreamResponse messages of the throughput scenario of
// n chunks in version v, for task 1.
func Encode(v string, n int) [][]byte {
	t := wire.NewTask(1)
	e := encoder{v10: v == "1.0"}
	// wire.Timestamp is a constant that parses; the test compares the
	// decoded timestamps with the JSON-RPC stream's.
	ts, _ := time.Parse(time.RFC3339Nano, wire.Timestamp)
	e.ts = varint(nil, 1, uint64(ts.Unix()))
	e.ts = varint(e.ts, 2, uint64(ts.Nanosecond()))
	out := make([][]byte, 0, n+3)
	out = append(out, e.task(t))
	out = append(out, e.status(t, stateWorking, wire.UUID('m', 0), "working", false))
	art := wire.UUID('a', 0)
	var text []byte
	for i := range n {
		text = wire.ChunkText(text[:0], i)
		out = append(out, e.artifact(t, art, string(text), i > 0, i == n-1))
	}
	return append(out, e.status(t, stateCompleted, "", "", true))
}

// TaskState values, the same numbers in 0.3 and 1.0.
const (
	stateSubmitted = 1
	stateWorking   = 2
	stateCompleted = 3
)

// Role values.
const (
	roleUser  = 1
	roleAgent = 2
)

// encoder appends the messages of one version. The field numbers are
// grpc/proto/'s: they differ between the versions in Artifact (1.0: name 2,
// parts 4, metadata 5; 0.3: name 3, parts 5) and in where metadata sits.
type encoder struct {
	v10 bool
	ts  []byte // the encoded google.protobuf.Timestamp of wire.Timestamp
}

// StreamResponse payload fields.
const (
	respTask           = 1
	respStatusUpdate   = 3
	respArtifactUpdate = 4
)

func (e encoder) task(t wire.Task) []byte {
	var st []byte
	st = varint(st, 1, stateSubmitted)
	if e.v10 {
		st = msg(st, 3, e.ts)
	}
	var m []byte
	m = str(m, 1, t.UserMsgID)
	if e.v10 {
		m = str(m, 2, t.ContextID)
		m = str(m, 3, t.ID)
	}
	m = varint(m, 4, roleUser)
	m = msg(m, 5, str(nil, 1, "hello")) // 1.0 parts, 0.3 content: a text part
	var b []byte
	b = str(b, 1, t.ID)
	b = str(b, 2, t.ContextID)
	b = msg(b, 3, st)
	b = msg(b, 5, m)
	if e.v10 {
		b = msg(b, 6, nil)
	}
	return msg(nil, respTask, b)
}

// part is an agent's text part: 1.0 adds an empty metadata and the media
// type.
func (e encoder) part(text string) []byte {
	p := str(nil, 1, text)
	if e.v10 {
		p = msg(p, 5, nil)
		p = str(p, 7, "text/plain")
	}
	return p
}

func (e encoder) status(t wire.Task, state uint64, msgID, text string, final bool) []byte {
	var st []byte
	st = varint(st, 1, state)
	if msgID != "" {
		var m []byte
		m = str(m, 1, msgID)
		m = str(m, 2, t.ContextID)
		m = str(m, 3, t.ID)
		m = varint(m, 4, roleAgent)
		m = msg(m, 5, e.part(text))
		if e.v10 {
			m = msg(m, 6, nil)
		}
		st = msg(st, 2, m)
	}
	st = msg(st, 3, e.ts)
	var b []byte
	b = str(b, 1, t.ID)
	b = str(b, 2, t.ContextID)
	b = msg(b, 3, st)
	if e.v10 {
		b = msg(b, 4, nil)
	} else if final {
		b = varint(b, 4, 1)
	}
	return msg(nil, respStatusUpdate, b)
}

func (e encoder) artifact(t wire.Task, artifactID, text string, appendPart, last bool) []byte {
	var a []byte
	a = str(a, 1, artifactID)
	name, parts := protowire.Number(3), protowire.Number(5)
	if e.v10 {
		name, parts = 2, 4
	}
	if !appendPart {
		a = str(a, name, "stream")
	}
	a = msg(a, parts, e.part(text))
	if e.v10 {
		a = msg(a, 5, nil)
	}
	var b []byte
	b = str(b, 1, t.ID)
	b = str(b, 2, t.ContextID)
	b = msg(b, 3, a)
	if appendPart {
		b = varint(b, 4, 1)
	}
	if last {
		b = varint(b, 5, 1)
	}
	if e.v10 {
		b = msg(b, 6, nil)
	}
	return msg(nil, respArtifactUpdate, b)
}

func str(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// msg appends an embedded message, present even when empty.
func msg(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

func varint(b []byte, num protowire.Number, x uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, x)
}

// rawCodec passes message bytes through: SendMsg takes a []byte, RecvMsg
// fills a *[]byte.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, fmt.Errorf("rawCodec: cannot send a %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	p, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("rawCodec: cannot receive into a %T", v)
	}
	*p = data.Materialize()
	return nil
}

// Name is "proto": the content-subtype the clients ask for.
func (rawCodec) Name() string { return "proto" }
