package relay

// Trace is a set of functions the relay calls at the steps a tool that
// traces or measures a relay wants to see: the lease of a stream won,
// renewed, lost and released (Run), each commit to the log (Drive), and
// each browser's reader attached, sent away and done (Handler). It is in
// the spirit of stream.Trace: every field is optional, and a nil field
// costs nothing. Set it with WithTrace.
//
// A Trace's functions may be called concurrently: a Handler serves many
// browsers at once, and Run renews its lease beside its driver's commits.
// They must be safe for concurrent use and must not block. Their argument
// is a small struct passed by value, which holds no stream key, no entry's
// data and no Fence token: nothing a browser or an agent wrote.
type Trace struct {
	// Lease is called by Run when this replica's hold on a stream's lease
	// changes: won (it begins to drive the stream), renewed, lost (a
	// renewal failed, or a write found the lease taken) and released.
	Lease func(LeaseInfo)
	// Commit is called by the driver after each commit to the log, the
	// entries of one delta with the stream's checkpoint, whether it
	// succeeded or failed.
	Commit func(CommitInfo)
	// Reader is called by the Handler when a browser's reader of a
	// stream's events attaches, when it is sent away with EventGone, and
	// when its response ends.
	Reader func(ReaderInfo)
}

// LeaseKind names a change of a lease (LeaseInfo.Kind).
type LeaseKind string

// The changes of a lease.
const (
	// LeaseWon: this replica took the lease and begins to drive the
	// stream, starting it or (Resumed) resuming it from the log's
	// checkpoint: a takeover when another replica drove it before.
	LeaseWon LeaseKind = "won"
	// LeaseRenewed: a renewal (every ttl/3) succeeded.
	LeaseRenewed LeaseKind = "renewed"
	// LeaseLost: a renewal failed or a write found the lease taken; this
	// replica stopped driving, and waits to take the lease again.
	LeaseLost LeaseKind = "lost"
	// LeaseReleased: the stream ended, or Run's context did, and this
	// replica gave the lease up.
	LeaseReleased LeaseKind = "released"
)

// LeaseInfo is what Trace.Lease is told.
type LeaseInfo struct {
	Kind LeaseKind
	// Owner is the owner name Run was given.
	Owner string
	// Resumed is set on LeaseWon when the stream is resumed from the
	// log's checkpoint rather than started.
	Resumed bool
}

// CommitInfo is what Trace.Commit is told.
type CommitInfo struct {
	// Entries is the number of entries appended, and Bytes their names'
	// and data's bytes.
	Entries, Bytes int
	// Checkpoint is set when the commit stored the stream's checkpoint.
	Checkpoint bool
	// Err is the store's error when the commit failed (nothing is
	// written after it).
	Err error
}

// ReaderKind names a step of a browser's reader (ReaderInfo.Kind).
type ReaderKind string

// The steps of a reader.
const (
	// ReaderAttached: the Handler began a response of events; After is
	// the Seq it serves entries after (0 for a first connection).
	ReaderAttached ReaderKind = "attached"
	// ReaderGone: the reader was sent EventGone, with Reason (as
	// GoneData's, or "lost" for a log the store lost).
	ReaderGone ReaderKind = "gone"
	// ReaderDone: the response ended, for End; Sent is the entries it
	// sent.
	ReaderDone ReaderKind = "done"
)

// ReaderInfo is what Trace.Reader is told.
type ReaderInfo struct {
	Kind ReaderKind
	// After is, on ReaderAttached, the Seq the reader resumed after (0
	// for a first connection, or one sent away).
	After uint64
	// Reason is, on ReaderGone, why the reader was sent away.
	Reason string
	// Sent is, on ReaderDone, the number of entries the response sent.
	Sent int
	// End is, on ReaderDone, why the response ended: "ended" (the
	// stream's ending was sent), "left" (the browser went away or the
	// request's context ended), "write" (a write failed or outran
	// WithWriteTimeout) or "store" (the store failed: the browser was told
	// to come back after WithOutageRetry).
	End string
}

// TraceOption is WithTrace's option. It is a RunOption, a DriveOption and a
// HandlerOption at once.
type TraceOption struct{ t *Trace }

// WithTrace gives Run, Drive or NewHandler a Trace. Given to Run, it serves
// its Drive too, unless WithDrive gives Drive one of its own. The Trace is
// copied when given; given twice, the last one wins. A nil Trace is refused.
func WithTrace(t *Trace) TraceOption {
	if t == nil {
		return TraceOption{}
	}
	c := *t
	return TraceOption{t: &c}
}

func (o TraceOption) check() error {
	if o.t == nil {
		return invalidOption("WithTrace: a nil Trace")
	}
	return nil
}

func (o TraceOption) applyRun(c *runConfig) error {
	if err := o.check(); err != nil {
		return err
	}
	c.trace = o.t
	return nil
}

func (o TraceOption) applyDrive(c *driveConfig) error {
	if err := o.check(); err != nil {
		return err
	}
	c.trace = o.t
	return nil
}

func (o TraceOption) applyHandler(c *handlerConfig) error {
	if err := o.check(); err != nil {
		return err
	}
	c.trace = o.t
	return nil
}

// lease tells t's Lease, if any, about a change of kind.
func (t *Trace) lease(kind LeaseKind, owner string, resumed bool) {
	if t != nil && t.Lease != nil {
		t.Lease(LeaseInfo{Kind: kind, Owner: owner, Resumed: resumed})
	}
}

// commit tells t's Commit, if any, about a commit.
func (t *Trace) commit(c CommitInfo) {
	if t != nil && t.Commit != nil {
		t.Commit(c)
	}
}

// reader tells t's Reader, if any, about a reader's step.
func (t *Trace) reader(r ReaderInfo) {
	if t != nil && t.Reader != nil {
		t.Reader(r)
	}
}
