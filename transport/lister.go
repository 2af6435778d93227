package transport

import (
	"context"

	"github.com/a2astream/a2astream/a2a"
)

// TaskLister is a [Transport] that can also list an agent's tasks (A2A 1.0
// ListTasks). It is optional, so that Transport keeps its methods and every
// binding that implements it stays one: stream.Client.ListTasks of a Client
// of stream.NewClientFor calls ListTasks when its Transport implements
// TaskLister, and otherwise fails with an error that matches
// errors.ErrUnsupported, sending nothing.
//
// ListTasks makes one call for one page. The filter has been checked
// ([a2a.TaskFilter.Check]); the page it returns is checked by the caller
// (every task has an ID, and the filter's context when it names one). The errors are those of GetTask (see
// Transport); an agent that does not support the call answers as a
// Transport reports any agent's error (-32601 method not found, -32004
// unsupported operation), or the binding returns an error matching
// errors.ErrUnsupported itself. A call in version 0.3, which has no
// ListTasks, is not made.
type TaskLister interface {
	Transport
	ListTasks(ctx context.Context, call Call, filter a2a.TaskFilter) (*a2a.TaskPage, error)
}
