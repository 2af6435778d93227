package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// readers is the parent's end of the readers' child (see readersFlag).
type readers struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// startReaders starts the readers' child: this binary again, or, under
// go test, the test binary (whose TestMain runs the child too).
func startReaders() (*readers, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, readersFlag)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	return &readers{cmd: cmd, stdin: stdin, out: sc}, nil
}

// do sends c and returns the child's reply.
func (r *readers) do(c readerCmd) (readerReply, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return readerReply{}, err
	}
	if _, err := r.stdin.Write(append(b, '\n')); err != nil {
		return readerReply{}, fmt.Errorf("readers' child: %w", err)
	}
	if !r.out.Scan() {
		return readerReply{}, fmt.Errorf("readers' child: no reply to %s: %v", c.Op, r.out.Err())
	}
	var rep readerReply
	if err := json.Unmarshal(r.out.Bytes(), &rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// open opens the readers of c (its Op "open"), and returns the child's
// reply, a note when some could not attach, and close, which closes every
// reader and reports one left open.
func (r *readers) open(c readerCmd) (opened readerReply, note string, close func() error, err error) {
	c.Op = "open"
	opened, err = r.do(c)
	if err != nil {
		return opened, "", nil, err
	}
	if opened.Failed > 0 {
		note = fmt.Sprintf("%d readers could not attach (%s). ", opened.Failed, opened.Err)
	}
	return opened, note, func() error {
		rep, err := r.do(readerCmd{Op: "close"})
		switch {
		case err != nil:
			return err
		case rep.Open != 0:
			return fmt.Errorf("%d readers still open after close", rep.Open)
		}
		return nil
	}, nil
}

// stop closes the child's stdin and waits for it, 10 s at most.
func (r *readers) stop() { stopChild(r.cmd, r.stdin, 10*time.Second) }

// redisServer is the redis-server the suite runs on: one it started (on a
// free port of 127.0.0.1, without persistence, killed by stop) or the one
// -redis names.
type redisServer struct {
	addr    string
	cmd     *exec.Cmd
	dir     string
	version string
	admin   *redis.Client // counts the connections (CLIENT LIST); named a2abench-admin
}

const adminName = "a2abench-admin"

// errNoRedis says that no redis-server is installed.
var errNoRedis = errors.New("redis-server is not installed (apt-get install redis-server), and -redis names no server")

// startRedisServer starts redis-server on 127.0.0.1, or connects to addr
// when it is not "".
func startRedisServer(addr string) (*redisServer, error) {
	s := &redisServer{addr: addr}
	if addr == "" {
		bin, err := exec.LookPath("redis-server")
		if err != nil {
			return nil, errNoRedis
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		dir, err := os.MkdirTemp("", "a2abench-redis")
		if err != nil {
			return nil, err
		}
		s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		s.cmd = exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
			"--save", "", "--appendonly", "no", "--maxclients", "20000")
		var out bytes.Buffer
		s.cmd.Stdout, s.cmd.Stderr = &out, &out
		if err := s.cmd.Start(); err != nil {
			return nil, err
		}
		s.dir = dir
		c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		for c.Ping(ctx).Err() != nil && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		err = ctx.Err()
		cancel()
		c.Close()
		if err != nil {
			s.stop()
			return nil, fmt.Errorf("redis-server did not answer PING within 10 s: %s", out.String())
		}
	}
	s.admin = redis.NewClient(&redis.Options{Addr: s.addr, PoolSize: 1, ClientName: adminName})
	info, err := s.admin.Info(context.Background(), "server").Result()
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("redis at %s: %w", s.addr, err)
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "redis_version:"); ok {
			s.version = v
		}
	}
	return s, nil
}

// clients returns the number of connections to the server other than the
// admin's (CLIENT LIST).
func (s *redisServer) clients() (int, error) {
	list, err := s.admin.ClientList(context.Background()).Result()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
		if l != "" && !strings.Contains(l, " name="+adminName+" ") {
			n++
		}
	}
	return n, nil
}

// flush drops every key when the suite started the server itself, and
// only the suite's own keys (their prefixes start with a2abench-) on the
// server -redis names.
func (s *redisServer) flush() error {
	ctx := context.Background()
	if s.cmd != nil {
		return s.admin.FlushAll(ctx).Err()
	}
	for _, pattern := range []string{"{a2abench-*", "a2abench-*"} {
		it := s.admin.Scan(ctx, 0, pattern, 1000).Iterator()
		for it.Next(ctx) {
			if err := s.admin.Del(ctx, it.Val()).Err(); err != nil {
				return err
			}
		}
		if err := it.Err(); err != nil {
			return err
		}
	}
	return nil
}

func (s *redisServer) stop() {
	if s.admin != nil {
		s.admin.Close()
	}
	if s.cmd != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		os.RemoveAll(s.dir)
	}
}
