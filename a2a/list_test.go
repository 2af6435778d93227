package a2a_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

func intp(n int) *int { return &n }

func TestTaskFilterCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    a2a.TaskFilter
		ok   bool
	}{
		{"zero", a2a.TaskFilter{}, true},
		{"page size 1", a2a.TaskFilter{PageSize: 1}, true},
		{"page size 100", a2a.TaskFilter{PageSize: a2a.MaxPageSize}, true},
		{"page size 0: the server's default", a2a.TaskFilter{PageSize: 0}, true},
		{"page size -1", a2a.TaskFilter{PageSize: -1}, false},
		{"page size 101", a2a.TaskFilter{PageSize: 101}, false},
		{"history 0", a2a.TaskFilter{HistoryLength: intp(0)}, true},
		{"history -1", a2a.TaskFilter{HistoryLength: intp(-1)}, false},
		{"a state", a2a.TaskFilter{State: a2a.StateWorking}, true},
		{"a 1.0 spelling", a2a.TaskFilter{State: "TASK_STATE_CANCELLED"}, true},
		{"unknown", a2a.TaskFilter{State: a2a.StateUnknown}, false},
		{"bogus", a2a.TaskFilter{State: "TASK_STATE_BOGUS"}, false},
	} {
		err := tc.f.Check()
		require.Equal(t, tc.ok, err == nil, "%s: %v", tc.name, err)
		_, encErr := a2a.EncodeListTasks(tc.f, "")
		require.Equal(t, tc.ok, encErr == nil, "%s: EncodeListTasks refuses what Check refuses", tc.name)
	}
}

// The params and the query are the ones @a2a-js/sdk 1.3.0 read in
// stream/testdata/js-1.3.0-list.json.
func TestTaskFilterEncodings(t *testing.T) {
	t.Parallel()
	f := a2a.TaskFilter{
		ContextID: "c-1", State: a2a.StateInputRequired, PageSize: 2, PageToken: "p/2=",
		HistoryLength: intp(0), IncludeArtifacts: true, StatusAfter: time.Date(2000, 1, 1, 1, 0, 0, 5e8, time.FixedZone("x", 3600)),
	}
	params, err := a2a.EncodeListTasks(f, "acme")
	require.NoError(t, err)
	require.JSONEq(t, `{"tenant":"acme","contextId":"c-1","status":"TASK_STATE_INPUT_REQUIRED","pageSize":2,"pageToken":"p/2=",
		"historyLength":0,"includeArtifacts":true,"statusTimestampAfter":"2000-01-01T00:00:00.5Z"}`, string(params))
	q, err := url.ParseQuery(f.Query())
	require.NoError(t, err)
	require.Equal(t, url.Values{"contextId": {"c-1"}, "status": {"TASK_STATE_INPUT_REQUIRED"}, "pageSize": {"2"}, "pageToken": {"p/2="},
		"historyLength": {"0"}, "includeArtifacts": {"true"}, "statusTimestampAfter": {"2000-01-01T00:00:00.5Z"}}, q)

	params, err = a2a.EncodeListTasks(a2a.TaskFilter{}, "")
	require.NoError(t, err)
	require.JSONEq(t, `{}`, string(params), "nothing set, nothing sent: the server's defaults")
	require.Empty(t, a2a.TaskFilter{}.Query())
}

func TestDecodeTaskPage(t *testing.T) {
	t.Parallel()
	p, err := a2a.DecodeTaskPage([]byte(`{"tasks":[{"id":"t-2","contextId":"c","status":{"state":"TASK_STATE_INPUT_REQUIRED","timestamp":"2026-11-29T07:20:50.648Z"},"metadata":{}},
		{"id":"t-1","contextId":"c","status":{"state":"TASK_STATE_FAILED"},"artifacts":[{"artifactId":"a","parts":[{"text":"x"}]}]}],
		"nextPageToken":"MjAy","pageSize":2,"totalSize":5}`))
	require.NoError(t, err)
	require.Equal(t, "MjAy", p.NextPageToken)
	require.Equal(t, 2, p.PageSize)
	require.Equal(t, 5, p.TotalSize)
	require.Len(t, p.Tasks, 2)
	require.Equal(t, a2a.StateInputRequired, p.Tasks[0].Status.State)
	require.Equal(t, "x", p.Tasks[1].Artifacts[0].Parts[0].Text)

	p, err = a2a.DecodeTaskPage([]byte(`{}`))
	require.NoError(t, err)
	require.Empty(t, p.Tasks)
	require.Zero(t, p.TotalSize)

	for _, bad := range []string{``, `[]`, `{"tasks":{}}`, `{"tasks":[null]}`, `{"tasks":[{"contextId":"c"}]}`, `{"tasks":[{"kind":"message"}]}`, `{"nextPageToken":7}`} {
		_, err := a2a.DecodeTaskPage([]byte(bad))
		require.Error(t, err, bad)
	}
}

// Whatever the bytes, DecodeTaskPage returns an error or a page whose every
// task has an ID; it never panics.
func FuzzDecodeTaskPage(f *testing.F) {
	for _, seed := range []string{`{"tasks":[{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}],"nextPageToken":"x","pageSize":1,"totalSize":9}`,
		`{"tasks":[null]}`, `{"tasks":[{"id":"t","history":[{"parts":[{"raw":"!!"}]}]}]}`, `{"totalSize":1e99}`, `{}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := a2a.DecodeTaskPage(data)
		if err != nil {
			return
		}
		for _, task := range p.Tasks {
			if task == nil || task.ID == "" {
				t.Fatalf("a task without an ID in %q", data)
			}
		}
	})
}
