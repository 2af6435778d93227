package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strconv"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/transport"
)

// ListTasks lists the agent's tasks that filter selects (A2A 1.0: the
// JSON-RPC method ListTasks, or GET /tasks over HTTP+JSON, under the
// tenant of the interface Resolve chose), one page per call of the
// Listing's Next, newest task first; a server lists only the tasks of the
// caller's identity. It never returns nil, and does no I/O until the first
// Next.
//
// The listing is bound to ctx: each page's call is made with it. opts are
// as GetTask's, for every page. A filter value Check refuses, and an option
// refused, end the listing before anything is sent, with an error wrapping
// ErrInvalidOption.
//
// An agent that cannot list ends it with an error that matches
// errors.ErrUnsupported: at once, with nothing sent, for a Client of A2A
// 0.3 (fixed with WithVersion, or negotiated by an earlier call), which
// has no ListTasks, and for a Client of NewClientFor whose Transport does
// not implement transport.TaskLister; or when the agent answers the call
// -32601 (method not found), -32004 (unsupported operation) or -32009
// (version not supported), or over HTTP+JSON 404, 405 or 501. The agent's
// error stays in the chain (errors.As finds its *a2a.RPCError or
// *transport.HTTPError). Any other failure is as GetTask's: an
// *a2a.RPCError, a *transport.HTTPError, a *transport.ProtocolError for a
// page that does not decode, holds a task without an ID or, when the
// filter names a context, a task of another; no call is made again.
//
// A listing that the server cuts short ends with a *ListingCutError: see
// there. Each page is read whole, up to the size limit of a response
// (WithMaxEventSize).
func (c *Client) ListTasks(ctx context.Context, filter a2a.TaskFilter, opts ...Option) *Listing {
	l := &Listing{c: c, ctx: ctx, filter: filter}
	cfg, err := c.configWith(opts, "ListTasks", false)
	if err == nil {
		if ferr := filter.Check(); ferr != nil {
			err = fmt.Errorf("%w: ListTasks: %w", ErrInvalidOption, ferr)
		}
	}
	if err != nil {
		l.err, l.done = err, true
		return l
	}
	l.cfg = cfg
	return l
}

// Listing is a listing of an agent's tasks (see Client.ListTasks): Next
// fetches one page, Page holds it, and Err says why the listing ended.
// Usage:
//
//	l := client.ListTasks(ctx, a2a.TaskFilter{ContextID: contextID})
//	for l.Next() {
//		for _, t := range l.Page().Tasks {
//			// ...
//		}
//	}
//	if err := l.Err(); err != nil {
//		// ...
//	}
//
// A Listing holds no connection between two pages; it needs no Close. It
// is not safe for concurrent use.
type Listing struct {
	c      *Client
	ctx    context.Context // the caller's, which each page's call is made with
	cfg    *config
	filter a2a.TaskFilter // PageToken: the token of the next page
	page   *a2a.TaskPage
	listed int // tasks of the pages yielded
	done   bool
	err    error
}

// Next fetches the next page and reports whether there is one: false once
// the last page was yielded (its NextPageToken is ""), or when the
// listing failed (see Err). The first page is yielded even when it is
// empty: the filter matched no task.
func (l *Listing) Next() bool {
	l.page = nil
	if l.done {
		return false
	}
	sent := l.filter.PageToken
	p, err := l.c.listPage(l.ctx, l.cfg, l.filter)
	if err == nil {
		err = checkPage(p, l.filter.ContextID)
	}
	if err != nil {
		l.err, l.done = err, true
		return false
	}
	switch decidePage(sent, p) {
	case pageCut:
		l.err, l.done = &ListingCutError{PageToken: sent, Listed: l.listed}, true
		return false
	case pageRepeats:
		l.err, l.done = &transport.ProtocolError{Reason: "a page of tasks names as the next page the page it answers"}, true
		return false
	case pageLast:
		l.done = true
	}
	l.page, l.listed, l.filter.PageToken = p, l.listed+len(p.Tasks), p.NextPageToken
	return true
}

// Page returns the page the last call of Next fetched, nil when Next
// returned false. It belongs to the caller.
func (l *Listing) Page() *a2a.TaskPage { return l.page }

// Err returns why the listing ended: nil after the last page, a
// *ListingCutError when the server cut it short, else the error of the
// call that failed (see Client.ListTasks).
func (l *Listing) Err() error { return l.err }

// All returns a single-use iterator over the tasks of every page, in the
// order they were listed, fetching a page at each step it needs one. It
// never yields a task together with an error: it yields (nil, err) at most
// once, as the last element, when the listing failed (Err). A break ends
// the listing where it is; no page after it is fetched.
func (l *Listing) All() iter.Seq2[*a2a.Task, error] {
	return func(yield func(*a2a.Task, error) bool) {
		for l.Next() {
			for _, t := range l.page.Tasks {
				if !yield(t, nil) {
					return
				}
			}
		}
		if err := l.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// ListingCutError ends a listing that the server cut short: it answered
// the page token of a listing with an empty page. The tasks listed are not
// all the tasks the filter matched, and the page token cannot go on: list
// again from the start. A page token goes stale when a task changes while
// the listing pages through (@a2a-js/sdk 1.3.0 names a page by the
// timestamp and ID of the last task before it, and answers a stale token
// with an empty last page and no error, which would read as a complete
// listing).
type ListingCutError struct {
	// PageToken is the token that got the empty page: the filter's, or
	// the NextPageToken of the page before.
	PageToken string
	// Listed is how many tasks the listing yielded before it.
	Listed int
}

// Error reads like "stream: the listing of tasks was cut short after 4
// tasks: its page token got an empty page; list again".
func (e *ListingCutError) Error() string {
	return "stream: the listing of tasks was cut short after " + strconv.Itoa(e.Listed) +
		" tasks: its page token got an empty page; list again"
}

// pageVerdict is what a page means for the listing.
type pageVerdict int

const (
	pageMore    pageVerdict = iota // yield it; a next page follows
	pageLast                       // yield it; the listing ends cleanly
	pageCut                        // the listing was cut short (ListingCutError)
	pageRepeats                    // the server's next token is the one sent: it would never end
)

// decidePage says what page p, the answer to page token sent ("" for the
// first page of a listing without one), means
// (the rows are read in order):
//
//	tasks  sent  next    verdict
//	none   set   any     pageCut: a token answered with nothing
//	any    any   ""      pageLast (none, with no token sent: the filter matched no task)
//	any    any   = sent  pageRepeats
//	any    any   other   pageMore
func decidePage(sent string, p *a2a.TaskPage) pageVerdict {
	switch {
	case len(p.Tasks) == 0 && sent != "":
		return pageCut
	case p.NextPageToken == "":
		return pageLast
	case p.NextPageToken == sent:
		return pageRepeats
	}
	return pageMore
}

// checkPage checks the tasks of a page as any task the Client gets is
// checked: each has an ID, and, when the filter names a context, is of it.
func checkPage(p *a2a.TaskPage, contextID string) error {
	if p == nil { // a Transport of another module answered with neither
		return &transport.ProtocolError{Reason: "asked for a page of tasks, got no page and no error"}
	}
	for _, t := range p.Tasks {
		switch {
		case t == nil || t.ID == "":
			return &transport.ProtocolError{Reason: "a page of tasks holds a task without an ID", Task: t}
		case contextID != "" && t.ContextID != contextID:
			return &transport.ProtocolError{Reason: fmt.Sprintf("asked for the tasks of context %q, got task %q of context %q",
				quote([]byte(contextID)), quote([]byte(t.ID)), quote([]byte(t.ContextID))), Task: t}
		}
	}
	return nil
}

// listPage makes the call of one page with cfg, in the Client's version:
// 1.0, or refused with nothing sent when the Client speaks 0.3. A refusal
// of the agent that says it cannot list matches errors.ErrUnsupported.
func (c *Client) listPage(ctx context.Context, cfg *config, f a2a.TaskFilter) (*a2a.TaskPage, error) {
	v, _ := c.currentVersion()
	if v == a2a.V03 {
		return nil, fmt.Errorf("stream: ListTasks: %w: A2A 0.3 has no ListTasks", errors.ErrUnsupported)
	}
	p, err := c.calls.listTasks(ctx, cfg.call(v, cfg.header), f)
	if err != nil {
		err, _ = callmark.UnwrapResponded(err)
		if cannotList(err) && !errors.Is(err, errors.ErrUnsupported) {
			err = fmt.Errorf("stream: ListTasks: %w: %w", errors.ErrUnsupported, err)
		}
		return nil, err
	}
	c.remember(v)
	return p, nil
}

// cannotList reports an agent's answer to ListTasks that says it cannot
// list: -32601, -32004 or -32009, or HTTP 404, 405 or 501 (GET /tasks names
// no task that could be missing). An error that matches
// errors.ErrUnsupported already says so itself.
func cannotList(err error) bool {
	var (
		rpc     *a2a.RPCError
		httpErr *transport.HTTPError
	)
	if errors.As(err, &httpErr) {
		switch httpErr.StatusCode {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
			return true
		}
	}
	if errors.As(err, &rpc) {
		switch rpc.Code {
		case a2a.CodeMethodNotFound, a2a.CodeUnsupportedOperation, a2a.CodeVersionNotSupported:
			return true
		}
	}
	return false
}

// listTasks makes a 1.0 JSON-RPC ListTasks call for one page.
func (b jsonrpcBinding) listTasks(ctx context.Context, k callConfig, f a2a.TaskFilter) (*a2a.TaskPage, error) {
	params, err := a2a.EncodeListTasks(f, b.tenant(k.v))
	if err != nil {
		return nil, fmt.Errorf("%w: ListTasks: %w", ErrInvalidOption, err)
	}
	raw, _, err := b.unary(ctx, k, rpcList, json.RawMessage(params))
	if err != nil {
		return nil, err
	}
	return decodePage(raw)
}

// listTasks makes a 1.0 HTTP+JSON GET /tasks call for one page, under the
// tenant's path segment as every 1.0 call is.
func (b restBinding) listTasks(ctx context.Context, k callConfig, f a2a.TaskFilter) (*a2a.TaskPage, error) {
	raw, _, err := b.unary(ctx, k, http.MethodGet, resource{segs: []string{"tasks"}, query: f.Query()}, nil)
	if err != nil {
		return nil, err
	}
	return decodePage(raw)
}

// decodePage decodes a page of tasks, which a *transport.ProtocolError
// reports malformed.
func decodePage(raw []byte) (*a2a.TaskPage, error) {
	p, err := a2a.DecodeTaskPage(raw)
	if err != nil {
		return nil, &transport.ProtocolError{Reason: "malformed page of tasks", Err: err}
	}
	return p, nil
}

// listTasks calls the Transport's ListTasks when it implements
// transport.TaskLister; otherwise it fails, sending nothing, with an error
// that matches errors.ErrUnsupported.
func (s seam) listTasks(ctx context.Context, k callConfig, f a2a.TaskFilter) (*a2a.TaskPage, error) {
	l, ok := s.b.(transport.TaskLister)
	if !ok {
		return nil, fmt.Errorf("stream: ListTasks: %w: the Transport does not implement transport.TaskLister", errors.ErrUnsupported)
	}
	return l.ListTasks(ctx, s.call(k), f)
}
