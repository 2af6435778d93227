// Package convert translates between the a2astream model (package a2a) and
// the messages generated from the A2A gRPC protos: a2apbv1 for A2A 1.0
// (lf.a2a.v1) and a2apbv03 for A2A 0.3 (a2a.v1).
//
// It is an internal package of the grpc module, not unexported files of
// package a2agrpc, so that the binding and an in-process gRPC agent for tests
// (a server, which needs the same conversions the other way) share it
// without either making it public API.
//
// Every function is pure: it reads its argument and returns a new value,
// which may share a part's bytes with the argument (neither side changes
// them after), and never panics, whatever a server sent.
//
// Direction a2a → pb builds what a client sends (FromX names the requests
// and the model values); direction pb → a2a reads what a server answers.
// A server's message that the model cannot hold (a stream result with no
// payload, a part with no content, an enum value the proto does not define, a
// number that is not finite in a Struct) is refused with a
// *transport.ProtocolError, as a result that does not decode is on the
// other bindings: the server broke the protocol. A caller's message that the
// proto cannot carry at all (invalid JSON in a data part, a value of
// metadata that does not encode as JSON, a 0.3 data part that is not an
// object) is refused with an error wrapping transport.ErrInvalidMessage.
// What a proto merely has no field for is left out, never refused: see
// the 0.3 functions.
package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/transport"
)

// FullHistory is the history length a get-task asks for: the whole history,
// as the library's HTTP bindings ask for it (without it, some 0.3 servers
// answer with none).
const FullHistory = 1 << 20

// ErrBadTaskID is wrapped by the error for a task ID that cannot name a
// task in a request: empty, or, in 0.3, one holding a "/" (its resource
// name "tasks/{id}" would name another resource).
var ErrBadTaskID = errors.New("a2agrpc: invalid task ID")

// reason is the ProtocolError reason of a server's message that the model
// cannot hold, the reason the JSON bindings give a result that does not
// decode.
const reason = "malformed result"

// malformed returns the error for a server's message the model cannot hold.
func malformed(format string, args ...any) error {
	return &transport.ProtocolError{Reason: reason, Err: fmt.Errorf("a2agrpc: "+format, args...)}
}

// invalid returns the error for a caller's message the proto cannot carry.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: a2agrpc: %s", transport.ErrInvalidMessage, fmt.Sprintf(format, args...))
}

// within prefixes a conversion error with where it happened, keeping its type.
func within(where string, err error) error {
	var pe *transport.ProtocolError
	if errors.As(err, &pe) {
		return &transport.ProtocolError{Reason: pe.Reason, Err: fmt.Errorf("%s: %w", where, pe.Err)}
	}
	return fmt.Errorf("%s: %w", where, err)
}

// checkTaskID refuses an ID that cannot name a task.
func checkTaskID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty", ErrBadTaskID)
	}
	return nil
}

// TaskName returns the 0.3 resource name of a task, "tasks/{id}".
func TaskName(id string) (string, error) {
	if err := checkTaskID(id); err != nil {
		return "", err
	}
	if strings.Contains(id, "/") {
		return "", fmt.Errorf("%w: %q holds a \"/\", so tasks/{id} would name another resource", ErrBadTaskID, id)
	}
	return "tasks/" + id, nil
}

// TaskIDOfName reads a 0.3 resource name "tasks/{id}", as a server reads a
// request's: any other shape is refused with an error wrapping ErrBadTaskID.
func TaskIDOfName(name string) (string, error) {
	id, ok := strings.CutPrefix(name, "tasks/")
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", fmt.Errorf("%w: resource name %q is not tasks/{id}", ErrBadTaskID, name)
	}
	return id, nil
}

// --- metadata, data, timestamps: shared by both versions ---

// structOf converts metadata to a Struct: nil for none. The map goes
// through encoding/json, as on the other bindings, so that a value of any
// type that marshals is carried as its JSON, and one that does not (a NaN, a
// channel) refuses the message as the JSON bindings do.
func structOf(m map[string]any) (*structpb.Struct, error) {
	if len(m) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, invalid("metadata: %v", err)
	}
	s := new(structpb.Struct)
	if err := protojson.Unmarshal(b, s); err != nil {
		return nil, invalid("metadata: %v", err)
	}
	return s, nil
}

// mapOf converts a server's Struct to metadata: nil for none and for the
// empty Struct, as the JSON decoders read null and {}. Numbers are float64,
// as encoding/json reads them; a number that is not finite is refused.
func mapOf(s *structpb.Struct) (map[string]any, error) {
	if len(s.GetFields()) == 0 {
		return nil, nil
	}
	for k, v := range s.GetFields() {
		if err := checkValue(v, 0); err != nil {
			return nil, malformed("metadata %q: %v", k, err)
		}
	}
	return s.AsMap(), nil
}

// maxDepth bounds the nesting of a Struct read from a server; the proto
// runtime refuses deeper messages on the wire already (its own limit is 10000).
const maxDepth = 10000

// checkValue reports a Value that JSON cannot hold: a number that is not
// finite. A nil Value, or one with no kind set, reads as null, as AsInterface
// reads it.
func checkValue(v *structpb.Value, depth int) error {
	if depth > maxDepth {
		return errors.New("nested too deep")
	}
	switch k := v.GetKind().(type) {
	case *structpb.Value_NumberValue:
		if math.IsNaN(k.NumberValue) || math.IsInf(k.NumberValue, 0) {
			return fmt.Errorf("number %v is not finite", k.NumberValue)
		}
	case *structpb.Value_StructValue:
		for _, f := range k.StructValue.GetFields() {
			if err := checkValue(f, depth+1); err != nil {
				return err
			}
		}
	case *structpb.Value_ListValue:
		for _, e := range k.ListValue.GetValues() {
			if err := checkValue(e, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// valueOf converts a part's JSON data to a Value, which holds any JSON
// value. Numbers become doubles: an integer beyond 2^53 loses precision, as
// in any proto Struct.
func valueOf(data json.RawMessage) (*structpb.Value, error) {
	v := new(structpb.Value)
	if err := protojson.Unmarshal(data, v); err != nil {
		return nil, invalid("data part: %v", err)
	}
	return v, nil
}

// dataOf converts a server's Value to a part's JSON data, compact.
func dataOf(v *structpb.Value) (json.RawMessage, error) {
	if err := checkValue(v, 0); err != nil {
		return nil, malformed("data part: %v", err)
	}
	b, err := json.Marshal(v.AsInterface())
	if err != nil {
		return nil, malformed("data part: %v", err)
	}
	return b, nil
}

// timestampOf converts a status's time: nil for the zero time, and for a
// time a Timestamp cannot hold (before year 1 or after 9999).
func timestampOf(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	ts := timestamppb.New(t)
	if ts.CheckValid() != nil {
		return nil
	}
	return ts
}

// timeOf reads a server's Timestamp, in UTC: the zero time for none and for
// one that is not valid, as the JSON decoders read a timestamp that does not
// parse.
func timeOf(ts *timestamppb.Timestamp) time.Time {
	if ts == nil || ts.CheckValid() != nil {
		return time.Time{}
	}
	return ts.AsTime().UTC()
}

// nonEmpty returns raw, or an empty non-nil slice for nil: a part's bytes
// are its content even when there are none.
func nonEmpty(raw []byte) []byte {
	if raw == nil {
		return []byte{}
	}
	return raw
}

// event returns e as an Event, or a nil Event (not a typed nil) with err.
func event[T a2a.Event](e T, err error) (a2a.Event, error) {
	if err != nil {
		return nil, err
	}
	return e, nil
}
