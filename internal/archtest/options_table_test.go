package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// appliesTo is how docs/options.md's table says where the options of each
// scope of package stream apply (the scopes are the where constants of
// stream/options.go).
var appliesTo = map[string]string{
	"atResolve":           "`Resolve`",
	"overHTTP":            "HTTP constructors",
	"constructors":        "constructors",
	"httpCalls":           "HTTP constructors, HTTP calls",
	"streams":             "constructors, streams",
	"streamsAndHTTPCalls": "constructors, streams, HTTP calls",
	"everywhere":          "everywhere",
}

// TestOptionsTableHasEveryOption keeps docs/options.md's "Every option"
// table whole and true: every exported function of package stream that
// returns an Option (read from the package's source, test files aside) has
// a row, whose "applies to" column says the scope the function gives its
// option; and every option a row names exists.
func TestOptionsTableHasEveryOption(t *testing.T) {
	options := streamOptions(t, "../../stream")
	require.NotEmpty(t, options)
	rows := optionRows(t, "../../docs/options.md")
	for name, scope := range options {
		want, known := appliesTo[scope]
		if !known {
			t.Errorf("%s applies at scope %q, which the table has no words for", name, scope)
			continue
		}
		got, ok := rows[name]
		if !ok {
			t.Errorf("docs/options.md's table has no row for %s", name)
			continue
		}
		if got != want {
			t.Errorf("docs/options.md says %s applies to %q; its scope %s is %q", name, got, scope, want)
		}
	}
	for name := range rows {
		if _, ok := options[name]; !ok {
			t.Errorf("docs/options.md's table has a row for %s, which package stream does not export", name)
		}
	}
}

// streamOptions returns the exported functions of the package in dir that
// return an Option, each with the scope (the identifier) of the option
// literal it returns, or "" if it returns none.
func streamOptions(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || !returnsOption(fn.Type) {
				continue
			}
			out[fn.Name.Name] = optionScope(fn.Body)
		}
	}
	return out
}

// returnsOption reports whether a function's only result is an Option.
func returnsOption(ft *ast.FuncType) bool {
	if ft.Results == nil || len(ft.Results.List) != 1 || len(ft.Results.List[0].Names) > 1 {
		return false
	}
	id, ok := ft.Results.List[0].Type.(*ast.Ident)
	return ok && id.Name == "Option"
}

// optionScope returns the scope of the first option{name, scope, set}
// literal in body, or "".
func optionScope(body *ast.BlockStmt) string {
	scope := ""
	ast.Inspect(body, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok || scope != "" {
			return scope == ""
		}
		if id, ok := lit.Type.(*ast.Ident); ok && id.Name == "option" && len(lit.Elts) == 3 {
			if s, ok := lit.Elts[1].(*ast.Ident); ok {
				scope = s.Name
			}
		}
		return scope == ""
	})
	return scope
}

// optionRows reads the "Every option" table of the page at path: for each
// option a row names (a row may name several), its "applies to" column.
func optionRows(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(b)
	start := strings.Index(text, "\n## Every option\n")
	require.GreaterOrEqual(t, start, 0, "%s has an \"Every option\" section", path)
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	cells := func(line string) []string {
		cs := strings.Split(strings.Trim(line, "| "), " | ")
		for i := range cs {
			cs[i] = strings.TrimSpace(cs[i])
		}
		return cs
	}
	name := regexp.MustCompile("`([A-Z][A-Za-z0-9]*)`")
	rows := map[string]string{}
	col := -1
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		cs := cells(line)
		if col < 0 {
			col = slices.Index(cs, "applies to")
			require.Positive(t, col, "the table's header has an \"applies to\" column: %s", line)
			continue
		}
		require.Greater(t, len(cs), col, "row %s", line)
		for _, m := range name.FindAllStringSubmatch(cs[0], -1) {
			rows[m[1]] = cs[col]
		}
	}
	require.NotEmpty(t, rows, "the table has rows")
	return rows
}
