// Package jsonscan reads the tokens of one JSON text in place, for the
// hand-written decoders of the module's hot stream shapes (package a2a's
// fast event decoder and internal/jsonrpc's envelope). A [Scanner] checks
// the syntax of what it reads as encoding/json does, and reads a string
// value as a [Str], a span of the data with the exact length its value has
// once unescaped, so that a decoder can size one buffer for all of an
// event's strings before it copies them out with [Str.WriteTo].
//
// A Scanner reads what a fast path expects and reports anything else as
// not ok, without saying why: the caller then decodes the whole text with
// encoding/json, whose errors and corner cases stay the reference. A Str's
// value is the one encoding/json would give: escapes, \uXXXX and surrogate
// pairs decoded, and a lone surrogate and every byte of invalid UTF-8
// replaced with U+FFFD.
//
// It imports nothing of the module, so that package a2a may import it.
package jsonscan
