// Package sse decodes Server-Sent Events: the text/event-stream bodies that
// A2A servers send in answer to a streaming JSON-RPC call.
//
// A [Decoder] wraps the response body and hands out one [Event] per call to
// [Decoder.Next]. It follows the event stream parsing rules of the WHATWG
// HTML standard: LF, CR and CRLF line endings (also when a CRLF is cut in
// two by the network), a byte order mark at the very start, comments, the
// data, event, id and retry fields, and no dispatch for blocks without a
// data field. An event cut short by the end of the body or by a read error
// is never returned. The package only parses; opening and closing the HTTP
// request is the caller's job.
//
// # Why not a library
//
// The project looked at the Go SSE packages that exist and kept none:
//
//   - The usual client, r3labs/sse, can only issue GET requests. A2A
//     streams start with a POST, and the workaround of swapping the
//     request underneath it makes every automatic reconnect send the
//     user's message again.
//   - Its parser turns every keep-alive comment that follows an event with
//     an id into an empty event, which then fails to unmarshal as JSON.
//     Real A2A servers send exactly that pattern.
//   - It and other parsers rescan the whole pending event for every chunk
//     read, so a multi-megabyte artifact takes quadratic time.
//   - Several cap an event at 64 KiB by default and fail, or reconnect in a
//     loop, on bigger ones, while artifacts can be far larger.
//
// This decoder reads straight from a bufio.Reader, copies each byte of
// data once, keeps one reusable buffer per event part, hands a big event
// out in the fixed-size chunks it read it into (never one buffer that
// doubles as it grows), and enforces an explicit limit (16 MiB unless told
// otherwise) on every event and line.
package sse
