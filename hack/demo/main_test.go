// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
)

// buildDemo builds the demo into a temporary directory.
func buildDemo(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "demo")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startDemo runs the demo with args and its own TMPDIR, which it returns.
func startDemo(t *testing.T, bin string, args ...string) (cmd *exec.Cmd, out *program.Output, tmp string, exited chan error) {
	t.Helper()
	tmp = t.TempDir()
	cmd = exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out = &program.Output{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited = make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	return cmd, out, tmp, exited
}

// waitExit waits for the demo to exit and fails the test unless it exits cleanly within timeout.
func waitExit(t *testing.T, exited chan error, out *program.Output, timeout time.Duration) {
	t.Helper()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the demo failed: %v\n%s", err, out)
		}
	case <-time.After(timeout):
		t.Fatalf("the demo did not exit within %s\n%s", timeout, out)
	}
}

// leftovers returns the processes whose command line mentions dir (the control planes keep their data and
// certificates in the demo's TMPDIR) and the files left in dir, apart from the fleet kit's shared, empty port lock
// directory.
func leftovers(t *testing.T, dir string) (procs, files []string) {
	t.Helper()
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, path := range cmdlines {
		data, err := os.ReadFile(path)
		if err == nil && bytes.Contains(data, []byte(dir)) {
			procs = append(procs, strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		// The fleet kit's port lock directory is shared by every process of the user, on purpose; it must be empty.
		if strings.HasPrefix(e.Name(), "multicluster-runtime-envtest-ports-") {
			locks, _ := os.ReadDir(filepath.Join(dir, e.Name()))
			for _, l := range locks {
				files = append(files, filepath.Join(e.Name(), l.Name()))
			}
			continue
		}
		files = append(files, e.Name())
	}
	return procs, files
}

// assertNothingLeft fails the test if, shortly after the demo exited, a process or file of it remains.
func assertNothingLeft(t *testing.T, dir string) {
	t.Helper()
	var procs, files []string
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		procs, files = leftovers(t, dir)
		return len(procs) == 0 && len(files) == 0, nil
	})
	if err != nil {
		t.Errorf("left behind: processes %q, files %q", procs, files)
	}
}

// The whole scenario, short: every cluster engaged and reconciled under its name, a fourth added and engaged, the
// first removed and disengaged, a summary, a clean exit, and nothing left behind.
func TestDemoScenario(t *testing.T) {
	bin := buildDemo(t)
	_, out, tmp, exited := startDemo(t, bin, "-clusters", "3", "-duration", "10s")
	waitExit(t, exited, out, 3*time.Minute)
	text := out.String()
	for _, want := range []string{
		"ENGAGED    cluster member-0", "ENGAGED    cluster member-1", "ENGAGED    cluster member-2",
		"RECONCILE  cluster member-0  ConfigMap demo/greeting", "RECONCILE  cluster member-2  ConfigMap demo/greeting",
		"adding a control plane: member-3", "ENGAGED    cluster member-3", "RECONCILE  cluster member-3  ConfigMap demo/greeting",
		"removing member-0", "DISENGAGED cluster member-0",
		"Summary after", "member-0   removed", "member-3   engaged", "4 clusters seen",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if strings.Count(text, "DISENGAGED") != 1 {
		t.Errorf("want exactly one DISENGAGED line (member-0)")
	}
	if t.Failed() {
		t.Logf("output:\n%s", text)
	}
	assertNothingLeft(t, tmp)
}

// Ctrl-C while the clusters are being engaged stops everything: a clean exit, no control plane process and no
// temporary file left.
func TestDemoInterrupted(t *testing.T) {
	bin := buildDemo(t)
	cmd, out, tmp, exited := startDemo(t, bin, "-clusters", "2", "-keep")
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		return strings.Contains(out.String(), "ENGAGED"), nil
	})
	if err != nil {
		t.Fatalf("no cluster engaged:\n%s", out)
	}
	if procs, _ := leftovers(t, tmp); len(procs) == 0 {
		t.Fatal("found no control plane process of the demo while it runs: the leftover check would prove nothing")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitExit(t, exited, out, time.Minute)
	assertNothingLeft(t, tmp)
}

// With -keep, the demo tells how to run a controller of your own against its fleet, and the quickstart's program
// run that way reconciles the demo's ConfigMap in the members, as the quickstart page says.
func TestDemoKeepRunsTheQuickstart(t *testing.T) {
	bin := buildDemo(t)
	cmd, out, tmp, exited := startDemo(t, bin, "-clusters", "1", "-keep")
	runRE := regexp.MustCompile(`cd examples/quickstart && go run \. --kubeconfig (\S+) -fleet (\S+)`)
	var m []string
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 3*time.Minute, true, func(context.Context) (bool, error) {
		m = runRE.FindStringSubmatch(out.String())
		return m != nil, nil
	})
	if err != nil {
		t.Fatalf("the demo did not say how to run a controller against its fleet:\n%s", out)
	}

	quickstart := filepath.Join(t.TempDir(), "quickstart")
	build := exec.Command("go", "build", "-o", quickstart, ".")
	build.Dir = filepath.Join("..", "..", "examples", "quickstart")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of examples/quickstart: %v\n%s", err, b)
	}
	q := exec.Command(quickstart, "--kubeconfig", m[1], "-fleet", m[2])
	qOut := &program.Output{}
	q.Stdout, q.Stderr = qOut, qOut
	if err := q.Start(); err != nil {
		t.Fatal(err)
	}
	qExited := make(chan error, 1)
	go func() { qExited <- q.Wait() }()
	t.Cleanup(func() {
		if q.ProcessState == nil {
			_ = q.Process.Kill()
		}
	})
	err = wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		for line := range strings.Lines(qOut.String()) {
			if strings.Contains(line, "Reconciled ConfigMap") && strings.Contains(line, m[2]) && strings.Contains(line, `"name": "greeting"`) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("the quickstart did not reconcile the demo's ConfigMap in a member:\n%s", qOut)
	}
	if err := q.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitExit(t, qExited, qOut, time.Minute)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitExit(t, exited, out, time.Minute)
	assertNothingLeft(t, tmp)
}
