// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package docs_test

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// makefile is what pages may name of the Makefile: its targets, its variables, and for a variable of flags
// (DEMO_FLAGS), the directory of the program the flags are given to.
type makefile struct {
	targets map[string]bool
	vars    map[string]bool
	// programs maps a variable to the directory of the Go program whose command line it is expanded into.
	programs map[string]string
	// scriptVars are the environment variables the hack/ scripts read, which make passes on.
	scriptVars map[string]bool
}

var (
	targetRE     = regexp.MustCompile(`^([A-Za-z0-9_-]+):([^=]|$)`)
	makeVarRE    = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)\s*(\?=|:=|\+=|=)`)
	recipeProgRE = regexp.MustCompile(`cd (\S+) && .*(?:go build|\$\(GO_BUILD\)) -o \S+ (\S+)`)
	scriptVarRE  = regexp.MustCompile(`\$\{?([A-Z_][A-Z0-9_]*)`)
)

// readMakefile reads the targets and variables of the Makefile, and which program each variable of flags reaches:
// a recipe that runs `cd <dir> && ... go build -o <bin> <pkg>` and expands $(VAR) gives VAR to <dir>/<pkg>.
func readMakefile(t *testing.T, root string) *makefile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	mk := &makefile{targets: map[string]bool{}, vars: map[string]bool{}, programs: map[string]string{}, scriptVars: map[string]bool{}}
	// Join continuation lines, so that a recipe is one line.
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	for line := range strings.Lines(text) {
		if m := targetRE.FindStringSubmatch(line); m != nil {
			mk.targets[m[1]] = true
		}
		if m := makeVarRE.FindStringSubmatch(line); m != nil {
			mk.vars[m[1]] = true
		}
		if m := recipeProgRE.FindStringSubmatch(line); m != nil {
			for _, v := range regexp.MustCompile(`\$\(([A-Z_][A-Z0-9_]*)\)`).FindAllStringSubmatch(line, -1) {
				mk.programs[v[1]] = filepath.Join(root, m[1], m[2])
			}
		}
	}
	scripts, _ := filepath.Glob(filepath.Join(root, "hack", "*.sh"))
	for _, s := range scripts {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range scriptVarRE.FindAllStringSubmatch(string(data), -1) {
			mk.scriptVars[m[1]] = true
		}
	}
	return mk
}

// check checks a make command: its targets, its variables, and the flags in a variable of flags.
func (mk *makefile) check(cmd []string, u *universe) []string {
	var errs []string
	for i := 1; i < len(cmd); i++ {
		w := cmd[i]
		switch {
		case w == "-C" || w == "-f":
			return nil // another Makefile
		case strings.HasPrefix(w, "-"):
		case strings.Contains(w, "="):
			name, val, _ := strings.Cut(w, "=")
			if !mk.vars[name] && !mk.scriptVars[name] {
				errs = append(errs, fmt.Sprintf("the Makefile has no variable %s (nor do the hack/ scripts read it)", name))
				continue
			}
			if dir, ok := mk.programs[name]; ok {
				errs = append(errs, u.checkProgramFlags(dir, shellWords(val))...)
			}
		default:
			if !mk.targets[w] {
				errs = append(errs, fmt.Sprintf("the Makefile has no target %s", w))
			}
		}
	}
	return errs
}

// externalFlagFuncs are functions of modules outside this repository's workspace that define a flag when called,
// by function name: the package that has the function and the flag it defines (from that package's source).
var externalFlagFuncs = map[string]struct{ pkg, flag string }{
	"SetupProviderFileFlag": {"sigs.k8s.io/cluster-inventory-api/pkg/access", "clusterprofile-provider-file"},
}

// definedFlags returns the names of the flags a file defines with package flag's functions or a FlagSet's
// methods: flag.Int("clusters", ...), fs.StringVar(&v, "name", ...), flag.String(access.ProviderFileFlag, ...). A
// name given as a constant of another package is read from the universe.
func (u *universe) definedFlags(f *ast.File) []string {
	imports := map[string]string{}
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		if spec.Name != nil {
			imports[spec.Name.Name] = path
		} else if p := u.pkgs[path]; p != nil {
			imports[p.Name()] = path
		}
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, isIdent := sel.X.(*ast.Ident); isIdent {
			path := imports[x.Name]
			if path == "" && strings.HasSuffix(externalFlagFuncs[sel.Sel.Name].pkg, "/"+x.Name) {
				path = externalFlagFuncs[sel.Sel.Name].pkg // a package outside the universe, imported by its name
			}
			if ext, found := externalFlagFuncs[sel.Sel.Name]; found && ext.pkg == path {
				out = append(out, ext.flag)
				return true
			}
		}
		if !flagDefiners[sel.Sel.Name] {
			return true
		}
		for i, a := range call.Args {
			if i > 1 {
				break
			}
			if name, ok := u.stringConstant(a, imports); ok {
				out = append(out, name)
				break
			}
		}
		return true
	})
	return out
}

// stringConstant returns the value of a string literal, or of a string constant of an imported package.
func (u *universe) stringConstant(e ast.Expr, imports map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		}
	case *ast.SelectorExpr:
		id, ok := e.X.(*ast.Ident)
		if !ok {
			return "", false
		}
		if p := u.pkgs[imports[id.Name]]; p != nil {
			if c, ok := p.Scope().Lookup(e.Sel.Name).(*types.Const); ok && c.Val().Kind() == constant.String {
				return constant.StringVal(c.Val()), true
			}
		}
	}
	return "", false
}
