// Package agentcard finds and reads the agent card of an A2A agent: the
// JSON document, served at a well-known path under the agent's base URL,
// that names the agent, its skills and the interfaces it can be called on.
//
// Call Fetch with a base URL. It asks for the card at Path under that URL,
// then at LegacyPath (A2A 0.2) when that answers 404, or at the URL itself
// when it names a .json file, and returns the card decoded:
//
//	card, err := agentcard.Fetch(ctx, "https://agent.example",
//		agentcard.WithHeader("Authorization", "Bearer "+token))
//
// Headers given with WithHeader go to the origin of the base URL only,
// never across a redirect to another origin nor from https down to http.
// No error text holds a header value, a password or a query value.
//
// A Cache, given with WithCache, keeps cards between calls as a private
// HTTP cache does (RFC 9111): a fresh card is used again without a request,
// a stale one is revalidated with its ETag. Share one Cache between the
// calls that send the same credentials; it is safe for concurrent use.
//
// Errors are typed: an *InvalidError when no card was found (every card URL
// answered 404; "is this the base URL of an A2A agent?") or what came is
// not a card; an *HTTPError for another status; an error that matches
// reconnect.ErrCouldNotConnect when the agent could not be reached; an
// error wrapping ErrInvalidOption for an option refused.
//
// To call the agent, use stream.Resolve, which reads the card the same way
// (stream.WithCardCache takes a Cache), picks an interface and returns a
// Client; Client.Card returns the card it read.
package agentcard
