package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestReportFollowedByPush runs the program against its demo agent with
// short steps: the first stream is cut after the first section, the stream
// follows the task by push notifications, and every section is printed
// once, then "completed".
func TestReportFollowedByPush(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, "", "", 30*time.Millisecond))
	got := out.String()
	require.Equal(t, 1, strings.Count(got, "[pushing]\n"), "%s", got)
	for _, s := range sections {
		require.Equal(t, 1, strings.Count(got, strings.TrimSpace(s)), "section %q in:\n%s", s, got)
	}
	require.True(t, strings.HasSuffix(got, "completed\n"), "%s", got)
	require.Less(t, strings.Index(got, strings.TrimSpace(sections[0])), strings.Index(got, "[pushing]"), "the first section came on the stream")
}
