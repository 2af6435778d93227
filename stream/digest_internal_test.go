package stream

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDigestUintIsByteByByte: digest.uint, with its shortcut for values
// under 256, gives the digest of the value's eight bytes, little-endian,
// added one by one: the digest checkpoints hold does not change.
func TestDigestUintIsByteByByte(t *testing.T) {
	byBytes := func(d digest, v uint64) digest {
		for range 8 {
			d = d.byte(byte(v))
			v >>= 8
		}
		return d
	}
	values := []uint64{math.MaxUint64, 1 << 63, 1<<32 + 7}
	for v := range uint64(1 << 10) {
		values = append(values, v)
	}
	for _, d := range []digest{digestStart, 0, 1, digestPrime, math.MaxUint64} {
		for _, v := range values {
			require.Equal(t, byBytes(d, v), d.uint(v), "digest %#x, value %d", uint64(d), v)
		}
	}
	// A known answer, from the byte-by-byte digest before the shortcut.
	require.Equal(t, digest(0xa7a66a67796d2d64), digestStart.field("text").field("").field("text/plain"))
}
