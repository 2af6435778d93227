// Package jsonrpc encodes JSON-RPC 2.0 requests and decodes unary
// responses, as A2A's JSON-RPC binding uses them in both protocol versions.
// It checks every response, streamed or not, the same way (Check). Stream
// responses are decoded, envelope and result in one pass, by
// a2a.EventDecoder.
package jsonrpc
