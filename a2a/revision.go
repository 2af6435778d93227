package a2a

// MessageRevision is a new version of a message that was delivered before:
// the agent sent the same message ID again with other parts, as servers do
// that stream their answer by resending one status message, longer each
// time. It never comes off the wire (no decoder returns one, and the
// encoders refuse it); a stream yields it in place of the message, so that
// an application can tell a revision from a new message without keeping
// every message ID itself.
//
// Message is the whole new version: replace the message held under its ID
// with it. When Extends is true, the new version holds everything the one
// before held, and Added is what it adds: first, when the last part of the
// old version was text that the new one continues, a text part with the
// continuation only, then every part that follows. An application that
// printed the old version can print Added and be done; one that keeps
// messages should replace.
//
// A version is told by its parts: a message sent again with the same parts
// and other metadata is not a revision, and the version held keeps the
// metadata it came with.
type MessageRevision struct {
	TaskID    string
	ContextID string
	Message   *Message
	Extends   bool
	Added     []Part
}

func (*MessageRevision) isEvent() {}
