package redisrelay_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay"
)

func TestNewRefusesABadOption(t *testing.T) {
	// New does not reach Redis: the client is never dialled.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = c.Close() })
	for _, tt := range []struct {
		name   string
		client redis.UniversalClient
		names  string // what the error names; several are separated by "|"
		opts   []redisrelay.Option
	}{
		{"nil client", nil, "a nil client", nil},
		{"nil option", c, "a nil Option", []redisrelay.Option{nil}},
		{"empty prefix", c, `WithPrefix|""`, []redisrelay.Option{redisrelay.WithPrefix("")}},
		{"prefix with a closing brace", c, `WithPrefix|"app}x"`, []redisrelay.Option{redisrelay.WithPrefix("app}x")}},
		{"prefix with an opening brace", c, `WithPrefix|"{app"`, []redisrelay.Option{redisrelay.WithPrefix("{app")}},
		{"wake 0", c, "WithWake|0s", []redisrelay.Option{redisrelay.WithWake(0)}},
		{"wake negative", c, "WithWake|-1s", []redisrelay.Option{redisrelay.WithWake(-time.Second)}},
		{"wake below a millisecond", c, "WithWake|999µs", []redisrelay.Option{redisrelay.WithWake(999 * time.Microsecond)}},
		{"two bad options", c, "WithPrefix|WithWake", []redisrelay.Option{redisrelay.WithPrefix(""), redisrelay.WithWake(0)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, err := redisrelay.New(tt.client, tt.opts...)
			require.ErrorIs(t, err, relay.ErrInvalidOption)
			for name := range strings.SplitSeq(tt.names, "|") {
				require.ErrorContains(t, err, name)
			}
			require.Nil(t, st)
		})
	}

	// The smallest good values are taken (the store tests use them against
	// a real Redis).
	for _, opts := range [][]redisrelay.Option{
		nil,
		{redisrelay.WithPrefix("chat")},
		{redisrelay.WithPrefix("app:chat")},
		{redisrelay.WithWake(time.Millisecond)},
	} {
		st, err := redisrelay.New(c, opts...)
		require.NoError(t, err)
		require.NotNil(t, st)
	}
}
