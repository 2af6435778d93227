package stream_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// constructors are the three ways to name an agent by URL, each with the
// noun its error gives the URL.
func constructors(agent *a2atest.Agent) []struct {
	name, noun string
	make       func(raw string) error
} {
	hc := stream.WithHTTPClient(agent.Client())
	return []struct {
		name, noun string
		make       func(raw string) error
	}{
		{"NewClient", "endpoint", func(raw string) error { _, err := stream.NewClient(raw, hc); return err }},
		{"NewRESTClient", "endpoint", func(raw string) error { _, err := stream.NewRESTClient(raw, hc); return err }},
		{"Resolve", "base URL", func(raw string) error { _, err := stream.Resolve(background(), raw, hc); return err }},
	}
}

// A URL typed without its scheme is refused, before anything is sent, with
// an error that matches ErrInvalidOption, quotes the URL (its query values
// redacted) and gives the URL to write.
func TestAURLWithoutASchemeIsRefusedWithTheURLToWrite(t *testing.T) {
	cases := []struct{ raw, shown string }{
		{"127.0.0.1:9999", "127.0.0.1:9999"},
		{"localhost:9999", "localhost:9999"},
		{"agent.example/a2a?key=SECRET", "agent.example/a2a?key=xxxxx"},
	}
	agent := a2atest.NewAgent()
	for _, k := range constructors(agent) {
		for _, tc := range cases {
			t.Run(k.name+"/"+tc.raw, func(t *testing.T) {
				err := k.make(tc.raw)
				require.ErrorIs(t, err, stream.ErrInvalidOption)
				require.EqualError(t, err, `stream: invalid `+k.noun+` "`+tc.shown+`": it has no scheme; write "http://`+tc.shown+`" or "https://`+tc.shown+`"`)
			})
		}
	}
	require.Empty(t, agent.Requests(), "nothing is sent")
}

// Any other URL that is not an absolute http or https URL is refused with
// an error that matches ErrInvalidOption too, before anything is sent.
func TestAURLThatIsNotHTTPIsRefused(t *testing.T) {
	cases := []struct{ raw, text string }{
		{"", ` "": want an absolute http or https URL`},
		{"ftp://agent.example/", ` "ftp://agent.example/": want an absolute http or https URL`},
		{"http://", ` "http:": want an absolute http or https URL`},
		{"not a url:9", `: it does not parse as a URL (first path segment in URL cannot contain colon); want an absolute http or https URL`},
	}
	agent := a2atest.NewAgent()
	for _, k := range constructors(agent) {
		for _, tc := range cases {
			t.Run(k.name+"/"+tc.raw, func(t *testing.T) {
				err := k.make(tc.raw)
				require.ErrorIs(t, err, stream.ErrInvalidOption)
				require.EqualError(t, err, "stream: invalid "+k.noun+tc.text)
			})
		}
	}
	require.Empty(t, agent.Requests(), "nothing is sent")
}
