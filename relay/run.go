package relay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/a2astream/a2astream/stream"
)

// ErrNotStarted is what Run returns, as a watcher (a Source of Resume),
// when the log holds neither a checkpoint nor an entry for as long as
// WithStartWait allows: the replica that was to start the stream never
// did, or another Run started it on a log this one does not reach. Drive
// returns it for a Source of Resume when the log holds no checkpoint that
// names a task.
var ErrNotStarted = errors.New("relay: no replica started the stream")

// RunOption configures Run. Run refuses a bad value, and a nil RunOption,
// with an error that wraps ErrInvalidOption. When an option is given
// twice, the last one wins, except that WithDrive adds options.
type RunOption interface{ applyRun(*runConfig) error }

type runOptionFunc func(*runConfig) error

func (f runOptionFunc) applyRun(c *runConfig) error { return f(c) }

type runConfig struct {
	ttl       time.Duration
	drive     []DriveOption
	sleep     func(ctx context.Context, d time.Duration) error
	startWait time.Duration
	driving   func(ctx context.Context) // nil: none
	trace     *Trace                    // nil: none
}

func defaultRunConfig() runConfig {
	return runConfig{ttl: 5 * time.Second, sleep: sleep, startWait: 30 * time.Second}
}

// WithLease sets the lease Run holds while it drives the stream (5 s by
// default). Run renews it every ttl/3 and tries to take it every ttl/10
// while another owner holds it, so a replica takes a stream over at most
// ttl + ttl/10 after its driver died. A lease below a millisecond is
// refused (Redis counts a lease in milliseconds).
func WithLease(ttl time.Duration) RunOption {
	return runOptionFunc(func(c *runConfig) error {
		if ttl < time.Millisecond {
			return invalidOption("WithLease: the lease must be at least 1ms, not %s", ttl)
		}
		c.ttl = ttl
		return nil
	})
}

// WithDrive passes options to the Drive that Run does while it holds the
// lease. Run refuses them as Drive does, before it starts.
func WithDrive(opts ...DriveOption) RunOption {
	opts = slices.Clone(opts)
	return runOptionFunc(func(c *runConfig) error { c.drive = append(c.drive, opts...); return nil })
}

// WithSleep sets how Run waits between its tries and renewals: f returns
// after d, or with ctx's error when ctx ends first. By default it waits on
// a timer, which a testing/synctest bubble's fake clock drives. A nil f is
// refused.
func WithSleep(f func(ctx context.Context, d time.Duration) error) RunOption {
	return runOptionFunc(func(c *runConfig) error {
		if f == nil {
			return invalidOption("WithSleep: the function is nil")
		}
		c.sleep = f
		return nil
	})
}

// WithDriving sets a function Run calls each time this replica begins to
// drive the stream (it holds the lease and is about to start or resume the
// stream), with a context that ends when it stops driving: the stream
// ended, the lease was lost or Run's context ended. An application uses it
// to tell which replica drives a stream. f must not block. A nil f is
// refused.
func WithDriving(f func(ctx context.Context)) RunOption {
	return runOptionFunc(func(c *runConfig) error {
		if f == nil {
			return invalidOption("WithDriving: the function is nil")
		}
		c.driving = f
		return nil
	})
}

// WithStartWait bounds how long Run, as a watcher (a Source of Resume), waits for
// a log that holds neither a checkpoint nor an entry: the replica that
// starts the stream may not have taken the lease yet. Past the bound, Run
// returns ErrNotStarted (30 s by default). A duration of 0 or less is
// refused.
func WithStartWait(d time.Duration) RunOption {
	return runOptionFunc(func(c *runConfig) error {
		if d <= 0 {
			return invalidOption("WithStartWait: the duration must be positive, not %s", d)
		}
		c.startWait = d
		return nil
	})
}

// sleep waits for d on a timer, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run keeps the stream of log driven: while another owner holds the
// lease it waits, and takes the lease when it is free; holding it, it
// drives the stream (it sends src's message when the log has neither a
// checkpoint nor an entry and src is of Send, else resumes from the
// checkpoint in the log), renews the lease every
// ttl/3 and stops driving as soon as a renewal fails. It returns nil once
// the log holds the stream's ending (EventEnd or EventFailure), ctx's error
// when ctx ends.
//
// Every replica that serves a stream may run Run on its log, with its own
// owner name: the one that starts the stream passes a Source of Send, the
// others (watchers) a Source of Resume. Run calls src's client itself, with
// src's options and then the relay's, which win (see Source). Whichever holds the lease drives (see Drive); when
// it dies, another takes the lease once it expires and resumes the stream
// from the checkpoint the log holds, which Drive commits with each delta's
// entries: the new driver appends exactly what the old one had not, and a
// question it was waiting on keeps its prompt.
//
// Run starts the stream at most once. A log that holds entries but no
// checkpoint (its driver died before the stream knew its task: the
// message may have reached the agent, and is never sent again), or whose
// checkpoint does not parse, cannot be resumed: the replica that takes it
// over appends an EventFailure of kind "unresumable" and returns nil. A
// watcher whose log holds neither a checkpoint nor an entry leaves the
// lease free for the starter and looks again every ttl/10, for at most
// WithStartWait (30 s), then returns ErrNotStarted.
//
// Run returns the store's error when a call other than a renewal fails,
// and gives the lease up (Log.Release) when the stream ended or ctx ended
// while it drove.
//
// Run refuses a nil log, a Source of a nil client or a nil message, an
// empty owner, a nil option and an option's bad value (WithDrive's
// included) with an error that wraps ErrInvalidOption, before it reads the
// log or takes the lease.
func Run(ctx context.Context, log Log, owner string, src Source, opts ...RunOption) error {
	var errs []error
	if log == nil {
		errs = append(errs, invalidOption("Run: a nil Log"))
	}
	if owner == "" {
		errs = append(errs, invalidOption("Run: an empty owner"))
	}
	errs = append(errs, src.refusals("Run")...)
	cfg := defaultRunConfig()
	errs = append(errs, applyOptions("RunOption", opts, func(o RunOption) error { return o.applyRun(&cfg) }))
	dcfg := defaultDriveConfig()
	errs = append(errs, applyDriveOptions(&dcfg, cfg.drive))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if dcfg.trace == nil {
		dcfg.trace = cfg.trace
	}
	r := &runner{cfg: cfg, dcfg: dcfg, log: log, owner: owner, src: src}
	return r.run(ctx)
}

// runner is the state of one Run.
type runner struct {
	cfg   runConfig
	dcfg  driveConfig
	log   Log
	owner string
	src   Source

	started bool // the source's message was sent
	resumed bool // the last opener resumes from the log's checkpoint
}

func (r *runner) run(ctx context.Context) error {
	poll := max(r.cfg.ttl/10, time.Millisecond)
	var waited time.Duration // a watcher's wait for a log that is empty
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		tail, err := r.log.Tail(ctx)
		if err != nil {
			return err
		}
		if tail > 0 && delivered(ctx, r.log, tail) {
			return nil
		}
		fence, err := r.log.Acquire(ctx, r.owner, r.cfg.ttl)
		switch {
		case errors.Is(err, ErrHeld):
			if err := r.cfg.sleep(ctx, poll); err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		}
		open, err := r.opener(ctx, fence)
		if errors.Is(err, errUnresumable) {
			return nil
		}
		if err != nil {
			return err
		}
		if open == nil {
			// A watcher on an empty log: leave the lease to the starter.
			if err := r.log.Release(ctx, fence); err != nil {
				return err
			}
			if waited >= r.cfg.startWait {
				return ErrNotStarted
			}
			if err := r.cfg.sleep(ctx, poll); err != nil {
				return err
			}
			waited += poll
			continue
		}
		waited = 0
		done, err := r.drive(ctx, fence, open)
		if done || err != nil {
			return err
		}
	}
}

// opener returns how the driver of fence opens the stream: it starts it,
// or resumes it from the log's checkpoint. When it can do neither, it
// appends the unresumable ending and fails with errUnresumable. It returns
// nil for a watcher on an empty log.
func (r *runner) opener(ctx context.Context, fence Fence) (openFunc, error) {
	cp, err := r.log.LoadCheckpoint(ctx)
	if err != nil {
		return nil, err
	}
	if cp != nil {
		parsed, err := stream.ParseCheckpoint(cp)
		if err != nil {
			return r.unresumable(ctx, fence, fmt.Sprintf("relay: the stream's checkpoint does not parse: %v", err))
		}
		if parsed.TaskID() == "" {
			// Run's mark (see startMark): the stream was started and
			// knew no task yet.
			return r.unresumable(ctx, fence, stoppedEarly)
		}
		r.resumed = true
		return func(ctx context.Context, relayOpts ...stream.Option) (*stream.Stream, error) {
			return r.src.resume(ctx, parsed, relayOpts...), nil
		}, nil
	}
	r.resumed = false
	tail, err := r.log.Tail(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case tail == 0 && r.src.send && !r.started:
		// Mark the log as started before the message goes: a replica
		// that takes it over before the stream knows its task then knows
		// that the message may have reached the agent.
		mark, err := startMark()
		if err != nil {
			return nil, err
		}
		if err := r.log.Commit(ctx, fence, mark); err != nil {
			return nil, err
		}
		r.started = true
		return func(ctx context.Context, relayOpts ...stream.Option) (*stream.Stream, error) {
			return r.src.start(ctx, relayOpts...), nil
		}, nil
	case tail == 0 && !r.src.send:
		return nil, nil
	}
	return r.unresumable(ctx, fence, stoppedEarly)
}

// startMark returns the checkpoint Run stores before it starts the
// stream, until the stream's first checkpoint that names a task replaces
// it: the checkpoint of a stream that knows no task yet. It parses as any
// checkpoint does, and names no task, which Resume refuses; the replica
// that finds it ends the stream unresumable. The slot holds nothing but
// stream checkpoints.
func startMark() ([]byte, error) {
	b, err := new(stream.Checkpoint).MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("relay: the start's checkpoint: %w", err)
	}
	return b, nil
}

// stoppedEarly is the text of the unresumable ending of a stream whose
// driver stopped before it knew its task.
const stoppedEarly = "relay: the stream's driver stopped before the stream knew its task; its message may have reached the agent and is not sent again"

// errUnresumable marks an opener that appended the unresumable ending.
var errUnresumable = errors.New("relay: unresumable")

// unresumable appends the EventFailure that ends a stream no checkpoint can
// resume.
func (r *runner) unresumable(ctx context.Context, fence Fence, text string) (openFunc, error) {
	tail, err := r.log.Tail(ctx)
	if err != nil {
		return nil, err
	}
	d := &driver{ctx: ctx, log: r.log, fence: fence, cfg: r.dcfg, next: tail + 1}
	d.add(EventFailure, FailureData{Kind: "unresumable", Text: stream.Ending{Err: errors.New(text)}.String()})
	d.commit(nil)
	if d.err != nil {
		return nil, d.err
	}
	_ = r.log.Release(ctx, fence)
	return nil, errUnresumable
}

// drive drives the stream while the lease holds, renewing it every ttl/3.
// It reports done when Run is to return (with err), and not done when the
// lease was lost, for Run to wait for it again.
func (r *runner) drive(ctx context.Context, fence Fence, open openFunc) (done bool, err error) {
	dctx, stop := context.WithCancel(ctx)
	tr := r.cfg.trace
	tr.lease(LeaseWon, r.owner, r.resumed)
	if r.cfg.driving != nil {
		r.cfg.driving(dctx)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		defer stop()
		for r.cfg.sleep(dctx, r.cfg.ttl/3) == nil {
			if r.log.Renew(dctx, fence, r.cfg.ttl) != nil {
				return
			}
			tr.lease(LeaseRenewed, r.owner, false)
		}
	})
	err = drive(dctx, r.log, fence, open, r.dcfg)
	stop()
	wg.Wait()
	switch {
	case err == nil, errors.Is(err, ErrEnded):
		_ = r.log.Release(context.WithoutCancel(ctx), fence)
		tr.lease(LeaseReleased, r.owner, false)
		return true, nil
	case ctx.Err() != nil:
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.ttl/3)
		_ = r.log.Release(rctx, fence)
		cancel()
		tr.lease(LeaseReleased, r.owner, false)
		return true, ctx.Err()
	case errors.Is(err, ErrStale), errors.Is(err, context.Canceled):
		// The lease was lost: another replica drives, or will.
		tr.lease(LeaseLost, r.owner, false)
		return false, nil
	}
	return true, err
}
