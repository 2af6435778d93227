package a2agrpc

import (
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/grpc/internal/convert"
)

// eventSink is what a streaming call's RecvMsg reads an event into: its
// stream's decoder, and the event it decoded (or the converter's error for
// a message the model cannot hold).
type eventSink struct {
	d   *convert.StreamDecoder
	ev  a2a.Event
	err error
}

// streamCodec is the codec of the streaming calls (grpc.ForceCodecV2): a
// request marshals as grpc-go's own proto codec marshals it, and a response
// read into an *eventSink is decoded by its StreamDecoder straight from the
// received bytes, without the generated message. The unary calls keep
// grpc-go's codec.
//
// Its name is empty, so that the call's content-type stays
// "application/grpc", as grpc-go's proto codec sends it on every other call
// (a forced codec's name becomes the content subtype, "application/grpc+"
// name).
type streamCodec struct{ proto encoding.CodecV2 }

// newStreamCodec returns the call option of the streaming calls.
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
	s, ok := v.(*eventSink)
	if !ok {
		return fmt.Errorf("a2agrpc: cannot read a streaming call's message into %T", v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	ev, unmarshalErr, err := s.d.Decode(buf.ReadOnlyData())
	if unmarshalErr != nil {
		return unmarshalErr
	}
	s.ev, s.err = ev, err
	return nil
}
