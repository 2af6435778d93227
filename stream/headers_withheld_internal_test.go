package stream

import (
	"net/http"
	"testing"

	"github.com/a2astream/a2astream/internal/httpx"
	"github.com/stretchr/testify/require"
)

func TestWithheldHeadersNamesTheHeadersAnotherOriginDoesNotGet(t *testing.T) {
	h := http.Header{"X-Api-Key": {"key-secret"}, "Authorization": {"Bearer a", "Bearer b"}}
	for _, c := range []struct {
		name            string
		h               http.Header
		named, endpoint string
		want            []string
	}{
		{"another host", h, "http://localhost:9999", "http://127.0.0.1:9999", []string{"Authorization", "X-Api-Key"}},
		{"https down to http", h, "https://agent.test", "http://agent.test", []string{"Authorization", "X-Api-Key"}},
		{"another port", h, "https://agent.test", "https://agent.test:8443", []string{"Authorization", "X-Api-Key"}},
		{"the origin named", h, "https://agent.test", "https://agent.test", nil},
		{"no header", http.Header{}, "http://localhost:9999", "http://127.0.0.1:9999", nil},
		{"no endpoint (NewClientFor)", h, "", "", nil},
	} {
		if c.named == "" {
			require.Nil(t, withheldHeaders(c.h, nil, c.endpoint))
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, withheldHeaders(c.h, httpx.Origins{c.named}, c.endpoint))
		})
	}
	require.Nil(t, withheldHeaders(h, httpx.Origins{"http://localhost:9999", "http://127.0.0.1:9999"}, "http://127.0.0.1:9999"), "a trusted origin")
}
