package redisrelay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
)

// driverAddrEnv, when set, makes TestStoppedDriverAppendsNothingOnceTakenOver
// the driver process: it drives the log at that Redis address.
const driverAddrEnv = "REDISRELAY_TEST_DRIVER_ADDR"

// TestStoppedDriverAppendsNothingOnceTakenOver: a driver process that
// appends and renews its lease every 5 ms is stopped with SIGSTOP past its
// lease; another replica acquires the lease and appends; the driver,
// continued with SIGCONT, gets ErrStale on its next call and has appended
// nothing since it was stopped.
func TestStoppedDriverAppendsNothingOnceTakenOver(t *testing.T) {
	if addr := os.Getenv(driverAddrEnv); addr != "" {
		driverProcess(t, addr)
		return
	}
	srv := redistest.Start(t)
	c := srv.Client(t, nil)
	l, err := newStore(t, c).Open(t.Context(), "task-1")
	require.NoError(t, err)
	rl := l.(*log)

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestStoppedDriverAppendsNothingOnceTakenOver$", "-test.count=1")
	cmd.Env = append(os.Environ(), driverAddrEnv+"="+srv.Addr())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(out)
	require.True(t, lines.Scan(), "the driver's first line")
	require.Equal(t, "acquired", lines.Text())

	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for tail, _ := l.Tail(ctx); tail < 10; tail, _ = l.Tail(ctx) {
		select {
		case <-ctx.Done():
			t.Fatalf("the driver appended %d entries in 60 s", tail)
		case <-tick.C:
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGSTOP))
	awaitLeaseEnd(t, c, rl)
	stopped, err := l.Tail(ctx)
	require.NoError(t, err)
	f, err := l.Acquire(ctx, "replica-b", time.Hour)
	require.NoError(t, err)
	require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: stopped + 1, Name: "takeover", Data: []byte(`"b"`)}))

	require.NoError(t, cmd.Process.Signal(syscall.SIGCONT))
	var rest []string
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	require.NoError(t, cmd.Wait())
	require.NotEmpty(t, rest, "what the driver said after SIGCONT")
	require.Equal(t, "stale", rest[0], "what the driver said after SIGCONT (then go test's PASS)")

	n, err := c.XLen(ctx, rl.keys.log).Result()
	require.NoError(t, err)
	require.EqualValues(t, stopped+1, n, "entries: the driver's until it was stopped, then b's")
	last, err := l.Read(ctx, stopped, 10)
	require.NoError(t, err)
	require.Equal(t, []relay.Entry{{Seq: stopped + 1, Name: "takeover", Data: []byte(`"b"`)}}, last)
}

// driverProcess drives task-1 at addr: it acquires a 100 ms lease, says
// "acquired", then every 5 ms appends the next entry and renews the lease,
// until a call fails; it says "stale" for ErrStale and the error otherwise.
func driverProcess(t *testing.T, addr string) {
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	ctx := t.Context()
	l, err := newStore(t, c).Open(ctx, "task-1")
	require.NoError(t, err)
	f, err := l.Acquire(ctx, "replica-a", 100*time.Millisecond)
	require.NoError(t, err)
	fmt.Println("acquired")
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for seq := uint64(1); ; seq++ {
		<-tick.C
		err := l.Commit(ctx, f, nil, relay.Entry{Seq: seq, Name: "delta", Data: []byte(strconv.Quote(strings.Repeat("a", int(seq%7))))})
		if err == nil {
			err = l.Renew(ctx, f, 100*time.Millisecond)
		}
		if errors.Is(err, relay.ErrStale) {
			fmt.Println("stale")
			return
		}
		if err != nil {
			fmt.Println(err)
			return
		}
	}
}
