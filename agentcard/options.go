package agentcard

import (
	"errors"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/httpx"
)

// Option configures one call of Fetch. Bad values, and a nil Option, are
// refused with an error that wraps ErrInvalidOption, before the card is
// asked for. Given twice, the last one wins, except that WithHeader adds a
// value.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(cfg *config) { f(cfg) }

type config struct {
	httpClient *http.Client
	header     http.Header
	cache      *Cache
	checkCard  func(*a2a.AgentCard) error
	// refusals are the options refused as they were applied (a nil
	// Option, a nil check); validate reports them.
	refusals []string
}

func defaultConfig() config {
	return config{httpClient: http.DefaultClient, header: http.Header{}}
}

// WithHTTPClient sets the HTTP client of the card request; it must not be
// nil. The default is http.DefaultClient. A client with a Timeout is
// refused, as stream refuses it: use the context.
func WithHTTPClient(c *http.Client) Option {
	return optionFunc(func(cfg *config) { cfg.httpClient = c })
}

// WithHeader adds a header to the card request, for example an
// Authorization header. It goes to the origin of the base URL only (its
// scheme, host and port), never across a redirect to another origin nor
// from https down to http. The key must be a valid header name and the
// value must hold no ASCII control character (below U+0020, or DEL) but a
// tab; HTTP allows other bytes. Given twice with one name, it sends both
// values.
func WithHeader(key, value string) Option {
	return optionFunc(func(cfg *config) {
		h := cfg.header.Clone()
		h.Add(key, value)
		cfg.header = h
	})
}

// WithCache makes Fetch read and keep cards in cache; see Cache. Without
// it, or with a nil cache, every call asks for the card.
func WithCache(cache *Cache) Option {
	return optionFunc(func(cfg *config) { cfg.cache = cache })
}

// WithCheck makes Fetch call check with the card it read (kept in the
// cache or not): an error from check makes Fetch return, instead of the
// card, an *InvalidError that names the card's URL, with the error's text
// as its Reason. stream.Resolve checks this way that the card offers an
// interface it can use. It must not be nil.
func WithCheck(check func(*a2a.AgentCard) error) Option {
	return optionFunc(func(cfg *config) {
		if check == nil {
			cfg.refuse("WithCheck: the check is nil")
			return
		}
		cfg.checkCard = check
	})
}

// refuse notes an option refused as it was applied, for validate to report.
func (cfg *config) refuse(reason string) { cfg.refusals = append(cfg.refusals, reason) }

// validate reports every option refused, each wrapping ErrInvalidOption.
func (cfg *config) validate() error {
	var errs []error
	for _, r := range cfg.refusals {
		errs = append(errs, invalidOption("%s", r))
	}
	switch {
	case cfg.httpClient == nil:
		errs = append(errs, invalidOption("WithHTTPClient: the client is nil"))
	case cfg.httpClient.Timeout != 0:
		errs = append(errs, invalidOption("WithHTTPClient: the client has a Timeout (%s): use the context", cfg.httpClient.Timeout))
	}
	if err := httpx.CheckHeader(cfg.header); err != nil {
		errs = append(errs, invalidOption("WithHeader: %s", err))
	}
	return errors.Join(errs...)
}
