package convert

import (
	"fmt"
	"math"

	"github.com/a2astream/a2astream/a2a"
	pb "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/internal/a2awire"
)

// ListTasksRequest10 builds the request of ListTasks (A2A 1.0 only) for f,
// with tenant: the fields f sets, as the library's JSON-RPC binding sends
// them (a2a.EncodeListTasks). A state is read in any spelling the wire uses;
// a history length over the proto's int32 is sent as its largest value (more
// than any history, as the JSON number asks). A filter a2a.TaskFilter.Check
// refuses, and a StatusAfter a Timestamp cannot hold (before year 1 or after
// 9999), are refused with an error wrapping transport.ErrInvalidMessage.
func ListTasksRequest10(f a2a.TaskFilter, tenant string) (*pb.ListTasksRequest, error) {
	if err := f.Check(); err != nil {
		return nil, invalid("ListTasks: %v", err)
	}
	r := &pb.ListTasksRequest{Tenant: tenant, ContextId: f.ContextID, PageToken: f.PageToken}
	if f.State != "" {
		r.Status = State10(a2a.TaskState(a2awire.State(string(f.State))))
	}
	if f.PageSize != 0 {
		n := int32(f.PageSize) // Check: 1 to a2a.MaxPageSize
		r.PageSize = &n
	}
	if f.HistoryLength != nil {
		n := int32(min(*f.HistoryLength, math.MaxInt32)) // Check: 0 or more
		r.HistoryLength = &n
	}
	if !f.StatusAfter.IsZero() {
		ts := timestampOf(f.StatusAfter)
		if ts == nil {
			return nil, invalid("ListTasks: StatusAfter %s is out of a Timestamp's range", f.StatusAfter)
		}
		r.StatusTimestampAfter = ts
	}
	if f.IncludeArtifacts {
		t := true
		r.IncludeArtifacts = &t
	}
	return r, nil
}

// TaskPageOf10 reads the answer of ListTasks: each task as TaskOf10 reads
// one (a task the model cannot hold refuses the page, with its index), the
// next page's token and the sizes. It does not check the tasks' IDs or
// contexts: the caller of a transport.TaskLister does (stream's Listing).
func TaskPageOf10(r *pb.ListTasksResponse) (*a2a.TaskPage, error) {
	if r == nil {
		return nil, malformed("no page of tasks")
	}
	p := &a2a.TaskPage{
		NextPageToken: r.GetNextPageToken(),
		PageSize:      int(r.GetPageSize()),
		TotalSize:     int(r.GetTotalSize()),
		Tasks:         make([]*a2a.Task, 0, len(r.GetTasks())),
	}
	for i, t := range r.GetTasks() {
		at, err := TaskOf10(t)
		if err != nil {
			return nil, within(fmt.Sprintf("page task %d", i), err)
		}
		p.Tasks = append(p.Tasks, at)
	}
	return p, nil
}
