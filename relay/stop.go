package relay

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/a2astream/a2astream/internal/clip"
)

// stopLease is the lease Stop holds while it appends the ending: it gives
// it up at once, so the lease only bounds a Stop that dies meanwhile.
const stopLease = 5 * time.Second

// stoppedText is the text of a "stopped" failure that was given none.
const stoppedText = "the stream was stopped before its task ended"

// Stop ends the stream of log for an application that stops it: it takes
// the stream's lease as owner, appends one EventFailure of kind "stopped"
// after the log's tail, and gives the lease up. Its browsers are told
// text, one line for people ("the stream was stopped before its task
// ended" when text is empty; a longer text is cut to
// 512 bytes, as stream.Ending.String is). The stream has then ended: Run and Drive
// start nothing on its log, and the Handler ends its readers' responses
// after the failure.
//
// Stop appends nothing and returns ErrEnded when the stream has ended
// already, and ErrHeld while another owner drives it: stop that driver
// first (end its Run's context). Stop does not cancel the task: a POST to
// the Handler's cancel does, through the driver.
//
// Stop refuses a nil log and an empty owner with an error that wraps
// ErrInvalidOption.
func Stop(ctx context.Context, log Log, owner, text string) error {
	var errs []error
	if log == nil {
		errs = append(errs, invalidOption("Stop: a nil Log"))
	}
	if owner == "" {
		errs = append(errs, invalidOption("Stop: an empty owner"))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fence, err := log.Acquire(ctx, owner, stopLease)
	if err != nil {
		return err
	}
	defer func() { _ = log.Release(context.WithoutCancel(ctx), fence) }()
	tail, err := log.Tail(ctx)
	if err != nil {
		return err
	}
	if tail > 0 && delivered(ctx, log, tail) {
		return ErrEnded
	}
	if strings.TrimSpace(text) == "" {
		text = stoppedText
	}
	d := &driver{ctx: ctx, log: log, fence: fence, cfg: defaultDriveConfig(), next: tail + 1}
	d.add(EventFailure, FailureData{Kind: "stopped", Text: clip.Line(text, clip.EndingLine)})
	d.commit(nil)
	return d.err
}
