package stream

import (
	"context"
	"errors"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/push"
)

// A stream fed by push notifications (WithPush). The rule: a notification
// is a doorbell, a get-task is the news. Agents push each event once, with
// no retry and no sequence number, twice on a cancel, and a 1.0 artifact
// update is a delta, so a delta after one that was lost can never be
// checked. So the stream delivers nothing from a notification's body: a
// notification (the Receiver took it only for this task, with its token)
// ends the poll wait at once, and the poll that follows fetches the task,
// which the ledger folds as any poll's, exactly once. A burst of
// notifications is one poll (Take empties the queue); a duplicate, a late
// one or a replay costs at most a poll, and a lost one only delay, until
// the next notification or the poll interval (WithPushPollInterval).
//
// When: the stream registers a push config with the agent the first time
// it would otherwise resubscribe after a drop (a classify row: outPush),
// or wait between polls (a follow row: movePushSet), once its task is
// known; never while a stream's connection holds. Registered, it follows
// its task by polling, each wait ended by a notification (pollWait). An
// agent that cannot take push configs, or a card that says it has no push
// notifications, leaves the stream as it was, with a PushUnavailable
// notice; a registration that failed otherwise is tried again at the next
// such step.

// defaultPushPollInterval is how long a stream that waits for push
// notifications waits, at most, before it polls all the same.
const defaultPushPollInterval = time.Minute

// WithPush has streams follow their tasks by push notifications, received
// by r (see package push), rather than by holding a connection or polling
// often. A stream registers a push config with the agent (a fresh
// registration of r: its own URL and token, bound to the task) when its
// connection drops, instead of resubscribing, and when it would poll an
// agent that cannot stream; from then on it polls get-task when a
// notification comes, and every WithPushPollInterval (one minute by
// default) when none comes, since agents try each notification once. What
// a notification carries is never delivered as it is: the task fetched is,
// through the same exactly-once rules as every poll. The stall limit
// (WithStallTimeout) still applies: set it to the longest a task of the
// agent may go without news.
//
// An agent whose card says it has no push notifications, or that answers
// the push-config call that it cannot take one (-32003, a method it does
// not know, a Transport without the calls), is followed as without
// WithPush, after a PushUnavailable notice. When the stream ends, its
// registration is closed if its task ended (with a Share, its record is
// deleted), and left (push.Registration's Leave: its record stays, for a
// stream resumed from a checkpoint to adopt, until it expires) if the task
// may still run: Close, the stream's context ending, or any other end
// before the task's. The agent's config is never deleted.
//
// The agent must be able to reach r's URL. With package relay, or any
// replicas, either give every replica's receiver one push.Share
// (push.WithShare: relay's MemoryStore, or relay/redisrelay's store), so
// that a notification that reaches any replica rings the stream on the
// replica that drives it; or route the URL to that replica (by the
// registration's ID, the URL's last segment). Otherwise a notification
// that reaches another process is refused there, and the stream learns of
// the task's progress from its polls only. With a Share, a registration
// that fails (the Share unreachable) is tried again at the next drop or
// poll wait, as a failed push-config call is.
//
// A stream's Checkpoint names its registration (its ID, never its token)
// once the agent took its push config. A stream resumed from such a
// checkpoint (Client.Resume: a takeover on another replica, a restart)
// with WithPush adopts that registration (push.Receiver.Adopt, through
// the receiver's Share) where it would register a push config: it
// registers none, polls at once (notifications may have come while no one
// held the registration), then waits for the notifications of the config
// the agent holds. When the registration cannot be adopted (a receiver
// without a Share, a record expired or deleted, the Share down), the
// stream registers anew, as one resumed from a checkpoint that names
// none; it never fails for it.
//
// A nil r is refused. It applies to a Client's constructors and to its
// streams, of every binding.
func WithPush(r *push.Receiver) Option {
	return option{"WithPush", streams, func(cfg *config) {
		if r == nil {
			cfg.refuse("WithPush: the receiver is nil")
			return
		}
		cfg.pushReceiver = r
	}}
}

// WithPushPollInterval sets how long a stream that follows its task by
// push notifications (WithPush) waits for one before it polls get-task all
// the same: a notification lost on its way is then noticed within d. A
// shorter stall limit (WithStallTimeout) shortens the wait to it, so that a
// task that stalled is found within its limit. It must be at least 1 ms;
// the default is one minute. It applies to a Client's constructors and to
// its streams.
func WithPushPollInterval(d time.Duration) Option {
	return option{"WithPushPollInterval", streams, func(cfg *config) { cfg.pushPollInterval = d }}
}

// pushStage is where a stream stands with push notifications.
type pushStage int

const (
	// pushOff: no WithPush, or the agent cannot take push configs.
	pushOff pushStage = iota
	// pushUntried: WithPush was given, and no push config is registered
	// yet (or the last try failed in a way worth another).
	pushUntried
	// pushLive: a push config is registered with the agent; polls wait
	// for its notifications.
	pushLive
)

// pushes is a stream's push notifications: the registration with the
// agent, once made, and the stage. Its fields are assigned only by its
// methods.
type pushes struct {
	stage pushStage
	reg   *push.Registration // set while pushLive
	// adopt is the registration the checkpoint a stream resumed from
	// names (Resume), to adopt rather than register anew: "" once tried.
	adopt string
}

// newPushes returns the push state of a stream of cfg.
func newPushes(cfg *config) pushes {
	if cfg.pushReceiver == nil {
		return pushes{stage: pushOff}
	}
	return pushes{stage: pushUntried}
}

// untried reports whether the stream may still register a push config.
func (p *pushes) untried() bool { return p.stage == pushUntried }

// live reports whether polls wait for notifications.
func (p *pushes) live() bool { return p.stage == pushLive }

// resumedFrom notes the registration a checkpoint names, to adopt when
// the stream would register a push config (pushSet), if it may.
func (p *pushes) resumedFrom(id string) {
	if p.stage == pushUntried {
		p.adopt = id
	}
}

// adoptable returns the registration to adopt, once: "" when there is
// none, or it was tried.
func (p *pushes) adoptable() string {
	id := p.adopt
	p.adopt = ""
	return id
}

// named returns the ID of the registration a checkpoint of the stream
// names: the live one, or, until the stream tried it, the one it is to
// adopt (a checkpoint taken before the adoption hands it on); "" for
// none.
func (p *pushes) named() string {
	switch {
	case p.stage == pushLive && p.reg != nil:
		return p.reg.ID()
	case p.stage == pushUntried:
		return p.adopt
	}
	return ""
}

// registered makes reg the stream's registration.
func (p *pushes) registered(reg *push.Registration) {
	p.stage, p.reg = pushLive, reg
}

// off gives push notifications up for the rest of the stream.
func (p *pushes) off() { p.stage = pushOff }

// close ends the stream's hold on its registration, if any: the receiver
// refuses its later notifications, and checkpoints no longer name it. The
// registration of a task that may still run is left (push.Registration's
// Leave) for a stream resumed from a checkpoint to adopt, on another
// replica or after a restart; that of a task that ended is closed, its
// shared record deleted.
func (p *pushes) close(taskRuns bool) {
	switch {
	case p.reg != nil && taskRuns:
		p.reg.Leave()
	case p.reg != nil:
		p.reg.Close()
	}
	p.stage, p.reg, p.adopt = pushOff, nil, ""
}

// endPush ends the stream's hold on its push registration (pushes.close),
// as its task stands: the task runs on unless its status is final.
func (s *Stream) endPush() {
	st := s.ledger.Status()
	s.push.close(st == nil || !st.State.Terminal())
}

// pushAnswer is what a try to register a push config found.
type pushAnswer int

const (
	pushTaken  pushAnswer = iota + 1 // the agent took the config
	pushCannot                       // the agent cannot take one: go on without
	pushFailed                       // the call failed otherwise: try again at the next drop or poll wait
)

// errNoPushOffered is the cause of a PushUnavailable notice when the agent
// card says the agent has no push notifications.
var errNoPushOffered = errors.New("stream: the agent card says the agent has no push notifications")

// pushSet registers a push config for the stream's task with the agent:
// a fresh registration of the receiver, bound to the task, whose URL and
// token the config carries. A stream resumed from a checkpoint that names
// its registration adopts it first (adoptPush): the agent holds its config
// already, and none is registered.
func (s *Stream) pushSet() report {
	if reg := s.adoptPush(); reg != nil {
		return s.pushLive(reg)
	}
	if card := s.cfg.card; card != nil && !card.Capabilities.PushNotifications {
		return s.pushRefused(errNoPushOffered)
	}
	reg, err := s.cfg.pushReceiver.Register(s.ctx)
	if err == nil {
		if err = reg.Bind(s.ctx, s.taskID); err != nil {
			reg.Close()
		}
	}
	if err != nil {
		// Only a receiver with a Share (push.WithShare) fails here, when
		// the Share does: a failure worth another try, as a call's.
		if s.ctx.Err() != nil {
			return found(facts{after: afterPushSet, err: s.ctx.Err()})
		}
		s.log.Debug("a2a: push registration failed, to be tried again", "task", s.taskID, "err", err)
		return found(facts{after: afterPushSet, push: pushFailed, pushCause: err, polling: s.route == pollingRoute()})
	}
	cfg := a2a.PushConfig{ID: reg.ID(), URL: reg.URL(), Token: reg.Token()}
	if s.tr != nil {
		s.traceStart(AttemptPushConfig, false, nil)
	}
	_, err = s.c.calls.setPushConfig(s.ctx, s.call(), s.taskID, cfg)
	if err != nil {
		// An agent may quote the token in its refusal: the refusal goes to
		// a notice, a log and a Trace.
		err = redactSecrets(err, cfg)
	}
	if s.tr != nil {
		s.traceDone(pushOutcome(err, s.ctx.Err()), err)
	}
	polling := s.route == pollingRoute()
	switch {
	case err == nil:
		s.log.Debug("a2a: push config registered", "task", s.taskID, "config", reg.ID())
		return s.pushLive(reg)
	case s.ctx.Err() != nil:
		reg.Close()
		return found(facts{after: afterPushSet, err: s.ctx.Err()})
	}
	reg.Close()
	if cannotPush(err) || errors.Is(err, errors.ErrUnsupported) {
		return s.pushRefused(err)
	}
	s.log.Debug("a2a: push config not registered, to be tried again", "task", s.taskID, "err", err)
	return found(facts{after: afterPushSet, push: pushFailed, pushCause: err, polling: polling})
}

// pushLive makes reg, registered with the agent or adopted, the stream's
// registration: from now on polls wait for its notifications.
func (s *Stream) pushLive(reg *push.Registration) report {
	s.push.registered(reg)
	polling := s.route == pollingRoute()
	if polling {
		// No switch to polling follows to tell it.
		s.notify(Notice{Kind: Pushing, TaskID: s.taskID, Wait: s.cfg.pushPollInterval})
	}
	return found(facts{after: afterPushSet, push: pushTaken, polling: polling})
}

// adoptPush adopts, once, the registration the checkpoint the stream
// resumed from names (push.Receiver.Adopt): its push config is the
// agent's already. It returns nil when there is none, or it could not be
// adopted (the receiver has no Share, the record is gone or bound to
// another task, the Share failed): the stream then registers anew, as a
// stream that never had one.
func (s *Stream) adoptPush() *push.Registration {
	id := s.push.adoptable()
	if id == "" {
		return nil
	}
	reg, err := s.cfg.pushReceiver.Adopt(s.ctx, id, s.taskID)
	if err != nil {
		s.log.Debug("a2a: the checkpoint's push registration was not adopted, registering anew", "task", s.taskID, "config", id, "err", err)
		return nil
	}
	s.log.Debug("a2a: push registration adopted", "task", s.taskID, "config", id)
	return reg
}

// pushRefused gives push notifications up for the rest of the stream,
// because of cause, and tells WithNotify.
func (s *Stream) pushRefused(cause error) report {
	s.push.off()
	s.log.Debug("a2a: no push notifications", "task", s.taskID, "cause", cause)
	s.notify(Notice{Kind: PushUnavailable, TaskID: s.taskID, Cause: cause})
	return found(facts{after: afterPushSet, push: pushCannot, pushCause: cause, polling: s.route == pollingRoute()})
}

// errRang is the cancel cause of a poll wait a notification ended.
var errRang = errors.New("stream: a push notification came")

// waitPush waits d, or until a notification of the stream's registration
// comes, whichever is first, through the stream's clock; the
// notifications queued are taken and dropped (the poll that follows
// fetches the task they announce). It returns the context's error when the
// stream's context ends.
func (s *Stream) waitPush(d time.Duration) error {
	reg := s.push.reg
	select {
	case <-reg.Ready():
		reg.Take()
		return nil
	default:
	}
	ctx, cancel := context.WithCancelCause(s.ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-reg.Ready():
			cancel(errRang)
		case <-ctx.Done():
		}
	}()
	err := s.cfg.sleep(ctx, d)
	if context.Cause(ctx) == errRang {
		reg.Take()
		return nil
	}
	if err != nil && s.ctx.Err() != nil {
		return s.ctx.Err()
	}
	return err
}

// pushUntried reports whether the stream may register a push config now:
// WithPush was given, none is registered, and the task is known.
func (s *Stream) pushUntried() bool { return s.push.untried() && s.taskID != "" }
