package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/a2astream/a2astream/credentials"
	"golang.org/x/oauth2"
)

// tokenCredentials adapts an OAuth2 token source into a credentials hook:
// when the agent asks for credentials, the stream takes a token from ts and
// sends it, as "Authorization: Bearer …", on its later calls to the agent
// (and to the agent's origin only).
//
// Wrap the source in oauth2.ReuseTokenSource (clientcredentials.Config's
// TokenSource already is) so that a valid token is reused, and a new one
// fetched only when it has expired. A token source takes no context: the
// context given to Config.TokenSource, not the hook's, bounds its calls to
// the token endpoint.
func tokenCredentials(ts oauth2.TokenSource) credentials.Hook {
	return credentials.Func(func(_ context.Context, _ *credentials.Request) (http.Header, error) {
		tok, err := ts.Token()
		if err != nil {
			return nil, fmt.Errorf("oauth2: %w", err)
		}
		return http.Header{"Authorization": {tok.Type() + " " + tok.AccessToken}}, nil
	})
}
