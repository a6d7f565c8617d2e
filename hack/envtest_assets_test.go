// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package hack_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestBuildsOnceAndThenUsesTheCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t)

	r := e.start("FAKE_GO_BUILD=ok")
	if first := r.next("[envtest-assets]"); !strings.Contains(first, "building kube-apiserver v1.37.2 and etcd into "+e.dest()) {
		t.Errorf("first line = %q, want it to say what it builds and where", first)
	}
	if got := r.succeed(); got != e.dest() {
		t.Errorf("printed %q, want %q", got, e.dest())
	}
	e.requireInstalled()
	if !strings.Contains(r.stderr(), "done in ") {
		t.Errorf("the build did not say it was done:\n%s", r.stderr())
	}
	// A line per package would flood a CI log: the 52 packages must not show up one by one.
	if n := len(r.seen); n > 15 {
		t.Errorf("the script printed %d lines for a build of %d packages, want a few:\n%s", n, packages, r.stderr())
	}

	// One go build for both binaries, with the flags of a Kubernetes release build.
	calls, err := os.ReadFile(filepath.Join(e.state, "calls"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"-tags selinux,notest,grpcnotrace ", "-trimpath ", "-ldflags -s -w ", "version.gitMinor=37 ",
		" k8s.io/kubernetes/cmd/kube-apiserver go.etcd.io/etcd/server/v3",
	} {
		if !strings.Contains(string(calls), want) {
			t.Errorf("the go commands lack %q:\n%s", want, calls)
		}
	}

	r = e.start("FAKE_GO_BUILD=nospace")
	if first := r.next("[envtest-assets]"); !strings.Contains(first, "using kube-apiserver v1.37.2 and etcd 3.7.0 from "+e.dest()) {
		t.Errorf("first line of a run with a full cache = %q", first)
	}
	if got := r.succeed(); got != e.dest() {
		t.Errorf("printed %q, want %q", got, e.dest())
	}
	if n := e.builds(); n != 1 {
		t.Errorf("go build ran %d times, want once", n)
	}
}

func TestProgressWhileTheCompilerIsSilent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.start("FAKE_GO_BUILD=block")
	r.next("step 1/3")
	// While the fake compiler prints nothing, the script still reports, again and again, what it has done so far.
	want := fmt.Sprintf("step 2/3: compiling: %d of %d packages", packages/5, packages)
	for range 3 {
		if line := r.next(want); !strings.Contains(line, "elapsed") || !strings.Contains(line, "now example.com/p10") {
			t.Errorf("progress line %q lacks the elapsed time or the package being compiled", line)
		}
	}
	// The throwaway module maps the staging modules to their published versions.
	gomod, err := os.ReadFile(filepath.Join(e.dest()+".build", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gomod), "k8s.io/api => k8s.io/api v0.37.2") || !strings.Contains(string(gomod), "go.etcd.io/etcd/server/v3 v3.7.0") {
		t.Errorf("the build's go.mod does not map the staging modules or require etcd:\n%s", gomod)
	}
	e.release()
	r.succeed()
	e.requireInstalled()
}

func TestInterruptedBuildIsReportedAndStartedAgain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		signal syscall.Signal
		name   string
		code   int
	}{
		{syscall.SIGINT, "SIGINT", 130},
		{syscall.SIGTERM, "SIGTERM", 143},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			r := e.start("FAKE_GO_BUILD=block")
			r.next("step 2/3: compiling: ")
			if err := r.cmd.Process.Signal(tc.signal); err != nil {
				t.Fatal(err)
			}
			r.fail(tc.code, "interrupted by "+tc.name)
			e.requireNotInstalled()
			requireGone(t, filepath.Join(e.state, "build.pid"))

			r = e.start("FAKE_GO_BUILD=ok")
			r.next("building kube-apiserver")
			if line := r.next("the previous build"); !strings.Contains(line, "did not finish: interrupted by "+tc.name) {
				t.Errorf("the next run says %q, want what stopped the previous build", line)
			}
			r.succeed()
			e.requireInstalled()
		})
	}
}

func TestKilledBuildIsReportedAndStartedAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.start("FAKE_GO_BUILD=block")
	r.next("step 2/3: compiling: ")
	// SIGKILL: the script records nothing, and the go build it started runs on, holding the lock.
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	r.finish()
	e.requireNotInstalled()

	r = e.start("FAKE_GO_BUILD=ok")
	r.next("is building them already; waiting for it to finish")
	e.release()
	if line := r.next("the previous build"); !strings.Contains(line, "did not finish and recorded no reason") {
		t.Errorf("the next run says %q, want that the previous build did not finish", line)
	}
	r.succeed()
	e.requireInstalled()
	if n := e.builds(); n != 2 {
		t.Errorf("go build ran %d times, want twice (the killed build, then this one)", n)
	}
}

func TestProgressIntervalIsAtMost30s(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script string
		output bool // whether it takes -o OUTPUT
		want   *regexp.Regexp
	}{
		{"envtest-assets.sh", false, regexp.MustCompile(`step 2/3: compiling .*a line every (\d+)s`)},
		{"go-build.sh", true, regexp.MustCompile(`\[go build\] compiling .*a line every (\d+)s`)},
	} {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			var args []string
			if tc.output {
				args = []string{"-o", filepath.Join(t.TempDir(), "demo"), "./cmd/demo"}
			}
			// Unset: the default.
			r := e.startScript(tc.script, args, "FAKE_GO_BUILD=ok", "BUILD_PROGRESS_INTERVAL=")
			r.succeed()
			m := tc.want.FindStringSubmatch(r.stderr())
			if m == nil {
				t.Fatalf("%s did not announce its interval:\n%s", tc.script, r.stderr())
			}
			if n, _ := strconv.Atoi(m[1]); n < 1 || n > 30 {
				t.Errorf("%s prints a line every %ds by default, want at most 30s", tc.script, n)
			}
		})
	}
	t.Run("invalid", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.start("FAKE_GO_BUILD=ok", "BUILD_PROGRESS_INTERVAL=0").fail(2, "BUILD_PROGRESS_INTERVAL must be a whole number of seconds")
		if n := e.builds(); n != 0 {
			t.Errorf("go build ran %d times, want never", n)
		}
	})
}

func TestFailedBuildsInstallNothing(t *testing.T) {
	t.Parallel()
	t.Run("disk full", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.start("FAKE_GO_BUILD=nospace").fail(1, "the disk is full")
		e.requireNotInstalled()

		r := e.start("FAKE_GO_BUILD=ok")
		if line := r.next("the previous build"); !strings.Contains(line, "go build failed: the disk is full") {
			t.Errorf("the next run says %q, want why the previous build failed", line)
		}
		r.succeed()
		e.requireInstalled()
	})
	t.Run("binaries that do not run", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.start("FAKE_GO_BUILD=broken").fail(1, "the binaries built do not run")
		e.requireNotInstalled()
	})
	t.Run("a cache whose binaries do not run", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		writeBinaries(t, e.dest(), "v1.37.2", "3.7.0")
		if err := os.WriteFile(filepath.Join(e.dest(), "etcd"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil { //nolint:gosec // a test's executable
			t.Fatal(err)
		}
		r := e.start("FAKE_GO_BUILD=ok")
		if first := r.next("[envtest-assets]"); !strings.Contains(first, "again: "+e.dest()+"/etcd --version failed") {
			t.Errorf("first line = %q, want it to say why the cache is rebuilt", first)
		}
		r.succeed()
		e.requireInstalled()
	})
}

func TestSecondRunWaitsForTheFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.start("FAKE_GO_BUILD=block")
	first.next("step 2/3: compiling: ")

	second := e.start("FAKE_GO_BUILD=ok")
	second.next("is building them already; waiting for it to finish")
	// While it waits, it repeats the first run's progress.
	if line := second.next("still waiting"); !strings.Contains(line, "compiling: ") {
		t.Errorf("the waiting run says %q, want the other run's progress", line)
	}
	e.release()
	if got := first.succeed(); got != e.dest() {
		t.Errorf("the first run printed %q, want %q", got, e.dest())
	}
	if got := second.succeed(); got != e.dest() {
		t.Errorf("the second run printed %q, want %q", got, e.dest())
	}
	if !strings.Contains(second.stderr(), "the other run built them: using kube-apiserver v1.37.2") {
		t.Errorf("the second run did not say it uses the first one's binaries:\n%s", second.stderr())
	}
	if n := e.builds(); n != 1 {
		t.Errorf("go build ran %d times, want once", n)
	}
	e.requireInstalled()
}

func TestKubebuilderAssetsAreUsedAsTheyAre(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, apiserver, first string
	}{
		{"same version", "v1.37.2", "using kube-apiserver v1.37.2 and etcd 3.7.0 from KUBEBUILDER_ASSETS="},
		{"other version", "v1.33.0", "using kube-apiserver v1.33.0 and etcd 3.7.0 from KUBEBUILDER_ASSETS="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			assets := filepath.Join(t.TempDir(), "assets")
			writeBinaries(t, assets, tc.apiserver, "3.7.0")
			r := e.start("FAKE_GO_BUILD=nospace", "KUBEBUILDER_ASSETS="+assets)
			if first := r.next("[envtest-assets]"); !strings.Contains(first, tc.first+assets) {
				t.Errorf("first line = %q, want %q", first, tc.first+assets)
			}
			if got := r.succeed(); got != assets {
				t.Errorf("printed %q, want %q", got, assets)
			}
			if n := e.builds(); n != 0 {
				t.Errorf("go build ran %d times, want never", n)
			}
		})
	}
	t.Run("without etcd", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		assets := filepath.Join(t.TempDir(), "assets")
		writeBinaries(t, assets, "v1.37.2", "3.7.0")
		if err := os.Remove(filepath.Join(assets, "etcd")); err != nil {
			t.Fatal(err)
		}
		e.start("FAKE_GO_BUILD=ok", "KUBEBUILDER_ASSETS="+assets).fail(1, assets+"/etcd is missing")
		if n := e.builds(); n != 0 {
			t.Errorf("go build ran %d times, want never", n)
		}
	})
}
