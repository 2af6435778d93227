package a2agrpc

import (
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/grpc/internal/convert"
	"github.com/a2astream/a2astream/transport"
)

// eventSink is what a streaming call's RecvMsg reads an event into: its
// stream's decoder, and the event it decoded (or the converter's error for
// a message the model cannot hold). bad is proto's error for bytes that are
// no StreamResponse: grpc-go turns it into an INTERNAL status, which the
// reader must not take for the agent's.
type eventSink struct {
	d   *convert.StreamDecoder
	ev  a2a.Event
	err error
	bad error
}

// answerBox is what a unary call's RecvMsg reads its answer into: the
// generated message, and proto's error when the bytes do not decode (bad,
// as eventSink's).
type answerBox struct {
	m   proto.Message
	bad error
}

// streamCodec is the codec of every call (grpc.ForceCodecV2): a request
// marshals as grpc-go's own proto codec marshals it; a response read into
// an *eventSink (a streaming call's) is decoded by its StreamDecoder
// straight from the received bytes, without the generated message, and one
// read into an *answerBox (a unary call's) by grpc-go's proto codec. Either
// notes bytes that do not decode, so that the call ends in a
// *transport.ProtocolError, not in the INTERNAL status grpc-go makes of it.
//
// Its name is empty, so that the call's content-type stays
// "application/grpc", as grpc-go's proto codec sends it on every other call
// (a forced codec's name becomes the content subtype, "application/grpc+"
// name).
type streamCodec struct{ proto encoding.CodecV2 }

// newStreamCodec returns the call option of the Transport's calls.
func newStreamCodec() grpc.CallOption {
	return grpc.ForceCodecV2(streamCodec{proto: encoding.GetCodecV2(grpcproto.Name)})
}

// Name returns "": see streamCodec.
func (streamCodec) Name() string { return "" }

// Marshal marshals a request as grpc-go's proto codec does.
func (c streamCodec) Marshal(v any) (mem.BufferSlice, error) { return c.proto.Marshal(v) }

// Unmarshal decodes the received bytes into an *eventSink. The bytes are
// grpc-go's pooled buffers, released after it: the decoder copies out what
// the event keeps. Bytes that are no StreamResponse are proto.Unmarshal's
// error, returned as grpc-go's proto codec returns it (grpc-go makes it an
// INTERNAL status); a StreamResponse the model cannot hold is the
// converter's error, left in the sink for the reader, as before.
func (c streamCodec) Unmarshal(data mem.BufferSlice, v any) error {
	switch s := v.(type) {
	case *eventSink:
		buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
		defer buf.Free()
		ev, unmarshalErr, err := s.d.Decode(buf.ReadOnlyData())
		if unmarshalErr != nil {
			s.bad = unmarshalErr
			return unmarshalErr
		}
		s.ev, s.err = ev, err
		return nil
	case *answerBox:
		err := c.proto.Unmarshal(data, s.m)
		if err == nil {
			err = misread(s.m.ProtoReflect())
		}
		if err != nil {
			s.bad = err
			return err
		}
		return nil
	}
	return fmt.Errorf("a2agrpc: cannot read a call's message into %T", v)
}

// malformed is the error of a call whose message did not decode (bad,
// proto's error): the agent's bug, never made again.
func malformed(bad error) error {
	return &transport.ProtocolError{Reason: "malformed message", Err: bad}
}
