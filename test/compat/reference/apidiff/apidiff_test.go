// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package apidiff_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/exp/apidiff"
	"golang.org/x/tools/go/packages"

	"sigs.k8s.io/multicluster-runtime/test/compat/reference/internal/reference"
)

// compatibilityDoc is the document that lists the deliberate incompatible differences, relative to the root.
const compatibilityDoc = "docs/getting-started/compatibility.md"

// TestAPICompatibleWithReference compares the exported API of this repository's root module with the reference
// implementation's release reference.Version, both on this module's controller-runtime and k8s.io versions, with
// golang.org/x/exp/apidiff. Every incompatible difference must be listed in compatibilityDoc, and every listed
// difference of a package the comparison covers must still be reported (a fixed difference leaves the list).
// Programs (package main) and internal packages are not API and are not compared.
func TestAPICompatibleWithReference(t *testing.T) {
	root := reference.RepoRoot(t)
	listed := readListed(t, filepath.Join(root, compatibilityDoc))
	scratch := reference.Scratch(t, reference.Download(t), "apidiff.invalid/reference", false)
	old := loadModule(t, scratch, reference.ScratchEnv(), true)
	ours := loadModule(t, root, reference.RepoEnv(), false)

	reported := map[difference]string{}
	for _, c := range compare(old, ours) {
		reported[c.difference] = strings.Join(filter([]string{reported[c.difference], c.message}), "; ")
	}

	compared := map[string]bool{}
	for _, p := range old {
		compared[relative(p.Path())] = true
	}
	var unlisted, stale []string
	for d, message := range reported {
		if _, ok := listed[d]; !ok {
			unlisted = append(unlisted, fmt.Sprintf("| `%s` | `%s` | %s | <reason> |", d.pkg, d.identifier, message))
		}
	}
	for d := range listed {
		switch _, ok := reported[d]; {
		case ok:
		case compared[d.pkg]:
			stale = append(stale, fmt.Sprintf("%s %s", d.pkg, d.identifier))
		case !unpublished(d.pkg):
			stale = append(stale, fmt.Sprintf("%s %s (a package of neither the reference's root module nor a "+
				"module the proxy does not serve)", d.pkg, d.identifier))
		}
	}
	slices.Sort(unlisted)
	slices.Sort(stale)
	if len(unlisted) > 0 {
		t.Errorf("%d incompatible differences from the reference %s are not listed in %s; make them compatible, "+
			"or add a row with the reason to its table:\n%s", len(unlisted), reference.Version, compatibilityDoc,
			strings.Join(unlisted, "\n"))
	}
	if len(stale) > 0 {
		t.Errorf("%d differences listed in %s are no longer reported; remove their rows:\n%s",
			len(stale), compatibilityDoc, strings.Join(stale, "\n"))
	}
	t.Logf("compared %d packages of the reference %s: %d incompatible differences", len(old), reference.Version,
		len(reported))
}

// unpublishedModules are the reference's provider modules that the Go module proxy does not serve at
// reference.Version: their packages cannot be compared, and the differences listed for them are documentation that
// the test does not check.
var unpublishedModules = []string{
	"providers/cluster-api",
	"providers/cluster-inventory-api",
	"providers/file",
	"providers/kind",
}

// unpublished reports whether pkg is in one of unpublishedModules.
func unpublished(pkg string) bool {
	for _, m := range unpublishedModules {
		if pkg == m || strings.HasPrefix(pkg, m+"/") {
			return true
		}
	}
	return false
}

// loadModule loads the types of every package of the module reference.ModulePath as the module in dir sees it
// (its own packages, or those of its dependency on it), without programs, internal packages and test-only
// packages. With tolerateTypeErrors, errors of type checking are ignored: the reference was written for
// controller-runtime v0.24 and some of its function bodies do not compile against v0.25, while its declarations,
// which are what the comparison reads, are complete. Any other error fails the test.
func loadModule(t *testing.T, dir string, env []string, tolerateTypeErrors bool) []*types.Package {
	t.Helper()
	cfg := &packages.Config{
		// Syntax for the module's own packages, which are type-checked from source (a package that does not
		// compile has no export data); export data for their dependencies.
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedTypes |
			packages.NeedSyntax | packages.NeedModule,
		Dir: dir,
		Env: env,
	}
	pkgs, err := packages.Load(cfg, reference.ModulePath+"/...")
	if err != nil {
		reference.Unreachable(t, "loading the packages of "+reference.ModulePath+" in "+dir, err.Error())
	}
	var module []*types.Package
	for _, p := range pkgs {
		if p.Name == "main" || isInternal(p.PkgPath) || len(p.GoFiles) == 0 {
			continue
		}
		for _, e := range p.Errors {
			if tolerateTypeErrors && doesNotCompile(p, e) {
				t.Logf("%s does not compile on this module's dependencies; its declarations are compared: %v", p.PkgPath, e)
				continue
			}
			reference.Unreachable(t, "loading "+p.PkgPath+" in "+dir, e.Error())
		}
		module = append(module, p.Types)
	}
	if len(module) == 0 {
		t.Fatalf("no package of %s found in %s", reference.ModulePath, dir)
	}
	return module
}

// doesNotCompile reports whether e is an error of type checking p: one of the type checker's, or the compiler's
// output for p that go list reports when it builds p's export data.
func doesNotCompile(p *packages.Package, e packages.Error) bool {
	return e.Kind == packages.TypeError || (e.Kind == packages.ListError && strings.Contains(e.Msg, "# "+p.PkgPath+"\n"))
}

func isInternal(path string) bool {
	return strings.HasSuffix(path, "/internal") || strings.Contains(path, "/internal/")
}

// relative returns a package path of the module relative to the module: "." for the root package.
func relative(path string) string {
	if path == reference.ModulePath {
		return "."
	}
	return strings.TrimPrefix(path, reference.ModulePath+"/")
}

// difference is one incompatible difference: the package it is in, relative to the module ("." for the root
// package), and its subject as apidiff names it within that package: an identifier ("New", "(*Registry[T]).Add",
// "Options.IsReady"), a method of another package missing from a type's method set
// ("sigs.k8s.io/controller-runtime/pkg/cluster.Cluster.GetFieldIndexer, method set of NamespacedCluster"), or
// "(package)" for a package that was removed.
type difference struct {
	pkg, identifier string
}

// change is an incompatible difference with apidiff's message about it.
type change struct {
	difference
	message string
}

// compare returns the incompatible differences between the old and the new packages of the module, package by
// package so that each is attributed to its package.
func compare(old, ours []*types.Package) []change {
	byPath := map[string]*types.Package{}
	for _, p := range ours {
		byPath[p.Path()] = p
	}
	var changes []change
	for _, op := range old {
		pkg := relative(op.Path())
		np, ok := byPath[op.Path()]
		if !ok {
			changes = append(changes, change{difference{pkg, "(package)"}, "removed"})
			continue
		}
		for _, c := range apidiff.Changes(op, np).Changes {
			if c.Compatible {
				continue
			}
			subject, _, _ := strings.Cut(c.Message, ": ")
			changes = append(changes, change{difference{pkg, subject}, c.Message})
		}
	}
	return changes
}

// filter drops empty strings.
func filter(s []string) []string {
	return slices.DeleteFunc(s, func(x string) bool { return x == "" })
}

// The comparison reports, by package, what it relies on apidiff for: a changed signature, a removed package, a
// type that is no longer comparable and a method lost from a method set are incompatible; an addition is not.
func TestCompareReportsIncompatibleChanges(t *testing.T) {
	otherOld := check(t, "example.com/other", "package other; type I interface{ M() }", nil)
	otherNew := check(t, "example.com/other", "package other; type I interface{}", nil)
	old := check(t, reference.ModulePath+"/pkg/p", `package p
import "example.com/other"
func F(string) {}
type S struct{ f *int }
type E struct{ other.I }
`, otherOld)
	ours := check(t, reference.ModulePath+"/pkg/p", `package p
import "example.com/other"
func F(int) {}
func Added() {}
type S struct{ f func() }
type E struct{ other.I }
`, otherNew)
	gone := check(t, reference.ModulePath+"/pkg/gone", "package gone", nil)

	changes := compare([]*types.Package{old, gone}, []*types.Package{ours})
	got := make([]difference, 0, len(changes))
	for _, c := range changes {
		got = append(got, c.difference)
	}
	want := []difference{
		{"pkg/gone", "(package)"},
		{"pkg/p", "F"},
		{"pkg/p", "S"},
		{"pkg/p", "example.com/other.I.M, method set of *E"},
		{"pkg/p", "example.com/other.I.M, method set of E"},
	}
	slices.SortFunc(got, func(a, b difference) int { return strings.Compare(a.pkg+" "+a.identifier, b.pkg+" "+b.identifier) })
	if !slices.Equal(got, want) {
		t.Errorf("incompatible differences:\n got %v\nwant %v", got, want)
	}
}

// check type-checks the package path from src, which may import the package imported.
func check(t *testing.T, path, src string, imported *types.Package) *types.Package {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path+".go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importerFunc(func(p string) (*types.Package, error) {
		if imported != nil && p == imported.Path() {
			return imported, nil
		}
		return nil, fmt.Errorf("cannot import %q", p)
	})}
	pkg, err := conf.Check(path, fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
