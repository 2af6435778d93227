// Package interop holds the interoperability tests of a2astream: they start
// real A2A servers (a2a-go and @a2a-js/sdk, in peers/) on 127.0.0.1, put the
// cutting proxy (package proxy) between them and the library, and check that
// every scripted scenario ends the same way whether or not its streams are
// cut. A small server of our own (peers/retry) answers with the retryable
// errors and busy sends those servers cannot emit, and holds a task in
// auth-required until a call brings the token. It is a module of its own
// so that the library never depends on a2a-go. See README.md.
package interop
