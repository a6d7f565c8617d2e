// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package bench holds the test that runs the benchmark suite in its quick mode, so CI proves it works. It asserts
// nothing about speed.
package bench

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/bench/internal/suite"
)

// TestQuickRun runs every scenario small and checks that the table, results.json and the SVG charts are there and
// well-formed.
func TestQuickRun(t *testing.T) {
	log.SetLogger(logr.Discard())
	out, charts := t.TempDir(), t.TempDir()
	var table bytes.Buffer
	if _, err := suite.Run(t.Context(), &table, suite.Options{Quick: true, Out: out, Charts: charts}); err != nil {
		t.Fatalf("%v\n%s", err, table.String())
	}
	t.Log("\n" + table.String())

	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r suite.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	if r.Mode != "quick" || r.CPUs == 0 || r.Date.IsZero() {
		t.Errorf("results.json lacks the run's mode, machine or date: %+v", r)
	}
	scenarios := map[string]bool{}
	for _, res := range r.Results {
		scenarios[res.Scenario] = true
	}
	for _, want := range []string{"floor", "engage", "steady", "memory", "namespaces", "noisy-neighbour", "churn"} {
		if !scenarios[want] {
			t.Errorf("results.json has no %s results", want)
		}
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table has no %s rows", want)
		}
	}

	for _, name := range []string{"perf-engage.svg", "perf-steady.svg", "perf-noisy-neighbour.svg", "perf-memory.svg", "perf-namespaces.svg", "perf-churn.svg"} {
		checkSVG(t, filepath.Join(charts, name))
	}
}

// checkSVG fails the test unless path is a well-formed XML document whose root is an svg element with bars.
func checkSVG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Error(err)
		return
	}
	defer func() { _ = f.Close() }()
	d := xml.NewDecoder(f)
	var root string
	rects := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Errorf("%s is not well-formed: %v", path, err)
			return
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			if se.Name.Local == "rect" {
				rects++
			}
		}
	}
	if root != "svg" {
		t.Errorf("%s: root element %q, want svg", path, root)
	}
	if rects < 2 {
		t.Errorf("%s has no bars", path)
	}
}
