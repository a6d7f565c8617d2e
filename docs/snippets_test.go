// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package docs checks the book: every Go code block of a page is a region of a Go file that CI compiles, so the
// documentation cannot drift from the code. Run `go test ./docs -update` to rewrite the blocks from their sources.
package docs_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the Go blocks of the pages from their snippet regions")

// markerRE is the line that must precede a Go block: <!-- snippet: path/from/repo/root.go#name -->
var markerRE = regexp.MustCompile(`^<!-- snippet: ([^#\s]+)#([\w.-]+) -->$`)

// repoRoot is the repository root, one level above this package.
const repoRoot = ".."

// region returns the lines between `// snippet:start name` and `// snippet:end name` of the file, without their
// common indentation and without blank lines at either end.
func region(path, name string) (string, error) {
	data, err := os.ReadFile(filepath.Join(repoRoot, path))
	if err != nil {
		return "", err
	}
	var lines []string
	in, found := false, false
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := sc.Text()
		switch strings.TrimSpace(line) {
		case "// snippet:start " + name:
			in, found = true, true
			continue
		case "// snippet:end " + name:
			in = false
			continue
		}
		if in && !strings.HasPrefix(strings.TrimSpace(line), "// snippet:") {
			lines = append(lines, line)
		}
	}
	if !found {
		return "", fmt.Errorf("%s has no region %q", path, name)
	}
	if in {
		return "", fmt.Errorf("%s: region %q has no end", path, name)
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return dedent(lines), nil
}

// dedent removes the tabs common to every non-empty line.
func dedent(lines []string) string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			lines[i] = l[common:]
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// pages returns every Markdown file of the book, and the project README.
func pages(t *testing.T) []string {
	t.Helper()
	out := []string{filepath.Join(repoRoot, "README.md")}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			out = append(out, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGoBlocksAreCompiledCode checks that every ```go block of every page is preceded by a snippet marker and is
// exactly the marked region of its source file.
func TestGoBlocksAreCompiledCode(t *testing.T) {
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		var out []string
		changed := false
		for i := 0; i < len(lines); i++ {
			out = append(out, lines[i])
			if strings.TrimSpace(lines[i]) != "```go" {
				continue
			}
			end := i + 1
			for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
				end++
			}
			if end == len(lines) {
				t.Errorf("%s:%d: unterminated Go block", page, i+1)
				break
			}
			body := strings.Join(lines[i+1:end], "\n") + "\n"
			prev := ""
			for j := i - 1; j >= 0; j-- {
				if strings.TrimSpace(lines[j]) != "" {
					prev = strings.TrimSpace(lines[j])
					break
				}
			}
			m := markerRE.FindStringSubmatch(prev)
			if m == nil {
				t.Errorf("%s:%d: a Go block without a `<!-- snippet: path#name -->` marker before it", page, i+1)
				out = append(out, lines[i+1:end+1]...)
				i = end
				continue
			}
			want, err := region(m[1], m[2])
			if err != nil {
				t.Errorf("%s:%d: %v", page, i+1, err)
				out = append(out, lines[i+1:end+1]...)
				i = end
				continue
			}
			if body != want {
				if *update {
					changed = true
				} else {
					t.Errorf("%s:%d: the block differs from %s#%s; run `go test ./docs -update`", page, i+1, m[1], m[2])
				}
			}
			out = append(out, strings.Split(strings.TrimSuffix(want, "\n"), "\n")...)
			out = append(out, lines[end])
			i = end
		}
		if changed {
			if err := os.WriteFile(page, []byte(strings.Join(out, "\n")), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestLinksResolve checks that relative links between pages, and to files of the repository, point at something.
func TestLinksResolve(t *testing.T) {
	linkRE := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
				t.Errorf("%s: broken link %s", page, target)
			}
		}
	}
}
