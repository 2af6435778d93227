package stream

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/transport"
)

// TestCallHeadersReplaceByName pins withHeaders, which makes the headers
// of a call: a per-call WithHeader over the Client's (configWith), and the
// credentials a hook gave over the stream's (Stream.header). One row per
// case, its reason named; neither header is modified.
func TestCallHeadersReplaceByName(t *testing.T) {
	client := func() http.Header {
		return http.Header{"Authorization": {"Bearer service"}, "X-Team": {"travel"}}
	}
	for _, c := range []struct {
		name       string
		base, over http.Header
		want       http.Header
	}{
		{"nothing over: the base as it is", client(), nil,
			client()},
		{"an empty over: the base as it is", client(), http.Header{},
			client()},
		{"a name of the base: its values replaced, the others kept", client(), http.Header{"Authorization": {"Bearer user"}},
			http.Header{"Authorization": {"Bearer user"}, "X-Team": {"travel"}}},
		{"a new name: added", client(), http.Header{"X-Call": {"1"}},
			http.Header{"Authorization": {"Bearer service"}, "X-Team": {"travel"}, "X-Call": {"1"}}},
		{"several values: all of them replace the base's", client(), http.Header{"X-Team": {"a", "b"}},
			http.Header{"Authorization": {"Bearer service"}, "X-Team": {"a", "b"}}},
		{"no base (no credentials given yet): over alone", nil, http.Header{"Authorization": {"Bearer fresh"}},
			http.Header{"Authorization": {"Bearer fresh"}}},
		{"neither: none", nil, nil,
			nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, over := c.base.Clone(), c.over.Clone()
			require.Equal(t, c.want, withHeaders(c.base, c.over))
			require.Equal(t, base, c.base, "the base is not modified")
			require.Equal(t, over, c.over, "over is not modified")
		})
	}
}

// TestCallOfABindingOfAnotherModule pins callConfig.public, the Call a
// Transport made for NewClientFor is given: the version, and the headers as
// its own copy, nil when there are none.
func TestCallOfABindingOfAnotherModule(t *testing.T) {
	h := http.Header{"Authorization": {"Bearer user"}}
	for _, c := range []struct {
		name string
		k    callConfig
		want transport.Call
	}{
		{"headers: a copy of them", callConfig{v: a2a.V10, header: h}, transport.Call{Version: a2a.V10, Header: h}},
		{"an empty header: nil", callConfig{v: a2a.V03, header: http.Header{}}, transport.Call{Version: a2a.V03}},
		{"no header: nil", callConfig{v: a2a.V03}, transport.Call{Version: a2a.V03}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.k.public()
			require.Equal(t, c.want, got)
			if got.Header != nil {
				got.Header.Set("Authorization", "changed by the binding")
				require.Equal(t, "Bearer user", h.Get("Authorization"), "the binding's copy is its own")
			}
		})
	}
}
