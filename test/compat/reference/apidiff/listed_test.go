// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package apidiff_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The table of deliberate differences in compatibilityDoc sits between these two lines. Its columns are Package,
// Identifier, Difference and Reason; Package and Identifier are written as code (`pkg/clusters`,
// `(*Registry[T]).Add`), as apidiff names them (see parseChange), and Reason must not be empty.
const (
	tableBegin = "<!-- apidiff:begin -->"
	tableEnd   = "<!-- apidiff:end -->"
)

var errNoTable = errors.New("no table of differences")

// readListed reads the table of deliberate differences of the document at path.
func readListed(t *testing.T, path string) map[difference]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := parseListed(string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return listed
}

// parseListed returns the rows of the table of deliberate differences in doc, by difference, with their reasons.
func parseListed(doc string) (map[difference]string, error) {
	_, rest, ok := strings.Cut(doc, tableBegin)
	if !ok {
		return nil, fmt.Errorf("%w: the line %s is missing", errNoTable, tableBegin)
	}
	table, _, ok := strings.Cut(rest, tableEnd)
	if !ok {
		return nil, fmt.Errorf("%w: the line %s is missing", errNoTable, tableEnd)
	}
	listed := map[difference]string{}
	header := true
	for n, line := range strings.Split(strings.TrimSpace(table), "\n") {
		cells, err := row(line)
		if err != nil {
			return nil, fmt.Errorf("line %d of the table: %w", n+1, err)
		}
		if header {
			if strings.Join(cells, "|") != "Package|Identifier|Difference|Reason" {
				return nil, fmt.Errorf("the table's header is %q, want Package, Identifier, Difference, Reason", line)
			}
			header = false
			continue
		}
		if strings.Trim(cells[0], "-: ") == "" {
			continue // the delimiter row
		}
		pkg, okPkg := code(cells[0])
		identifier, okID := code(cells[1])
		if !okPkg || !okID {
			return nil, fmt.Errorf("line %d of the table: Package and Identifier must be code (`...`): %q", n+1, line)
		}
		if cells[3] == "" {
			return nil, fmt.Errorf("line %d of the table: %s %s has no reason", n+1, pkg, identifier)
		}
		d := difference{pkg: pkg, identifier: identifier}
		if _, dup := listed[d]; dup {
			return nil, fmt.Errorf("line %d of the table: %s %s is listed twice", n+1, pkg, identifier)
		}
		listed[d] = cells[3]
	}
	if header {
		return nil, fmt.Errorf("%w: nothing between %s and %s", errNoTable, tableBegin, tableEnd)
	}
	return listed, nil
}

// row splits a Markdown table row into its four trimmed cells. A '|' inside code must be written as "\|".
func row(line string) ([]string, error) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") {
		return nil, fmt.Errorf("not a table row: %q", line)
	}
	line = strings.ReplaceAll(line[1:len(line)-1], `\|`, "\x00")
	cells := strings.Split(line, "|")
	if len(cells) != 4 {
		return nil, fmt.Errorf("%d cells, want 4: %q", len(cells), line)
	}
	for i, c := range cells {
		cells[i] = strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|"))
	}
	return cells, nil
}

// code returns the text of a cell written as code, `like this`.
func code(cell string) (string, bool) {
	if len(cell) < 3 || cell[0] != '`' || cell[len(cell)-1] != '`' {
		return "", false
	}
	return cell[1 : len(cell)-1], true
}

func TestParseListed(t *testing.T) {
	const table = tableBegin + `
| Package | Identifier | Difference | Reason |
| --- | --- | --- | --- |
| ` + "`pkg/clusters`" + ` | ` + "`(*Registry[T]).Add`" + ` | changed | because \| of this |
| ` + "`.`" + ` | ` + "`NewWebhookManagedBy`" + ` | changed | controller-runtime v0.25 |
` + tableEnd
	got, err := parseListed("# Title\n\n" + table + "\nmore prose\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[difference]string{
		{"pkg/clusters", "(*Registry[T]).Add"}: "because | of this",
		{".", "NewWebhookManagedBy"}:           "controller-runtime v0.25",
	}
	if len(got) != len(want) {
		t.Fatalf("parseListed = %v, want %v", got, want)
	}
	for d, reason := range want {
		if got[d] != reason {
			t.Errorf("parseListed[%v] = %q, want %q", d, got[d], reason)
		}
	}

	for name, doc := range map[string]string{
		"no table":      "# Title\n",
		"no end":        tableBegin + "\n| Package | Identifier | Difference | Reason |\n",
		"wrong header":  tableBegin + "\n| Package | Name | Difference | Reason |\n" + tableEnd,
		"no reason":     tableBegin + "\n| Package | Identifier | Difference | Reason |\n| `a` | `B` | changed | |\n" + tableEnd,
		"not code":      tableBegin + "\n| Package | Identifier | Difference | Reason |\n| a | `B` | changed | why |\n" + tableEnd,
		"listed twice":  tableBegin + "\n| Package | Identifier | Difference | Reason |\n| `a` | `B` | x | why |\n| `a` | `B` | y | why |\n" + tableEnd,
		"too few cells": tableBegin + "\n| Package | Identifier | Difference | Reason |\n| `a` | `B` | why |\n" + tableEnd,
	} {
		if _, err := parseListed(doc); err == nil {
			t.Errorf("%s: parseListed accepted %q", name, doc)
		}
	}
}
