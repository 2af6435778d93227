package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocLinksResolve keeps the documents from sending a reader nowhere:
// every relative link in them names a file or directory that exists, and
// every #fragment names a heading of the page it points at (as GitHub makes
// a heading's anchor).
func TestDocLinksResolve(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	fence := regexp.MustCompile("(?s)```.*?```")
	for _, doc := range documents(t, root) {
		b, err := os.ReadFile(filepath.Join(root, doc))
		require.NoError(t, err)
		text := fence.ReplaceAllString(string(b), "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := filepath.Join(root, filepath.Dir(doc), file)
			if file == "" {
				path = filepath.Join(root, doc)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which does not exist", doc, target)
				continue
			}
			if fragment != "" && !anchors(t, path)[fragment] {
				t.Errorf("%s links to %s, whose page has no heading #%s", doc, target, fragment)
			}
		}
	}
}

// anchors returns the anchors GitHub gives the headings of the Markdown page
// at path: lower case, spaces as hyphens, punctuation other than hyphens and
// underscores dropped, and -1, -2 … after a repeated one.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	set := map[string]bool{}
	if !strings.HasSuffix(path, ".md") {
		return set
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	text := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(b), "")
	seen := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		var slug strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
			switch {
			case r == ' ':
				slug.WriteRune('-')
			case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 0x7f && r != '—' && r != '–' && r != '…':
				slug.WriteRune(r)
			}
		}
		a := slug.String()
		if n := seen[a]; n > 0 {
			set[a+"-"+strconv.Itoa(n)] = true
		} else {
			set[a] = true
		}
		seen[a]++
	}
	return set
}
