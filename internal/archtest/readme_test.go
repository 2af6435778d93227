package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeCodeMatchesExamples keeps the README honest: every Go block in it
// must appear, line for line, in code that an Example function runs: the
// packages' example*_test.go files, or the example programs' main.go, whose
// own example_test.go runs them (the first program's recipe is its run
// function).
func TestReadmeCodeMatchesExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	examples, err := filepath.Glob("../../*/example*_test.go")
	require.NoError(t, err)
	require.NotEmpty(t, examples)
	programs, err := filepath.Glob("../../examples/*/main.go")
	require.NoError(t, err)
	for _, p := range programs {
		tested, err := filepath.Glob(filepath.Join(filepath.Dir(p), "example*_test.go"))
		require.NoError(t, err)
		if len(tested) > 0 {
			examples = append(examples, p)
		}
	}
	var corpus []string
	for _, f := range examples {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		corpus = append(corpus, normalise(string(b)))
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	require.NotEmpty(t, blocks, "the README has Go code")
	for _, b := range blocks {
		code := normalise(b[1])
		found := false
		for _, c := range corpus {
			if strings.Contains(c, code) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("README code block not found in any Example function:\n%s", b[1])
		}
	}
}

// normalise drops indentation and blank lines, so that a block quoted from a
// function body matches it.
func normalise(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
