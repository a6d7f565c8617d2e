// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package program_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
)

// BuildPackage builds a package other than the test's own, named after it; the program runs with the environment
// and arguments given to Start, its output is searchable while it runs, and it exits cleanly on SIGINT.
func TestBuildStartWaitInterrupt(t *testing.T) {
	bin := program.BuildPackage(t, "./testdata/waiter")
	if filepath.Base(bin) != "waiter" {
		t.Errorf("binary %s, want one named waiter", bin)
	}
	p := program.Start(t, bin, []string{"WAITER_FOR=SIGINT"}, "-a", "b")
	p.WaitFor(t, "waiting for", "SIGINT")
	if n := p.WaitForMatch(t, 0, regexp.MustCompile(`^args: \[-a b\]$`)); n != 1 {
		t.Errorf("the arguments are on line %d of the output, want line 1", n)
	}
	if got := p.Lines("waiting"); len(got) != 1 || got[0] != "waiting for SIGINT" {
		t.Errorf("Lines(waiting) = %q, want the one line without its line end", got)
	}
	p.Interrupt(t)
}

// A program that exits with an error after SIGINT fails the test that interrupted it.
func TestInterruptReportsAnUncleanExit(t *testing.T) {
	p := program.Start(t, program.BuildPackage(t, "./testdata/waiter"), []string{"WAITER_EXIT=3"})
	p.WaitFor(t, "waiting for")
	rec := &recordingTB{TB: t}
	p.Interrupt(rec)
	if len(rec.errors) != 1 || !regexp.MustCompile(`exit status 3`).MatchString(rec.errors[0]) {
		t.Errorf("Interrupt reported %q, want one error with the exit status 3", rec.errors)
	}
}

// recordingTB records the errors reported through it instead of failing the test.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
