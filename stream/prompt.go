package stream

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/transport"
)

// prompt is what the stream knows of the prompt it replied to.
type prompt struct {
	// replied is the key of the prompt already replied to, while the task
	// still shows it; "" once the task has moved on.
	replied string
	// reply is the answer sent: the hook's, or the message of a Send that
	// continues a task.
	reply *a2a.Message
	// unconfirmed: the reply's last send got no response: the agent may
	// have taken it, or not. Set when the reply is sent, cleared by heard
	// and confirmFrom. Only WithIdempotentSends sends such a reply again
	// (see afterNews).
	unconfirmed bool
}

// heard clears unconfirmed when the call that sent a message got a
// response: its result, or an error that came after the response's status
// line (a body cut short), or one a Transport marked with transport.Responded. The
// agent may then have taken the message, which is never sent again. A send
// that got no response keeps unconfirmed.
func (p *prompt) heard(err error) {
	if err == nil || callmark.IsResponded(err) {
		p.unconfirmed = false
	}
}

// askHuman calls the human-input hook and sends its reply on the same task.
func (s *Stream) askHuman() report {
	t := s.ledger.Task()
	question := t.Status.Message
	hook := s.cfg.hook
	if hook == nil {
		return found(facts{after: afterAsked, err: &hitl.Error{Task: s.snapshot(), Prompt: question.Clone(), Err: hitl.ErrNoHook}})
	}
	// The hook gets the caller's context, which carries no option of the
	// stream's: those are arguments of the stream's own calls.
	ctx := s.caller
	if d := s.cfg.inputTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	if s.tr != nil {
		s.traceAsk(AskHuman, false, nil)
	}
	parts, err := hook.Ask(ctx, &hitl.Request{Task: s.snapshot(), Prompt: question.Clone()})
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	var reply *a2a.Message
	if err == nil {
		reply = &a2a.Message{ID: uuid.NewString(), TaskID: t.ID, ContextID: t.ContextID, Role: a2a.RoleUser, Parts: parts}
		err = validReply(s.v, reply)
	}
	if s.tr != nil {
		s.traceAsk(AskHuman, true, err)
	}
	if err != nil {
		if s.ctx.Err() != nil {
			err = s.ctx.Err()
		} else {
			err = &hitl.Error{Task: s.snapshot(), Prompt: question.Clone(), Err: err}
		}
		return found(facts{after: afterAsked, err: err})
	}
	s.prompt.replied = promptKey(&t.Status)
	s.prompt.reply = reply
	s.ledger.RecordSent(reply)
	s.tries.reset(s.cfg.policy)
	return found(facts{after: afterAsked})
}

// saveBeforeReply gives WithCheckpointBeforeReply's function the checkpoint
// with the reply about to be sent marked as possibly sent, and returns the
// function's failure, with which the stream ends, the reply not sent.
func (s *Stream) saveBeforeReply() error {
	f := s.cfg.beforeReply
	if f == nil {
		return nil
	}
	cp := *s.checkpoint() // a copy: checkpoint may return one it shares
	cp.prompt = &promptState{key: s.prompt.replied, reply: s.prompt.reply, sent: replyInFlight}
	err := f(s.caller, &cp)
	if s.tr != nil {
		s.traceCheckpoint(true, err)
	}
	if err != nil {
		return fmt.Errorf("stream: the checkpoint before the reply was not saved, and the reply not sent: %w", err)
	}
	return nil
}

// validReply checks that a hook's reply can be sent: it has parts, and it
// encodes. A reply that cannot is the hook's failure, not the network's.
func validReply(v a2a.Version, m *a2a.Message) error {
	if len(m.Parts) == 0 {
		return fmt.Errorf("%w: the hook's reply has no parts", transport.ErrInvalidMessage)
	}
	if _, err := (a2a.Codec{Version: v}).EncodeMessage(m); err != nil {
		return fmt.Errorf("%w: the hook's reply does not encode: %w", transport.ErrInvalidMessage, err)
	}
	return nil
}

// sendReply sends (or sends again, unchanged) the reply to the prompt with
// a streaming call.
func (s *Stream) sendReply() report {
	if err := s.saveBeforeReply(); err != nil {
		return found(facts{err: err})
	}
	s.readyReply()
	return s.sendStreaming(phaseReply, s.prompt.reply)
}

// pollReply sends (or sends again, unchanged) the reply to the prompt with
// a unary call, then polls.
func (s *Stream) pollReply() report {
	if err := s.saveBeforeReply(); err != nil {
		return found(facts{err: err})
	}
	s.readyReply()
	return s.sendUnary(phasePollReply, s.prompt.reply)
}

// readyReply prepares each send of the reply.
func (s *Stream) readyReply() {
	s.prompt.unconfirmed = true
	s.gap.close()
	s.ledger.CloseReplayWindow()
}

// confirmFrom clears the pending reply once a task from the server lists it
// in its history: the agent has taken it.
func (s *Stream) confirmFrom(t *a2a.Task) {
	if !s.prompt.unconfirmed || s.prompt.reply == nil {
		return
	}
	for i := range t.History {
		if t.History[i].ID == s.prompt.reply.ID {
			s.prompt.unconfirmed = false
			return
		}
	}
}

// waitsOnRepliedPrompt reports whether the task still shows the prompt the
// stream replied to.
func (s *Stream) waitsOnRepliedPrompt() bool {
	st := s.ledger.Status()
	return st.State == a2a.StateInputRequired && s.prompt.replied != "" && promptKey(st) == s.prompt.replied
}

// learnReplied recognises, in a task from the server, the prompt that the
// stream's reply is for: the task still shows it, and lists the reply after
// it in its history (a2a-js 1.x opens a follow-up stream with the task as it
// was when the reply arrived). A server that keeps no user messages in the
// history gives no such proof; then a Task as the first event of the reply's
// own stream is taken as that stale view, since a new prompt would arrive as
// a status update.
func (s *Stream) learnReplied(t *a2a.Task, firstOfReply bool) {
	r := s.prompt.reply
	if r == nil || t.Status.State != a2a.StateInputRequired {
		return
	}
	promptAt, replyAt := -1, -1
	promptID := messageID(t.Status.Message)
	for i := range t.History {
		switch id := t.History[i].ID; {
		case id == "":
		case id == promptID:
			promptAt = i
		case id == r.ID:
			replyAt = i
		}
	}
	switch {
	case replyAt >= 0 && promptAt > replyAt:
		// The task asks again, after the reply: a new question.
	case replyAt >= 0, firstOfReply:
		// The reply follows the prompt, or the history does not list the
		// prompt (a2a-go keeps no status messages there), or, on the
		// reply's own stream, no user message.
		s.prompt.replied = promptKey(&t.Status)
	}
}

// promptMovedOn forgets the prompt replied to once the task has left
// input-required: a later prompt is a new question even if it looks the
// same (no message ID, no text, no timestamp).
func (s *Stream) promptMovedOn() {
	if s.prompt.replied == "" {
		return
	}
	if st := s.ledger.Status(); st != nil && st.State != a2a.StateInputRequired && st.State != a2a.StateUnknown {
		s.prompt.replied = ""
	}
}

// promptKey identifies a prompt: its message ID, or when it has none its
// text and timestamp.
func promptKey(st *a2a.TaskStatus) string {
	if m := st.Message; m != nil && m.ID != "" {
		return "id:" + m.ID
	}
	return "text:" + st.Message.Text() + "\x00" + st.Timestamp.String()
}

func messageID(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	return m.ID
}
