package agentcard_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
)

// A base URL that is not an absolute http or https URL is refused with an
// error that matches ErrInvalidOption, before anything is sent; its text
// says what to write and holds no password or query value.
func TestABadBaseURLIsRefusedBeforeAnythingIsSent(t *testing.T) {
	cases := []struct{ raw, text string }{
		{"127.0.0.1:9999", `agentcard: invalid base URL "127.0.0.1:9999": it has no scheme; write "http://127.0.0.1:9999" or "https://127.0.0.1:9999"`},
		{"agent.example/a2a?key=SECRET", `agentcard: invalid base URL "agent.example/a2a?key=xxxxx": it has no scheme; write "http://agent.example/a2a?key=xxxxx" or "https://agent.example/a2a?key=xxxxx"`},
		{"", `agentcard: invalid base URL "": want an absolute http or https URL`},
		{"ftp://agent.example/", `agentcard: invalid base URL "ftp://agent.example/": want an absolute http or https URL`},
		{"admin:hunter22@agent.example/a2a", `agentcard: invalid base URL: it is no absolute http or https URL (write one, http:// or https:// first)`},
	}
	agent := a2atest.NewAgent()
	for _, tc := range cases {
		t.Run(tc.raw, func(t *testing.T) {
			_, err := agentcard.Fetch(context.Background(), tc.raw, agentcard.WithHTTPClient(agent.Client()))
			require.ErrorIs(t, err, agentcard.ErrInvalidOption)
			require.EqualError(t, err, tc.text)
		})
	}
	require.Empty(t, agent.Requests(), "nothing is sent")
}
