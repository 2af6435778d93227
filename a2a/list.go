package a2a

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/a2astream/a2astream/internal/a2awire"
)

// MaxPageSize is the largest page of tasks a ListTasks call may ask for
// (A2A 1.0; @a2a-js/sdk 1.3.0 refuses more with -32602).
const MaxPageSize = 100

// TaskFilter selects the tasks of an A2A 1.0 ListTasks call, and how much of
// each comes back. Its zero value lists every task the caller may see, in
// pages of the server's default size (50 on @a2a-js/sdk 1.3.0), each with
// its whole history and without its artifacts. Check says which values are
// refused.
type TaskFilter struct {
	// ContextID, when set, lists only the tasks of that context.
	ContextID string
	// State, when set, lists only the tasks in that state: one of the
	// eight states of a task (StateSubmitted … StateRejected), in any
	// spelling the wire uses; StateUnknown and other values are refused.
	State TaskState
	// PageSize, when not 0, is the number of tasks a page holds at most:
	// 1 to MaxPageSize. 0 asks for the server's default; a negative value
	// is refused.
	PageSize int
	// PageToken, when set, starts the listing at the page it names: a
	// TaskPage's NextPageToken, opaque to the client.
	PageToken string
	// HistoryLength, when set, is how many of the last messages of each
	// task's history come back: 0 for none. nil asks for the whole
	// history. A negative value is refused.
	HistoryLength *int
	// IncludeArtifacts asks for each task's artifacts, which a server
	// leaves out otherwise (@a2a-js/sdk 1.3.0 does).
	IncludeArtifacts bool
	// StatusAfter, when not zero, lists only the tasks whose status
	// changed strictly after it (statusTimestampAfter).
	StatusAfter time.Time
}

// Check reports the first value of f that a ListTasks call refuses: a page
// size below 0 or above MaxPageSize, a negative history length, or a state
// that is none of the eight states of a task. nil means f may be sent.
func (f TaskFilter) Check() error {
	if f.PageSize < 0 || f.PageSize > MaxPageSize {
		return fmt.Errorf("a2a: invalid task filter: PageSize %d: want 1 to %d, or 0 for the server's default", f.PageSize, MaxPageSize)
	}
	if f.HistoryLength != nil && *f.HistoryLength < 0 {
		return fmt.Errorf("a2a: invalid task filter: HistoryLength %d: want 0 or more", *f.HistoryLength)
	}
	if f.State != "" && parseState(string(f.State)) == StateUnknown {
		return fmt.Errorf("a2a: invalid task filter: State %q is not a state of a task", string(f.State))
	}
	return nil
}

// TaskPage is one page of a ListTasks answer, newest task first.
type TaskPage struct {
	// Tasks are the page's tasks, each with an ID.
	Tasks []*Task
	// NextPageToken names the next page: "" on the last page.
	NextPageToken string
	// PageSize is the page size the server used; TotalSize the number of
	// tasks the filter matched, before paging. Either is 0 when the server
	// did not say.
	PageSize, TotalSize int
}

// listParams is the 1.0 ListTasksRequest as JSON-RPC params.
type listParams struct {
	Tenant               string `json:"tenant,omitempty"`
	ContextID            string `json:"contextId,omitempty"`
	Status               string `json:"status,omitempty"`
	PageSize             int    `json:"pageSize,omitempty"`
	PageToken            string `json:"pageToken,omitempty"`
	HistoryLength        *int   `json:"historyLength,omitempty"`
	StatusTimestampAfter string `json:"statusTimestampAfter,omitempty"`
	IncludeArtifacts     bool   `json:"includeArtifacts,omitempty"`
}

func (f TaskFilter) params(tenant string) listParams {
	p := listParams{
		Tenant: tenant, ContextID: f.ContextID, PageSize: f.PageSize, PageToken: f.PageToken,
		HistoryLength: f.HistoryLength, IncludeArtifacts: f.IncludeArtifacts,
	}
	if f.State != "" {
		p.Status = encodeState(V10, f.State)
	}
	if !f.StatusAfter.IsZero() {
		p.StatusTimestampAfter = f.StatusAfter.UTC().Format(time.RFC3339Nano)
	}
	return p
}

// EncodeListTasks encodes f as the params of a 1.0 JSON-RPC ListTasks call,
// with tenant, the 1.0 interface's tenant ("" for none): the fields f sets,
// a state as its 1.0 enum name (TASK_STATE_FAILED), a time in RFC 3339. A
// filter Check refuses is refused with its error.
func EncodeListTasks(f TaskFilter, tenant string) ([]byte, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	return marshal(f.params(tenant))
}

// Query returns f as the query of the 1.0 HTTP+JSON call GET /tasks, encoded,
// with the names and spellings of EncodeListTasks: "" when f sets nothing.
// It does not check f (see Check).
func (f TaskFilter) Query() string {
	p := f.params("")
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("contextId", p.ContextID)
	set("status", p.Status)
	if p.PageSize != 0 {
		set("pageSize", strconv.Itoa(p.PageSize))
	}
	set("pageToken", p.PageToken)
	if p.HistoryLength != nil {
		set("historyLength", strconv.Itoa(*p.HistoryLength))
	}
	set("statusTimestampAfter", p.StatusTimestampAfter)
	if p.IncludeArtifacts {
		set("includeArtifacts", "true")
	}
	return q.Encode()
}

// DecodeTaskPage decodes a 1.0 ListTasksResponse, the JSON-RPC result or
// the HTTP+JSON body: {"tasks":[…],"nextPageToken":…,"pageSize":…,
// "totalSize":…}. Each task is decoded as DecodeTask does, and one without
// an ID is an error. Sizes that are absent or not int32 numbers read as 0.
func DecodeTaskPage(data []byte) (*TaskPage, error) {
	var w struct {
		Tasks         []json.RawMessage `json:"tasks"`
		NextPageToken string            `json:"nextPageToken"`
		PageSize      json.RawMessage   `json:"pageSize"`
		TotalSize     json.RawMessage   `json:"totalSize"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("a2a: decoding a page of tasks: %w", err)
	}
	p := &TaskPage{NextPageToken: w.NextPageToken, Tasks: make([]*Task, 0, len(w.Tasks))}
	p.PageSize, _ = a2awire.Int32(w.PageSize)
	p.TotalSize, _ = a2awire.Int32(w.TotalSize)
	for i, raw := range w.Tasks {
		t, err := decodeTask(dialectRPC, raw)
		if err != nil {
			return nil, fmt.Errorf("a2a: decoding a page of tasks: task %d: %w", i, err)
		}
		p.Tasks = append(p.Tasks, t)
	}
	return p, nil
}
