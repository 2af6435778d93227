package a2a

import (
	"strings"

	"github.com/a2astream/a2astream/internal/jsonscan"
)

// This file holds the fast path of [EventDecoder.Decode]: a decoder written
// for the few shapes that make up almost every stream, the artifact-update
// and status-update results of both versions, each as the 0.3 object with
// a "kind" or in its {"artifactUpdate"|"statusUpdate": …} wrapper, with
// text parts, a status message of text parts, timestamps, "final" and
// empty "metadata" objects. It reads an event in one pass over its data
// (fastscan.go, with internal/jsonscan), then copies its strings out
// (fastCopies): each part's text into a buffer of its own, sized exactly,
// the others into one shared buffer, so that an artifact update with one
// text part costs three allocations: the event with its part, the text and
// the buffer of the other strings. A short string that is the same as the
// one in its place in the stream's last event (the task, context and
// artifact IDs of each chunk of an artifact, its name, the state) is that
// event's string again, not a copy (fastLast): the event of a stream's
// next chunk then costs two allocations.
//
// It gives exactly what encoding/json gives through wireObject, or nothing:
// any name it does not know (or that is not spelled exactly, as
// encoding/json would match it regardless of case, or written with
// escapes), a name twice, a null, a value of another type, a part that is
// not text, metadata that is not empty, any other result, or data that is
// not one JSON object ends the fast path, and the whole event is decoded by
// encoding/json. Of one event, only its short strings are kept for the
// next (fastLast); the fast path works on a fastEvent on the stack.

// The strings of an event, by their index in fastEvent.strs. Part i has
// three, from fastPart + 3i: its text, media type and file name.
const (
	fastTaskID = iota
	fastContextID
	fastArtifactID
	fastName
	fastDescription
	fastState
	fastTimestamp
	fastMessageID
	fastMessageContextID
	fastMessageTaskID
	fastRole
	fastPart
)

// fastMaxParts is the most parts the fast path reads in one event.
const fastMaxParts = 4

// fastStrings is the number of strings an event may hold.
const fastStrings = fastPart + 3*fastMaxParts

// fastBigString is the length above which any string gets a buffer of its
// own, so that one kept after the event keeps nothing big alive with it.
const fastBigString = 4 << 10

// The results the fast path reads.
const (
	fastNone = iota
	fastArtifactUpdate
	fastStatusUpdate
)

// The names an update's object may hold, one bit each.
const (
	memberKind = 1 << iota
	memberTaskID
	memberContextID
	memberFinal
	memberAppend
	memberLastChunk
	memberMetadata
	memberArtifact
	memberStatus
	memberArtifactUpdate
	memberStatusUpdate

	artifactMembers = memberTaskID | memberContextID | memberArtifact | memberAppend | memberLastChunk | memberMetadata
	statusMembers   = memberTaskID | memberContextID | memberStatus | memberFinal | memberMetadata
)

// fastEvent is what the scan of one event found.
type fastEvent struct {
	strs      [fastStrings]jsonscan.Str
	result    int  // fastArtifactUpdate or fastStatusUpdate
	wrapped   bool // the result came in its wrapper, not with a "kind"
	final     bool
	append    bool
	lastChunk bool
	artifact  bool // "artifact" was there
	status    bool // "status" was there
	message   bool // the status had a "message"
	content   bool // the message's parts came under "content"
	parts     int
}

// fastLast holds the short strings of the last event the fast path read on
// a stream, each in its place (fastTaskID…): those that come again in the
// next event are given again, not copied. They are strings, never written:
// an event that keeps one shares it with the events before it, and keeps
// alive at most the shared buffer of the event it was first read in, as it
// would have kept its own.
type fastLast [fastStrings]string

// decodeFast decodes the text s reads, one stream result in dialect d, if
// it is one of the shapes of the fast path; ok is false for anything else.
// last holds the short strings of the stream's last event, and gets this
// one's.
func decodeFast(d dialect, s *jsonscan.Scanner, last *fastLast) (ev Event, ok bool) {
	var f fastEvent
	if !f.scan(s) || !s.End() {
		return nil, false
	}
	return f.event(d, s, last), true
}

// artifactUpdateOfOne is an artifact update with the one part it carries,
// in one allocation.
type artifactUpdateOfOne struct {
	u ArtifactUpdate
	p [1]Part
}

// statusUpdateOfOne is a status update with its message and the one part
// the message carries, in one allocation.
type statusUpdateOfOne struct {
	u StatusUpdate
	m Message
	p [1]Part
}

// event builds the event that f found in the text s read, as
// wireObject.event does in dialect d.
//
// The event is new memory, zeroed: its fields are set one by one, never by
// assigning a whole struct (a Part, an Artifact, a Message), which the
// compiler writes as a zeroing or a copy of the struct, with a bulk write
// barrier over its pointers while the collector runs. A stream that keeps
// its task has a live heap that grows, so the collector runs for a good part
// of its events.
func (f *fastEvent) event(d dialect, s *jsonscan.Scanner, last *fastLast) Event {
	// The parts of the v0.3 proto have no media type or file name: they
	// are not read, so not copied.
	proto := d == dialectProto03 || f.content
	var strs fastCopies
	strs.copy(f, s, proto, last)

	var ps []Part
	switch f.result {
	case fastArtifactUpdate:
		var u *ArtifactUpdate
		if f.parts == 1 {
			one := new(artifactUpdateOfOne)
			u, ps = &one.u, one.p[:]
		} else {
			u = new(ArtifactUpdate)
		}
		u.TaskID, u.ContextID, u.Append, u.LastChunk = strs.get(fastTaskID), strs.get(fastContextID), f.append, f.lastChunk
		if f.artifact {
			a := &u.Artifact
			a.ID, a.Name, a.Description = strs.get(fastArtifactID), strs.get(fastName), strs.get(fastDescription)
			a.Parts = f.textParts(ps, &strs, proto)
		}
		return u
	default:
		var (
			u *StatusUpdate
			m *Message
		)
		switch {
		case !f.message:
			u = new(StatusUpdate)
		case f.parts == 1:
			one := new(statusUpdateOfOne)
			u, m, ps = &one.u, &one.m, one.p[:]
		default:
			one := new(struct {
				u StatusUpdate
				m Message
			})
			u, m = &one.u, &one.m
		}
		u.TaskID, u.ContextID, u.Final = strs.get(fastTaskID), strs.get(fastContextID), f.final
		if f.wrapped && d != dialectProto03 {
			u.Final = false // 1.0 has no "final"; a stray one is ignored.
		}
		u.Status.State = StateUnknown
		if f.status {
			u.Status.State = parseState(strs.get(fastState))
			if ts := strs.get(fastTimestamp); ts != "" {
				u.Status.Timestamp = parseTimestamp(ts)
			}
		}
		if m != nil {
			m.ID, m.TaskID, m.ContextID = strs.get(fastMessageID), strs.get(fastMessageTaskID), strs.get(fastMessageContextID)
			m.Role = parseRole(strs.get(fastRole))
			m.Parts = f.textParts(ps, &strs, proto)
			u.Status.Message = m
		}
		return u
	}
}

// textParts returns the event's parts in ps, which holds room for one, or
// in a new slice: nil for none, as parts and protoParts give it. The parts
// of ps are zero: their fields are set one by one (see event).
func (f *fastEvent) textParts(ps []Part, strs *fastCopies, proto bool) []Part {
	if f.parts == 0 {
		return nil
	}
	if len(ps) != f.parts {
		ps = make([]Part, f.parts)
	}
	for i := range ps {
		j := fastPart + 3*i
		p := &ps[i]
		p.Text = strs.get(j)
		if !proto {
			p.MediaType, p.Filename = strs.get(j+1), strs.get(j+2)
		}
	}
	return ps
}

// fastCopies holds the strings of an event, copied out of its data. The
// text of each part has a buffer of its own: a stream's task keeps the text
// of every chunk, which must not keep the event's IDs alive with it. So has
// any other string over fastBigString bytes. The rest, the IDs, names,
// media types, state, role and timestamp, share one buffer of their summed
// length, but for those the last event had in their place (see fastLast),
// given again. Each buffer is written once, then only read:
// strings.Builder's String shares it, as a string, without a copy.
type fastCopies struct {
	all  string              // the short strings, one after another
	ends [fastStrings]int32  // where each short string ends in all
	own  [fastStrings]string // the strings with a buffer of their own, or the last event's
}

// ownBuffer reports whether string i of f gets a buffer of its own.
func (f *fastEvent) ownBuffer(i int) bool {
	l := f.strs[i].Len()
	return l > fastBigString || l > 0 && i >= fastPart && (i-fastPart)%3 == 0
}

// copy copies the strings f found in the text s read, but for the short
// ones last holds (written the same, without escapes), which it gives
// again; last gets the short strings of this event.
func (c *fastCopies) copy(f *fastEvent, s *jsonscan.Scanner, proto bool, last *fastLast) {
	n := fastPart + 3*f.parts
	if proto {
		for i := fastPart; i < n; i += 3 {
			f.strs[i+1], f.strs[i+2] = jsonscan.Str{}, jsonscan.Str{}
		}
	}
	size := 0
	for i := range n {
		switch v := f.strs[i]; {
		case v.Len() == 0 || f.ownBuffer(i):
		case last[i] != "" && s.Is(v, last[i]):
			c.own[i] = last[i]
		default:
			size += v.Len()
		}
	}
	var b strings.Builder
	b.Grow(size)
	for i := range n {
		switch v := &f.strs[i]; {
		case f.ownBuffer(i):
			var own strings.Builder
			own.Grow(v.Len())
			s.Copy(&own, *v)
			c.own[i] = own.String()
		case c.own[i] != "":
			// The last event's string.
		case v.Len() > 0:
			s.Copy(&b, *v)
		}
		c.ends[i] = int32(b.Len())
	}
	c.all = b.String()
	for i := range n {
		if f.strs[i].Len() > 0 && !f.ownBuffer(i) {
			last[i] = c.get(i)
		}
	}
}

// get returns string i.
func (c *fastCopies) get(i int) string {
	if c.own[i] != "" {
		return c.own[i]
	}
	start := int32(0)
	if i > 0 {
		start = c.ends[i-1]
	}
	if start == c.ends[i] {
		// An empty string, not an empty slice of the buffer: that would
		// still point into it, and keep it (the event's IDs) alive with
		// every part that has no media type or file name.
		return ""
	}
	return c.all[start:c.ends[i]]
}
