// Package jsonrpc is the JSON-RPC 2.0 framing of A2A's JSON-RPC binding, in
// both protocol versions: the request, the one response envelope
// ([Response]) for unary and streamed responses alike, and the one rule that
// makes a response a result, an error, or not a response at all
// ([ErrNotAResponse]). Package a2a holds the JSON of what the envelope
// carries; [StreamDecoder] reads envelope and stream result in one pass:
// the usual envelope with a scan of its own (internal/jsonscan) and its
// result with [a2a.EventDecoder.Decode], any other through
// [a2a.EventDecoder.DecodeFrame].
package jsonrpc
