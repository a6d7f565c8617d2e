// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTableOfContentsListsEveryPage checks that docs/README.md, the book's table of contents, links every page of
// the book.
func TestTableOfContentsListsEveryPage(t *testing.T) {
	toc, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, m := range regexp.MustCompile(`\]\(([^)#\s]+)`).FindAllStringSubmatch(string(toc), -1) {
		linked[filepath.Clean(m[1])] = true
	}
	for _, page := range pages(t) {
		if page == "README.md" || strings.HasPrefix(page, "..") { // the table itself; the project README is no page of the book
			continue
		}
		if !linked[page] {
			t.Errorf("docs/%s is not in the table of contents (docs/README.md)", page)
		}
	}
}

// TestReadmeNamesEveryPackage checks that the project README's layout names every public package of pkg/ (not
// those under internal/) and its providers table every provider.
func TestReadmeNamesEveryPackage(t *testing.T) {
	u := loadUniverse(t)
	data, err := os.ReadFile(filepath.Join(u.root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z][\\w./-]*)`").FindAllStringSubmatch(readme, -1) {
		named[strings.TrimSuffix(m[1], "/")] = true
	}
	for path := range u.ours {
		rel := strings.TrimPrefix(path, modulePath+"/")
		if strings.HasPrefix(rel, "pkg/") && !strings.Contains(rel+"/", "/internal/") && !named[rel] {
			t.Errorf("README.md: the layout does not name the package %s", rel)
		}
	}
	providers, err := os.ReadDir(filepath.Join(u.root, "providers"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range providers {
		if p.IsDir() && !named["providers/"+p.Name()] {
			t.Errorf("README.md: the providers table does not name providers/%s", p.Name())
		}
	}
}
