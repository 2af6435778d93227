package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeCodeMatchesExamples keeps the README and the reference under
// docs/ honest: every Go block in them must appear, line for line, in code
// that an Example function runs: the packages' example*_test.go files, or
// the example programs' main.go, whose own example_test.go runs them (the
// first program's recipe is its run function).
func TestReadmeCodeMatchesExamples(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	pages = append([]string{"../../README.md"}, pages...)
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
	goBlock := regexp.MustCompile("(?s)```go\n(.*?)```")
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		blocks := goBlock.FindAllStringSubmatch(string(text), -1)
		if filepath.Base(page) == "README.md" {
			require.NotEmpty(t, blocks, "the README has Go code")
		}
		for _, b := range blocks {
			if !inCorpus(corpus, normalise(b[1])) {
				t.Errorf("%s: code block not found in any Example function:\n%s", page, b[1])
			}
		}
	}
}

// inCorpus reports whether code appears in one of the normalised sources.
func inCorpus(corpus []string, code string) bool {
	for _, c := range corpus {
		if strings.Contains(c, code) {
			return true
		}
	}
	return false
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
