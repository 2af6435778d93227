package stream

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/transport"
)

// callConfig is what one call of a Client's binding is made with, passed
// to it as an argument (never through the call's context): the version to
// speak, the headers to send, and what the bindings of this package read
// of the configuration for an HTTP exchange. It is built for each call
// from the Client's configuration with the call's options applied
// (config.call), and, for a stream's call, the credentials the stream was
// given (Stream.call).
type callConfig struct {
	v a2a.Version
	// header goes to the origins headers go to only (httpx.AddHeaders, and
	// originOnlyHeaders across redirects). It is shared: no call modifies
	// it, and a Transport of another module gets a copy (public).
	header         http.Header
	idleTimeout    time.Duration
	connectTimeout time.Duration
	maxEventSize   int
	logger         *slog.Logger
	// push is the push-notification config a send carries in its
	// configuration (1.0 taskPushNotificationConfig, 0.3
	// pushNotificationConfig); nil for none. Only the sends of this
	// package's bindings read it: the option that sets it applies to
	// their streams only.
	push *a2a.PushConfig
}

// call returns the configuration of a call in version v that sends header.
func (cfg *config) call(v a2a.Version, header http.Header) callConfig {
	return callConfig{
		v:              v,
		header:         header,
		idleTimeout:    cfg.idleTimeout,
		connectTimeout: cfg.connectTimeout,
		maxEventSize:   cfg.maxEventSize,
		logger:         cfg.logger,
		push:           cfg.push,
	}
}

// withPushConfig has a stream's send carry cfg, a push-notification config,
// in its configuration, on either binding of this package, streaming or
// unary. It applies to the streams of this package's bindings (Send,
// Subscribe and Resume: only a send reads it); a Transport of another
// module has no way to carry it, and refuses it. A config
// a2a.PushConfig.Check refuses is refused with ErrInvalidOption. It is
// unexported, and WithPush does not use it: WithPush registers its config
// with the push-config call, whose answer says whether the agent took it,
// where an agent without push notifications ignores a config in a send
// without a word (the SDKs do). It stays for a registration made before
// the task exists (a relay's), with its tests; it is not public API.
func withPushConfig(cfg a2a.PushConfig) Option {
	return option{"withPushConfig", atStream, func(c *config) { c.push = &cfg }}
}

// public returns the Call a Transport of another module is given: the
// version, a copy of the headers, nil when there are none, and the idle
// timeout.
func (k callConfig) public() transport.Call {
	c := transport.Call{Version: k.v, IdleTimeout: k.idleTimeout}
	if len(k.header) > 0 {
		c.Header = k.header.Clone()
	}
	return c
}

// withHeaders returns base with the values of over replacing base's of the
// same names: base itself when over is empty, else a new header. Neither
// is modified.
func withHeaders(base, over http.Header) http.Header {
	if len(over) == 0 {
		return base
	}
	h := base.Clone()
	if h == nil {
		h = http.Header{}
	}
	for k, vs := range over {
		h[k] = vs
	}
	return h
}

// header returns the headers of the stream's calls: the Client's and the
// call's (s.cfg), with those the credentials hook gave (s.auth) replacing
// the values of their names. It is not to be modified.
func (s *Stream) header() http.Header { return withHeaders(s.cfg.header, s.auth.header) }

// call returns the configuration of the stream's next call of the binding,
// in the stream's version, with the headers its Trace's Header added for
// the call (which it takes: they go with this call only).
func (s *Stream) call() callConfig {
	h := s.header()
	if tr := s.tr; tr != nil && tr.header != nil {
		h, tr.header = withHeaders(h, tr.header), nil
	}
	return s.cfg.call(s.v, h)
}
