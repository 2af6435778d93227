package clip

// The bounds the module quotes server text at, in bytes.
const (
	// Message bounds a server's message: the message of a JSON-RPC error,
	// a link of an error chain.
	Message = 256
	// Field bounds a short field: the kind of a result, a reason, an ID, a
	// content type, a header.
	Field = 64
	// EndingLine bounds, its ellipsis included, the one line that tells a
	// person how a stream ended (stream's Ending.String, relay's failure
	// text), however much text the agent or the server gave as its reason.
	EndingLine = 512
)

// Ellipsis ends text that [Text] cut.
const Ellipsis = "…"

// Text returns s when it is at most n bytes long. Otherwise it returns a
// prefix of s of at most n bytes followed by [Ellipsis], so the result is
// never longer than n+len(Ellipsis) bytes. The prefix ends where a character
// starts, as a range loop over s reads characters: a multi-byte UTF-8
// character is kept whole or left out, never cut; in invalid UTF-8, where a
// range loop reads each stray byte as one character, the cut may fall
// before such a byte. Text does not otherwise change s: the caller quotes
// it (with %q) where control characters or invalid UTF-8 must not reach a
// terminal or a log as they are. n below 0 counts as 0.
func Text(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) <= n {
		return s
	}
	// The cut falls where the last character that starts at or before n
	// starts. A range loop steps over a valid character whole and over a
	// stray byte alone, so what it yields are the places a cut may fall.
	cut := 0
	for i := range s {
		if i > n {
			break
		}
		cut = i
	}
	return s[:cut] + Ellipsis
}
