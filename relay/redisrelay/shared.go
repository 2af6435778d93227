package redisrelay

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/a2astream/a2astream/relay"
)

// SaveSnapshot replaces the snapshot hash (fields seq and data) in a
// fenced script.
func (l *log) SaveSnapshot(ctx context.Context, fence relay.Fence, s relay.Snapshot) error {
	_, err := run(ctx, l.store.client, l.store.scripts.setFenced, relay.ErrStale,
		[]string{l.keys.epoch, l.keys.fence, l.keys.snapshot}, l.epoch, fenceValue(fence),
		"seq", strconv.FormatUint(s.Seq, 10), "data", s.Data)
	return err
}

// LoadSnapshot reads the snapshot hash.
func (l *log) LoadSnapshot(ctx context.Context) (relay.Snapshot, error) {
	reply, err := run(ctx, l.store.client, l.store.scripts.get, nil,
		[]string{l.keys.epoch, l.keys.snapshot}, l.epoch)
	if err != nil {
		return relay.Snapshot{}, err
	}
	return snapshotOf(reply[0])
}

// snapshotOf decodes the snapshot hash's seq and data fields, as HMGET
// answers them; none when seq is missing.
func snapshotOf(v any) (relay.Snapshot, error) {
	fields, _ := v.([]any)
	if len(fields) != 2 || fields[0] == nil {
		return relay.Snapshot{}, nil
	}
	seq, _ := fields[0].(string)
	data, _ := fields[1].(string)
	n, err := strconv.ParseUint(seq, 10, 64)
	if err != nil {
		return relay.Snapshot{}, fmt.Errorf("redisrelay: a snapshot with the seq %q", seq)
	}
	return relay.Snapshot{Seq: n, Data: []byte(data)}, nil
}

// LoadCheckpoint reads the checkpoint key.
func (l *log) LoadCheckpoint(ctx context.Context) ([]byte, error) {
	reply, err := run(ctx, l.store.client, l.store.scripts.get, nil,
		[]string{l.keys.epoch, l.keys.checkpoint}, l.epoch)
	if err != nil {
		return nil, err
	}
	if reply[0] == nil {
		return nil, nil
	}
	cp, _ := reply[0].(string)
	return []byte(cp), nil
}

// storedAnswer is an answer as the answers hash keeps it, under its prompt.
type storedAnswer struct {
	Key  string `json:"key"`
	Text string `json:"text"`
}

// PostAnswer sets the prompt's field of the answers hash with HSETNX, and
// notes it on the notes stream and its channel when it won, in one script.
func (l *log) PostAnswer(ctx context.Context, a relay.Answer) (relay.Answer, error) {
	b, err := json.Marshal(storedAnswer{Key: a.Key, Text: a.Text})
	if err != nil {
		return relay.Answer{}, fmt.Errorf("redisrelay: %w", err)
	}
	reply, err := run(ctx, l.store.client, l.store.scripts.postAnswer, nil,
		[]string{l.keys.epoch, l.keys.answers, l.keys.notes}, l.epoch, strconv.FormatUint(a.Prompt, 10), b)
	if err != nil {
		return relay.Answer{}, err
	}
	return answerOf(a.Prompt, reply[0])
}

func answerOf(prompt uint64, v any) (relay.Answer, error) {
	s, _ := v.(string)
	var sa storedAnswer
	if err := json.Unmarshal([]byte(s), &sa); err != nil {
		return relay.Answer{}, fmt.Errorf("redisrelay: the answer to %d held in Redis: %w", prompt, err)
	}
	return relay.Answer{Prompt: prompt, Key: sa.Key, Text: sa.Text}, nil
}

// AwaitAnswer looks for the answer and, while there is none, waits on
// the store's hub for a note on the log's notes channel, so that a post on
// any replica wakes it; it looks again at each note and at least every
// wake interval.
func (l *log) AwaitAnswer(ctx context.Context, prompt uint64) (relay.Answer, error) {
	p := strconv.FormatUint(prompt, 10)
	v, err := l.awaitNote(ctx, []string{l.keys.epoch, l.keys.answers}, l.epoch, p)
	if err != nil {
		return relay.Answer{}, err
	}
	return answerOf(prompt, v)
}

// LoadAnswer reads the prompt's field of the answers hash, in a script
// that checks the epoch.
func (l *log) LoadAnswer(ctx context.Context, prompt uint64) (relay.Answer, bool, error) {
	reply, err := run(ctx, l.store.client, l.store.scripts.loadAnswer, nil,
		[]string{l.keys.epoch, l.keys.answers}, l.epoch, strconv.FormatUint(prompt, 10))
	if err != nil || reply[0] == nil {
		return relay.Answer{}, false, err
	}
	a, err := answerOf(prompt, reply[0])
	if err != nil {
		return relay.Answer{}, false, err
	}
	return a, true, nil
}

// RequestCancel sets the cancel mark and notes it (stream and channel), once.
func (l *log) RequestCancel(ctx context.Context) error {
	_, err := run(ctx, l.store.client, l.store.scripts.cancel, nil,
		[]string{l.keys.epoch, l.keys.cancel, l.keys.notes}, l.epoch)
	return err
}

// AwaitCancel waits for the cancel mark as AwaitAnswer waits for an answer.
func (l *log) AwaitCancel(ctx context.Context) error {
	_, err := l.awaitNote(ctx, []string{l.keys.epoch, l.keys.cancel}, l.epoch)
	return err
}

// awaitNote runs the poll script with keys and args until it finds
// something, and returns it: at once, then at each note on the log's notes
// channel, and at least every wake interval.
func (l *log) awaitNote(ctx context.Context, keys []string, args ...any) (any, error) {
	var found any
	err := l.store.hub.await(ctx, l.keys.notes, func(ctx context.Context) *lookReq {
		return l.store.looks.start(ctx, l.store.scripts.poll, keys, args...)
	}, func(reply []any, err error) (bool, error) {
		if err != nil {
			return false, err
		}
		found = reply[0]
		return found != nil, nil
	}, nil)
	return found, err
}
