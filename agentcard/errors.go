package agentcard

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// maxErrorBody is how much of a non-2xx response body an HTTPError keeps.
const maxErrorBody = 4 << 10

// ErrInvalidOption is matched, with errors.Is, by every error that refuses
// what the caller passed to Fetch: an option (a nil Option or a bad value),
// or a base URL that is not an absolute http or https URL. Nothing is sent
// before the refusal. The text of a refused option starts "agentcard:
// invalid option"; that of a refused URL names it ("invalid base URL") and
// says what to write.
var ErrInvalidOption = errors.New("agentcard: invalid option")

// refusedURL refuses the base URL the caller passed: its text is that of
// the parse error it holds, and it matches ErrInvalidOption.
type refusedURL struct{ err error }

func (r refusedURL) Error() string { return "agentcard: " + r.err.Error() }

// Is matches ErrInvalidOption.
func (r refusedURL) Is(target error) bool { return target == ErrInvalidOption }

// HTTPError reports a card request answered with a status other than 2xx
// (stream.Resolve reports the same answer as a *transport.HTTPError). Body
// holds at most the first 4 KiB of the response body; it is not part of
// the error text. Method and URL name the request, the URL redacted as in
// every error text (no user name or password, no query value).
type HTTPError struct {
	StatusCode int
	Status     string
	Header     http.Header
	Body       []byte
	Method     string
	URL        string
}

// Error reads like "agentcard: HTTP 502 Bad Gateway from GET
// https://agent.example/.well-known/agent-card.json".
func (e *HTTPError) Error() string {
	status := strings.TrimSpace(e.Status)
	if status == "" {
		status = strconv.Itoa(e.StatusCode) + " " + http.StatusText(e.StatusCode)
	}
	if e.URL == "" {
		return "agentcard: HTTP " + status
	}
	return "agentcard: HTTP " + status + " from " + strings.TrimSpace(e.Method+" "+e.URL)
}

// InvalidError reports an agent card that could not be read, that is not a
// card, or that was refused: by the check of WithCheck, or by
// stream.Resolve when it offers no usable interface of a supported version.
// URL is the card's (redacted). When no card was found at all (every card
// URL answered 404), Tried lists the URLs asked, redacted, and Err is the
// last 404: an *HTTPError from Fetch, a *transport.HTTPError from
// stream.Resolve.
type InvalidError struct {
	URL    string
	Reason string
	Err    error
	Tried  []string

	status int // the status every URL tried answered, when Tried is set
}

// notAnAgent is the question an error asks when a base URL serves no card.
const notAnAgent = "is this the base URL of an A2A agent?"

// Error reads like "agentcard: invalid agent card at URL: reason", or, when
// no card was found, "agentcard: no agent card at URL1 or URL2 (HTTP 404
// Not Found): is this the base URL of an A2A agent?".
func (e *InvalidError) Error() string {
	if len(e.Tried) > 0 {
		s := "agentcard: no agent card at " + strings.Join(e.Tried, " or ")
		status := e.status
		var he *HTTPError
		if errors.As(e.Err, &he) {
			status = he.StatusCode
		}
		if status != 0 {
			s += " (HTTP " + strconv.Itoa(status) + " " + http.StatusText(status) + ")"
		}
		return s + ": " + notAnAgent
	}
	s := "agentcard: invalid agent card at " + e.URL + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns Err.
func (e *InvalidError) Unwrap() error { return e.Err }

func invalidOption(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidOption, fmt.Sprintf(format, args...))
}
