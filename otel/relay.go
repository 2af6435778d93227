package a2aotel

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/a2astream/a2astream/relay"
)

// relayMetrics are the instruments of a relay's Trace.
type relayMetrics struct {
	leaseChanges    metric.Int64Counter
	takeovers       metric.Int64Counter
	entries         metric.Int64Counter
	bytes           metric.Int64Counter
	commitsFailed   metric.Int64Counter
	readersAttached metric.Int64Counter
	readersActive   metric.Int64UpDownCounter
	readersGone     metric.Int64Counter
	readersDone     metric.Int64Counter
	entriesSent     metric.Int64Counter
}

// newRelayMetrics makes the relay's instruments on m.
func newRelayMetrics(m metric.Meter) (relayMetrics, error) {
	var (
		r    relayMetrics
		errs []error
	)
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	r.leaseChanges = counter("a2a.relay.lease.changes", "{change}", "Changes of this replica's hold on a stream's lease, by kind.")
	r.takeovers = counter("a2a.relay.takeovers", "{takeover}", "Leases won resuming a stream from its log's checkpoint.")
	r.entries = counter("a2a.relay.entries.appended", "{entry}", "Entries the relay's drivers appended to their logs.")
	r.bytes = counter("a2a.relay.entries.appended.size", "By", "Bytes of the entries appended (their names and data).")
	r.commitsFailed = counter("a2a.relay.commits.failed", "{commit}", "Commits to a log that failed, by kind of error.")
	r.readersAttached = counter("a2a.relay.readers.attached", "{reader}", "Browsers' responses of events begun.")
	active, err := m.Int64UpDownCounter("a2a.relay.readers.active", metric.WithUnit("{reader}"),
		metric.WithDescription("Browsers' responses of events open now on this replica."))
	errs = append(errs, err)
	r.readersActive = active
	r.readersGone = counter("a2a.relay.readers.gone", "{reader}", "Readers sent away with EventGone, by reason.")
	r.readersDone = counter("a2a.relay.readers.done", "{reader}", "Browsers' responses of events ended, by how they ended.")
	r.entriesSent = counter("a2a.relay.entries.sent", "{entry}", "Entries the relay's readers sent to browsers.")
	return r, errors.Join(errs...)
}

// Relay returns the relay.Trace that measures a relay: give it to
// relay.Run (it serves the Run's Drive too) and to relay.NewHandler with
// relay.WithTrace. One Trace serves every stream and every browser of a
// replica: it is safe for concurrent use, and records metrics only
// (docs/otel.md lists them). It makes no span: its calls carry no request's
// context to parent one on, a reader's life is its HTTP request's (the
// server's span, if any, covers it), and a lease or a commit is a step
// of a stream's drive that its metrics count well enough. Its attributes
// are bounded: no stream key, no owner name, no error text.
func (t *Telemetry) Relay() *relay.Trace {
	r := &t.relay
	return &relay.Trace{
		Lease: func(l relay.LeaseInfo) {
			ctx := context.Background()
			r.leaseChanges.Add(ctx, 1, metric.WithAttributes(attribute.String("a2a.relay.lease.change", oneOf(string(l.Kind),
				string(relay.LeaseWon), string(relay.LeaseRenewed), string(relay.LeaseLost), string(relay.LeaseReleased)))))
			if l.Kind == relay.LeaseWon && l.Resumed {
				r.takeovers.Add(ctx, 1)
			}
		},
		Commit: func(c relay.CommitInfo) {
			ctx := context.Background()
			if c.Err != nil {
				r.commitsFailed.Add(ctx, 1, metric.WithAttributes(attribute.String("error.type", storeErrorType(c.Err))))
				return
			}
			if c.Entries > 0 {
				r.entries.Add(ctx, int64(c.Entries))
				r.bytes.Add(ctx, int64(c.Bytes))
			}
		},
		Reader: func(i relay.ReaderInfo) {
			ctx := context.Background()
			switch i.Kind {
			case relay.ReaderAttached:
				r.readersAttached.Add(ctx, 1, metric.WithAttributes(attribute.Bool("a2a.relay.reader.resumed", i.After > 0)))
				r.readersActive.Add(ctx, 1)
			case relay.ReaderGone:
				r.readersGone.Add(ctx, 1, metric.WithAttributes(attribute.String("a2a.relay.gone.reason",
					oneOf(i.Reason, "trimmed", "epoch", "ahead", "unparsable", "lost"))))
			case relay.ReaderDone:
				r.readersActive.Add(ctx, -1)
				r.readersDone.Add(ctx, 1, metric.WithAttributes(attribute.String("a2a.relay.reader.end",
					oneOf(i.End, "ended", "left", "write", "store"))))
				if i.Sent > 0 {
					r.entriesSent.Add(ctx, int64(i.Sent))
				}
			}
		},
	}
}

// oneOf is s when it is one of known, else "other": an attribute of a
// metric keeps a bounded set of values whatever a later version of the
// relay tells.
func oneOf(s string, known ...string) string {
	for _, k := range known {
		if s == k {
			return s
		}
	}
	return "other"
}

// storeErrorType names a store's error by its kind, never its text:
// "stale", "held", "gap", "duplicate", "gone", "canceled", "timeout", else
// the error's Go type.
func storeErrorType(err error) string {
	switch {
	case errors.Is(err, relay.ErrStale):
		return "stale"
	case errors.Is(err, relay.ErrHeld):
		return "held"
	case errors.Is(err, relay.ErrGap):
		return "gap"
	case errors.Is(err, relay.ErrDuplicate):
		return "duplicate"
	case errors.Is(err, relay.ErrGone):
		return "gone"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return fmt.Sprintf("%T", err)
}
