package relay_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

func TestNewHandlerRefusesABadOption(t *testing.T) {
	store := newMemoryStore(t)
	key := func(*http.Request) (string, bool) { return "k", true }
	for _, c := range []struct {
		name  string
		store relay.Store
		key   relay.KeyFunc
		badOption[relay.HandlerOption]
	}{
		{name: "nil store", key: key, badOption: badOption[relay.HandlerOption]{names: "a nil Store"}},
		{name: "nil key", store: store, badOption: badOption[relay.HandlerOption]{names: "a nil KeyFunc"}},
		{name: "nil option", badOption: badOption[relay.HandlerOption]{"a nil HandlerOption", []relay.HandlerOption{nil}}},
		{name: "keep-alive 0", badOption: badOption[relay.HandlerOption]{"WithKeepAlive|0s", []relay.HandlerOption{relay.WithKeepAlive(0)}}},
		{name: "keep-alive negative", badOption: badOption[relay.HandlerOption]{"WithKeepAlive|-1s", []relay.HandlerOption{relay.WithKeepAlive(-time.Second)}}},
		{name: "page 0", badOption: badOption[relay.HandlerOption]{"WithPageSize|0", []relay.HandlerOption{relay.WithPageSize(0)}}},
		{name: "page negative", badOption: badOption[relay.HandlerOption]{"WithPageSize|-3", []relay.HandlerOption{relay.WithPageSize(-3)}}},
		{name: "outage retry 0", badOption: badOption[relay.HandlerOption]{"WithOutageRetry|0s", []relay.HandlerOption{relay.WithOutageRetry(0)}}},
		{name: "outage retry negative", badOption: badOption[relay.HandlerOption]{"WithOutageRetry|-2s", []relay.HandlerOption{relay.WithOutageRetry(-2 * time.Second)}}},
		{name: "outage retry below a millisecond", badOption: badOption[relay.HandlerOption]{"WithOutageRetry|999µs", []relay.HandlerOption{relay.WithOutageRetry(999 * time.Microsecond)}}},
		{name: "not an origin", badOption: badOption[relay.HandlerOption]{"WithTrustedOrigins|https://app.example/", []relay.HandlerOption{relay.WithTrustedOrigins("https://app.example", "https://app.example/")}}},
		{name: "write timeout 0", badOption: badOption[relay.HandlerOption]{"WithWriteTimeout|0s", []relay.HandlerOption{relay.WithWriteTimeout(0)}}},
		{name: "write timeout negative", badOption: badOption[relay.HandlerOption]{"WithWriteTimeout|-1s", []relay.HandlerOption{relay.WithWriteTimeout(-time.Second)}}},
		{name: "two bad options", badOption: badOption[relay.HandlerOption]{"WithPageSize|WithKeepAlive", []relay.HandlerOption{relay.WithPageSize(0), relay.WithKeepAlive(0)}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, k := c.store, c.key
			if st == nil && k == nil {
				st, k = store, key
			}
			h, err := relay.NewHandler(st, k, c.opts...)
			requireRefused(t, err, c.names)
			require.Nil(t, h)
		})
	}

	// The smallest good values are taken, and work.
	for _, opts := range [][]relay.HandlerOption{
		nil,
		{relay.WithKeepAlive(time.Nanosecond)},
		{relay.WithPageSize(1)},
		{relay.WithOutageRetry(time.Millisecond)},
		{relay.WithWriteTimeout(time.Nanosecond)},
		{relay.WithTrustedOrigins()},
		{relay.WithTrustedOrigins("https://app.example", "http://localhost:3000")},
	} {
		h, err := relay.NewHandler(store, key, opts...)
		require.NoError(t, err)
		require.NotNil(t, h)
	}
	resp, body := get(t, newHandler(t, downStore{}, key, relay.WithOutageRetry(time.Millisecond)), "text/event-stream")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, strings.HasSuffix(body, "retry: 1\n\n"), body)
}

func TestNewMemoryStoreRefusesABadOption(t *testing.T) {
	for _, c := range []badOption[relay.StoreOption]{
		{"a nil StoreOption", []relay.StoreOption{nil}},
		{"WithClock|nil", []relay.StoreOption{relay.WithClock(nil)}},
		{"WithRetention|0", []relay.StoreOption{relay.WithRetention(0)}},
		{"WithRetention|-1", []relay.StoreOption{relay.WithRetention(-1)}},
	} {
		t.Run(c.names, func(t *testing.T) {
			st, err := relay.NewMemoryStore(c.opts...)
			requireRefused(t, err, c.names)
			require.Nil(t, st)
		})
	}

	// The smallest good values are taken, and work: the clock is the
	// store's, and a retention of one byte keeps no entry the snapshot
	// covers.
	ctx := t.Context()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := newMemoryStore(t, relay.WithRetention(1), relay.WithClock(func() time.Time { return now }))
	l, err := st.Open(ctx, "k")
	require.NoError(t, err)
	f, err := l.Acquire(ctx, "a", time.Minute)
	require.NoError(t, err)
	require.NoError(t, l.Commit(ctx, f, nil, entriesOf(1, 2, 25)...))
	require.NoError(t, l.SaveSnapshot(ctx, f, relay.Snapshot{Seq: 1, Data: []byte(`{}`)}))
	_, err = l.Read(ctx, 0, 10)
	require.ErrorIs(t, err, relay.ErrGone)
	got, err := l.Read(ctx, 1, 10)
	require.NoError(t, err)
	require.Equal(t, []uint64{2}, seqsOf(got))
	_, err = l.Acquire(ctx, "b", time.Minute)
	require.ErrorIs(t, err, relay.ErrHeld, "the store's clock did not move")
	now = now.Add(time.Minute)
	_, err = l.Acquire(ctx, "b", time.Minute)
	require.NoError(t, err, "the store's clock moved past the lease")
}

func TestDriveRefusesABadOption(t *testing.T) {
	for _, c := range []struct {
		name   string
		nilLog bool
		src    func(client *stream.Client) relay.Source // relay.Send(client, "hello") when nil
		badOption[relay.DriveOption]
	}{
		{name: "nil log", nilLog: true, badOption: badOption[relay.DriveOption]{names: "a nil Log"}},
		{name: "nil client", src: func(*stream.Client) relay.Source { return relay.Send(nil, a2a.NewTextMessage(a2a.RoleUser, "hello")) },
			badOption: badOption[relay.DriveOption]{names: "a Source with a nil stream.Client"}},
		{name: "nil client to resume", src: func(*stream.Client) relay.Source { return relay.Resume(nil) },
			badOption: badOption[relay.DriveOption]{names: "a Source with a nil stream.Client"}},
		{name: "zero Source", src: func(*stream.Client) relay.Source { return relay.Source{} },
			badOption: badOption[relay.DriveOption]{names: "a Source with a nil stream.Client"}},
		{name: "nil message", src: func(c *stream.Client) relay.Source { return relay.Send(c, nil) },
			badOption: badOption[relay.DriveOption]{names: "a Source that sends a nil message"}},
		{name: "nil option", badOption: badOption[relay.DriveOption]{"a nil DriveOption", []relay.DriveOption{nil}}},
		{name: "snapshot entries 0", badOption: badOption[relay.DriveOption]{"WithSnapshotEvery|entries|0", []relay.DriveOption{relay.WithSnapshotEvery(0, 1<<20)}}},
		{name: "snapshot bytes 0", badOption: badOption[relay.DriveOption]{"WithSnapshotEvery|bytes|0", []relay.DriveOption{relay.WithSnapshotEvery(1024, 0)}}},
		{name: "snapshot both negative", badOption: badOption[relay.DriveOption]{"WithSnapshotEvery|entries|bytes|-1|-2", []relay.DriveOption{relay.WithSnapshotEvery(-1, -2)}}},
		{name: "max snapshot 0", badOption: badOption[relay.DriveOption]{"WithMaxSnapshot|0", []relay.DriveOption{relay.WithMaxSnapshot(0)}}},
		{name: "max snapshot negative", badOption: badOption[relay.DriveOption]{"WithMaxSnapshot|-1", []relay.DriveOption{relay.WithMaxSnapshot(-1)}}},
		{name: "chunk 63", badOption: badOption[relay.DriveOption]{"WithChunkSize|63", []relay.DriveOption{relay.WithChunkSize(63)}}},
		{name: "chunk 0", badOption: badOption[relay.DriveOption]{"WithChunkSize|0", []relay.DriveOption{relay.WithChunkSize(0)}}},
		{name: "chunk negative", badOption: badOption[relay.DriveOption]{"WithChunkSize|-64", []relay.DriveOption{relay.WithChunkSize(-64)}}},
		{name: "nil logger", badOption: badOption[relay.DriveOption]{"WithLogger|nil", []relay.DriveOption{relay.WithLogger(nil)}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := newMemoryStore(t).Open(t.Context(), "k")
			require.NoError(t, err)
			f, err := l.Acquire(t.Context(), "driver", time.Minute)
			require.NoError(t, err)
			agent, client := completingAgent(t)
			driven, s := l, relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello"))
			if c.nilLog {
				driven = nil
			}
			if c.src != nil {
				s = c.src(client)
			}
			requireRefused(t, relay.Drive(t.Context(), driven, f, s, c.opts...), c.names)
			require.Zero(t, sendsOf(agent), "a refused Drive starts no stream")
			untouched(t, l)
		})
	}

	// The smallest good values are taken: Drive goes on to start the
	// stream, which completes.
	for _, opts := range [][]relay.DriveOption{
		nil,
		{relay.WithSnapshotEvery(1, 1)},
		{relay.WithMaxSnapshot(1)},
		{relay.WithChunkSize(64)},
		{relay.WithLogger(slog.New(slog.DiscardHandler))},
		{relay.WithoutTrim()},
	} {
		l, err := newMemoryStore(t).Open(t.Context(), "k")
		require.NoError(t, err)
		f, err := l.Acquire(t.Context(), "driver", time.Minute)
		require.NoError(t, err)
		agent, client := completingAgent(t)
		require.NoError(t, relay.Drive(t.Context(), l, f, relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello")), opts...))
		require.Equal(t, 1, sendsOf(agent))
	}
}

func TestRunRefusesABadOption(t *testing.T) {
	for _, c := range []struct {
		name   string
		nilLog bool
		owner  string
		src    func(client *stream.Client) relay.Source // relay.Send(client, "hello") when nil
		badOption[relay.RunOption]
	}{
		{name: "nil log", nilLog: true, badOption: badOption[relay.RunOption]{names: "a nil Log"}},
		{name: "no owner", owner: "-", badOption: badOption[relay.RunOption]{names: "an empty owner"}},
		{name: "nil client", src: func(*stream.Client) relay.Source { return relay.Send(nil, a2a.NewTextMessage(a2a.RoleUser, "hello")) },
			badOption: badOption[relay.RunOption]{names: "a Source with a nil stream.Client"}},
		{name: "nil client to resume", src: func(*stream.Client) relay.Source { return relay.Resume(nil) },
			badOption: badOption[relay.RunOption]{names: "a Source with a nil stream.Client"}},
		{name: "zero Source", src: func(*stream.Client) relay.Source { return relay.Source{} },
			badOption: badOption[relay.RunOption]{names: "a Source with a nil stream.Client"}},
		{name: "nil message", src: func(c *stream.Client) relay.Source { return relay.Send(c, nil) },
			badOption: badOption[relay.RunOption]{names: "a Source that sends a nil message"}},
		{name: "nil driving", badOption: badOption[relay.RunOption]{"WithDriving|nil", []relay.RunOption{relay.WithDriving(nil)}}},
		{name: "nil option", badOption: badOption[relay.RunOption]{"a nil RunOption", []relay.RunOption{nil}}},
		{name: "lease 0", badOption: badOption[relay.RunOption]{"WithLease|0s", []relay.RunOption{relay.WithLease(0)}}},
		{name: "lease negative", badOption: badOption[relay.RunOption]{"WithLease|-5s", []relay.RunOption{relay.WithLease(-5 * time.Second)}}},
		{name: "lease below a millisecond", badOption: badOption[relay.RunOption]{"WithLease|999µs", []relay.RunOption{relay.WithLease(999 * time.Microsecond)}}},
		{name: "nil sleep", badOption: badOption[relay.RunOption]{"WithSleep|nil", []relay.RunOption{relay.WithSleep(nil)}}},
		{name: "start wait 0", badOption: badOption[relay.RunOption]{"WithStartWait|0s", []relay.RunOption{relay.WithStartWait(0)}}},
		{name: "start wait negative", badOption: badOption[relay.RunOption]{"WithStartWait|-1s", []relay.RunOption{relay.WithStartWait(-time.Second)}}},
		{name: "bad drive option", badOption: badOption[relay.RunOption]{"WithChunkSize|1", []relay.RunOption{relay.WithDrive(relay.WithChunkSize(1))}}},
		{name: "nil drive option", badOption: badOption[relay.RunOption]{"a nil DriveOption", []relay.RunOption{relay.WithDrive(nil)}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l, err := newMemoryStore(t).Open(t.Context(), "k")
				require.NoError(t, err)
				agent, client := completingAgent(t)
				run, owner, src := l, "a", relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello"))
				if c.nilLog {
					run = nil
				}
				if c.owner == "-" {
					owner = ""
				}
				if c.src != nil {
					src = c.src(client)
				}
				requireRefused(t, relay.Run(t.Context(), run, owner, src, c.opts...), c.names)
				require.Zero(t, sendsOf(agent), "a refused Run starts no stream")
				untouched(t, l)
				_, err = l.Acquire(t.Context(), "b", time.Minute)
				require.NoError(t, err, "a refused Run takes no lease")
			})
		})
	}

	// The smallest good values are taken: Run goes on to start the stream,
	// which completes.
	synctest.Test(t, func(t *testing.T) {
		for _, opts := range [][]relay.RunOption{
			nil,
			{relay.WithLease(time.Millisecond)},
			{relay.WithStartWait(time.Nanosecond)},
			{relay.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() })},
			{relay.WithDrive()},
			{relay.WithDrive(relay.WithChunkSize(64), relay.WithSnapshotEvery(1, 1))},
			{relay.WithDriving(func(context.Context) {})},
		} {
			l, err := newMemoryStore(t).Open(t.Context(), "k")
			require.NoError(t, err)
			agent, client := completingAgent(t)
			require.NoError(t, relay.Run(t.Context(), l, "a", relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello")), opts...))
			require.Equal(t, 1, sendsOf(agent))
		}
	})
}

// badOption is a constructor's call that must be refused: the error wraps
// ErrInvalidOption and names what was refused (the option, or the
// argument).
type badOption[O any] struct {
	names string // the option or argument the error names; several are separated by "|"
	opts  []O
}

// requireRefused checks that err refuses what names says, each name of it.
func requireRefused(t *testing.T, err error, names string) {
	t.Helper()
	require.ErrorIs(t, err, relay.ErrInvalidOption)
	for name := range strings.SplitSeq(names, "|") {
		require.ErrorContains(t, err, name)
	}
}

// untouched checks that a refused Drive or Run did nothing to l.
func untouched(t *testing.T, l relay.Log) {
	t.Helper()
	tail, err := l.Tail(t.Context())
	require.NoError(t, err)
	require.Zero(t, tail)
	cp, err := l.LoadCheckpoint(t.Context())
	require.NoError(t, err)
	require.Nil(t, cp)
}
