package httpx

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRedactURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://agent.test/rpc", "http://agent.test/rpc"},
		{"http://agent.test/rpc?api_key=K", "http://agent.test/rpc?api_key=xxxxx"},
		{"http://agent.test/rpc?b=2&a=1&b=3", "http://agent.test/rpc?b=xxxxx&a=xxxxx&b=xxxxx"},
		{"http://agent.test/rpc?token", "http://agent.test/rpc?xxxxx"},
		{"http://agent.test/rpc?a=&=K&&k=%zz;x", "http://agent.test/rpc?a=xxxxx&=xxxxx&&k=xxxxx"},
		{"http://agent.test/rpc?", "http://agent.test/rpc?"},
		{"http://user:pass@agent.test/?k=v#frag", "http://xxxxx:xxxxx@agent.test/?k=xxxxx#xxxxx"},
		{"http://user@agent.test/", "http://xxxxx@agent.test/"},
		{"http://ghp_t0ken@agent.test/a2a", "http://xxxxx@agent.test/a2a"},
		{"http://agent.test/a%2Fb?k=v", "http://agent.test/a%2Fb?k=xxxxx"},
		{"/rpc?api_key=K", "/rpc?api_key=xxxxx"},
		{"http:opaque?k=v", "http:opaque?k=xxxxx"},
	}
	for _, c := range cases {
		u, err := url.Parse(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, RedactURL(u), c.in)
		require.Equal(t, c.in, u.String(), "the URL itself is left alone")
		require.Equal(t, c.want, RedactRawURL(c.in), c.in)
	}
	require.Equal(t, "xxxxx", RedactRawURL("http://a b.test/?k=secret"), "text that does not parse")
}

type timeoutErr struct{}

func (timeoutErr) Error() string { return "i/o timeout" }
func (timeoutErr) Timeout() bool { return true }

func TestRedactError(t *testing.T) {
	plain := errors.New("plain")
	require.Same(t, plain, RedactError(plain))
	require.NoError(t, RedactError(nil))

	inner := &url.Error{Op: "Get", URL: "http://x.test/?k=inner", Err: timeoutErr{}}
	ue := &url.Error{Op: "Post", URL: "http://agent.test/rpc?api_key=K", Err: inner}
	got := RedactError(ue)
	var red *url.Error
	require.ErrorAs(t, got, &red)
	require.Equal(t, "Post", red.Op)
	require.Equal(t, "http://agent.test/rpc?api_key=xxxxx", red.URL)
	require.Equal(t, "http://x.test/?k=xxxxx", red.Err.(*url.Error).URL, "a *url.Error directly inside")
	require.True(t, red.Timeout())
	require.ErrorIs(t, got, timeoutErr{})
	require.Equal(t, "http://agent.test/rpc?api_key=K", ue.URL, "the original is left alone")

	canceled := RedactError(&url.Error{Op: "Post", URL: "http://agent.test/?k=K", Err: context.Canceled})
	require.ErrorIs(t, canceled, context.Canceled)
	require.Equal(t, `Post "http://agent.test/?k=xxxxx": context canceled`, canceled.Error())
}

func TestRedactSecrets(t *testing.T) {
	require.Equal(t, "token xxxxx and xxxxx, twice xxxxx", RedactSecrets("token tok-1 and cred-2, twice tok-1", "tok-1", "", "cred-2"))
	require.Equal(t, "nothing to hide", RedactSecrets("nothing to hide", ""), "an empty secret is skipped")
	require.Equal(t, "plain", RedactSecrets("plain"))
}
