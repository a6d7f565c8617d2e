// Package bench holds the test that runs the benchmark suite in its quick mode, so CI proves it works. It asserts
// nothing about speed.
package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/bench/internal/suite"
)

func TestQuickRun(t *testing.T) {
	log.SetLogger(logr.Discard())
	out := t.TempDir()
	var table bytes.Buffer
	if _, err := suite.Run(t.Context(), &table, suite.Options{Quick: true, Out: out}); err != nil {
		t.Fatalf("%v\n%s", err, table.String())
	}
	t.Log("\n" + table.String())
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r suite.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	scenarios := map[string]bool{}
	for _, res := range r.Results {
		scenarios[res.Scenario] = true
	}
	for _, want := range []string{"floor", "engage", "noisy-neighbour", "churn"} {
		if !scenarios[want] {
			t.Errorf("results.json has no %s results", want)
		}
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table has no %s rows", want)
		}
	}
}
