package redisrelay

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// replicaEnv, when set to "<name> <redis addr> <agent URL>", makes
// TestKilledDriverIsTakenOverFromItsCheckpoint a replica process: it runs
// relay.Run on the log "task-1", as the starter when its name is "a".
const replicaEnv = "REDISRELAY_TEST_REPLICA"

// TestKilledDriverIsTakenOverFromItsCheckpoint: two replica processes run
// relay.Run on one log in a real Redis, with a 1 s lease; the one that
// drives is killed with SIGKILL in the middle of the agent's answer; the
// other takes the stream over from the checkpoint in Redis and ends it.
// The log's screen is the agent's task, byte for byte.
func TestKilledDriverIsTakenOverFromItsCheckpoint(t *testing.T) {
	if v := os.Getenv(replicaEnv); v != "" {
		replicaProcess(t, strings.Fields(v))
		return
	}
	for run := range 3 {
		t.Run(fmt.Sprint("run ", run), func(t *testing.T) {
			var text strings.Builder
			steps := []a2atest.Step{a2atest.Working("")}
			for i := range 80 {
				part := fmt.Sprintf("part %d é ", i)
				text.WriteString(part)
				steps = append(steps, a2atest.Pause(25*time.Millisecond), a2atest.Chunk("a1", part, i > 0, i == 79))
			}
			steps = append(steps, a2atest.Finish(a2a.StateCompleted, "done"))
			agent := a2atest.NewAgent(a2atest.WithScript(steps...), a2atest.WithStyle([]a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay}[run]))
			web := httptest.NewServer(agent)
			defer web.Close()
			srv := startRedis(t)
			c := srv.client(t)
			l, err := New(c).Open(t.Context(), "task-1")
			require.NoError(t, err)

			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			replica := func(name string) *exec.Cmd {
				cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKilledDriverIsTakenOverFromItsCheckpoint$", "-test.count=1")
				cmd.Env = append(os.Environ(), replicaEnv+"="+name+" "+srv.addr()+" "+web.URL+"/")
				cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
				require.NoError(t, cmd.Start())
				return cmd
			}
			a := replica("a")
			b := replica("b")
			kill := uint64(10 + 15*run)
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for tail, _ := l.Tail(ctx); tail < kill; tail, _ = l.Tail(ctx) {
				select {
				case <-ctx.Done():
					t.Fatalf("the driver appended %d entries in 60 s", tail)
				case <-tick.C:
				}
			}
			require.NoError(t, a.Process.Signal(syscall.SIGKILL))
			_ = a.Wait()
			require.NoError(t, b.Wait(), "the replica that took over")

			sc := &relay.Screen{}
			for after := uint64(0); ; {
				page, err := l.Read(ctx, after, 100)
				require.NoError(t, err)
				if len(page) == 0 {
					break
				}
				for _, e := range page {
					require.NoError(t, sc.Apply(e))
				}
				after = page[len(page)-1].Seq
			}
			require.NotNil(t, sc.End)
			require.Equal(t, relay.EventEnd, sc.End.Name, "%s", sc.End.Data)
			require.Equal(t, text.String(), sc.Pane("artifact:a1").Text())
			require.Equal(t, agent.Task(sc.TaskID).Artifacts[0].Text(), sc.Pane("artifact:a1").Text())
			fence, err := c.Get(ctx, l.(*log).keys.fence).Result()
			require.NoError(t, err)
			require.True(t, strings.HasSuffix(fence, ":b"), "the newest fence is b's: %s", fence)
		})
	}
}

// replicaProcess runs relay.Run as the replica args[0], on the Redis at
// args[1], for the agent at args[2], with a 1 s lease.
func replicaProcess(t *testing.T, args []string) {
	require.Len(t, args, 3)
	c := redis.NewClient(&redis.Options{Addr: args[1]})
	defer c.Close()
	l, err := New(c).Open(t.Context(), "task-1")
	require.NoError(t, err)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client, err := stream.NewClient(args[2], stream.WithHTTPClient(&http.Client{Transport: tr}))
	require.NoError(t, err)
	var start relay.StartFunc
	if args[0] == "a" {
		start = func(ctx context.Context, opts ...stream.Option) *stream.Stream {
			return client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello"), opts...)
		}
	}
	require.NoError(t, relay.Run(t.Context(), l, args[0], start, client.Resume, relay.WithLease(time.Second)))
}
