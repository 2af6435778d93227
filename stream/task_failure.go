package stream

import "github.com/a2astream/a2astream/terminal"

// WithFailureReader sets how a stream's terminal errors read the structured
// failure of the task (terminal.Error's Failure, and the code in their text): r is
// called once, with the final task, when the stream ends in a terminal
// error. By default, and with a nil r, they read the tRPC-Agent-Go
// convention with terminal.ReadStructured. A Reader of its own serves an
// agent of another convention; it may fall back to ReadStructured. It
// applies to a Client's constructors and to its streams.
func WithFailureReader(r terminal.Reader) Option {
	return option{"WithFailureReader", streams, func(c *config) { c.readFailure = r }}
}
