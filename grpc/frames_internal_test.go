package a2agrpc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// frame is an HTTP/2 frame of type typ with a payload of n bytes.
func frame(typ byte, n int) []byte {
	b := []byte{byte(n >> 16), byte(n >> 8), byte(n), typ, 0, 0, 0, 0, 1}
	return append(b, make([]byte, n)...)
}

// TestFramesCountOnlyCalls: the connection's reads count as a call's
// activity only for the bytes of DATA, HEADERS and CONTINUATION frames,
// whatever the reads' boundaries: never for a PING, its ack, SETTINGS,
// WINDOW_UPDATE, PRIORITY, RST_STREAM or GOAWAY alone.
func TestFramesCountOnlyCalls(t *testing.T) {
	type part struct {
		typ   byte
		n     int
		calls bool
	}
	parts := []part{
		{0x4, 6, false}, // SETTINGS
		{0x4, 0, false}, // SETTINGS ack
		{0x6, 8, false}, // PING
		{0x1, 3, true},  // HEADERS
		{0x9, 2, true},  // CONTINUATION
		{0x8, 4, false}, // WINDOW_UPDATE
		{0x0, 5, true},  // DATA
		{0x6, 8, false}, // PING ack
		{0x0, 0, true},  // an empty DATA (END_STREAM)
		{0x2, 5, false}, // PRIORITY
		{0x3, 4, false}, // RST_STREAM
		{0x7, 8, false}, // GOAWAY
		{0x0, 70, true}, // DATA
		{0x6, 8, false}, // PING
	}
	var (
		wire []byte
		// counted[i]: byte i completes a calling frame's header, or is a
		// byte of its payload.
		counted []bool
	)
	for _, p := range parts {
		f := frame(p.typ, p.n)
		for i := range f {
			counted = append(counted, p.calls && i >= 8)
		}
		wire = append(wire, f...)
	}
	want := func(a, b int) bool {
		for i := a; i < b; i++ {
			if counted[i] {
				return true
			}
		}
		return false
	}
	// Every way of cutting the bytes into three reads.
	for i := 0; i <= len(wire); i++ {
		for j := i; j <= len(wire); j++ {
			var f frames
			got := []bool{f.scan(wire[:i]), f.scan(wire[i:j]), f.scan(wire[j:])}
			require.Equal(t, []bool{want(0, i), want(i, j), want(j, len(wire))}, got, "reads cut at %d and %d", i, j)
			require.Zero(t, f.nhead, "every frame read whole")
			require.Zero(t, f.left)
		}
	}
}

// FuzzFramesReadInPieces: whatever bytes a connection reads, and however
// they are cut into reads, the frames are followed the same: the reads
// report calls exactly when some byte of a calling frame (its header
// completed, or its payload) is in them, and the scanner ends in the same
// state as one that read the bytes whole.
func FuzzFramesReadInPieces(f *testing.F) {
	f.Add(append(frame(0x4, 6), frame(0x0, 5)...), uint16(3), uint16(11))
	f.Add(append(frame(0x6, 8), frame(0x1, 3)...), uint16(9), uint16(9))
	f.Fuzz(func(t *testing.T, wire []byte, cut1, cut2 uint16) {
		i := int(cut1) % (len(wire) + 1)
		j := i + int(cut2)%(len(wire)-i+1)
		var whole, pieces frames
		all := whole.scan(wire)
		a, b, c := pieces.scan(wire[:i]), pieces.scan(wire[i:j]), pieces.scan(wire[j:])
		if all != (a || b || c) {
			t.Fatalf("whole %v, pieces %v %v %v", all, a, b, c)
		}
		if whole != pieces {
			t.Fatalf("state %+v after the whole, %+v after pieces", whole, pieces)
		}
	})
}
