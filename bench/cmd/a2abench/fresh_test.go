package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseProcsTakesPositiveIntegers(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []int
		ok       bool
	}{
		{"two", "1,2", []int{1, 2}, true},
		{"spaces", " 4 , 8", []int{4, 8}, true},
		{"one", "2", []int{2}, true},
		{"zero", "0,2", nil, false},
		{"empty", "", nil, false},
		{"word", "1,two", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcs(tt.in)
			if !tt.ok {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
	require.Equal(t, "1 and 2", procsList([]int{1, 2}))
	require.Equal(t, "1, 2 and 4", procsList([]int{1, 2, 4}))
}

func TestIsRoundChildReadsOnlyTheFirstArgument(t *testing.T) {
	require.True(t, isRoundChild([]string{"-round", "throughput/0"}))
	require.True(t, isRoundChild([]string{"-round=growth/1"}))
	require.False(t, isRoundChild([]string{"-only", "growth", "-round", "x"}))
	require.False(t, isRoundChild(nil))
}
