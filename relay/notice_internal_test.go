package relay

import (
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
