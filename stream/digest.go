package stream

import (
	"encoding/json"

	"github.com/a2astream/a2astream/a2a"
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
		c := a2a.CanonicalJSON(p.Data)
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
