package a2a

import "fmt"

// Codec reads and writes the JSON of one wire: a protocol [Version] over a
// [Binding]. The six methods, DecodeEvent and EncodeEvent, DecodeTask and
// EncodeTask, DecodeMessage and EncodeMessage, are every codec of the
// package; [NewEventDecoder] reads a stream's results one after another with
// a Codec's rules, at a lower cost per result.
//
// A Codec is a value naming a wire, rather than one function per wire and
// shape, because the binding matters only for 0.3 and only to some servers:
// code that learns its version and binding from an agent card holds them as
// one value and passes it on, and code that knows only the version writes
// Codec{Version: v}.
//
//   - Binding: the empty binding is [BindingJSONRPC]. JSON-RPC in both
//     versions, and every binding of 1.0, carry the JSON-RPC JSON. The 0.3
//     HTTP+JSON binding (and gRPC, whose proto its JSON is transcoded from)
//     carries the proto-JSON of the v0.3 proto instead (see the package
//     doc).
//   - Version: the encoders write exactly the version asked for, and refuse
//     a Codec without one, or with a binding they do not know. The decoders
//     are lenient: in the JSON-RPC JSON they read either version's shapes,
//     so the zero Codec, which names no version, is the decoder for a
//     caller that does not know which version it reads. Only a Codec of 0.3
//     over HTTP+JSON or gRPC decodes otherwise. A binding the package does
//     not know is decoded as JSON-RPC.
//
// Decoding reads what the wire carries as the model; a stream result of
// either decoder is a *Task, *Message, *StatusUpdate or *ArtifactUpdate.
// How a binding frames a result (a JSON-RPC response around it, an SSE
// event) is not the codec's: the binding reads its frame, and the codec
// the result in it (see [EventDecoder]).
type Codec struct {
	Version Version
	Binding Binding
}

// binding returns the codec's binding, JSON-RPC when it names none.
func (c Codec) binding() Binding {
	if c.Binding == "" {
		return BindingJSONRPC
	}
	return c.Binding
}

// dialect returns the dialect the codec decodes.
func (c Codec) dialect() dialect {
	d, _ := dialectOf(c.Version, c.binding())
	return d
}

// encoding returns the dialect the codec encodes, refusing a codec that
// names no version this package speaks, or a binding it does not know.
func (c Codec) encoding() (dialect, error) {
	if err := checkVersion(c.Version); err != nil {
		return 0, err
	}
	d, ok := dialectOf(c.Version, c.binding())
	if !ok {
		return 0, fmt.Errorf("a2a: unsupported protocol binding %q", string(c.Binding))
	}
	return d, nil
}

// DecodeEvent decodes one stream result, or the result of a send: in the
// JSON-RPC JSON, a 0.3 object with a "kind" or a 1.0
// {"task"|"message"|"statusUpdate"|"artifactUpdate": …} wrapper, either
// version whatever c names; in the 0.3 proto-JSON, the wrapper holding
// proto-JSON, where a part {"data":{"data":{…}}} carries the value {…} and
// a status update keeps its "final". It returns a *Task, *Message,
// *StatusUpdate or *ArtifactUpdate, and an error wrapping
// [ErrUnknownResult] for a JSON object that is none of them.
func (c Codec) DecodeEvent(data []byte) (Event, error) { return decodeEvent(c.dialect(), data) }

// DecodeTask decodes a bare Task, the result of get-task and cancel.
func (c Codec) DecodeTask(data []byte) (*Task, error) { return decodeTask(c.dialect(), data) }

// DecodeMessage decodes a message, as send parameters and histories carry
// it; in the 0.3 proto-JSON its parts are under "content".
func (c Codec) DecodeMessage(data []byte) (*Message, error) { return decodeMessage(c.dialect(), data) }

// EncodeEvent encodes e as a stream result:
//
//   - 1.0, any binding: the {"task"|"message"|"statusUpdate"|"artifactUpdate": …}
//     wrapper (a StreamResponse).
//   - 0.3 over JSON-RPC: the flat object with "kind".
//   - 0.3 over HTTP+JSON (and gRPC): the same StreamResponse wrapper holding
//     proto-JSON of the v0.3 proto, with "final" on status updates when it
//     is true. The 0.3 proto-JSON has no media type or file name for text
//     and data parts; they are not written.
//
// A *MessageRevision, which never comes off the wire, is refused.
func (c Codec) EncodeEvent(e Event) ([]byte, error) {
	d, err := c.encoding()
	if err != nil {
		return nil, err
	}
	if d == dialectRPC {
		return encodeEvent(c.Version, e)
	}
	return encodeEventProto03(e)
}

// EncodeTask encodes a bare Task, the result of get-task and cancel.
func (c Codec) EncodeTask(t *Task) ([]byte, error) {
	d, err := c.encoding()
	if err != nil {
		return nil, err
	}
	if d == dialectRPC {
		return encodeTask(c.Version, t)
	}
	if t == nil {
		return nil, fmt.Errorf("a2a: cannot encode a nil task")
	}
	return marshal(p3TaskOf(t))
}

// EncodeMessage encodes a message, as send parameters and histories carry
// it; in the 0.3 proto-JSON with its parts under "content".
func (c Codec) EncodeMessage(m *Message) ([]byte, error) {
	d, err := c.encoding()
	if err != nil {
		return nil, err
	}
	if d == dialectRPC {
		return encodeMessage(c.Version, m)
	}
	if m == nil {
		return nil, fmt.Errorf("a2a: cannot encode a nil message")
	}
	return marshal(p3MessageOf(m))
}
