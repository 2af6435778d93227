// Package jsonrpc encodes JSON-RPC 2.0 requests and decodes unary
// responses, as A2A's JSON-RPC binding uses them in both protocol versions.
// Stream responses are decoded in one pass by a2a.ResponseDecoder.
package jsonrpc
