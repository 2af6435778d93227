package httpx

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A URL typed without its scheme is refused with the URL quoted, redacted,
// and the URL to write instead; any other URL that is not an absolute http
// or https URL is refused with what is wanted.
func TestParseHTTPSaysWhatToWrite(t *testing.T) {
	cases := []struct{ raw, err string }{
		{"http://127.0.0.1:9999", ""},
		{"https://agent.example/a2a?k=v", ""},
		{"127.0.0.1:9999", `invalid endpoint "127.0.0.1:9999": it has no scheme; write "http://127.0.0.1:9999" or "https://127.0.0.1:9999"`},
		{"localhost:9999", `invalid endpoint "localhost:9999": it has no scheme; write "http://localhost:9999" or "https://localhost:9999"`},
		{"agent.example/a2a?key=K", `invalid endpoint "agent.example/a2a?key=xxxxx": it has no scheme; write "http://agent.example/a2a?key=xxxxx" or "https://agent.example/a2a?key=xxxxx"`},
		{"[::1]:9999", `invalid endpoint "[::1]:9999": it has no scheme; write "http://[::1]:9999" or "https://[::1]:9999"`},
		{"mailto:a@b", `invalid endpoint: it is no absolute http or https URL (write one, http:// or https:// first)`},
		// A user name and password before the host, without the scheme,
		// read as the scheme "admin": not quoted, the password with it.
		{"admin:hunter22@agent.example:8443/a2a", `invalid endpoint: it is no absolute http or https URL (write one, http:// or https:// first)`},
		{"ftp://agent.example/", `invalid endpoint "ftp://agent.example/": want an absolute http or https URL`},
		{"http:agent.example", `invalid endpoint: it is no absolute http or https URL (write one, http:// or https:// first)`},
		{"http://", `invalid endpoint "http:": want an absolute http or https URL`},
		{"", `invalid endpoint "": want an absolute http or https URL`},
		{"a b:9999", `invalid endpoint: it does not parse as a URL (first path segment in URL cannot contain colon); want an absolute http or https URL`},
		{"http://u:secret@host:99x/", `invalid endpoint: it does not parse as a URL (invalid port ":99x" after host); want an absolute http or https URL`},
	}
	for _, tc := range cases {
		t.Run(tc.raw, func(t *testing.T) {
			u, err := ParseHTTP(tc.raw, "endpoint")
			if tc.err == "" {
				require.NoError(t, err)
				require.Equal(t, tc.raw, u.String())
				return
			}
			require.EqualError(t, err, tc.err)
			require.Nil(t, u)
		})
	}
}

func TestParseBaseNamesABaseURL(t *testing.T) {
	_, err := ParseBase("127.0.0.1:9999")
	require.EqualError(t, err, `invalid base URL "127.0.0.1:9999": it has no scheme; write "http://127.0.0.1:9999" or "https://127.0.0.1:9999"`)
}
