package exampletest_test

import (
	"path/filepath"
	"testing"

	"sigs.k8s.io/multicluster-runtime/internal/exampletest"
)

// BuildPackage builds a package other than the test's own, named after it; the program runs with the environment
// given to Start and exits cleanly on SIGINT.
func TestBuildPackage(t *testing.T) {
	bin := exampletest.BuildPackage(t, "./testdata/waiter")
	if filepath.Base(bin) != "waiter" {
		t.Errorf("binary %s, want one named waiter", bin)
	}
	p := exampletest.Start(t, bin, []string{"WAITER_FOR=SIGINT"})
	p.WaitFor(t, "waiting for SIGINT")
	p.Interrupt(t)
}
