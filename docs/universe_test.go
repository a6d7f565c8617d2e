// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package docs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// modulePath is the module path of the repository's root module; every module of the repository is below it.
const modulePath = "sigs.k8s.io/multicluster-runtime"

// universe is the Go API the book may name: every package of every module of the repository (all of them, through
// the repository's go.work) and every package they import directly, their types read from the compiler's export
// data. Pages name packages by the aliases the code imports them under (mcmanager, ctrl, corev1, ...) or by their
// package names.
type universe struct {
	root string // the repository root, absolute
	fset *token.FileSet
	// pkgs are the packages of the universe by import path; ours are those of the repository.
	pkgs map[string]*types.Package
	ours map[string]bool
	// aliases maps a name a page may qualify an identifier with to the packages it can mean.
	aliases map[string][]*types.Package
	// names maps every exported name to what it names: package members, methods and struct fields.
	names map[string][]types.Object
	// strings holds the identifier-like string literals of the repository's Go code: Event reasons, condition
	// types and the like, which pages name like identifiers.
	strings map[string]bool
	// tests holds the names of the Test, Fuzz, Benchmark and Example functions of the repository.
	tests map[string]bool

	parsed map[string]*sourceFile // source files read for doc comments, by path
}

var (
	universeOnce sync.Once
	theUniverse  *universe
	universeErr  error
)

// loadUniverse loads the universe once per test binary.
func loadUniverse(t *testing.T) *universe {
	t.Helper()
	universeOnce.Do(func() { theUniverse, universeErr = newUniverse() })
	if universeErr != nil {
		t.Fatal(universeErr)
	}
	return theUniverse
}

// listedPackage is what `go list -json` reports of a package.
type listedPackage struct {
	ImportPath string
	Name       string
	Export     string
	Dir        string
	Imports    []string
	Standard   bool
	Error      *struct{ Err string }
}

func newUniverse() (*universe, error) {
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		return nil, err
	}
	u := &universe{
		root:    root,
		fset:    token.NewFileSet(),
		pkgs:    map[string]*types.Package{},
		ours:    map[string]bool{},
		aliases: map[string][]*types.Package{},
		names:   map[string][]types.Object{},
		strings: map[string]bool{},
		tests:   map[string]bool{},
		parsed:  map[string]*sourceFile{},
	}
	// Every module of the repository is in go.work, so that one `go list` sees them all (the tests themselves run
	// each module on its own, with GOWORK=off). -export compiles what is not in the build cache yet.
	cmd := exec.Command("go", "list", "-e", "-export", "-deps",
		"-json=ImportPath,Name,Export,Dir,Imports,Standard,Error", modulePath+"/...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(root, "go.work"), "GOFLAGS=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list of the repository's packages: %w\n%s", err, stderr.String())
	}
	listed := map[string]*listedPackage{}
	var order []*listedPackage
	dec := json.NewDecoder(&stdout)
	for {
		p := &listedPackage{}
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %w", err)
		}
		listed[p.ImportPath] = p
		order = append(order, p)
	}
	imp := importer.ForCompiler(u.fset, "gc", func(path string) (io.ReadCloser, error) {
		p := listed[path]
		if p == nil || p.Export == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(p.Export)
	})
	wanted := map[string]bool{}
	for _, p := range order {
		if p.ImportPath == modulePath || strings.HasPrefix(p.ImportPath, modulePath+"/") {
			if p.Error != nil {
				return nil, fmt.Errorf("package %s does not load: %s", p.ImportPath, p.Error.Err)
			}
			u.ours[p.ImportPath] = true
			wanted[p.ImportPath] = true
			for _, dep := range p.Imports {
				wanted[dep] = true
			}
		}
	}
	// Pages name Kubernetes kinds (`RoleBinding`) whatever the code imports.
	for path, p := range listed {
		if strings.HasPrefix(path, "k8s.io/api/") && p.Name != "" {
			wanted[path] = true
		}
	}
	for path := range wanted {
		p := listed[path]
		if p == nil || p.Export == "" || p.Name == "main" || path == "C" || path == "unsafe" {
			continue
		}
		pkg, err := imp.Import(path)
		if err != nil {
			return nil, fmt.Errorf("reading the export data of %s: %w", path, err)
		}
		u.pkgs[path] = pkg
	}
	mandated, err := linterAliases(filepath.Join(root, ".golangci.yml"))
	if err != nil {
		return nil, err
	}
	if err := u.readSources(mandated); err != nil {
		return nil, err
	}
	for path, pkg := range u.pkgs {
		if _, ok := mandated[path]; !ok {
			u.addAlias(pkg.Name(), pkg)
		}
		u.addNames(pkg)
	}
	for path, alias := range mandated {
		if pkg := u.pkgs[path]; pkg != nil {
			u.addAlias(alias, pkg)
		}
	}
	return u, nil
}

func (u *universe) addAlias(alias string, pkg *types.Package) {
	for _, p := range u.aliases[alias] {
		if p == pkg {
			return
		}
	}
	u.aliases[alias] = append(u.aliases[alias], pkg)
}

// addNames records the exported names of pkg: its members, the methods of its types and the fields of its structs.
func (u *universe) addNames(pkg *types.Package) {
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		u.names[name] = append(u.names[name], obj)
		if c, ok := obj.(*types.Const); ok && c.Val().Kind() == constant.String {
			// The value of a string constant (clientcmdapi.NeverExecInteractiveMode is "Never").
			if s := constant.StringVal(c.Val()); identLike.MatchString(s) {
				u.strings[s] = true
			}
		}
		tn, ok := obj.(*types.TypeName)
		if !ok {
			continue
		}
		typ := tn.Type()
		var mset *types.MethodSet
		if types.IsInterface(typ) {
			mset = types.NewMethodSet(typ)
		} else {
			mset = types.NewMethodSet(types.NewPointer(typ))
		}
		for sel := range mset.Methods() {
			if m := sel.Obj(); m.Exported() && m.Pkg() == pkg {
				u.names[m.Name()] = append(u.names[m.Name()], m)
			}
		}
		if st, ok := typ.Underlying().(*types.Struct); ok {
			for f := range st.Fields() {
				if f.Exported() {
					u.names[f.Name()] = append(u.names[f.Name()], f)
				}
			}
		}
	}
}

// identLike is a string literal that pages may name like an identifier: an Event reason or a condition type.
var identLike = regexp.MustCompile(`^[A-Z][A-Za-z0-9]+$`)

// readSources reads the repository's Go files for what export data does not hold: the aliases packages are
// imported under, identifier-like string literals, and the names of test functions.
func (u *universe) readSources(mandated map[string]string) error {
	return filepath.WalkDir(u.root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != u.root && (strings.HasPrefix(name, ".") || name == "bin" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parsing %s: %w", path, err)
		}
		for _, spec := range f.Imports {
			if spec.Name == nil || spec.Name.Name == "_" || spec.Name.Name == "." {
				continue
			}
			ipath, _ := strconv.Unquote(spec.Path.Value)
			if _, ok := mandated[ipath]; ok {
				continue
			}
			if pkg := u.pkgs[ipath]; pkg != nil {
				u.addAlias(spec.Name.Name, pkg)
			}
		}
		test := strings.HasSuffix(path, "_test.go")
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && identLike.MatchString(s) {
					u.strings[s] = true
				}
			case *ast.FuncDecl:
				if test && n.Recv == nil {
					u.tests[n.Name.Name] = true
				}
			}
			return true
		})
		return nil
	})
}

// linterAliases returns the import aliases .golangci.yml mandates, by import path: a page that names
// mcbuilder.X means this repository's builder, and builder.X controller-runtime's.
func linterAliases(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	re := regexp.MustCompile(`(?m)^\s*- pkg: (\S+)\s*\n\s*alias: (\S+)\s*$`)
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		out[m[1]] = m[2]
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no import aliases found", path)
	}
	return out, nil
}

// deprecation returns the "Deprecated:" paragraph of obj's doc comment, or "" if it has none. Export data holds
// positions but no comments, so it reads the declaration's source file.
func (u *universe) deprecation(obj types.Object) string {
	pos := u.fset.Position(obj.Pos())
	if !pos.IsValid() || pos.Filename == "" {
		return ""
	}
	src, ok := u.parsed[pos.Filename]
	if !ok {
		src = &sourceFile{fset: token.NewFileSet()}
		f, err := parser.ParseFile(src.fset, pos.Filename, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err == nil {
			src.file = f
		}
		u.parsed[pos.Filename] = src
	}
	if src.file == nil {
		return ""
	}
	match := func(id *ast.Ident) bool { return id.Name == obj.Name() && src.fset.Position(id.Pos()).Line == pos.Line }
	var doc *ast.CommentGroup
	ast.Inspect(src.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if match(n.Name) {
				doc = n.Doc
			}
		case *ast.GenDecl:
			for _, spec := range n.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if match(s.Name) {
						doc = firstDoc(s.Doc, n.Doc)
					}
				case *ast.ValueSpec:
					for _, id := range s.Names {
						if match(id) {
							doc = firstDoc(s.Doc, n.Doc)
						}
					}
				}
			}
		case *ast.Field:
			for _, id := range n.Names {
				if match(id) {
					doc = n.Doc
				}
			}
		}
		return doc == nil
	})
	if doc == nil {
		return ""
	}
	for line := range strings.Lines(doc.Text()) {
		if strings.HasPrefix(line, "Deprecated:") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// sourceFile is a Go file parsed with its comments.
type sourceFile struct {
	fset *token.FileSet
	file *ast.File
}

func firstDoc(docs ...*ast.CommentGroup) *ast.CommentGroup {
	for _, d := range docs {
		if d != nil {
			return d
		}
	}
	return nil
}
