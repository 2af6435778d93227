package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// TestBadOptionsFailTheSuiteBeforeItStarts: Run fails on newConfig's error
// before any subtest runs; each bad value is named.
func TestBadOptionsFailTheSuiteBeforeItStarts(t *testing.T) {
	wait := func(*testing.T, relay.Log) {}
	for _, c := range []struct {
		name string
		opts []Option
		want string
	}{
		{"a nil option", []Option{nil}, "storetest: option 0 is nil"},
		{"a nil option after a good one", []Option{Expiry(time.Millisecond, wait), nil}, "storetest: option 1 is nil"},
		{"a zero ttl", []Option{Expiry(0, wait)}, "storetest: Expiry's ttl 0s is not positive"},
		{"a negative ttl", []Option{Expiry(-time.Second, wait)}, "storetest: Expiry's ttl -1s is not positive"},
		{"a nil wait", []Option{Expiry(time.Millisecond, nil)}, "storetest: Expiry's wait is nil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := newConfig(c.opts)
			require.EqualError(t, err, c.want)
		})
	}
	cfg, err := newConfig([]Option{Expiry(5*time.Millisecond, wait)})
	require.NoError(t, err)
	require.False(t, cfg.bubble, "Expiry runs the subtests outside any bubble")
	require.Equal(t, 5*time.Millisecond, cfg.ttl)
	require.NotNil(t, cfg.expire)
	cfg, err = newConfig(nil)
	require.NoError(t, err)
	require.Equal(t, defaultConfig(), cfg)
}
