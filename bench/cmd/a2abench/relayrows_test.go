package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// -relay-rows names rows as store:streamsxreaders; anything else is
// refused, and a parsed list prints back as it was given.
func TestRelayRowsParseAsGivenOrAreRefused(t *testing.T) {
	rows, err := parseScaleShapes("redis:1x1000,memory:1000x1")
	require.NoError(t, err)
	require.Equal(t, []scaleShape{{"redis", 1, 1000}, {"memory", 1000, 1}}, rows)
	require.Equal(t, "redis:1x1000,memory:1000x1", formatScaleShapes(rows))
	rows, err = parseScaleShapes("")
	require.NoError(t, err)
	require.Empty(t, rows)
	for _, bad := range []string{"redis", "redis:1", "redis:0x5", "redis:1x-1", "disk:1x1", "redis:axb", "redis:1x1,"} {
		_, err := parseScaleShapes(bad)
		require.Error(t, err, bad)
	}
}
