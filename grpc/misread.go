package a2agrpc

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// misread reports a message that proto decoded without an error but not as
// the agent wrote it: m, or a message in it, holds as an unknown field one
// whose number its descriptor declares. Proto keeps bytes of the wrong wire
// type for a known field as unknown (a list of tasks sent as a number, say),
// and the answer then reads as if the field were absent: an empty page of a
// listing, a task without its history. Fields of numbers the descriptor does
// not declare are an agent's newer fields, and are left alone. Stream events
// go through the direct decoder, which refuses such bytes itself.
func misread(m protoreflect.Message) error {
	if err := knownAsUnknown(m); err != nil {
		return err
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					err = misread(mv.Message())
					return err == nil
				})
			}
		case fd.Message() == nil:
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				err = misread(l.Get(i).Message())
			}
		default:
			err = misread(v.Message())
		}
		return err == nil
	})
	return err
}

// knownAsUnknown reports the first unknown field of m whose number m's
// descriptor declares.
func knownAsUnknown(m protoreflect.Message) error {
	b := m.GetUnknown()
	fields := m.Descriptor().Fields()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		if fd := fields.ByNumber(num); fd != nil {
			return fmt.Errorf("field %s of %s sent with wire type %d", fd.Name(), m.Descriptor().FullName(), typ)
		}
		v := protowire.ConsumeFieldValue(num, typ, b[n:])
		if v < 0 {
			return protowire.ParseError(v)
		}
		b = b[n+v:]
	}
	return nil
}
