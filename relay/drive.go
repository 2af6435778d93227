package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chatview"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/clip"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// ErrEnded is what Drive returns for a log whose stream has ended already:
// it appends nothing and starts no stream.
var ErrEnded = errors.New("relay: the stream has ended")

// DriveOption configures Drive (and Run, through WithDrive). Drive refuses
// a bad value, and a nil DriveOption, with an error that wraps
// ErrInvalidOption. When an option is given twice, the last one wins.
type DriveOption interface{ applyDrive(*driveConfig) error }

type driveOptionFunc func(*driveConfig) error

func (f driveOptionFunc) applyDrive(c *driveConfig) error { return f(c) }

type driveConfig struct {
	snapEntries int  // entries between snapshots
	snapBytes   int  // bytes between snapshots, at least
	trim        bool // trim through the previous snapshot
	chunk       int  // bytes of text per entry, at most
	page        int  // entries per Read
	maxSnap     int  // bytes of a snapshot, at most
	// logger gets the whole error of a stream that ended in one.
	logger *slog.Logger
	trace  *Trace // nil: none
}

func defaultDriveConfig() driveConfig {
	return driveConfig{snapEntries: 1024, snapBytes: 1 << 20, trim: true, chunk: 16 << 10, page: 64, maxSnap: 1 << 20,
		logger: slog.New(slog.DiscardHandler)}
}

// applyDriveOptions applies opts to cfg, and returns every refusal.
func applyDriveOptions(cfg *driveConfig, opts []DriveOption) error {
	return applyOptions("DriveOption", opts, func(o DriveOption) error { return o.applyDrive(cfg) })
}

// WithSnapshotEvery sets how often Drive saves a snapshot: after this many
// entries, or once the entries since the last snapshot hold this many
// bytes or as many as that snapshot, whichever comes first (1024 entries
// and 1 MiB by default). The snapshot grows with the screen, so the byte
// rule keeps the cost of all snapshots linear in the answer's size.
// A count or a size of 0 or less is refused.
func WithSnapshotEvery(entries, bytes int) DriveOption {
	return driveOptionFunc(func(c *driveConfig) error {
		var errs []error
		if entries <= 0 {
			errs = append(errs, invalidOption("WithSnapshotEvery: the entries must be positive, not %d", entries))
		}
		if bytes <= 0 {
			errs = append(errs, invalidOption("WithSnapshotEvery: the bytes must be positive, not %d", bytes))
		}
		if len(errs) > 0 {
			return errors.Join(errs...)
		}
		c.snapEntries, c.snapBytes = entries, bytes
		return nil
	})
}

// WithMaxSnapshot bounds the snapshots Drive saves, in bytes of text and
// panes (1 MiB by default; a bound of 0 or less is refused). While the
// screen is bigger, Drive saves none: the log cannot trim past the last
// snapshot, so the store keeps the entries after it, and a reader sent
// away with EventGone replays them, in pages, after that snapshot. The
// bound keeps the driver's memory (it builds each snapshot in memory) and
// the gone event's size independent of the answer's size.
func WithMaxSnapshot(bytes int) DriveOption {
	return driveOptionFunc(func(c *driveConfig) error {
		if bytes <= 0 {
			return invalidOption("WithMaxSnapshot: the bound must be positive, not %d", bytes)
		}
		c.maxSnap = bytes
		return nil
	})
}

// WithoutTrim keeps Drive from trimming the log. By default, each time it
// saves a snapshot it trims the log through the snapshot before, so the
// log keeps the entries of the last interval between snapshots for readers
// that reconnect, and readers from before it get EventGone.
func WithoutTrim() DriveOption {
	return driveOptionFunc(func(c *driveConfig) error { c.trim = false; return nil })
}

// minChunk is the smallest size WithChunkSize takes: below it, an entry
// would be mostly the overhead of its JSON and its event.
const minChunk = 64

// WithChunkSize bounds the text of one entry, in bytes (16 KiB by
// default): longer text, a person's answer included, is split into entries
// that append to the same pane, at character boundaries. A size below 64
// is refused.
func WithChunkSize(bytes int) DriveOption {
	return driveOptionFunc(func(c *driveConfig) error {
		if bytes < minChunk {
			return invalidOption("WithChunkSize: the size must be at least %d, not %d", minChunk, bytes)
		}
		c.chunk = bytes
		return nil
	})
}

// WithLogger sets the logger that gets the whole error of a stream that
// ended in one: at Info when the task ended so (failed, canceled, ...), at
// Warn when the agent could not be reached or read. The default discards
// everything; a nil logger is refused. The browsers are shown a kind and a
// text meant for people (see FailureData), never the error itself: its text
// names the agent's URL, which is the backend's business. The stream's own texts redact credentials (see
// stream.WithLogger); the host, port and path stay, for the operator.
func WithLogger(l *slog.Logger) DriveOption {
	return driveOptionFunc(func(c *driveConfig) error {
		if l == nil {
			return invalidOption("WithLogger: the logger is nil")
		}
		c.logger = l
		return nil
	})
}

// Drive relays one stream into log: it opens the stream of src and
// appends the entries of each delta the stream yields (see the Event
// constants), numbered from the log's tail plus one, so a driver that
// takes a stream over continues its numbering. The entries of one delta
// are committed with the stream's checkpoint after it, in one Log.Commit,
// so that a driver that takes the stream over resumes it from exactly
// what the log holds (see Run). It appends the stream's last entry,
// EventEnd or EventFailure, once, when the stream ends, and returns nil then.
//
// Drive resumes the stream from the log's checkpoint when it names a task
// (a driver that takes the stream over, see Run), whatever src; else it
// sends src's message (a Source of Send). With a Source of Resume and no
// checkpoint that names a task, it opens nothing and returns
// ErrNotStarted; with a checkpoint that does not parse, it opens nothing
// and returns the parse error (a *stream.CheckpointError): the message
// may have reached the agent, and is not sent again. It calls src's client
// with src's options and then its own, which win (see Source).
//
// Drive answers the agent's questions with the stream's human-input hook:
// it appends an EventInput entry and waits for the answer stored for it
// (Log.PostAnswer, from any replica's handler), then commits EventAnswered
// with the checkpoint that marks the reply as possibly sent, and the
// stream sends the answer. A question the log shows open already (asked
// again by a stream resumed after its driver died) keeps its prompt. It watches Log.AwaitCancel, and on a cancel request
// cancels the task (Stream.Cancel); the stream then ends as the task did.
// A cancel requested before the stream knows its task (before the first
// event of a stream it starts) waits for it: the message may have reached
// the agent, and a stream stopped then could not cancel the task it made.
// Nothing a reader does cancels the task.
//
// Drive saves a snapshot of the screen now and then (WithSnapshotEvery),
// while the screen is within a bound (WithMaxSnapshot), and trims the log
// (WithoutTrim). Between snapshots it holds no text: its memory is one
// entry, a page of the log while it builds a snapshot, and the snapshot,
// whatever the size of the answer. Each write uses fence; when a write
// fails (ErrStale: another driver took the stream over), Drive stops the
// stream, appends nothing more and returns the error. When ctx ends before
// the stream does, Drive appends no ending and returns ctx's error: the
// stream is left for another driver to take over.
//
// On a log whose stream has ended already (its last entry is EventEnd or
// EventFailure, or its snapshot holds the end), Drive starts nothing and
// returns ErrEnded.
//
// Drive does not renew fence's lease; the caller does.
//
// Drive refuses a nil log, a Source of a nil client or a nil message, a
// nil option and an option's bad value with an error that wraps
// ErrInvalidOption, before it reads the log or starts anything.
func Drive(ctx context.Context, log Log, fence Fence, src Source, opts ...DriveOption) error {
	var errs []error
	if log == nil {
		errs = append(errs, invalidOption("Drive: a nil Log"))
	}
	errs = append(errs, src.refusals("Drive")...)
	cfg := defaultDriveConfig()
	errs = append(errs, applyDriveOptions(&cfg, opts))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return drive(ctx, log, fence, driveOpener(log, src), cfg)
}

// drive is Drive with its options applied; open starts or resumes the
// stream.
func drive(ctx context.Context, log Log, fence Fence, open openFunc, cfg driveConfig) error {
	d := &driver{ctx: ctx, log: log, fence: fence, cfg: cfg}
	tail, err := log.Tail(ctx)
	if err != nil {
		return err
	}
	snap, err := log.LoadSnapshot(ctx)
	if err != nil {
		return err
	}
	if tail > 0 && delivered(ctx, log, tail) {
		return ErrEnded
	}
	d.next, d.snapSize = tail+1, len(snap.Data)
	if err := d.measure(snap); err != nil {
		return err
	}

	streamCtx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		canceled atomic.Bool
		wg       sync.WaitGroup
		// known is closed once the stream knows its task. A cancel
		// waits for it: a stream stopped before it knows its task
		// cannot cancel it (Stream.Cancel needs one), while its message
		// may have reached the agent, which would run the task on.
		known     = make(chan struct{})
		knownOnce sync.Once
	)
	d.known = func() { knownOnce.Do(func() { close(known) }) }
	watchCtx, unwatch := context.WithCancel(ctx)
	wg.Go(func() {
		if log.AwaitCancel(watchCtx) != nil {
			return
		}
		canceled.Store(true)
		select {
		case <-known:
		case <-watchCtx.Done():
		}
		stop()
	})
	defer wg.Wait()
	defer unwatch()

	s, err := open(streamCtx, stream.WithHumanInput(hitl.Func(d.ask)), stream.WithNotify(d.notify),
		stream.WithCheckpointBeforeReply(d.beforeReply))
	if err != nil {
		return err
	}
	defer s.Close()
	if s.Checkpoint().TaskID() != "" {
		d.known() // a resumed stream knows its task from the start
	}
	d.drain(s)
	var cancelErr error
	if canceled.Load() && d.err == nil && ctx.Err() == nil {
		// The stream stopped when its context ended; Cancel makes it end
		// as the task does, and Next yields what the task holds that was
		// not delivered yet.
		if cancelErr = s.Cancel(ctx); cancelErr == nil {
			d.drain(s)
		}
	}
	if d.err != nil {
		return d.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	end := s.Ending()
	name, data := ending(end, canceled.Load(), cancelErr)
	if e, ok := data.(FailureData); ok {
		attrs := []slog.Attr{slog.String("kind", e.Kind), slog.String("state", string(end.State)), slog.Any("err", end.Err)}
		if cancelErr != nil {
			attrs = append(attrs, slog.Any("cancel", cancelErr))
		}
		level := slog.LevelWarn // the agent could not be reached, or read
		if end.State != "" {
			level = slog.LevelInfo // the task ended so: the agent's decision
		}
		cfg.logger.LogAttrs(ctx, level, "relay: the stream ended in an error", attrs...)
	}
	d.add(name, data)
	d.commit(s.Checkpoint())
	return d.err
}

// driver is the state of one Drive.
type driver struct {
	ctx   context.Context // for the log's calls
	log   Log
	fence Fence
	cfg   driveConfig

	screen chatview.Screen
	size   screenSize // of the screen after the last entry
	next   uint64     // Seq of the next entry
	err    error      // the first failed write; nothing is written after it

	snapSize     int // bytes of the last snapshot
	sinceEntries int // entries appended since it
	sinceBytes   int // their bytes

	// pending are the entries of the delta being relayed, committed
	// together with the checkpoint after it.
	pending []Entry
	// open is the question the log shows open: its EventInput has no
	// EventAnswered after it. nil when none is.
	open *InputData
	// known tells Drive's cancel watcher that the stream knows its task;
	// nil outside Drive.
	known func()

	buf bytes.Buffer
}

// drain relays the stream's events until it ends or a write fails: the
// entries of each event are committed with the stream's checkpoint after
// it, so that the log and the checkpoint never disagree.
func (d *driver) drain(s *stream.Stream) {
	for d.err == nil && s.Next() {
		d.relay(s.Event(), s.Task())
		cp := s.Checkpoint()
		d.commit(cp)
		if d.known != nil && cp.TaskID() != "" {
			d.known()
		}
	}
}

// relay appends the entries for one event. task is the stream's task
// after it, for an artifact's name.
func (d *driver) relay(ev a2a.Event, task *a2a.Task) {
	t := d.screen.Add(ev)
	if su, ok := ev.(*a2a.StatusUpdate); ok {
		d.add(EventStatus, StatusData{State: su.Status.State, TaskID: su.TaskID, ContextID: su.ContextID})
	}
	// Whether the first entry adds to its pane or replaces it comes from
	// the event, not from d.screen: a driver that took the stream over has
	// seen no pane open, and a pane the browsers show must not be wiped
	// when the first delta it gets from this driver extends it.
	appendText := false
	switch ev := ev.(type) {
	case *a2a.ArtifactUpdate:
		appendText = ev.Append
	case *a2a.MessageRevision:
		appendText = ev.Extends
	}
	switch t.Pane.Kind {
	case chatview.PaneArtifact:
		out := ArtifactData{Pane: "artifact:" + t.Pane.ID, ID: t.Pane.ID}
		if task != nil {
			if art := task.Artifact(t.Pane.ID); art != nil {
				out.Name = art.Name
			}
		}
		for i, piece := range split(t.Content, d.cfg.chunk) {
			out.Text, out.Append = piece, appendText || i > 0
			d.write(out.Pane, piece, out.Append)
			d.add(EventArtifact, out)
		}
	case chatview.PaneMessage, chatview.PaneStatus:
		kind := t.Pane.Kind.String()
		out := MessageData{Pane: kind + ":" + t.Pane.ID, ID: t.Pane.ID, Kind: kind, Role: t.Role}
		if t.Pane.ID == "" {
			out.Pane = kind + "#" + strconv.FormatUint(d.next, 10)
		}
		for i, piece := range split(t.Content, d.cfg.chunk) {
			out.Text, out.Append = piece, appendText || i > 0
			d.write(out.Pane, piece, out.Append)
			d.add(EventMessage, out)
		}
	}
}

// write records, for the screen's size, text written to the pane key by
// the entry about to be appended. A failed append ends Drive, so the size
// need not be right after one.
func (d *driver) write(key, text string, appendText bool) {
	d.size.write(key, len(text), appendText)
}

// measure sets the screen's size from the snapshot and the entries after
// it, read in pages: what a driver that takes a stream over starts from.
func (d *driver) measure(snap Snapshot) error {
	sc, err := ParseView(snap.Data)
	if err != nil {
		return err
	}
	d.size.of(sc)
	d.open = sc.Question
	for after := snap.Seq; after < d.next-1; {
		entries, err := d.log.Read(d.ctx, after, d.cfg.page)
		if err != nil {
			return err
		}
		if len(entries) == 0 {
			return nil
		}
		for _, e := range entries {
			if err := d.size.apply(e); err != nil {
				return fmt.Errorf("relay: bad %s entry %d: %w", e.Name, e.Seq, err)
			}
			if err := d.follow(e); err != nil {
				return fmt.Errorf("relay: bad %s entry %d: %w", e.Name, e.Seq, err)
			}
			d.sinceEntries++
			d.sinceBytes += len(e.Name) + len(e.Data)
		}
		after = entries[len(entries)-1].Seq
	}
	return nil
}

// follow notes the question an entry of the log opens or closes.
func (d *driver) follow(e Entry) error {
	switch e.Name {
	case EventInput:
		var in InputData
		if err := json.Unmarshal(e.Data, &in); err != nil {
			return err
		}
		d.open = &in
	case EventAnswered:
		var a AnsweredData
		if err := json.Unmarshal(e.Data, &a); err != nil {
			return err
		}
		if d.open != nil && d.open.Prompt == a.Prompt {
			d.open = nil
		}
	case EventEnd, EventFailure:
		d.open = nil
	}
	return nil
}

// notify relays a reconnect, a resume or a switch to polling, at once: it
// is not part of the screen, and no checkpoint goes with it. A notice that
// is the backend's business (headers withheld from another origin) goes to
// the logger, not to the browsers.
func (d *driver) notify(n stream.Notice) {
	out, ok := browserNotice(n)
	if !ok {
		level, attrs := backendNotice(n)
		d.cfg.logger.LogAttrs(d.ctx, level, "relay: "+n.Kind.String(), attrs...)
		return
	}
	d.add(EventNotice, out)
	d.commit(nil)
}

// browserNotice is what browsers are shown of a stream's notice, and
// whether they are shown it at all: a reconnect, a resume and a switch to
// polling are theirs to see; any other kind is the backend's.
func browserNotice(n stream.Notice) (NoticeData, bool) {
	out := NoticeData{Kind: n.Kind.String(), Attempt: n.Attempt, Max: n.MaxAttempts, Text: n.Kind.String()}
	switch n.Kind {
	case stream.Reconnecting:
		out.Text = fmt.Sprintf("reconnecting (%d/%d)…", n.Attempt, n.MaxAttempts)
	case stream.Resumed, stream.Polling:
	default:
		return NoticeData{}, false
	}
	return out, true
}

// backendNotice is how the driver logs a notice browsers are not shown:
// headers withheld from another origin are a warning, with their names and
// the two origins (the backend's credentials did not go where it meant
// them to go); push notifications taken up or unavailable, and a kind the
// relay does not know, are information, with their task and cause.
func backendNotice(n stream.Notice) (slog.Level, []slog.Attr) {
	if n.Kind == stream.HeadersWithheld {
		return slog.LevelWarn, []slog.Attr{slog.Any("headers", n.Headers),
			slog.String("named", n.NamedOrigin), slog.String("endpoint", n.EndpointOrigin)}
	}
	attrs := []slog.Attr{slog.String("task", n.TaskID)}
	if n.Cause != nil {
		attrs = append(attrs, slog.Any("cause", n.Cause))
	}
	return slog.LevelInfo, attrs
}

// ask is the stream's human-input hook: it shows the question and waits
// for the answer stored for it. A question the log shows open already
// (the driver took the stream over while it waited for its answer, and
// the resumed stream asks it again) is not shown again: its prompt is
// kept, and an answer posted meanwhile is applied at once. The answered
// entry is committed with the checkpoint the stream saves before it sends
// the reply (beforeReply).
func (d *driver) ask(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
	key := questionKey(req)
	var prompt uint64
	if d.open != nil && d.open.Question == key {
		prompt = d.open.Prompt
	} else {
		prompt = d.next
		// The question is also the status message, in full, in its pane;
		// the input event carries at most a chunk of it.
		in := InputData{Prompt: prompt, Text: clip.Text(req.Text(), d.cfg.chunk), Question: key}
		d.add(EventInput, in)
		if !d.commit(nil) {
			return nil, d.err
		}
		d.open = &in
	}
	a, err := d.log.AwaitAnswer(ctx, prompt)
	if err != nil {
		return nil, err
	}
	// The answer is cut as any text is: the entries of one answer are
	// committed together, with the reply's checkpoint (beforeReply).
	for i, piece := range split(a.Text, d.cfg.chunk) {
		d.write(answerPane(prompt), piece, i > 0)
		d.add(EventAnswered, AnsweredData{Prompt: prompt, Text: piece, Append: i > 0})
	}
	d.open = nil
	return hitl.Text(a.Text), nil
}

// beforeReply commits the answered entry with the checkpoint that marks
// the reply as possibly sent, before the stream sends it.
func (d *driver) beforeReply(_ context.Context, cp *stream.Checkpoint) error {
	if !d.commit(cp) {
		return d.err
	}
	return nil
}

// questionKey names the question a hook is asked, as the stream tells
// prompts apart: by its status message's ID, else by a digest of its text
// and the status's timestamp.
func questionKey(req *hitl.Request) string {
	if req.Prompt != nil && req.Prompt.ID != "" {
		return "id:" + req.Prompt.ID
	}
	h := fnv.New64a()
	h.Write([]byte(req.Text()))
	h.Write([]byte{0})
	if req.Task != nil {
		h.Write([]byte(req.Task.Status.Timestamp.String()))
	}
	return "text:" + strconv.FormatUint(h.Sum64(), 16)
}

// add encodes one entry for the next commit. After a failed write it
// adds nothing.
func (d *driver) add(name string, v any) {
	if d.err != nil {
		return
	}
	d.buf.Reset()
	enc := json.NewEncoder(&d.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		d.err = fmt.Errorf("relay: encode %s: %w", name, err)
		return
	}
	data := bytes.Clone(bytes.TrimSuffix(d.buf.Bytes(), []byte("\n")))
	d.pending = append(d.pending, Entry{Seq: d.next, Name: name, Data: data})
	d.next++
}

// commit appends the pending entries and stores cp as the checkpoint, in
// one Log.Commit, and reports whether it did. A nil cp, or one that names
// no task yet (nothing could resume from it), is not stored. After a
// failed write it writes nothing.
func (d *driver) commit(cp *stream.Checkpoint) bool {
	if d.err != nil {
		return false
	}
	var b []byte
	if cp != nil && cp.TaskID() != "" {
		var err error
		if b, err = cp.MarshalBinary(); err != nil {
			d.err = fmt.Errorf("relay: checkpoint: %w", err)
			return false
		}
	}
	if len(d.pending) == 0 && b == nil {
		return true
	}
	err := d.log.Commit(d.ctx, d.fence, b, d.pending...)
	if d.cfg.trace != nil {
		d.cfg.trace.commit(commitInfo(d.pending, b != nil, err))
	}
	if err != nil {
		d.err = err
		return false
	}
	for _, e := range d.pending {
		d.sinceEntries++
		d.sinceBytes += len(e.Name) + len(e.Data)
	}
	clear(d.pending)
	d.pending = d.pending[:0]
	if d.sinceEntries >= d.cfg.snapEntries || d.sinceBytes >= max(d.cfg.snapBytes, d.snapSize) {
		if d.size.bytes() > d.cfg.maxSnap {
			// Too big to build: the log keeps the entries after the
			// last snapshot. Look again after as many entries.
			d.sinceEntries, d.sinceBytes = 0, 0
			return true
		}
		d.err = d.snapshot()
	}
	return d.err == nil
}

// commitInfo is what Trace.Commit is told of a commit of entries, with a
// checkpoint or not, that returned err.
func commitInfo(entries []Entry, checkpoint bool, err error) CommitInfo {
	c := CommitInfo{Entries: len(entries), Checkpoint: checkpoint, Err: err}
	for _, e := range entries {
		c.Bytes += len(e.Name) + len(e.Data)
	}
	return c
}

// snapshot saves the screen after the last entry: the last snapshot with
// the entries after it folded in, read from the log in pages, so the
// driver holds no screen between snapshots. It then trims the log through
// the snapshot before.
func (d *driver) snapshot() error {
	prev, err := d.log.LoadSnapshot(d.ctx)
	if err != nil {
		return err
	}
	sc, err := ParseView(prev.Data)
	if err != nil {
		return err
	}
	last := d.next - 1
	for sc.Seq < last {
		entries, err := d.log.Read(d.ctx, sc.Seq, d.cfg.page)
		if err != nil {
			return err
		}
		if len(entries) == 0 {
			return fmt.Errorf("relay: log ends at %d before the driver's %d", sc.Seq, last)
		}
		for _, e := range entries {
			if err := sc.Apply(e); err != nil {
				return err
			}
		}
	}
	if sc.Panes == nil {
		sc.Panes = []ViewPane{} // "panes": [], as in a gone event before any snapshot
	}
	data, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	if err := d.log.SaveSnapshot(d.ctx, d.fence, Snapshot{Seq: sc.Seq, Data: data}); err != nil {
		return err
	}
	d.snapSize, d.sinceEntries, d.sinceBytes = len(data), 0, 0
	if d.cfg.trim && prev.Seq > 0 {
		return d.log.Trim(d.ctx, prev.Seq)
	}
	return nil
}

// split cuts text into pieces of at most n bytes, at character
// boundaries; "" is one empty piece.
func split(text string, n int) []string {
	if len(text) <= n {
		return []string{text}
	}
	var out []string
	for len(text) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		if cut == 0 {
			cut = n
		}
		out = append(out, text[:cut])
		text = text[cut:]
	}
	if text != "" {
		out = append(out, text)
	}
	return out
}

// ending returns the last entry for how the stream ended. canceled says a
// cancel was requested, and cancelErr what Stream.Cancel returned.
func ending(e stream.Ending, canceled bool, cancelErr error) (string, any) {
	if e.Err == nil {
		out := EndData{State: e.State, Text: e.String()}
		switch {
		case e.Task != nil:
			out.TaskID, out.ContextID = e.Task.ID, e.Task.ContextID
		case e.Answer != nil:
			out.TaskID, out.ContextID = e.Answer.TaskID, e.Answer.ContextID
		}
		return EventEnd, out
	}
	kind := errorKind(e)
	out := FailureData{Kind: kind, State: e.State, Text: failureText(e, kind)}
	if canceled && e.State == "" && cancelErr != nil {
		out.Text = "the stream was stopped, and the cancel did not reach the agent"
	}
	return EventFailure, out
}

// failureText is what browsers are told of a stream that ended in an
// error of this kind: a task's ending, with the agent's own reason; the
// agent's own message of an error it answered with; else words that name
// no host, port or path of the agent, which the error's text does.
func failureText(e stream.Ending, kind string) string {
	if e.State != "" {
		return e.String()
	}
	var (
		rpc    *a2a.RPCError
		status *transport.HTTPError
		lost   *reconnect.Error
		proto  *transport.ProtocolError
	)
	switch kind {
	case "agent-error":
		if errors.As(e.Err, &rpc) && strings.TrimSpace(rpc.Message) != "" {
			return clip.Line("the agent answered with an error: "+rpc.Message, clip.EndingLine)
		}
		return "the agent answered with an error"
	case "http-error":
		if errors.As(e.Err, &status) {
			return fmt.Sprintf("the agent could not be reached (HTTP %d)", status.StatusCode)
		}
	case "connection-lost":
		if errors.As(e.Err, &lost) && lost.Unreachable == "" {
			return "the connection to the agent was lost, and could not be resumed"
		}
	case "protocol-error":
		// A status the agent sent on the wrong task (a server's bug)
		// still has the agent's words for the person.
		if errors.As(e.Err, &proto) {
			if su, ok := proto.Event.(*a2a.StatusUpdate); ok && su.Status.Message != nil && strings.TrimSpace(su.Status.Message.Text()) != "" {
				return clip.Line("the agent sent what the relay cannot read: "+string(su.Status.State)+": "+su.Status.Message.Text(), clip.EndingLine)
			}
		}
		return "the agent sent what the relay cannot read"
	case "stopped":
		return stoppedText
	}
	return "the agent could not be reached"
}

// errorKind names how a stream ended in an error, for a page to style.
func errorKind(e stream.Ending) string {
	switch e.State {
	case "":
	case a2a.StateInputRequired:
		return "no-answer"
	default:
		return string(e.State)
	}
	var (
		lost   *reconnect.Error
		rpc    *a2a.RPCError
		status *transport.HTTPError
		proto  *transport.ProtocolError
	)
	switch {
	case errors.As(e.Err, &lost):
		return "connection-lost"
	case errors.As(e.Err, &rpc):
		return "agent-error"
	case errors.As(e.Err, &status):
		return "http-error"
	case errors.As(e.Err, &proto):
		return "protocol-error"
	case errors.Is(e.Err, context.Canceled), errors.Is(e.Err, context.DeadlineExceeded):
		return "stopped"
	}
	return "error"
}
