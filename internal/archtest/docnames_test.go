package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// documents lists the documents that point readers at tests by file and
// name, by path from root: the top-level ones and the reference under docs/.
func documents(t *testing.T, root string) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	docs := []string{"README.md", "GUARANTEES.md", "RELIABILITY.md", "BENCHMARKS.md", "DESIGN.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		docs = append(docs, filepath.ToSlash(rel))
	}
	return docs
}

// TestDocsNameTestsThatExist keeps the documents from sending a reader to a
// test file or a test that is gone: every `*_test.go` they name exists (by
// its path, or by its base name anywhere in the repository), and every Test,
// Fuzz, Benchmark or Example function they name (or `-run` pattern they
// quote) is declared in some test file.
func TestDocsNameTestsThatExist(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	files, funcs := testInventory(t, root)
	fileRef := regexp.MustCompile(`[A-Za-z0-9_./-]*_test\.go`)
	funcRef := regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark|Example)[A-Z_][A-Za-z0-9_]*`)
	for _, doc := range documents(t, root) {
		b, err := os.ReadFile(filepath.Join(root, doc))
		require.NoError(t, err)
		text := string(b)
		for _, ref := range fileRef.FindAllString(text, -1) {
			ref = strings.TrimPrefix(ref, "./")
			if !files[ref] && !files[filepath.Base(ref)] {
				t.Errorf("%s names %s, which does not exist", doc, ref)
			}
		}
		for _, ref := range funcRef.FindAllString(text, -1) {
			if !declared(funcs, ref) {
				t.Errorf("%s names %s, which no test file declares", doc, ref)
			}
		}
	}
}

// declared reports whether a test function named ref exists, or, since the
// documents quote `go test -run` patterns such as TestSoak or TestDefect3_,
// one whose name begins with ref.
func declared(funcs map[string]bool, ref string) bool {
	if funcs[ref] {
		return true
	}
	for name := range funcs {
		if strings.HasPrefix(name, ref) {
			return true
		}
	}
	return false
}

// testInventory lists the repository's test files (by path from root and by
// base name) and the names of the functions they declare.
func testInventory(t *testing.T, root string) (files, funcs map[string]bool) {
	t.Helper()
	files, funcs = map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], files[d.Name()] = true, true
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
				funcs[fn.Name.Name] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	return files, funcs
}
