// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package hack_test

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestGoBuildReportsProgress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out := filepath.Join(t.TempDir(), "demo")
	r := e.startScript("go-build.sh", []string{"-o", out, "./cmd/demo"}, "FAKE_GO_BUILD=block")
	r.next(fmt.Sprintf("[go build] compiling %d packages for demo", packages))
	// While the fake compiler prints nothing, the script still reports, again and again, what it has done so far.
	for range 2 {
		r.next(fmt.Sprintf("[go build] compiling: %d of %d packages", packages/5, packages))
	}
	e.release()
	r.succeed()
	if _, err := os.Stat(out); err != nil {
		t.Errorf("go-build.sh did not build %s: %v", out, err)
	}
}

func TestGoBuildStopsTheCompilerWhenInterrupted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.startScript("go-build.sh", []string{"-o", filepath.Join(t.TempDir(), "demo"), "./cmd/demo"}, "FAKE_GO_BUILD=block")
	r.next("[go build] compiling: ")
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := r.finish(); code != 130 {
		t.Errorf("go-build.sh exited with %d after SIGINT, want 130", code)
	}
	requireGone(t, filepath.Join(e.state, "build.pid"))
}
