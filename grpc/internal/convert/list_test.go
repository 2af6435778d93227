package convert

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	pb10 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/transport"
)

func TestListTasksRequest10Bounds(t *testing.T) {
	huge := math.MaxInt32 + 1
	r, err := ListTasksRequest10(a2a.TaskFilter{HistoryLength: &huge}, "")
	require.NoError(t, err)
	require.Equal(t, int32(math.MaxInt32), r.GetHistoryLength())

	for _, f := range []a2a.TaskFilter{
		{StatusAfter: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{PageSize: -1},
		{State: "paused"},
	} {
		_, err := ListTasksRequest10(f, "")
		require.ErrorIs(t, err, transport.ErrInvalidMessage, "%+v", f)
	}
}

func TestTaskPageOf10(t *testing.T) {
	_, err := TaskPageOf10(nil)
	requireMalformed(t, err, "no page of tasks")

	bad := &pb10.Task{Id: "t-2", Status: &pb10.TaskStatus{State: pb10.TaskState(99)}}
	_, err = TaskPageOf10(&pb10.ListTasksResponse{Tasks: []*pb10.Task{
		{Id: "t-1", Status: &pb10.TaskStatus{State: pb10.TaskState_TASK_STATE_WORKING}}, bad}})
	requireMalformed(t, err, "page task 1")

	p, err := TaskPageOf10(&pb10.ListTasksResponse{NextPageToken: "n", PageSize: 3, TotalSize: 9})
	require.NoError(t, err)
	require.Equal(t, &a2a.TaskPage{Tasks: []*a2a.Task{}, NextPageToken: "n", PageSize: 3, TotalSize: 9}, p)
}
