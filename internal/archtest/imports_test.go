package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/a2astream/a2astream"

// leaves may import a2a (and the standard library, and through a2a what it
// imports) but never each other.
var leaves = []string{"terminal", "dedupe", "reconnect", "hitl", "chatview", "transport", "credentials", "push"}

// leafInternals names the internal package a leaf wraps, if any: the leaf
// exports what applications need, and stream uses the rest.
var leafInternals = map[string]string{"dedupe": "internal/ledger", "transport": "internal/callmark"}

// thirdParty lists the only non-module, non-standard imports allowed in
// library (non-test) code.
var thirdParty = []string{"github.com/google/uuid"}

// testSupport lists the internal packages of test support: only _test.go
// files import them, so they may import testSupportThirdParty too.
var testSupport = []string{"internal/foldcheck"}

// testMatrix is the test support above stream: internal/wirematrix, the
// scenarios every wire runs. Only _test.go files import it (stream's, and
// the grpc module's); it may depend on stream, a2atest, internal/foldcheck
// and what they depend on, and import testSupportThirdParty.
const testMatrix = "internal/wirematrix"

// testSupportThirdParty lists the imports allowed in test support beside
// thirdParty.
var testSupportThirdParty = []string{"github.com/stretchr/testify/require"}

// graph maps each package of the module (relative path) to the imports of
// its non-test files.
func graph(t *testing.T) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "the module root must be two levels up")
	g := map[string][]string{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // a nested module
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !slices.Contains(g[rel], p) {
				g[rel] = append(g[rel], p)
			}
		}
		if _, ok := g[rel]; !ok {
			g[rel] = nil
		}
		return nil
	})
	require.NoError(t, err)
	return g
}

func local(imp string) (string, bool) {
	if imp == module {
		return ".", true
	}
	return strings.CutPrefix(imp, module+"/")
}

func std(imp string) bool { return !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") }

// deps returns every module package pkg depends on, transitively.
func deps(g map[string][]string, pkg string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, imp := range g[p] {
			if l, ok := local(imp); ok && !seen[l] {
				seen[l] = true
				walk(l)
			}
		}
	}
	walk(pkg)
	return seen
}

func TestImportDirection(t *testing.T) {
	g := graph(t)
	for _, p := range append([]string{"a2a", "stream", "a2atest", "agentcard", "internal/httpx"}, leaves...) {
		_, ok := g[p]
		require.True(t, ok, "package %s not found; the check would be vacuous", p)
	}

	// a2a imports no package of the module but the internal ones that
	// import none themselves (internal/clip): helpers it shares with the
	// rest of the module.
	for imp := range deps(g, "a2a") {
		if !strings.HasPrefix(imp, "internal/") || len(deps(g, imp)) > 0 {
			t.Errorf("a2a imports module package %s; it may import only internal packages that import none", imp)
		}
	}
	for _, leaf := range leaves {
		own := leafInternals[leaf]
		for imp := range deps(g, leaf) {
			if imp != "a2a" && !deps(g, "a2a")[imp] && imp != own && !deps(g, own)[imp] {
				t.Errorf("leaf %s depends on %s; leaves may depend on a2a only", leaf, imp)
			}
		}
	}
	// A leaf's own internal package is held to the leaves' rule.
	for leaf, own := range leafInternals {
		_, ok := g[own]
		require.True(t, ok, "package %s (the internals of %s) not found; the check would be vacuous", own, leaf)
		for imp := range deps(g, own) {
			if imp != "a2a" && !deps(g, "a2a")[imp] {
				t.Errorf("%s, the internals of leaf %s, depends on %s; it may depend on a2a only", own, leaf, imp)
			}
		}
	}
	// agentcard reads agent cards below stream, which uses it for
	// Resolve: it may depend on a2a, reconnect (whose ErrCouldNotConnect
	// its unreachable card matches), internal/httpx (the HTTP plumbing it
	// shares with stream) and what they depend on; never on stream.
	// internal/httpx imports no package of the module but reconnect (and
	// what it imports), whose ErrCouldNotConnect a failed dial matches.
	for imp := range deps(g, "internal/httpx") {
		if imp != "reconnect" && !deps(g, "reconnect")[imp] {
			t.Errorf("internal/httpx depends on %s; it may depend on reconnect only", imp)
		}
	}
	cardDeps := map[string]bool{"a2a": true, "reconnect": true, "internal/httpx": true}
	for _, p := range []string{"a2a", "reconnect"} {
		for imp := range deps(g, p) {
			cardDeps[imp] = true
		}
	}
	for imp := range deps(g, "agentcard") {
		if !cardDeps[imp] {
			t.Errorf("agentcard depends on %s; it may depend on a2a, reconnect, internal/httpx and what they depend on", imp)
		}
	}
	for _, leaf := range leaves {
		if deps(g, leaf)["agentcard"] {
			t.Errorf("leaf %s depends on agentcard", leaf)
		}
	}
	if deps(g, "a2atest")["agentcard"] {
		t.Errorf("a2atest depends on agentcard; it must stay an independent peer")
	}
	// internal/callmark, the marks that say how far a failed call got, is
	// made by transport (for the bindings of other modules) and by stream
	// (for its own), and read by stream only.
	for pkg, imps := range g {
		if pkg != "stream" && pkg != "transport" && slices.Contains(imps, module+"/internal/callmark") {
			t.Errorf("%s imports internal/callmark; only transport and stream may", pkg)
		}
	}
	// internal/checkpoint, the binary format of stream's checkpoints, is
	// held to the leaves' rule (a2a and what a2a depends on), and only
	// stream reads it: stream.Checkpoint is the public value.
	if _, ok := g["internal/checkpoint"]; !ok {
		t.Fatalf("package internal/checkpoint not found; the check would be vacuous")
	}
	for imp := range deps(g, "internal/checkpoint") {
		if imp != "a2a" && !deps(g, "a2a")[imp] {
			t.Errorf("internal/checkpoint depends on %s; it may depend on a2a only", imp)
		}
	}
	for pkg, imps := range g {
		if pkg != "stream" && slices.Contains(imps, module+"/internal/checkpoint") {
			t.Errorf("%s imports internal/checkpoint; only stream may", pkg)
		}
	}
	// relay is a composer above stream: it may depend on stream, on the
	// leaves (chatview, which stream does not use, among them) and on what
	// they depend on, and no library package below it depends on it (its
	// own store packages, relay/..., do).
	if _, ok := g["relay"]; !ok {
		t.Fatalf("package relay not found; the check would be vacuous")
	}
	below := deps(g, "stream")
	below["stream"] = true
	for _, leaf := range leaves {
		below[leaf] = true
		for imp := range deps(g, leaf) {
			below[imp] = true
		}
	}
	for imp := range deps(g, "relay") {
		if !below[imp] {
			t.Errorf("relay depends on %s; it may depend only on stream, the leaves and what they depend on", imp)
		}
	}
	for pkg := range g {
		if pkg == "relay" || strings.HasPrefix(pkg, "relay/") || strings.HasPrefix(pkg, "examples") {
			continue
		}
		if deps(g, pkg)["relay"] {
			t.Errorf("%s depends on relay, which composes above it", pkg)
		}
	}
	// fanout and chain compose above stream too, for callers that fan out
	// and agents that call agents. fanout knows nothing of A2A: it depends
	// on no module package but internal ones that import none
	// (internal/several, the mark by which stream.EndingOf reads its
	// error). chain sorts the errors of stream, fanout and the leaves into
	// links: it may depend only on stream, fanout and what they depend on.
	// No other library package depends on either: chain is the only one
	// that reads fanout, and nothing reads chain.
	for _, p := range []string{"fanout", "chain"} {
		if _, ok := g[p]; !ok {
			t.Fatalf("package %s not found; the check would be vacuous", p)
		}
	}
	for imp := range deps(g, "fanout") {
		if !strings.HasPrefix(imp, "internal/") || len(deps(g, imp)) > 0 {
			t.Errorf("fanout depends on module package %s; it may depend only on internal packages that import none", imp)
		}
	}
	aboveChain := deps(g, "stream")
	aboveChain["stream"] = true
	aboveChain["fanout"] = true
	for imp := range deps(g, "fanout") {
		aboveChain[imp] = true
	}
	for imp := range deps(g, "chain") {
		if !aboveChain[imp] {
			t.Errorf("chain depends on %s; it may depend only on stream, fanout and what they depend on", imp)
		}
	}
	for pkg := range g {
		if strings.HasPrefix(pkg, "examples") {
			continue
		}
		if pkg != "chain" && deps(g, pkg)["chain"] {
			t.Errorf("%s depends on chain, which composes above it", pkg)
		}
		if pkg != "fanout" && pkg != "chain" && deps(g, pkg)["fanout"] {
			t.Errorf("%s depends on fanout; only chain, which composes above it, may", pkg)
		}
	}
	// Test support (internal/foldcheck) is imported by tests only: no
	// library package or example depends on it. It depends on a2a only
	// (and what a2a depends on), so that the tests of any package above a2a
	// may use it.
	for _, p := range testSupport {
		if _, ok := g[p]; !ok {
			t.Fatalf("package %s not found; the check would be vacuous", p)
		}
		for imp := range deps(g, p) {
			if imp != "a2a" && !deps(g, "a2a")[imp] {
				t.Errorf("test support %s depends on %s; it may depend on a2a only", p, imp)
			}
		}
		for pkg := range g {
			if pkg != p && pkg != testMatrix && deps(g, pkg)[p] {
				t.Errorf("%s depends on %s, which only _test.go files may import", pkg, p)
			}
		}
	}
	if _, ok := g[testMatrix]; !ok {
		t.Fatalf("package %s not found; the check would be vacuous", testMatrix)
	}
	matrixDeps := map[string]bool{"stream": true, "a2atest": true, "internal/foldcheck": true}
	for _, p := range []string{"stream", "a2atest", "internal/foldcheck"} {
		for imp := range deps(g, p) {
			matrixDeps[imp] = true
		}
	}
	for imp := range deps(g, testMatrix) {
		if !matrixDeps[imp] {
			t.Errorf("test support %s depends on %s; it may depend on stream, a2atest, internal/foldcheck and what they depend on", testMatrix, imp)
		}
	}
	for pkg := range g {
		if pkg != testMatrix && deps(g, pkg)[testMatrix] {
			t.Errorf("%s depends on %s, which only _test.go files may import", pkg, testMatrix)
		}
	}
	if deps(g, "a2atest")["stream"] {
		t.Errorf("a2atest depends on stream; it must stay an independent peer")
	}
	for pkg := range g {
		if pkg == "a2atest" || pkg == testMatrix || strings.HasPrefix(pkg, "examples") {
			continue
		}
		if deps(g, pkg)["a2atest"] {
			t.Errorf("library package %s depends on a2atest, which only tests and examples may use", pkg)
		}
	}
}

func TestLibraryDependencies(t *testing.T) {
	g := graph(t)
	for pkg, imps := range g {
		if strings.HasPrefix(pkg, "examples") {
			continue
		}
		for _, imp := range imps {
			if _, ok := local(imp); ok || std(imp) || slices.Contains(thirdParty, imp) {
				continue
			}
			if (slices.Contains(testSupport, pkg) || pkg == testMatrix) && slices.Contains(testSupportThirdParty, imp) {
				continue
			}
			t.Errorf("%s imports %s; library code may use only the standard library and %v", pkg, imp, thirdParty)
		}
	}
}
