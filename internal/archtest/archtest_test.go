package archtest

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/prismaudio/prism"

// The caps of docs/architecture.md's rules.
const (
	maxAppLines  = 2500 // no package under app/ passes it
	maxUILines   = 2999 // ui stays under 3,000
	maxFuncLines = 80
)

// overCap are the packages known to pass their cap, each with the lines
// it had when this test came: they may shrink, never grow, and leave this
// table once under the cap (the test says so).
var overCap = map[string]int{}

// longFuncs are the functions known to pass maxFuncLines ("dir/file.go
// Name"), each with its length when this test came: the same rule.
var longFuncs = map[string]int{}

// leaves import no other app/ package.
var leaves = []string{"app/dsp", "app/plot", "app/encode", "window"}

// pkg is one directory's Go files.
type pkg struct {
	dir   string // relative to the module root, slash-separated
	lines int    // non-test lines
	files []*ast.File
	tests []bool // files[i] is a _test.go file
}

func TestArchitecture(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	pkgs := parseAll(t, root, fset)
	t.Run("size", func(t *testing.T) { checkSizes(t, pkgs) })
	t.Run("functions", func(t *testing.T) { checkFuncs(t, fset, pkgs) })
	t.Run("imports", func(t *testing.T) { checkImports(t, fset, pkgs) })
}

// moduleRoot is the directory of the go.mod above the test's.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module "+module+"\n")) {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("archtest: no go.mod of " + module + " above the test")
		}
		dir = up
	}
}

// parseAll parses every .go file of the module (not testdata, not hidden
// directories), grouped by directory.
func parseAll(t *testing.T, root string, fset *token.FileSet) map[string]*pkg {
	pkgs := map[string]*pkg{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		p := pkgs[rel]
		if p == nil {
			p = &pkg{dir: rel}
			pkgs[rel] = p
		}
		test := strings.HasSuffix(name, "_test.go")
		p.files, p.tests = append(p.files, f), append(p.tests, test)
		if !test {
			p.lines += bytes.Count(src, []byte("\n"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// capOf is the most non-test lines dir may have (0: no cap).
func capOf(dir string) int {
	switch {
	case dir == "ui":
		return maxUILines
	case strings.HasPrefix(dir, "app/"):
		return maxAppLines
	}
	return 0
}

func checkSizes(t *testing.T, pkgs map[string]*pkg) {
	for _, p := range sorted(pkgs) {
		limit := capOf(p.dir)
		if limit == 0 {
			continue
		}
		known, over := overCap[p.dir]
		switch {
		case over && p.lines <= limit:
			t.Errorf("%s: %d non-test lines, under its cap of %d now: take it out of overCap", p.dir, p.lines, limit)
		case over && p.lines > known:
			t.Errorf("%s: %d non-test lines, grown past the %d it had (its cap is %d): move a job of its own out", p.dir, p.lines, known, limit)
		case !over && p.lines > limit:
			t.Errorf("%s: %d non-test lines, over its cap of %d: move a job of its own into a package of its own", p.dir, p.lines, limit)
		}
	}
	for dir := range overCap {
		if pkgs[dir] == nil {
			t.Errorf("overCap names %s, which has no Go files", dir)
		}
	}
}

func checkFuncs(t *testing.T, fset *token.FileSet, pkgs map[string]*pkg) {
	seen := map[string]bool{}
	for _, p := range sorted(pkgs) {
		for i, f := range p.files {
			if p.tests[i] {
				continue
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				n := span(fset, fd)
				if n <= maxFuncLines || tableData(fset, fd, n) {
					continue
				}
				key := p.dir + "/" + filepath.Base(fset.File(fd.Pos()).Name()) + " " + fd.Name.Name
				seen[key] = true
				pos := fset.Position(fd.Pos())
				if known, ok := longFuncs[key]; !ok {
					t.Errorf("%s:%d: %s is %d lines, over %d: split it (or make its table a table)", rel(p.dir, pos), pos.Line, fd.Name.Name, n, maxFuncLines)
				} else if n > known {
					t.Errorf("%s:%d: %s is %d lines, grown past the %d it had: split it", rel(p.dir, pos), pos.Line, fd.Name.Name, n, known)
				}
			}
		}
	}
	for key := range longFuncs {
		if !seen[key] {
			t.Errorf("longFuncs names %s, which is no longer over %d lines (or gone): take it out", key, maxFuncLines)
		}
	}
}

// span is how many lines node spans.
func span(fset *token.FileSet, n ast.Node) int {
	return fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1
}

// tableData says whether fd (n lines) is table data: its body's
// outermost composite literals span more than half its lines.
func tableData(fset *token.FileSet, fd *ast.FuncDecl, n int) bool {
	lit := 0
	ast.Inspect(fd.Body, func(x ast.Node) bool {
		if cl, ok := x.(*ast.CompositeLit); ok {
			lit += span(fset, cl)
			return false
		}
		return true
	})
	return 2*lit > n
}

func checkImports(t *testing.T, fset *token.FileSet, pkgs map[string]*pkg) {
	for _, p := range sorted(pkgs) {
		for _, f := range p.files {
			for _, im := range f.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				if why := forbidden(p.dir, path); why != "" {
					pos := fset.Position(im.Pos())
					t.Errorf("%s:%d: %s imports %s: %s", rel(p.dir, pos), pos.Line, p.dir, path, why)
				}
			}
		}
	}
}

// forbidden says why package dir may not import path ("" it may).
func forbidden(dir, path string) string {
	local, inModule := strings.CutPrefix(path, module+"/")
	switch {
	case (under(dir, "ui/view") || under(dir, "ui/panel")) && inModule && local == "ui":
		return "views and panels never see the window (pass a value or a callback)"
	case under(dir, "app") && (path == "fyne.io/fyne/v2" || strings.HasPrefix(path, "fyne.io/")):
		return "app never sees Fyne"
	}
	for _, leaf := range leaves {
		if under(dir, leaf) && inModule && under(local, "app") && !under(local, leaf) {
			return "a leaf imports no sibling app/ package"
		}
	}
	return ""
}

// under says whether dir is pkg or a package under it.
func under(dir, pkg string) bool { return dir == pkg || strings.HasPrefix(dir, pkg+"/") }

// rel is a file's path from the module root.
func rel(dir string, pos token.Position) string {
	return dir + "/" + filepath.Base(pos.Filename)
}

func sorted(pkgs map[string]*pkg) []*pkg {
	out := make([]*pkg, 0, len(pkgs))
	for _, p := range pkgs {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *pkg) int { return strings.Compare(a.dir, b.dir) })
	return out
}

// TestRules checks the rules themselves on small cases, so a broken rule
// cannot pass everything.
func TestRules(t *testing.T) {
	for _, c := range []struct {
		dir, path string
		bad       bool
	}{
		{"ui/view", module + "/ui", true},
		{"ui/panel", module + "/ui", true},
		{"ui/panel", module + "/ui/view", false},
		{"ui", module + "/ui/panel", false},
		{"app/live", "fyne.io/fyne/v2/widget", true},
		{"app/dsp", module + "/app/live", true},
		{"app/dsp/bandlimit", module + "/app/dsp", false},
		{"window", module + "/app/dsp", true},
		{"window", module + "/internal/kaiser", false},
		{"app/live", module + "/app/dsp", false},
		{"app/plot", module + "/app/plotter", true},
		{"app/plotter", module + "/app/live", false},
	} {
		if got := forbidden(c.dir, c.path) != ""; got != c.bad {
			t.Errorf("%s importing %s: forbidden %v, want %v", c.dir, c.path, got, c.bad)
		}
	}
	if capOf("app/live/rowsink") != maxAppLines || capOf("ui") != maxUILines || capOf("ui/view") != 0 {
		t.Error("caps: app/live/rowsink, ui or ui/view")
	}
	fset := token.NewFileSet()
	src := "package p\nfunc table() []int {\n\treturn []int{\n" + strings.Repeat("\t\t1,\n", 90) + "\t}\n}\n" +
		"func long() {\n" + strings.Repeat("\tprintln()\n", 90) + "}\n"
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		fd := d.(*ast.FuncDecl)
		n := span(fset, fd)
		if got, want := tableData(fset, fd, n), fd.Name.Name == "table"; got != want || n < 90 {
			t.Errorf("%s (%d lines): table data %v, want %v", fd.Name.Name, n, got, want)
		}
	}
}
