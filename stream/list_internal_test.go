package stream

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// The rows of decidePage's table.
func TestDecidePage(t *testing.T) {
	some := []*a2a.Task{{ID: "t-1"}}
	cases := []struct {
		name  string
		sent  string
		page  a2a.TaskPage
		wants pageVerdict
	}{
		{"a token answered with nothing", "p2", a2a.TaskPage{}, pageCut},
		{"a token answered with nothing but a next token", "p2", a2a.TaskPage{NextPageToken: "p3"}, pageCut},
		{"the filter matched no task", "", a2a.TaskPage{}, pageLast},
		{"an empty first page with a next token", "", a2a.TaskPage{NextPageToken: "p2"}, pageMore},
		{"the last page", "p2", a2a.TaskPage{Tasks: some}, pageLast},
		{"the only page", "", a2a.TaskPage{Tasks: some}, pageLast},
		{"the token sent back", "p2", a2a.TaskPage{Tasks: some, NextPageToken: "p2"}, pageRepeats},
		{"a page before others", "", a2a.TaskPage{Tasks: some, NextPageToken: "p2"}, pageMore},
		{"a page between others", "p2", a2a.TaskPage{Tasks: some, NextPageToken: "p3"}, pageMore},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.wants, decidePage(tc.sent, &tc.page))
		})
	}
}
