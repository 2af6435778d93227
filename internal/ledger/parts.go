package ledger

import (
	"encoding/binary"
	"hash/maphash"
	"reflect"
	"slices"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/canonjson"
)

// The pure helpers of the ledger's decisions: comparisons and hashes of
// parts, messages and artifacts' labels. None reads or changes the ledger,
// and none calls another function of the package but these.

// sameMessage reports whether two status messages are the same message: by
// ID when either has one, else by content.
func sameMessage(a, b *a2a.Message) bool {
	switch {
	case a == nil || b == nil:
		return a == b
	case a.ID != "" || b.ID != "":
		return a.ID == b.ID
	}
	return partsEqual(a.Parts, b.Parts)
}

// isPrefix reports whether p is a prefix of q, parts compared by
// a2a.Part.Equal.
func isPrefix(p, q []a2a.Part) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if !p[i].Equal(&q[i]) {
			return false
		}
	}
	return true
}

func partsEqual(p, q []a2a.Part) bool { return len(p) == len(q) && isPrefix(p, q) }

// labelsChange reports whether folding next's name, description and
// metadata into held, as an append does, would change held.
func labelsChange(held, next *a2a.Artifact) bool {
	if next.Name != "" && next.Name != held.Name || next.Description != "" && next.Description != held.Description {
		return true
	}
	for k, v := range next.Metadata {
		if hv, ok := held.Metadata[k]; !ok || !reflect.DeepEqual(hv, v) {
			return true
		}
	}
	return false
}

// labelsReach reports whether folding next's labels into held, as an append
// does, leaves held with exactly next's: held has no label next lacks.
func labelsReach(held, next *a2a.Artifact) bool {
	if held.Name != "" && next.Name == "" || held.Description != "" && next.Description == "" {
		return false
	}
	for k := range held.Metadata {
		if _, ok := next.Metadata[k]; !ok {
			return false
		}
	}
	return true
}

// labelsEqual reports whether two artifacts have the same name, description
// and metadata (no metadata and an empty map are the same).
func labelsEqual(a, b *a2a.Artifact) bool {
	if a.Name != b.Name || a.Description != b.Description || len(a.Metadata) != len(b.Metadata) {
		return false
	}
	return len(a.Metadata) == 0 || reflect.DeepEqual(a.Metadata, b.Metadata)
}

func hashPrefix(p, q []uint64) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// hashPart hashes a part's content, media type and file name; data by its
// JSON value (its canonjson.Canonical form), as a2a.Part.Equal compares it. Metadata is
// left out: two versions that differ only in part metadata count as equal
// when a replay is matched against a retired version.
func hashPart(seed maphash.Seed, p *a2a.Part) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	field := func(s string) {
		var n [8]byte
		putUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.WriteString(s)
	}
	field(p.Text)
	if p.Data != nil {
		d := canonjson.Canonical(p.Data)
		var n [8]byte
		putUint64(n[:], uint64(len(d)))
		h.Write(n[:])
		h.Write(d)
	} else {
		field("")
	}
	field(p.URL)
	field(string(p.Raw))
	field(p.MediaType)
	field(p.Filename)
	var kinds byte
	if p.Data != nil {
		kinds |= 1
	}
	if p.Raw != nil {
		kinds |= 2
	}
	h.WriteByte(kinds)
	return h.Sum64()
}

func putUint64(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) }

// owned returns a, an artifact of an event the ledger took ownership of,
// as the ledger holds it: its parts shared with the delta it yields (which
// callers must not modify), their array clipped so that an append to the
// held artifact copies it rather than writing past the delta's parts; its
// metadata copied, since appends fold into the held artifact's map.
func owned(a *a2a.Artifact) a2a.Artifact {
	c := *a
	c.Parts = slices.Clip(a.Parts)
	if a.Metadata != nil {
		c.Metadata = (&a2a.Artifact{Metadata: a.Metadata}).Clone().Metadata
	}
	return c
}
