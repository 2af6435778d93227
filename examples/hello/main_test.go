package main

import (
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/examples/internal/demo"
)

// agentEnv, set in the environment of this test binary, makes it the hello
// program itself, pointed at that agent URL.
const agentEnv = "A2ASTREAM_TEST_HELLO_AGENT"

func TestMain(m *testing.M) {
	if url := os.Getenv(agentEnv); url != "" {
		os.Args = []string{"hello", "-agent", url}
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// TestExitsOneUnlessTheTaskCompleted runs the program as a process against
// the demo agent in each mode: it exits 0 only when the task completed, and
// prints how the task ended on one line, once.
func TestExitsOneUnlessTheTaskCompleted(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		mode   demo.Mode
		code   int
		ending string
	}{
		{demo.ModeAnswer, 0, "completed"},
		{demo.ModeCut, 0, "completed"},
		{demo.ModeFail, 1, "failed: UPSTREAM_TIMEOUT: upstream API timed out"},
		{demo.ModeAsk, 1, "input-required: no answer: "},
	} {
		t.Run(string(tt.mode), func(t *testing.T) {
			t.Parallel()
			agent := httptest.NewServer(demo.ServedAgent(tt.mode, time.Millisecond))
			defer agent.Close()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), agentEnv+"="+agent.URL)
			out, err := cmd.Output()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tt.code, code, "stdout:\n%s", out)
			lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
			require.True(t, strings.HasPrefix(lines[len(lines)-1], tt.ending), "last line %q", lines[len(lines)-1])
			require.Equal(t, 1, strings.Count(string(out), tt.ending), "the ending is printed once:\n%s", out)
		})
	}
}
