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

// markdownFile is a Markdown file of the repository, read for what its prose and shell blocks name.
type markdownFile struct {
	path  string // relative to the repository root, with slashes: what failures name
	dir   string // its directory, absolute
	spans []codeSpan
	shell []shellLine
}

// codeSpan is an inline code span of a file's prose (`...`).
type codeSpan struct {
	line int
	text string
	// para is the paragraph, list item or table the span is in: a deprecated name is fine where it says so.
	para string
}

// shellLine is a line of a fenced block of shell commands (sh, bash, shell, console, or no language).
type shellLine struct {
	line int
	text string
}

var fenceRE = regexp.MustCompile("^ {0,3}(```+|~~~+)\\s*([\\w-]*)")

// markdownFiles returns every Markdown file of the repository. Of the changelog, only the Unreleased section is
// read: the sections of releases record history, and names that were renamed or removed since stay as they were.
func markdownFiles(t *testing.T) []*markdownFile {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	var out []*markdownFile
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "bin" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if !strings.HasSuffix(path, ".md") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(data)
		if rel == "CHANGELOG.md" {
			text = unreleased(text)
		}
		f := &markdownFile{path: filepath.ToSlash(rel), dir: filepath.Dir(path)}
		f.parse(text)
		out = append(out, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// unreleased returns the changelog up to the section of the first release after Unreleased.
func unreleased(changelog string) string {
	_, after, found := strings.Cut(changelog, "\n## [Unreleased]")
	if !found {
		return changelog
	}
	if i := strings.Index(after, "\n## ["); i >= 0 {
		return changelog[:len(changelog)-len(after)+i]
	}
	return changelog
}

// parse splits the file into paragraphs, whose code spans it collects, and fenced blocks, whose shell lines it
// collects. HTML comments (snippet markers) are skipped.
func (f *markdownFile) parse(data string) {
	lines := strings.Split(data, "\n")
	var para []string
	paraStart := 0
	flush := func() {
		if len(para) > 0 {
			f.spans = append(f.spans, spansOf(para, paraStart)...)
		}
		para = nil
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			flush()
			lang := m[2]
			shell := lang == "" || lang == "sh" || lang == "bash" || lang == "shell" || lang == "console"
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), m[1][:3]); i++ {
				if shell {
					f.shell = append(f.shell, shellLine{line: i + 1, text: lines[i]})
				}
			}
			continue
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "<!--") || strings.HasPrefix(trimmed, "#"):
			flush()
			if strings.HasPrefix(trimmed, "#") {
				f.spans = append(f.spans, spansOf([]string{line}, i+1)...)
			}
		case strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ") || isOrdered(trimmed):
			// A list item starts a paragraph of its own.
			flush()
			para, paraStart = append(para, line), i+1
		default:
			if len(para) == 0 {
				paraStart = i + 1
			}
			para = append(para, line)
		}
	}
	flush()
}

var orderedRE = regexp.MustCompile(`^\d+\. `)

func isOrdered(s string) bool { return orderedRE.MatchString(s) }

// spansOf returns the code spans of a paragraph whose first line is line number first. A span may continue on the
// next line; its line is where it starts.
func spansOf(para []string, first int) []codeSpan {
	text := strings.Join(para, "\n")
	var out []codeSpan
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		open := i
		i += n
		end := -1
		for j := i; j < len(text); {
			if text[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(text) && text[j+m] == '`' {
				m++
			}
			if m == n {
				end = j
				break
			}
			j += m
		}
		if end < 0 {
			break
		}
		body := strings.ReplaceAll(text[i:end], "\n", " ")
		if len(body) > 2 && body[0] == ' ' && body[len(body)-1] == ' ' && strings.TrimSpace(body) != "" {
			body = body[1 : len(body)-1]
		}
		i = end + n
		if open > 0 && text[open-1] == '[' && strings.HasPrefix(text[i:], "](http") {
			// The text of a link to another site (the reference's `examples/registry` on GitHub): the link says
			// where it is.
			continue
		}
		out = append(out, codeSpan{line: first + strings.Count(text[:open], "\n"), text: body, para: text})
	}
	return out
}
