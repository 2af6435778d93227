// Package httpx is the HTTP plumbing stream and agentcard share: the
// origins headers go to and the client that keeps them there across
// redirects, the redaction of URLs in error texts, bounded body reads, the
// classification of a failed dial and its error, and header validation.
// It imports no package of the module but reconnect.
package httpx
