package a2agrpc

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/grpc/internal/convert"
	"github.com/a2astream/a2astream/transport"
)

// The Transport lists tasks for stream.Client.ListTasks.
var _ transport.TaskLister = (*Transport)(nil)

// ListTasks fetches one page of the agent's tasks that filter selects, with
// ListTasks of A2A 1.0 (lf.a2a.v1.A2AService/ListTasks), under the tenant of
// WithTenant, made as GetTask is: the call's headers as metadata, its
// breaker, its connect and idle timers (see Transport). It makes the
// Transport a transport.TaskLister.
//
// A2A 0.3 has no ListTasks: a call of version 0.3 is not made, and fails
// at once with an error that matches errors.ErrUnsupported. An agent that
// does not list answers UNIMPLEMENTED, which reads as method not found or
// unsupported operation (see StatusError), and stream.Client.ListTasks
// ends its listing with an error that matches errors.ErrUnsupported;
// INVALID_ARGUMENT reads as invalid params. Its other errors are GetTask's.
// A task of the page the model cannot hold is a *transport.ProtocolError;
// the tasks' IDs and contexts are left to the caller (stream's Listing
// checks them).
func (t *Transport) ListTasks(ctx context.Context, call transport.Call, filter a2a.TaskFilter) (*a2a.TaskPage, error) {
	if v03(call) {
		return nil, fmt.Errorf("a2agrpc: ListTasks: %w: A2A 0.3 has no ListTasks", errors.ErrUnsupported)
	}
	req, err := convert.ListTasksRequest10(filter, t.cfg.tenant)
	if err != nil {
		return nil, err
	}
	var resp pbv1.ListTasksResponse
	if err := t.unary(ctx, call, opList, pbv1.A2AService_ListTasks_FullMethodName, req, &resp); err != nil {
		return nil, err
	}
	return convert.TaskPageOf10(&resp)
}
