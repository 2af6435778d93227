package checkpoint_test

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/checkpoint"
)

// sample returns checkpoints that use every field of the format: none at
// all, and one with messages (one without an ID, one named by a UUID),
// statuses shown, artifacts with metadata, unknown metadata and none, a
// prompt with its reply, and a push registration.
func sample() []checkpoint.Checkpoint {
	at := time.Date(2025, 3, 1, 12, 0, 0, 5, time.UTC)
	var msgs checkpoint.Messages
	msgs.Add("m-1", 11)
	msgs.Add("", 12)
	msgs.Add("m-1", 13)
	msgs.Add("0b6b3a53-44c7-4bd2-9f37-0f5c2a0d6e11", 14) // a UUID: kept in 16 bytes
	msgs.Add("0B6B3A53-44C7-4BD2-9F37-0F5C2A0D6E11", 15) // in capitals: as text
	reply := a2a.NewTextMessage(a2a.RoleUser, "Lisbon")
	reply.ID, reply.TaskID = "r-1", "t-1"
	return []checkpoint.Checkpoint{{}, {
		TaskID: "t-1", ContextID: "c-1", Version: a2a.V10, Binding: a2a.BindingJSONRPC, Polling: true, Events: 9,
		Status: checkpoint.Status{State: a2a.StateInputRequired, MessageID: "m-2", Message: 21, At: at},
		Latest: at,
		Shown:  []checkpoint.Status{{State: a2a.StateWorking}, {State: a2a.StateInputRequired, MessageID: "m-2", Message: 21, At: at}},
		Artifacts: []checkpoint.Artifact{
			{ID: "a1", Parts: 2, Digest: 31, Name: 32, Description: 33, Meta: []checkpoint.Meta{{Key: 1, Value: 2}, {Key: 3, Value: 4}}},
			{ID: "a2", Parts: 1, Digest: 41, Name: 42, Description: 43, MetaUnknown: true},
			{ID: "a3", Digest: 51, Name: 52, Description: 53},
		},
		Messages: msgs,
		Prompt:   checkpoint.Prompt{Key: "input-required/m-2", Reply: reply, Sent: checkpoint.SentInFlight},
		Push:     "6f1c9a54-3f2e-4c59-9a55-0d1b7d0c2f11",
	}}
}

// A checkpoint reads back from its bytes as it was, and writes the same
// bytes again; Append appends.
func TestCheckpointRoundTrips(t *testing.T) {
	for _, c := range sample() {
		b, err := checkpoint.Append(nil, &c)
		require.NoError(t, err)
		require.Equal(t, "a2acp\x04", string(b[:6]), "written in format 4")
		back, err := checkpoint.Parse(b)
		require.NoError(t, err)
		again, err := checkpoint.Append([]byte("prefix"), &back)
		require.NoError(t, err)
		require.Equal(t, append([]byte("prefix"), b...), again)
		// The marks compare by what they list: nil and empty alike.
		require.Equal(t, c.Messages.All(), back.Messages.All())
		c.Messages, back.Messages = checkpoint.Messages{}, checkpoint.Messages{}
		require.Equal(t, c, back)
	}
}

// A format 1 checkpoint reads, with the metadata of its artifacts
// unknown, and is written again in format 4, which reads back to a
// checkpoint that writes the same bytes.
func TestFormat1StillReads(t *testing.T) {
	b, err := os.ReadFile("testdata/checkpoint-format1.bin")
	require.NoError(t, err)
	require.Equal(t, "a2acp\x01", string(b[:6]), "the fixture is of format 1")
	c, err := checkpoint.Parse(b)
	require.NoError(t, err)
	require.Equal(t, "t-1", c.TaskID)
	require.Equal(t, uint64(3), c.Events)
	require.Len(t, c.Artifacts, 1)
	require.True(t, c.Artifacts[0].MetaUnknown)
	require.Len(t, c.Messages.All(), 1)
	again, err := checkpoint.Append(nil, &c)
	require.NoError(t, err)
	require.Equal(t, "a2acp\x04", string(again[:6]))
	back, err := checkpoint.Parse(again)
	require.NoError(t, err)
	twice, err := checkpoint.Append(nil, &back)
	require.NoError(t, err)
	require.Equal(t, again, twice)
}

// A format 2 checkpoint (testdata/checkpoint-format2.bin: sample()[1], its
// marks without the one in capitals, as the library wrote it before format
// 3, every ID as text) reads with every mark, and is written again in
// format 4, its marks as they were read, which reads back to a checkpoint
// that writes the same bytes.
func TestFormat2StillReads(t *testing.T) {
	b, err := os.ReadFile("testdata/checkpoint-format2.bin")
	require.NoError(t, err)
	require.Equal(t, "a2acp\x02", string(b[:6]), "the fixture is of format 2")
	c, err := checkpoint.Parse(b)
	require.NoError(t, err)
	want := sample()[1]
	require.Equal(t, want.TaskID, c.TaskID)
	require.Equal(t, want.Artifacts, c.Artifacts)
	require.Equal(t, want.Messages.All()[:4], c.Messages.All())
	again, err := checkpoint.Append(nil, &c)
	require.NoError(t, err)
	require.Equal(t, "a2acp\x04", string(again[:6]))
	back, err := checkpoint.Parse(again)
	require.NoError(t, err)
	require.Equal(t, c.Messages.All(), back.Messages.All())
	twice, err := checkpoint.Append(nil, &back)
	require.NoError(t, err)
	require.Equal(t, again, twice)
}

// Format 4's bytes are pinned: sample()[1] writes
// testdata/checkpoint-format4.bin byte for byte (its push registration is
// the last field, a string before the checksum), and the file reads back
// to it. A change of the bytes written is a new format.
func TestFormat4BytesAreGolden(t *testing.T) {
	want, err := os.ReadFile("testdata/checkpoint-format4.bin")
	require.NoError(t, err)
	c := sample()[1]
	got, err := checkpoint.Append(nil, &c)
	require.NoError(t, err)
	require.Equal(t, want, got)
	const id = "6f1c9a54-3f2e-4c59-9a55-0d1b7d0c2f11"
	require.Equal(t, append([]byte{byte(len(id))}, id...), got[len(got)-4-1-len(id):len(got)-4], "the push registration, last")
	back, err := checkpoint.Parse(want)
	require.NoError(t, err)
	require.Equal(t, id, back.Push)
	none, err := checkpoint.Append(nil, &checkpoint.Checkpoint{TaskID: "t-1"})
	require.NoError(t, err)
	require.Equal(t, byte(0), none[len(none)-5], "no push registration: an empty string")
}

// A format 3 checkpoint (testdata/checkpoint-format3.bin: sample()[1]
// without its push registration, as the format-3 writer wrote it) reads
// as it was, with no push registration, and is written again in format 4,
// which reads back to it.
func TestFormat3StillReads(t *testing.T) {
	b, err := os.ReadFile("testdata/checkpoint-format3.bin")
	require.NoError(t, err)
	require.Equal(t, "a2acp\x03", string(b[:6]), "the fixture is of format 3")
	c, err := checkpoint.Parse(b)
	require.NoError(t, err)
	want := sample()[1]
	want.Push = ""
	require.Equal(t, want.Messages.All(), c.Messages.All())
	c.Messages, want.Messages = checkpoint.Messages{}, checkpoint.Messages{}
	require.Equal(t, want, c)
	again, err := checkpoint.Append(nil, &c)
	require.NoError(t, err)
	require.Equal(t, "a2acp\x04", string(again[:6]))
	back, err := checkpoint.Parse(again)
	require.NoError(t, err)
	require.Empty(t, back.Push)
}

// A mark keeps a UUID in 16 bytes only in its canonical form, the one it
// reads back to; any other ID, a UUID in capitals or without its hyphens
// included, is kept as the text it is. Each reads back as it was added.
func TestMarksKeepUUIDsShort(t *testing.T) {
	const id = "0b6b3a53-44c7-4bd2-9f37-0f5c2a0d6e11"
	size := func(id string) int {
		var ms checkpoint.Messages
		ms.Add(id, 1)
		b, err := checkpoint.Append(nil, &checkpoint.Checkpoint{Messages: ms})
		require.NoError(t, err)
		back, err := checkpoint.Parse(b)
		require.NoError(t, err)
		require.Equal(t, []checkpoint.Message{{ID: id, Digest: 1}}, back.Messages.All())
		return len(b)
	}
	base := size("") // its mark: the kind, a length 0, the digest
	require.Equal(t, base-1+16, size(id), "a UUID: 16 bytes, and no length")
	for _, other := range []string{"0B6B3A53-44C7-4BD2-9F37-0F5C2A0D6E11", "0b6b3a5344c74bd29f370f5c2a0d6e11",
		"{0b6b3a53-44c7-4bd2-9f37-0f5c2a0d6e11}", "urn:uuid:0b6b3a53-44c7-4bd2-9f37-0f5c2a0d6e11", "m-1"} {
		require.Equal(t, base+len(other), size(other), "%q: as text", other)
	}
}

// A UUID mark is format 3's: in a checkpoint that says it is of format 2,
// it is refused.
func TestUUIDMarkInFormat2IsRefused(t *testing.T) {
	var ms checkpoint.Messages
	ms.Add("0b6b3a53-44c7-4bd2-9f37-0f5c2a0d6e11", 1)
	b, err := checkpoint.Append(nil, &checkpoint.Checkpoint{TaskID: "t-1", Messages: ms})
	require.NoError(t, err)
	b[5] = 2
	_, err = checkpoint.Parse(withSum(b[:len(b)-4]))
	require.ErrorIs(t, err, checkpoint.ErrCorrupt)
	require.ErrorContains(t, err, "a message mark")
}

// Bytes that are not a whole checkpoint are refused with an *Error, never
// read in part: every prefix, every bit flipped, a newer format, bytes
// after the last field, and text that is no checkpoint at all.
func TestDamagedIsRefusedWhole(t *testing.T) {
	saved, err := checkpoint.Append(nil, &sample()[1])
	require.NoError(t, err)
	requireRefused := func(t *testing.T, data []byte, want error, what string) {
		t.Helper()
		_, err := checkpoint.Parse(data)
		var ce *checkpoint.Error
		require.ErrorAs(t, err, &ce, what)
		require.ErrorIs(t, err, want, what)
		require.NotEmpty(t, ce.Reason, what)
	}
	for n := range len(saved) {
		want := checkpoint.ErrCorrupt
		if n < len("a2acp") {
			want = checkpoint.ErrForeign
		}
		requireRefused(t, saved[:n], want, "a prefix")
	}
	for i := len("a2acp\x04") * 8; i < len(saved)*8; i++ {
		b := append([]byte(nil), saved...)
		b[i/8] ^= 1 << (i % 8)
		requireRefused(t, b, checkpoint.ErrCorrupt, "a bit flipped")
	}
	newer := append([]byte("a2acp\x05"), saved[6:]...)
	requireRefused(t, newer, checkpoint.ErrNewer, "format 5")
	body := append(append([]byte(nil), saved[:len(saved)-4]...), 0)
	requireRefused(t, withSum(body), checkpoint.ErrCorrupt, "a byte more")
	requireRefused(t, []byte(`{"taskId":"t-1"}`), checkpoint.ErrForeign, "JSON")
	requireRefused(t, nil, checkpoint.ErrForeign, "nothing")
}

// A checkpoint whose fields contradict each other is refused, checksum
// and all: a checksum does not catch a writer's bug.
func TestContradictionsAreRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(c *checkpoint.Checkpoint)
		reason string
	}{
		{"an unknown protocol version", func(c *checkpoint.Checkpoint) { c.Version = "9.9" }, `unknown protocol version "9.9"`},
		{"a reply marked as sent, and none", func(c *checkpoint.Checkpoint) { c.Prompt.Reply = nil }, "a reply marked as possibly sent, and no reply"},
		{"a reply on another task", func(c *checkpoint.Checkpoint) { c.TaskID = "t-2" }, `the reply is on task "t-1", not on the checkpoint's task "t-2"`},
		{"an artifact twice", func(c *checkpoint.Checkpoint) { c.Artifacts[2].ID = "a1" }, `artifact "a1" listed twice`},
		{"metadata out of order", func(c *checkpoint.Checkpoint) { c.Artifacts[0].Meta[1].Key = 1 },
			`the metadata of artifact "a1" lists a key twice, or out of order`},
		{"a push registration that is no registration's ID", func(c *checkpoint.Checkpoint) { c.Push = "hooks/../x" },
			`the push registration "hooks/../x" is not a registration's ID`},
		{"a push registration in capitals", func(c *checkpoint.Checkpoint) { c.Push = "6F1C9A54-3F2E-4C59-9A55-0D1B7D0C2F11" },
			`the push registration "6F1C9A54-3F2E-4C59-9A55-0D1B7D0C2F11" is not a registration's ID`},
		{"too many statuses shown", func(c *checkpoint.Checkpoint) {
			c.Shown = make([]checkpoint.Status, checkpoint.MaxShown+1)
		}, "the statuses shown cut short or malformed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := sample()[1]
			bad.Artifacts = append([]checkpoint.Artifact(nil), bad.Artifacts...)
			bad.Artifacts[0].Meta = append([]checkpoint.Meta(nil), bad.Artifacts[0].Meta...)
			c.change(&bad)
			b, err := checkpoint.Append(nil, &bad)
			require.NoError(t, err)
			_, err = checkpoint.Parse(b)
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)
			require.Equal(t, "checkpoint: corrupt: "+c.reason, err.Error())
		})
	}
}

// Messages keeps its marks in order; a shared copy and the original grow
// apart without touching each other; the running checksum is the one a
// checkpoint's bytes need (a checkpoint read and written again has the
// same bytes, and the same marks).
func TestMessagesGrowApartWhenShared(t *testing.T) {
	var ms checkpoint.Messages
	require.Empty(t, ms.All())
	ms.Add("m-1", 1)
	ms.Add("", 2)
	shared := ms.Shared()
	ms.Add("m-2", 3)
	shared.Add("m-3", 4)
	require.Equal(t, []checkpoint.Message{{ID: "m-1", Digest: 1}, {ID: "", Digest: 2}, {ID: "m-2", Digest: 3}}, ms.All())
	require.Equal(t, []checkpoint.Message{{ID: "m-1", Digest: 1}, {ID: "", Digest: 2}, {ID: "m-3", Digest: 4}}, shared.All())
	for _, m := range []checkpoint.Messages{ms, shared} {
		b, err := checkpoint.Append(nil, &checkpoint.Checkpoint{TaskID: "t-1", Messages: m})
		require.NoError(t, err)
		back, err := checkpoint.Parse(b)
		require.NoError(t, err, "the running checksum is the bytes'")
		require.Equal(t, m.All(), back.Messages.All())
	}
}

func withSum(body []byte) []byte {
	return binary.BigEndian.AppendUint32(body, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
}
