package a2agrpc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/grpc/internal/convert"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// ListTasks over gRPC (issue 33, item 3): stream.Client.ListTasks through
// the Transport's transport.TaskLister.

// pbTask returns task id of context c-1, working, as the proto carries it.
func pbTask(t *testing.T, id string) *pbv1.Task {
	t.Helper()
	pt, err := convert.Task10(working(id))
	require.NoError(t, err)
	return pt
}

// listed reads a listing to its end and returns the IDs of its tasks and
// its error.
func listed(l *stream.Listing) ([]string, error) {
	var ids []string
	for task, err := range l.All() {
		if err != nil {
			return ids, err
		}
		ids = append(ids, task.ID)
	}
	return ids, nil
}

// listRequests returns the ListTasks requests the agent got.
func listRequests(a *agent) []*pbv1.ListTasksRequest {
	var out []*pbv1.ListTasksRequest
	for _, c := range a.seen() {
		if c.method == pbv1.A2AService_ListTasks_FullMethodName {
			out = append(out, c.req.(*pbv1.ListTasksRequest))
		}
	}
	return out
}

func TestListTasksPagesThrough(t *testing.T) {
	pages := map[string]*pbv1.ListTasksResponse{
		"":   {Tasks: []*pbv1.Task{pbTask(t, "t-1"), pbTask(t, "t-2")}, NextPageToken: "p2", PageSize: 2, TotalSize: 5},
		"p2": {Tasks: []*pbv1.Task{pbTask(t, "t-3"), pbTask(t, "t-4")}, NextPageToken: "p3", PageSize: 2, TotalSize: 5},
		"p3": {Tasks: []*pbv1.Task{pbTask(t, "t-5")}, PageSize: 2, TotalSize: 5},
	}
	for _, name := range []string{"negotiated", "1.0"} {
		t.Run(name, func(t *testing.T) {
			a := newAgent(t, true, true, handlers{list: func(_ context.Context, req *pbv1.ListTasksRequest) (*pbv1.ListTasksResponse, error) {
				p, ok := pages[req.GetPageToken()]
				if !ok {
					return nil, status.Error(codes.InvalidArgument, "no such page")
				}
				return p, nil
			}})
			c := newClient(t, a.client(t), versionOpts[name]...)
			l := c.ListTasks(context.Background(), a2a.TaskFilter{ContextID: "c-1", PageSize: 2})

			require.True(t, l.Next())
			require.Equal(t, 2, l.Page().PageSize)
			require.Equal(t, 5, l.Page().TotalSize)
			require.Equal(t, "p2", l.Page().NextPageToken)
			require.Equal(t, "c-1", l.Page().Tasks[0].ContextID)
			require.Equal(t, a2a.StateWorking, l.Page().Tasks[0].Status.State)
			ids, err := listed(l)
			require.NoError(t, err)
			require.Equal(t, []string{"t-3", "t-4", "t-5"}, ids)
			require.False(t, l.Next())
			require.NoError(t, l.Err())

			var tokens []string
			for _, r := range listRequests(a) {
				tokens = append(tokens, r.GetPageToken())
				require.Equal(t, "c-1", r.GetContextId())
				require.Equal(t, int32(2), r.GetPageSize())
			}
			require.Equal(t, []string{"", "p2", "p3"}, tokens)
			require.Equal(t, []string{pbv1.A2AService_ListTasks_FullMethodName, pbv1.A2AService_ListTasks_FullMethodName,
				pbv1.A2AService_ListTasks_FullMethodName}, a.methods())
		})
	}
}

// A stale page token answered with an empty page cuts the listing short,
// over gRPC as over the other bindings.
func TestListTasksCutShort(t *testing.T) {
	a := newAgent(t, true, false, handlers{list: func(_ context.Context, req *pbv1.ListTasksRequest) (*pbv1.ListTasksResponse, error) {
		if req.GetPageToken() == "" {
			return &pbv1.ListTasksResponse{Tasks: []*pbv1.Task{pbTask(t, "t-1")}, NextPageToken: "stale"}, nil
		}
		return &pbv1.ListTasksResponse{}, nil
	}})
	c := newClient(t, a.client(t), versionOpts["1.0"]...)
	ids, err := listed(c.ListTasks(context.Background(), a2a.TaskFilter{}))
	require.Equal(t, []string{"t-1"}, ids)
	var cut *stream.ListingCutError
	require.ErrorAs(t, err, &cut)
	require.Equal(t, "stale", cut.PageToken)
	require.Equal(t, 1, cut.Listed)
}

func TestListTasksSendsTheFilter(t *testing.T) {
	after := time.Date(2026, 11, 30, 7, 0, 0, 123, time.UTC)
	zero, seven := 0, 7
	tests := []struct {
		name   string
		tenant []a2agrpc.Option
		filter a2a.TaskFilter
		want   *pbv1.ListTasksRequest
	}{
		{
			name: "nothing set",
			want: &pbv1.ListTasksRequest{},
		},
		{
			name:   "every field",
			tenant: []a2agrpc.Option{a2agrpc.WithTenant("acme")},
			filter: a2a.TaskFilter{ContextID: "c-1", State: a2a.StateInputRequired, PageSize: 50, PageToken: "p2",
				HistoryLength: &seven, IncludeArtifacts: true, StatusAfter: after},
			want: &pbv1.ListTasksRequest{Tenant: "acme", ContextId: "c-1", Status: pbv1.TaskState_TASK_STATE_INPUT_REQUIRED,
				PageSize: proto.Int32(50), PageToken: "p2", HistoryLength: proto.Int32(7), IncludeArtifacts: proto.Bool(true),
				StatusTimestampAfter: timestamppb.New(after)},
		},
		{
			name:   "a wire spelling of a state, no history",
			filter: a2a.TaskFilter{State: "cancelled", HistoryLength: &zero},
			want:   &pbv1.ListTasksRequest{Status: pbv1.TaskState_TASK_STATE_CANCELED, HistoryLength: proto.Int32(0)},
		},
		{
			name:   "a 1.0 spelling of a state",
			filter: a2a.TaskFilter{State: "TASK_STATE_FAILED"},
			want:   &pbv1.ListTasksRequest{Status: pbv1.TaskState_TASK_STATE_FAILED},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAgent(t, true, false, handlers{list: func(context.Context, *pbv1.ListTasksRequest) (*pbv1.ListTasksResponse, error) {
				return &pbv1.ListTasksResponse{}, nil
			}})
			c := newClient(t, a.client(t, tt.tenant...), stream.WithVersion(a2a.V10), stream.WithHeader("X-Trace", "abc"))
			l := c.ListTasks(context.Background(), tt.filter)
			if tt.filter.PageToken == "" {
				require.True(t, l.Next()) // the filter matched no task: one empty page
				require.Empty(t, l.Page().Tasks)
			} else {
				require.False(t, l.Next()) // an empty page for a token: cut short
			}
			reqs := listRequests(a)
			require.Len(t, reqs, 1)
			require.True(t, proto.Equal(tt.want, reqs[0]), "got %v; want %v", reqs[0], tt.want)
			md := a.seen()[0].md
			require.Equal(t, []string{"abc"}, md.Get("x-trace"))
			require.Equal(t, []string{"1.0"}, md.Get("a2a-version"))
		})
	}
}

func TestListTasksIn03IsUnsupported(t *testing.T) {
	a := newAgent(t, true, true, handlers{list: func(context.Context, *pbv1.ListTasksRequest) (*pbv1.ListTasksResponse, error) {
		return &pbv1.ListTasksResponse{}, nil
	}})
	tr := a.client(t)

	// Through the Client: it knows 0.3 has no ListTasks.
	c := newClient(t, tr, stream.WithVersion(a2a.V03))
	l := c.ListTasks(context.Background(), a2a.TaskFilter{})
	require.False(t, l.Next())
	require.ErrorIs(t, l.Err(), errors.ErrUnsupported)

	// The Transport itself, called in 0.3, makes no call either.
	p, err := tr.ListTasks(context.Background(), transport.Call{Version: a2a.V03}, a2a.TaskFilter{})
	require.Nil(t, p)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	require.Empty(t, a.seen())
}

func TestListTasksRefused(t *testing.T) {
	tests := []struct {
		name        string
		v10         bool // the agent serves 1.0
		list        func(context.Context, *pbv1.ListTasksRequest) (*pbv1.ListTasksResponse, error)
		opts        []stream.Option
		unsupported bool
		code        int // the *a2a.RPCError's
	}{
		{name: "1.0 without ListTasks (the generated server's UNIMPLEMENTED)", v10: true,
			opts: versionOpts["1.0"], unsupported: true, code: a2a.CodeUnsupportedOperation},
		{name: "an agent's own UNIMPLEMENTED", v10: true, opts: versionOpts["1.0"], unsupported: true, code: a2a.CodeUnsupportedOperation,
			list: func(context.Context, *pbv1.ListTasksRequest) (*pbv1.ListTasksResponse, error) {
				return nil, status.Error(codes.Unimplemented, "listing is turned off")
			}},
		{name: "a 0.3-only agent, version negotiated (unknown service)", unsupported: true, code: a2a.CodeMethodNotFound},
		{name: "INVALID_ARGUMENT", v10: true, opts: versionOpts["1.0"], code: a2a.CodeInvalidParams,
			list: func(context.Context, *pbv1.ListTasksRequest) (*pbv1.ListTasksResponse, error) {
				return nil, status.Error(codes.InvalidArgument, "bad page token")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAgent(t, tt.v10, true, handlers{list: tt.list})
			c := newClient(t, a.client(t), tt.opts...)
			l := c.ListTasks(context.Background(), a2a.TaskFilter{PageToken: "p2"})
			require.False(t, l.Next())
			err := l.Err()
			require.Equal(t, tt.unsupported, errors.Is(err, errors.ErrUnsupported), "%v", err)
			var rpc *a2a.RPCError
			require.ErrorAs(t, err, &rpc)
			require.Equal(t, tt.code, rpc.Code)
			var se *a2agrpc.StatusError
			require.ErrorAs(t, err, &se)
			require.Equal(t, pbv1.A2AService_ListTasks_FullMethodName, se.Method)
			if tt.v10 { // the server's interceptors do not see a service it does not have
				require.Equal(t, []string{pbv1.A2AService_ListTasks_FullMethodName}, a.methods()) // made once
			}
		})
	}
}

func TestListTasksHostilePage(t *testing.T) {
	noID := pbTask(t, "t-2")
	noID.Id = ""
	otherContext := pbTask(t, "t-2")
	otherContext.ContextId = "c-9"
	badState := pbTask(t, "t-2")
	badState.Status.State = pbv1.TaskState(99)
	tests := []struct {
		name   string
		bad    *pbv1.Task
		reason string // the ProtocolError's, in part
	}{
		{name: "a task without an ID", bad: noID, reason: "a page of tasks holds a task without an ID"},
		{name: "a task of another context", bad: otherContext, reason: `asked for the tasks of context "c-1", got task "t-2" of context "c-9"`},
		{name: "a state the proto does not define", bad: badState, reason: "malformed result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAgent(t, true, false, handlers{list: func(context.Context, *pbv1.ListTasksRequest) (*pbv1.ListTasksResponse, error) {
				return &pbv1.ListTasksResponse{Tasks: []*pbv1.Task{pbTask(t, "t-1"), tt.bad}, NextPageToken: "p2"}, nil
			}})
			c := newClient(t, a.client(t), versionOpts["1.0"]...)
			l := c.ListTasks(context.Background(), a2a.TaskFilter{ContextID: "c-1"})
			require.False(t, l.Next())
			require.Nil(t, l.Page())
			var pe *transport.ProtocolError
			require.ErrorAs(t, l.Err(), &pe)
			require.Contains(t, pe.Reason, tt.reason)
			require.Len(t, a.seen(), 1) // no page after it, no call made again
		})
	}
}
