// Package jsonrpc is the JSON-RPC 2.0 framing of A2A's JSON-RPC binding, in
// both protocol versions: the request, the one response envelope
// ([Response]) for unary and streamed responses alike, and the one rule that
// makes a response a result, an error, or not a response at all
// ([ErrNotAResponse]). Package a2a holds the JSON of what the envelope
// carries; [StreamDecoder] reads the usual envelope and its stream result
// in one pass, the envelope with a scan of its own (internal/jsonscan) and
// the result with [a2a.EventDecoder.Decode], and any other envelope in two
// steps, as [DecodeResponse] reads a unary one, then its result with Decode.
package jsonrpc
