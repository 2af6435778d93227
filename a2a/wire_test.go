package a2a_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// TestCodecWithoutBindingIsJSONRPC: a Codec that names only its version
// writes and reads exactly what the same version over JSON-RPC does, and the
// zero Codec, which names no version, reads either version's JSON-RPC JSON
// as every JSON-RPC codec does, but writes nothing.
func TestCodecWithoutBindingIsJSONRPC(t *testing.T) {
	t.Parallel()
	task := goldenTask()
	msg := goldenMessage()
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		bare, rpc := a2a.Codec{Version: v}, a2a.Codec{Version: v, Binding: a2a.BindingJSONRPC}
		for _, ev := range []a2a.Event{task, msg} {
			want, err := rpc.EncodeEvent(ev)
			require.NoError(t, err)
			got, err := bare.EncodeEvent(ev)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got))

			for _, c := range []a2a.Codec{bare, {}, {Version: a2a.V03, Binding: a2a.BindingJSONRPC}, {Version: a2a.V10, Binding: a2a.BindingHTTPJSON}} {
				back, err := c.DecodeEvent(want)
				require.NoError(t, err)
				require.Equal(t, ev, back, "%+v reads what %s over JSON-RPC wrote", c, v)
			}
		}
		want, err := rpc.EncodeTask(task)
		require.NoError(t, err)
		got, err := bare.EncodeTask(task)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
		want, err = rpc.EncodeMessage(msg)
		require.NoError(t, err)
		got, err = bare.EncodeMessage(msg)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
	_, err := a2a.Codec{}.EncodeEvent(msg)
	require.Error(t, err, "the zero Codec names no version to write")
}
