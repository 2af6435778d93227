package redisrelay_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// scriptWatch is a go-redis hook that tells a test what its client's
// scripts did, log by log (a log named by its key, the "s3" of
// "{rt:s3}:log"), and fires sig at each change. A store's looks are the
// scripts it sends in pipelines; its other calls send one at a time.
type scriptWatch struct {
	sig *signal

	mu      sync.Mutex
	sent    map[string]int // scripts sent (EVALSHA or EVAL, in a pipeline or alone), by log
	looked  map[string]int // scripts answered without error in pipelines, by log
	sha     string         // the script of the first pipeline of EVALSHAs
	batches []*watchedBatch
	calls   []scriptCall // each script sent
}

// scriptCall is one script sent: its command and its log.
type scriptCall struct{ name, log string }

// watchedBatch is one pipeline of scripts.
type watchedBatch struct {
	done     bool // its Exec returned
	noscript bool // Redis answered NOSCRIPT to one of its scripts
}

func newScriptWatch(sig *signal) *scriptWatch {
	return &scriptWatch{sig: sig, sent: map[string]int{}, looked: map[string]int{}}
}

// logOf returns the log whose keys a script names, "" when it names none.
func logOf(cmd redis.Cmder) string {
	args := cmd.Args()
	if len(args) < 4 {
		return ""
	}
	key, _ := args[3].(string)
	_, rest, ok := strings.Cut(key, "{rt:")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "}")
	return name
}

// sending counts cmds as sent, and returns the batch they make when piped.
func (w *scriptWatch) sending(cmds []redis.Cmder, piped bool) *watchedBatch {
	defer w.sig.fire()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range cmds {
		w.sent[logOf(c)]++
		w.calls = append(w.calls, scriptCall{c.Name(), logOf(c)})
	}
	if !piped {
		return nil
	}
	if w.sha == "" && cmds[0].Name() == "evalsha" && len(cmds[0].Args()) > 1 {
		w.sha = fmt.Sprint(cmds[0].Args()[1])
	}
	b := &watchedBatch{}
	w.batches = append(w.batches, b)
	return b
}

// answered records the answers of a batch.
func (w *scriptWatch) answered(b *watchedBatch, cmds []redis.Cmder) {
	defer w.sig.fire()
	w.mu.Lock()
	defer w.mu.Unlock()
	b.done = true
	for _, c := range cmds {
		switch err := c.Err(); {
		case err == nil:
			w.looked[logOf(c)]++
		case redis.HasErrorPrefix(err, "NOSCRIPT"):
			b.noscript = true
		}
	}
}

func (w *scriptWatch) DialHook(next redis.DialHook) redis.DialHook { return next }

func (w *scriptWatch) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if isScript(cmd) {
			w.sending([]redis.Cmder{cmd}, false)
		}
		return next(ctx, cmd)
	}
}

func (w *scriptWatch) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) == 0 || !isScript(cmds[0]) {
			return next(ctx, cmds)
		}
		b := w.sending(cmds, true)
		defer w.answered(b, cmds)
		return next(ctx, cmds)
	}
}

// lookedAll reports whether each of logs had n looks answered, at least.
func (w *scriptWatch) lookedAll(n int, logs ...string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range logs {
		if w.looked[l] < n {
			return false
		}
	}
	return true
}

// looks returns how many looks of each log were answered.
func (w *scriptWatch) looks() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.looked)
}

// lookedSince reports whether each of logs had a look answered since
// before, a count that looks returned.
func (w *scriptWatch) lookedSince(before map[string]int, logs ...string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range logs {
		if w.looked[l] <= before[l] {
			return false
		}
	}
	return true
}

// sentFor returns how many scripts were sent for the logs keep answers
// true for.
func (w *scriptWatch) sentFor(keep func(log string) bool) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for l, c := range w.sent {
		if keep(l) {
			n += c
		}
	}
	return n
}

// firstSHA returns the script of the first pipeline of EVALSHAs, "" before
// one was sent.
func (w *scriptWatch) firstSHA() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sha
}

// underWay returns the batches sent and not yet answered.
func (w *scriptWatch) underWay() []*watchedBatch {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []*watchedBatch
	for _, b := range w.batches {
		if !b.done {
			out = append(out, b)
		}
	}
	return out
}

// batchState returns whether b was answered, and whether with a NOSCRIPT.
func (w *scriptWatch) batchState(b *watchedBatch) (done, noscript bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return b.done, b.noscript
}

// callsFrom returns the scripts for the logs keep answers true for, sent
// from the one numbered i on, 50 at most.
func (w *scriptWatch) callsFrom(i int, keep func(log string) bool) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, c := range w.calls[min(i, len(w.calls)):] {
		if keep(c.log) && len(out) < 50 {
			out = append(out, c.name+" "+c.log)
		}
	}
	return out
}

// callCount returns how many scripts were sent in all.
func (w *scriptWatch) callCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.calls)
}
