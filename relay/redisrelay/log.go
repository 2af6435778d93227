package redisrelay

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/a2astream/a2astream/relay"
)

// log is the [relay.Log] of one key, as one Open saw it: every call checks,
// in the same script, that Redis still holds the log of that epoch.
type log struct {
	store *store
	keys  keys
	epoch string
}

func (l *log) Epoch() string { return l.epoch }

// fenceValue is how a fence is kept in Redis: "<term>:<owner>".
func fenceValue(f relay.Fence) string { return strconv.FormatUint(f.Term, 10) + ":" + f.Owner }

// Commit adds the entries with explicit stream IDs "0-<seq>", all or none,
// and sets the checkpoint key when cp is not nil, in one script that
// checks the epoch, the fence and the sequence (with no entries, it checks
// the epoch and the fence): Redis runs a script whole, so the entries and
// the checkpoint are stored together or, when a check fails, neither is. A
// Commit whose reply was lost (the connection or Redis died) may have been
// applied: sent again, it fails with [relay.ErrDuplicate] if it was.
func (l *log) Commit(ctx context.Context, fence relay.Fence, cp []byte, entries ...relay.Entry) error {
	_, err := run(ctx, l.store.client, l.store.scripts.append, relay.ErrStale,
		[]string{l.keys.epoch, l.keys.fence, l.keys.log, l.keys.checkpoint, l.keys.trim},
		commitArgs(l.epoch, fence, cp, entries)...)
	return err
}

// commitArgs is the append script's ARGV: the epoch, the fence, the
// checkpoint ("1" and cp, or "0" and "" for none), then a (seq, name,
// data) triple per entry.
func commitArgs(epoch string, fence relay.Fence, cp []byte, entries []relay.Entry) []any {
	args := make([]any, 0, 4+3*len(entries))
	args = append(args, epoch, fenceValue(fence))
	if cp != nil {
		args = append(args, "1", cp)
	} else {
		args = append(args, "0", "")
	}
	for _, e := range entries {
		args = append(args, strconv.FormatUint(e.Seq, 10), e.Name, e.Data)
	}
	return args
}

// Read returns up to max entries after after, with XRANGE from the
// exclusive start "(0-<after>"; none when max is not positive.
func (l *log) Read(ctx context.Context, after uint64, max int) ([]relay.Entry, error) {
	reply, err := run(ctx, l.store.client, l.store.scripts.read, relay.ErrGone,
		[]string{l.keys.epoch, l.keys.trim, l.keys.log}, l.epoch, strconv.FormatUint(after, 10), max)
	if err != nil {
		return nil, err
	}
	return entriesOf(reply[0])
}

// Attach reads the snapshot hash and XRANGEs the entries after its seq in
// one script: Redis runs a script whole, so no trim and no snapshot saved
// comes between the two reads.
func (l *log) Attach(ctx context.Context, max int) (relay.Snapshot, []relay.Entry, error) {
	reply, err := run(ctx, l.store.client, l.store.scripts.attach, nil,
		[]string{l.keys.epoch, l.keys.snapshot, l.keys.trim, l.keys.log}, l.epoch, max)
	if err != nil {
		return relay.Snapshot{}, nil, err
	}
	if len(reply) != 2 {
		return relay.Snapshot{}, nil, fmt.Errorf("redisrelay: the attach script answered %d parts", len(reply))
	}
	snap, err := snapshotOf(reply[0])
	if err != nil {
		return relay.Snapshot{}, nil, err
	}
	es, err := entriesOf(reply[1])
	if err != nil {
		return relay.Snapshot{}, nil, err
	}
	return snap, es, nil
}

// entriesOf decodes an XRANGE reply.
func entriesOf(v any) ([]relay.Entry, error) {
	raw, _ := v.([]any)
	out := make([]relay.Entry, 0, len(raw))
	for _, r := range raw {
		e, err := entryOf(r)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// entryOf decodes one XRANGE element: {"0-<seq>", {"n", name, "d", data}}.
func entryOf(r any) (relay.Entry, error) {
	pair, _ := r.([]any)
	if len(pair) != 2 {
		return relay.Entry{}, fmt.Errorf("redisrelay: a stream entry of %d parts", len(pair))
	}
	id, _ := pair[0].(string)
	ms, seq, ok := strings.Cut(id, "-")
	n, err := strconv.ParseUint(seq, 10, 64)
	if !ok || ms != "0" || err != nil {
		return relay.Entry{}, fmt.Errorf("redisrelay: a stream entry with the ID %q, not 0-<seq>", id)
	}
	e := relay.Entry{Seq: n}
	fields, _ := pair[1].([]any)
	for i := 0; i+1 < len(fields); i += 2 {
		name, _ := fields[i].(string)
		value, _ := fields[i+1].(string)
		switch name {
		case "n":
			e.Name = value
		case "d":
			e.Data = []byte(value)
		}
	}
	return e, nil
}

// Tail returns the trimmed-through mark plus the stream's length: the
// stream holds the entries after the mark, and trims move the mark.
func (l *log) Tail(ctx context.Context) (uint64, error) {
	return tailOf(run(ctx, l.store.client, l.store.scripts.tail, nil,
		[]string{l.keys.epoch, l.keys.trim, l.keys.log}, l.epoch))
}

// tailOf reads the tail script's split answer.
func tailOf(reply []any, err error) (uint64, error) {
	if err != nil {
		return 0, err
	}
	n, _ := reply[0].(int64)
	return uint64(n), nil
}

// AwaitEntry waits on the store's hub for a note on the log's channel,
// and looks at the tail at once, at each confirmation of the channel's
// subscription, and at least every wake interval; each look checks the
// epoch too. A note ends the wait without a look when it names the log's
// epoch and a Seq after after: the append script sends it with the
// entries, in one step.
func (l *log) AwaitEntry(ctx context.Context, after uint64) error {
	return l.store.hub.await(ctx, l.keys.log, func(ctx context.Context) *lookReq {
		return l.store.looks.start(ctx, l.store.scripts.tail, []string{l.keys.epoch, l.keys.trim, l.keys.log}, l.epoch)
	}, func(reply []any, err error) (bool, error) {
		tail, err := tailOf(reply, err)
		return tail > after, err
	}, func(note string) bool {
		epoch, seq, ok := strings.Cut(note, ":")
		n, err := strconv.ParseUint(seq, 10, 64)
		return ok && err == nil && epoch == l.epoch && n > after
	})
}

// Trim records the trimmed-through mark and drops the entries up to it
// with XTRIM MINID, never past the snapshot's Seq nor past the tail.
func (l *log) Trim(ctx context.Context, through uint64) error {
	_, err := run(ctx, l.store.client, l.store.scripts.trim, nil,
		[]string{l.keys.epoch, l.keys.snapshot, l.keys.trim, l.keys.log}, l.epoch, strconv.FormatUint(through, 10))
	return err
}
