// Package checkpoint is the binary format of package stream's checkpoints:
// what a checkpoint holds, as plain data ([Checkpoint]), and how it is
// written ([Append]) and read ([Parse]). Package stream keeps its
// Checkpoint opaque and builds it from this data; the marks its driver
// keeps of what it yielded are this package's types, so that writing a
// checkpoint copies nothing but its bytes. It depends on package a2a only.
//
// Format 4, the one written:
//
//	magic       "a2acp" (5 bytes)
//	format      uvarint, 4
//	messages    n marks, oldest first, then byte 0; a mark is byte 1,
//	            string ID, u64 digest, or, for an ID that is a UUID in
//	            its canonical form (lowercase, hyphenated: as
//	            uuid.UUID.String writes it), byte 2, the UUID's 16 bytes,
//	            u64 digest
//	task        string ID, string context ID, string version, string
//	            binding, byte polling (0 or 1)
//	events      uvarint
//	status      string state, string message ID, u64 message digest, time
//	latest      time: the newest status timestamp yielded
//	shown       uvarint n (at most 16), then n × (string state, string
//	            message ID, u64 message digest, time): the statuses yielded
//	            at the newest timestamp, and those without one
//	artifacts   uvarint n, then n × (string ID, uvarint parts, u64 parts
//	            digest, u64 name digest, u64 description digest,
//	            metadata)
//	metadata    byte 0 when it is unknown (read from format 1, and not
//	            handed over whole since), or byte 1, then uvarint n and
//	            n × (u64 key digest, u64 value digest), ascending by key
//	            digest, no key twice
//	prompt      byte 0 for none, or 1 then string key, string reply (its
//	            A2A 1.0 JSON, "" for none), byte sent: 0 a response was
//	            heard, 1 none was, 2 saved before the send (see [Sent])
//	push        string: the ID of the stream's push registration, "" for
//	            none (never its token)
//	checksum    CRC-32C of everything before it, 4 bytes big-endian
//
// A string is a uvarint length then its bytes; a u64 is 8 bytes
// big-endian; a time is a byte 0 for the zero time, or 1 then varint Unix
// seconds and uvarint nanoseconds. Digests are 64-bit FNV-1a, computed by
// package stream (its digest.go); this package stores them and compares
// none.
//
// Format 3 is format 4 without the push registration: a reader reads it
// as none. Format 2 is format 3 without the marks of kind 2: every ID is
// a string.
// Format 1 is format 2 without the metadata of each artifact: a reader
// reads it as metadata unknown ([Artifact].MetaUnknown). A writer writes
// format 4 only; the marks of a checkpoint read are written as they were
// read. A reader refuses a format above its own ([ErrNewer]), and
// anything else that does not parse to the end, or whose fields contradict
// each other ([ErrCorrupt]); bytes that do not start as a checkpoint does
// are [ErrForeign]. Every refusal is an [*Error].
//
// The message marks come first because they only grow: [Messages] keeps
// them in this form with the checksum of the bytes up to their end, so
// that writing a checkpoint copies them and checksums only the few fields
// after them.
package checkpoint
