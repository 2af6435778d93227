package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestShortFuncDropsTheModuleAndTypeArguments(t *testing.T) {
	require.Equal(t, "stream.(*Stream).Next", shortFunc("github.com/a2astream/a2astream/stream.(*Stream).Next"))
	require.Equal(t, "grpc.openStream[…].func1",
		shortFunc("github.com/a2astream/a2astream/grpc.openStream[go.shape.struct { a b; c []uint8 },go.shape.*x.StreamResponse].func1"))
	require.Equal(t, "runtime.mallocgc", shortFunc("runtime.mallocgc"))
}
