package stream

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/canonjson"
	"github.com/a2astream/a2astream/internal/checkpoint"
)

// digest is a 64-bit FNV-1a hash, written into checkpoints: unlike
// hash/maphash it is the same in every process, so a checkpoint taken by
// one process can be checked against a task another one fetched. It tells
// content apart, as Part.Equal does; it is no defence against a server
// that forges collisions, which could only make a resumed stream trust
// content that server sent anyway.
type digest uint64

const (
	digestStart digest = 14695981039346656037
	digestPrime digest = 1099511628211
)

func (d digest) byte(b byte) digest { return (d ^ digest(b)) * digestPrime }

func (d digest) bytes(b []byte) digest {
	for _, c := range b {
		d = (d ^ digest(c)) * digestPrime
	}
	return d
}

func (d digest) string(s string) digest {
	for i := 0; i < len(s); i++ {
		d = (d ^ digest(s[i])) * digestPrime
	}
	return d
}

func (d digest) uint(v uint64) digest {
	if v < 1<<8 {
		// The usual case, a field's length under 256: its one byte, then
		// seven zero bytes, each of which only multiplies by the prime.
		// The same digest as the loop below, with two multiplications
		// instead of eight (the powers of the prime are folded when
		// compiled); a part adds four lengths on every event.
		p := digestPrime
		return (d ^ digest(v)) * (p * p * p * p * p * p * p * p)
	}
	for range 8 {
		d = d.byte(byte(v))
		v >>= 8
	}
	return d
}

// field adds s with its length, so that two fields cannot run into each
// other.
func (d digest) field(s string) digest { return d.uint(uint64(len(s))).string(s) }

// part adds one part, compared as Part.Equal compares parts: data by its
// canonical JSON, metadata by its JSON (encoding/json sorts map keys).
func (d digest) part(p *a2a.Part) digest {
	d = d.field(p.Text).field(p.URL).field(p.MediaType).field(p.Filename)
	var kinds byte
	if p.Data != nil {
		kinds |= 1
	}
	if p.Raw != nil {
		kinds |= 2
	}
	if len(p.Metadata) > 0 {
		kinds |= 4
	}
	d = d.byte(kinds)
	if p.Data != nil {
		c := canonjson.Canonical(p.Data)
		d = d.uint(uint64(len(c))).bytes(c)
	}
	if p.Raw != nil {
		d = d.uint(uint64(len(p.Raw))).bytes(p.Raw)
	}
	if len(p.Metadata) > 0 {
		// A value encoding/json cannot write (a channel, say) never came
		// from the wire; its text stands empty.
		md, _ := json.Marshal(p.Metadata)
		d = d.uint(uint64(len(md))).bytes(md)
	}
	return d
}

// parts adds parts in order: the digest of a list of parts grows part by
// part as appends arrive.
func (d digest) parts(ps []a2a.Part) digest {
	for i := range ps {
		d = d.part(&ps[i])
	}
	return d
}

// messageDigest identifies one version of a message: its role and parts.
func messageDigest(m *a2a.Message) digest {
	return digestStart.field(string(m.Role)).parts(m.Parts)
}

// metaEntry is one key of an artifact's metadata as a checkpoint holds it:
// the digest of the key and that of its value.
type metaEntry = checkpoint.Meta

// keyDigest identifies a metadata key.
func keyDigest(k string) digest { return digestStart.field(k) }

// valueDigest identifies a metadata value by its JSON, as part metadata is
// (encoding/json sorts map keys). A value encoding/json cannot write never
// came from the wire; its text stands empty.
func valueDigest(v any) digest {
	b, _ := json.Marshal(v)
	return digestStart.bytes(b)
}

// metaDigests returns the entries of md, ascending by key digest; nil for
// no metadata.
func metaDigests(md map[string]any) []metaEntry {
	return withMetadata(nil, md)
}

// withMetadata returns held, entries ascending by key digest, with md's
// keys folded in as an append folds them (md's values win, no key goes),
// ascending too. It makes a new array and leaves held's as it is:
// checkpoints share it.
func withMetadata(held []metaEntry, md map[string]any) []metaEntry {
	if len(md) == 0 {
		return held
	}
	out := make([]metaEntry, len(held), len(held)+len(md))
	copy(out, held)
	for k, v := range md {
		e := metaEntry{Key: uint64(keyDigest(k)), Value: uint64(valueDigest(v))}
		i, found := slices.BinarySearchFunc(out, e.Key, func(e metaEntry, k uint64) int { return cmp.Compare(e.Key, k) })
		if found {
			out[i] = e
		} else {
			out = slices.Insert(out, i, e)
		}
	}
	return out
}
