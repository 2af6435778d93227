package relay

import (
	"context"
	"fmt"
	"slices"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// Source is where Run and Drive get the stream they relay: a
// stream.Client, the message that starts the stream ([Send]) or none
// ([Resume]), and the options of the application's calls. Run and Drive
// call the client themselves (Client.Send, Client.Resume) and pass the
// application's options first and the relay's own last (its human-input
// hook, its notify function and its checkpoint hook), so the relay's win
// and cannot be lost: an application's stream.WithHumanInput, WithNotify or
// WithCheckpointBeforeReply is overridden by the relay's.
//
// The zero Source, and one of a nil client or a nil message, is refused by
// Run and Drive with an error that wraps ErrInvalidOption.
type Source struct {
	client *stream.Client
	msg    *a2a.Message
	send   bool // made by Send: the stream may be started
	opts   []stream.Option
}

// Send returns the Source of a stream that starts by sending msg with
// client (Client.Send) and opts, and that is resumed from the log's
// checkpoint (Client.Resume, with opts) once the checkpoint names its task.
// Run sends msg at most once; see Run and Drive.
func Send(client *stream.Client, msg *a2a.Message, opts ...stream.Option) Source {
	return Source{client: client, msg: msg, send: true, opts: slices.Clone(opts)}
}

// Resume returns the Source of a stream that is only ever resumed, from
// the log's checkpoint, with client (Client.Resume) and opts: a watcher's,
// in Run, which takes a stream over when its driver dies and never starts
// one.
func Resume(client *stream.Client, opts ...stream.Option) Source {
	return Source{client: client, opts: slices.Clone(opts)}
}

// refusals returns why Run or Drive (named by where) refuses src, if it
// does.
func (src Source) refusals(where string) []error {
	var errs []error
	if src.client == nil {
		errs = append(errs, invalidOption("%s: a Source with a nil stream.Client", where))
	}
	if src.send && src.msg == nil {
		errs = append(errs, invalidOption("%s: a Source that sends a nil message", where))
	}
	return errs
}

// start sends the source's message, with the application's options and
// then the relay's.
func (src Source) start(ctx context.Context, relayOpts ...stream.Option) *stream.Stream {
	return src.client.Send(ctx, src.msg, src.options(relayOpts)...)
}

// resume resumes the stream of cp, with the application's options and
// then the relay's.
func (src Source) resume(ctx context.Context, cp *stream.Checkpoint, relayOpts ...stream.Option) *stream.Stream {
	return src.client.Resume(ctx, cp, src.options(relayOpts)...)
}

// options is the application's options, then the relay's, which win.
func (src Source) options(relayOpts []stream.Option) []stream.Option {
	return append(slices.Clip(src.opts), relayOpts...)
}

// openFunc opens the stream Drive relays, with the relay's options: it
// starts the stream or resumes it. It fails when there is no stream to
// open; drive then appends nothing.
type openFunc func(ctx context.Context, relayOpts ...stream.Option) (*stream.Stream, error)

// opening is how Drive opens the stream of a log whose checkpoint is cp
// (nil when the log has none).
type opening int

const (
	openStart      opening = iota + 1 // send the source's message
	openResume                        // resume from the log's checkpoint
	openNotStarted                    // nothing to resume, and the source does not send
	openForeign                       // the checkpoint does not parse
)

// decideOpening decides how Drive opens a stream, given the log's
// checkpoint (parseErr when it does not parse, taskID the task it names):
// it resumes from a checkpoint that names a task, whatever the source;
// else it starts the stream when the source sends, and has nothing to open
// when it only resumes. A checkpoint that does not parse is neither
// resumed nor started over: the message may have reached the agent.
func decideOpening(parseErr error, taskID string, sends bool) opening {
	switch {
	case parseErr != nil:
		return openForeign
	case taskID != "":
		return openResume
	case sends:
		return openStart
	}
	return openNotStarted
}

// driveOpener is how Drive opens the stream of src on log: it reads the
// log's checkpoint when the stream is to be opened (after Drive saw that it
// has not ended) and starts or resumes as decideOpening says.
func driveOpener(log Log, src Source) openFunc {
	return func(ctx context.Context, relayOpts ...stream.Option) (*stream.Stream, error) {
		cp, err := log.LoadCheckpoint(ctx)
		if err != nil {
			return nil, err
		}
		var (
			parsed   *stream.Checkpoint
			parseErr error
			taskID   string
		)
		if cp != nil {
			if parsed, parseErr = stream.ParseCheckpoint(cp); parseErr == nil {
				taskID = parsed.TaskID()
			}
		}
		switch decideOpening(parseErr, taskID, src.send) {
		case openResume:
			return src.resume(ctx, parsed, relayOpts...), nil
		case openStart:
			return src.start(ctx, relayOpts...), nil
		case openForeign:
			return nil, fmt.Errorf("relay: the stream's checkpoint does not parse: %w", parseErr)
		}
		return nil, ErrNotStarted
	}
}
