// Command redis is the web chat (examples/webchat) with its conversations
// in Redis: the same program, with -redis and -replicas working. It is a
// module of its own, so that the library does not depend on go-redis.
//
//	redis-server --port 6379 &
//	go -C examples/webchat/redis run . -redis 127.0.0.1:6379 -replicas 2
//
// With -redis alone, one process keeps its conversations in Redis (package
// relay/redisrelay). With -replicas n as well, it starts n replica
// processes of itself and serves a round-robin reverse proxy in front of
// them on -addr: any replica serves any conversation's events, answers and
// cancel, and when the replica that drives a conversation dies, one that
// serves its events takes it over once the dead one's lease (5 s) ends.
// With no -agent, the parent process serves the demo trip planner on a
// loopback port, so that the agent outlives the replicas.
//
// GET /api/conversations/{id}/driver (on the proxy) says which replica
// drives a conversation: {"owner": "replica/<pid>", "pid": <pid>}.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/a2astream/a2astream/examples/webchat/internal/chat"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := chat.Run(ctx, os.Args[1:], os.Stdout, os.Stderr, openRedis)
	stop()
	os.Exit(code)
}

// openRedis opens the relay store on the Redis at addr, once it answers a
// PING (within 5 s).
func openRedis(addr string) (relay.Store, func(), error) {
	// Every event stream, driver and watcher blocks on one connection for
	// up to a second at a time (see redisrelay's doc): a pool of 64.
	client := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 64})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, nil, err
	}
	store, err := redisrelay.New(client)
	if err != nil {
		client.Close()
		return nil, nil, err
	}
	return store, func() { client.Close() }, nil
}
