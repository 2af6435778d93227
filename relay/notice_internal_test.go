package relay

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/stream"
)

// Browsers are shown a reconnect, a resume and a switch to polling; headers
// withheld from another origin (which names the backend's headers and
// origins) and kinds the relay does not know are the backend's business.
func TestBrowserNoticeShowsOnlyWhatIsTheBrowsers(t *testing.T) {
	for _, tt := range []struct {
		notice stream.Notice
		shown  bool
		text   string
	}{
		{stream.Notice{Kind: stream.Reconnecting, Attempt: 2, MaxAttempts: 5}, true, "reconnecting (2/5)…"},
		{stream.Notice{Kind: stream.Resumed}, true, "resumed"},
		{stream.Notice{Kind: stream.Polling}, true, "polling"},
		{stream.Notice{Kind: stream.HeadersWithheld, Headers: []string{"Authorization"},
			NamedOrigin: "http://localhost:9999", EndpointOrigin: "http://127.0.0.1:9999"}, false, ""},
		{stream.Notice{Kind: stream.NoticeKind(99)}, false, ""},
	} {
		t.Run(tt.notice.Kind.String(), func(t *testing.T) {
			got, shown := browserNotice(tt.notice)
			require.Equal(t, tt.shown, shown)
			require.Equal(t, tt.text, got.Text)
			if shown {
				require.Equal(t, tt.notice.Kind.String(), got.Kind)
			}
		})
	}
}

// The backend logs what browsers are not shown: headers withheld as a
// warning naming the headers and origins, push notifications taken up or
// unavailable (and an unknown kind) as information naming the task and the
// cause.
func TestBackendNoticeLevels(t *testing.T) {
	cause := errors.New("-32003 push notifications not supported")
	for _, tt := range []struct {
		notice stream.Notice
		level  slog.Level
		keys   []string
	}{
		{stream.Notice{Kind: stream.HeadersWithheld, Headers: []string{"Authorization"},
			NamedOrigin: "http://localhost:9999", EndpointOrigin: "http://127.0.0.1:9999"}, slog.LevelWarn, []string{"headers", "named", "endpoint"}},
		{stream.Notice{Kind: stream.Pushing, TaskID: "t-1"}, slog.LevelInfo, []string{"task"}},
		{stream.Notice{Kind: stream.PushUnavailable, TaskID: "t-1", Cause: cause}, slog.LevelInfo, []string{"task", "cause"}},
		{stream.Notice{Kind: stream.NoticeKind(99), TaskID: "t-1"}, slog.LevelInfo, []string{"task"}},
	} {
		t.Run(tt.notice.Kind.String(), func(t *testing.T) {
			level, attrs := backendNotice(tt.notice)
			require.Equal(t, tt.level, level)
			var keys []string
			for _, a := range attrs {
				keys = append(keys, a.Key)
			}
			require.Equal(t, tt.keys, keys)
		})
	}
}
