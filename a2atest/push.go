package a2atest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// Push notifications, as @a2a-js/sdk's push sender makes them (the
// captures in testdata/push, of 1.3.0 for 1.0 and 0.3.14 for 0.3): an
// agent built [WithPush] POSTs each event of a task's timeline, as it falls
// due, to every webhook registered for the task, one event after another,
// each tried once.

// pushPostTimeout bounds one POST, as the SDK's sender bounds it (5 s, its
// default): a webhook that holds the request longer loses that event.
const pushPostTimeout = 5 * time.Second

// Push is one push notification the agent made, as [Agent.Pushes] reports it.
type Push struct {
	// TaskID is the task whose event it carries; ConfigID the webhook's
	// configuration, and URL its address.
	TaskID, ConfigID, URL string
	// Version is the version the webhook was registered in, which is the
	// body's shape: 1.0 the event as a StreamResponse, 0.3 the whole Task.
	Version a2a.Version
	// Body is what was POSTed (or would have been, when Dropped).
	Body []byte
	// Status is the webhook's HTTP status, 0 if it gave none.
	Status int
	// Err is why the POST failed, if it did (a refused connection, the
	// 5-second timeout).
	Err error
	// Dropped says a [DropPush] fault kept it from being sent.
	Dropped bool
}

// PushFault changes what the agent does with one push notification: the
// n-th POST the agent makes, counting from 1 across all its tasks and
// webhooks in the order they are made.
type PushFault struct {
	n     int
	kind  pushFaultKind
	delay time.Duration
}

type pushFaultKind int

const (
	pushDrop pushFaultKind = iota + 1
	pushRepeat
	pushDelay
	pushSwap
)

// DropPush loses the n-th push: it is never sent, as when the SDK's one try
// failed.
func DropPush(n int) PushFault { return PushFault{n: n, kind: pushDrop} }

// RepeatPush sends the n-th push twice, byte for byte, as @a2a-js/sdk 1.3.0
// does with a cancel while a stream is open.
func RepeatPush(n int) PushFault { return PushFault{n: n, kind: pushRepeat} }

// DelayPush waits d before the n-th push. Pushes of a task go one at a
// time, so the later pushes of that task wait too.
func DelayPush(n int, d time.Duration) PushFault { return PushFault{n: n, kind: pushDelay, delay: d} }

// SwapPush holds the n-th push back and sends it after the next push of the
// same task (or when the task's pushes end, if none follows).
func SwapPush(n int) PushFault { return PushFault{n: n, kind: pushSwap} }

// webhook is a push notification configuration a client registered for a
// task.
type webhook struct {
	id, url, token string
	// scheme and credentials are its authentication, if it has one.
	scheme, credentials string
	// v is the version it was registered in: the shape of its pushes.
	v a2a.Version
	// from is the index of the first timeline entry it gets: the events
	// before it was registered are never pushed to it.
	from int
}

// taskPushes is a task's webhooks and the state of its pusher. The agent's
// mutex guards it.
type taskPushes struct {
	hooks   []webhook
	next    int  // the index of the next timeline entry to push
	running bool // a pusher goroutine serves the task
}

// register adds or replaces (by ID) a webhook of t, and starts t's pusher
// if none runs. The agent's mutex is held.
func (a *Agent) register(t *task, w webhook) webhook {
	if t.push == nil {
		t.push = &taskPushes{}
	}
	p := t.push
	if i := slices.IndexFunc(p.hooks, func(h webhook) bool { return h.id == w.id }); i >= 0 {
		p.hooks[i] = w
	} else {
		p.hooks = append(p.hooks, w)
	}
	if !p.running && !a.closed {
		p.running = true
		a.pushers.Add(1)
		go a.runPusher(t)
	}
	return w
}

// pushJob is one POST the pusher makes.
type pushJob struct {
	taskID string
	hook   webhook
	body   []byte
}

// runPusher pushes t's timeline entries as they fall due, until the task
// has ended and every entry was pushed, or the agent is closed.
func (a *Agent) runPusher(t *task) {
	defer a.pushers.Done()
	var held *pushJob // a SwapPush's push, sent after the next one
	defer func() {
		if held != nil {
			a.post(*held)
		}
	}()
	for {
		jobs, ok := a.nextPushes(t)
		if !ok {
			return
		}
		for _, j := range jobs {
			held = a.pushWithFaults(j, held)
		}
	}
}

// nextPushes waits until t's next timeline entry falls due and returns its
// pushes, one per webhook that gets it; ok is false when the pusher is to
// stop.
func (a *Agent) nextPushes(t *task) (jobs []pushJob, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := t.push
	for {
		if a.closed {
			p.running = false
			return nil, false
		}
		now := time.Now()
		if p.next < t.dueCount(now) {
			break
		}
		if p.next >= len(t.entries) && t.state(now).Status.State.Terminal() {
			p.running = false
			return nil, false
		}
		var timer *time.Timer
		var due <-chan time.Time
		if p.next < len(t.entries) {
			timer = time.NewTimer(t.entries[p.next].due.Sub(now))
			due = timer.C
		}
		changed, closing := t.changed, a.closing
		a.mu.Unlock()
		select {
		case <-changed:
		case <-due:
		case <-closing:
		}
		if timer != nil {
			timer.Stop()
		}
		a.mu.Lock()
	}
	i := p.next
	p.next++
	for _, h := range p.hooks {
		if h.from > i {
			continue
		}
		body, err := t.pushBody(i, h.v)
		if err != nil {
			continue // every entry is built by the a2a codecs; nothing to push
		}
		jobs = append(jobs, pushJob{taskID: t.id, hook: h, body: body})
	}
	return jobs, true
}

// pushBody is the body of the push of timeline entry i in version v: in
// 1.0 the event itself as a bare StreamResponse (a follow-up's entry pushes
// the task snapshot its stream starts with), in 0.3 the whole Task as it
// stands after the entry.
func (t *task) pushBody(i int, v a2a.Version) ([]byte, error) {
	c := a2a.Codec{Version: v}
	if v == a2a.V03 {
		return c.EncodeTask(t.fold(i + 1))
	}
	return c.EncodeEvent(t.entries[i].ev)
}

// pushWithFaults makes job's POST as the agent's PushFaults say, after
// held (a swapped push) if there is one, and returns the push to hold back
// now, if any.
func (a *Agent) pushWithFaults(job pushJob, held *pushJob) *pushJob {
	a.mu.Lock()
	a.nPush++
	var f PushFault
	for _, pf := range a.cfg.pushFaults {
		if pf.n == a.nPush {
			f = pf
		}
	}
	a.mu.Unlock()
	switch f.kind {
	case pushDrop:
		a.record(job, 0, nil, true)
	case pushSwap:
		if held != nil {
			a.post(*held)
		}
		return &job
	case pushDelay:
		select {
		case <-time.After(f.delay):
		case <-a.closing:
		}
		a.post(job)
	case pushRepeat:
		a.post(job)
		a.post(job)
	default:
		a.post(job)
	}
	if held != nil {
		a.post(*held)
	}
	return nil
}

// post makes one POST of job and records it. It is tried once.
func (a *Agent) post(job pushJob) {
	ctx, cancel := context.WithTimeout(context.Background(), pushPostTimeout)
	defer cancel()
	stop := context.AfterFunc(a.closeCtx, cancel)
	defer stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, job.hook.url, bytes.NewReader(job.body))
	if err != nil {
		a.record(job, 0, err, false)
		return
	}
	h := job.hook
	if h.v == a2a.V03 {
		req.Header.Set("Content-Type", "application/json")
	} else {
		req.Header.Set("Content-Type", "application/a2a+json")
	}
	// 1.0 sends the authentication, if the webhook has one, instead of the
	// token; 0.3.14 ignores the authentication.
	switch {
	case h.v == a2a.V10 && h.scheme != "":
		req.Header.Set("Authorization", h.scheme+" "+h.credentials)
	case h.token != "":
		req.Header.Set("X-A2A-Notification-Token", h.token)
	}
	resp, err := a.cfg.pushClient.Do(req)
	if err != nil {
		a.record(job, 0, err, false)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	a.record(job, resp.StatusCode, nil, false)
}

// record keeps what became of one push, for Pushes.
func (a *Agent) record(job pushJob, status int, err error, dropped bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pushes = append(a.pushes, Push{
		TaskID: job.taskID, ConfigID: job.hook.id, URL: job.hook.url, Version: job.hook.v,
		Body: slices.Clone(job.body), Status: status, Err: err, Dropped: dropped,
	})
}

// Pushes returns the push notifications the agent made (or dropped) so
// far, in the order they were made.
func (a *Agent) Pushes() []Push {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Push, len(a.pushes))
	for i, p := range a.pushes {
		p.Body = slices.Clone(p.Body)
		out[i] = p
	}
	return out
}

// Close stops the agent's pushers (an agent built [WithPush] runs one
// goroutine per task that has webhooks, until the task ends) and waits for
// them: a push being made is cut. Later webhooks start no pusher. An agent
// without webhooks has nothing to stop. Close is idempotent; the agent
// still answers requests.
func (a *Agent) Close() {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		a.stopAll()
	}
	a.mu.Unlock()
	a.pushers.Wait()
}
