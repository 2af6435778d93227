package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The relay-scale suite's browsers run in a child process, the a2abench
// binary started again as
//
//	a2abench -relay-readers
//
// so that the replica's memory figures hold the replica alone, and so that
// each process holds one file descriptor per HTTP/1.1 reader, not two. The
// parent writes one command per line of JSON on the child's stdin
// (readerCmd) and reads one reply per command on its stdout (readerReply).
// Each reader is an SSE GET that reads the events as a browser's
// EventSource would, and takes the stamp an event's text carries (see
// stampText) to time its delivery. The child exits when its stdin closes.
const readersFlag = "-relay-readers"

// isReadersChild reports whether args (os.Args[1:]) ask for the readers'
// child.
func isReadersChild(args []string) bool { return len(args) > 0 && args[0] == readersFlag }

// readerCmd is one command to the readers' child.
type readerCmd struct {
	// Op is "open" (open N readers over URLs, reader i on URLs[i%len]),
	// "reset" (zero the counts and the latencies), "wait" (until Events
	// events were delivered since the last reset, or Timeout passed) or
	// "close" (close every reader).
	Op      string        `json:"op"`
	URLs    []string      `json:"urls,omitempty"`
	N       int           `json:"n,omitempty"`
	H2C     bool          `json:"h2c,omitempty"`
	Events  int64         `json:"events,omitempty"`
	Timeout time.Duration `json:"timeout,omitempty"`
}

// readerReply is the child's answer to a command.
type readerReply struct {
	Err    string `json:"err,omitempty"`
	Open   int    `json:"open"`   // readers open now
	Failed int    `json:"failed"` // readers that could not open (open), with the first error in Err
	Ended  int64  `json:"ended"`  // responses that ended since the readers opened
	Events int64  `json:"events"` // events delivered since the last reset
	// LastNS is the wall clock (Unix ns) of the last delivery since the
	// last reset; P50 and P99 are the latencies of those deliveries, from
	// the stamp in the event to its receipt.
	LastNS int64         `json:"last_ns"`
	P50    time.Duration `json:"p50"`
	P99    time.Duration `json:"p99"`
	Max    time.Duration `json:"max"`
}

// readersChild runs the readers' child on stdin and stdout.
func readersChild() error {
	f := &readerFarm{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var c readerCmd
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			return err
		}
		if err := out.Encode(f.do(c)); err != nil {
			return err
		}
	}
	f.closeAll()
	return in.Err()
}

// latencyBuckets is a histogram of delays with buckets 2 % apart, from 1 µs
// to about a minute.
const (
	bucketBase = 1.02
	buckets    = 1000
)

func bucketOf(d time.Duration) int {
	if d < time.Microsecond {
		return 0
	}
	b := int(math.Log(float64(d)/1e3) / math.Log(bucketBase))
	return min(b, buckets-1)
}

func bucketValue(b int) time.Duration {
	return time.Duration(1e3 * math.Pow(bucketBase, float64(b)+0.5))
}

// readerFarm is the child's readers and what they received.
type readerFarm struct {
	mu      sync.Mutex
	cancels []context.CancelFunc
	trs     []*http.Transport
	wg      sync.WaitGroup

	events atomic.Int64
	ended  atomic.Int64
	last   atomic.Int64
	hist   [buckets]atomic.Int64
}

func (f *readerFarm) do(c readerCmd) readerReply {
	switch c.Op {
	case "open":
		return f.open(c)
	case "reset":
		f.events.Store(0)
		f.last.Store(0)
		for i := range f.hist {
			f.hist[i].Store(0)
		}
		return f.reply()
	case "wait":
		deadline := time.Now().Add(c.Timeout)
		for f.events.Load() < c.Events && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		return f.reply()
	case "close":
		f.closeAll()
		return f.reply()
	}
	return readerReply{Err: fmt.Sprintf("unknown op %q", c.Op)}
}

func (f *readerFarm) reply() readerReply {
	f.mu.Lock()
	open := len(f.cancels)
	f.mu.Unlock()
	r := readerReply{Open: open, Ended: f.ended.Load(), Events: f.events.Load(), LastNS: f.last.Load()}
	var counts [buckets]int64
	var total int64
	for i := range f.hist {
		counts[i] = f.hist[i].Load()
		total += counts[i]
	}
	quantile := func(q float64) time.Duration {
		want := int64(math.Ceil(q * float64(total)))
		var seen int64
		for i, n := range counts {
			seen += n
			if seen >= want && n > 0 {
				return bucketValue(i)
			}
		}
		return 0
	}
	if total > 0 {
		r.P50, r.P99, r.Max = quantile(0.5), quantile(0.99), quantile(1)
	}
	return r
}

// open opens c.N readers with 64 openers, each reader attached once its
// response began (the relay's first comment came).
func (f *readerFarm) open(c readerCmd) readerReply {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	tr.MaxConnsPerHost = 0
	if c.H2C {
		var p http.Protocols
		p.SetUnencryptedHTTP2(true)
		tr.Protocols = &p
	}
	hc := &http.Client{Transport: tr}
	f.mu.Lock()
	f.trs = append(f.trs, tr)
	f.mu.Unlock()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed int
		first  error
	)
	next := make(chan int)
	for range 64 {
		wg.Go(func() {
			for i := range next {
				if err := f.openOne(hc, c.URLs[i%len(c.URLs)]); err != nil {
					mu.Lock()
					failed++
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range c.N {
		next <- i
	}
	close(next)
	wg.Wait()
	r := f.reply()
	r.Failed = failed
	if first != nil {
		r.Err = first.Error()
	}
	return r
}

func (f *readerFarm) openOne(hc *http.Client, url string) error {
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		cancel()
		return err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	br := bufio.NewReaderSize(resp.Body, 1<<10)
	// The relay flushes a comment first: the reader is attached.
	if _, err := br.ReadSlice('\n'); err != nil {
		resp.Body.Close()
		cancel()
		return fmt.Errorf("GET %s: %w", url, err)
	}
	f.mu.Lock()
	f.cancels = append(f.cancels, cancel)
	f.mu.Unlock()
	f.wg.Go(func() {
		defer resp.Body.Close()
		f.read(br)
		if ctx.Err() == nil {
			f.ended.Add(1)
		}
	})
	return nil
}

// read counts the events of one response until it ends.
func (f *readerFarm) read(br *bufio.Reader) {
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long data line: its stamp is at its start.
			f.deliver(line)
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			continue
		}
		if err != nil {
			if err != io.EOF {
				return
			}
			return
		}
		f.deliver(line)
	}
}

// deliver counts line when it is an event's data, and times it by its
// stamp.
func (f *readerFarm) deliver(line []byte) {
	if !bytes.HasPrefix(line, []byte("data:")) {
		return
	}
	now := time.Now().UnixNano()
	f.events.Add(1)
	for {
		l := f.last.Load()
		if now <= l || f.last.CompareAndSwap(l, now) {
			break
		}
	}
	if ns, ok := stampOf(line); ok {
		f.hist[bucketOf(time.Duration(now-ns))].Add(1)
	}
}

// stampMark opens the stamp an event's text carries: "t=<Unix ns>;".
const stampMark = "t="

// stampText returns the text of an artifact chunk stamped with now, padded
// to about size bytes.
func stampText(now time.Time, size int) string {
	s := stampMark + strconv.FormatInt(now.UnixNano(), 10) + ";"
	for len(s) < size {
		s += " token"
	}
	return s
}

func stampOf(line []byte) (int64, bool) {
	i := bytes.Index(line, []byte(stampMark))
	if i < 0 {
		return 0, false
	}
	rest := line[i+len(stampMark):]
	j := bytes.IndexByte(rest, ';')
	if j < 0 {
		return 0, false
	}
	ns, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	return ns, err == nil
}

func (f *readerFarm) closeAll() {
	f.mu.Lock()
	cancels, trs := f.cancels, f.trs
	f.cancels, f.trs = nil, nil
	f.mu.Unlock()
	for _, c := range cancels {
		c()
	}
	f.wg.Wait()
	for _, tr := range trs {
		tr.CloseIdleConnections()
	}
	f.ended.Store(0)
}
