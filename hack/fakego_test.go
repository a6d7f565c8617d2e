// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package hack_test checks the build scripts of hack/ without building anything: envtest-assets.sh, which provides
// etcd and kube-apiserver to make test, make demo and CI, and go-build.sh. A fake go command on PATH stands in for
// the real one and does what each test needs (compile slowly, block until released, fill the disk, write binaries
// that do not run).
package hack_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// deadline bounds every wait of these tests; the machine may be slow, so it is generous. Nothing waits for it to
// pass: each wait ends as soon as what it waits for happens.
const deadline = 2 * time.Minute

// packages is the number of packages, besides the two main packages, the fake go command lists and compiles.
const packages = 50

// fakeGo is the go command the script finds on PATH. It appends each command line to $FAKE_GO_STATE/calls and
// answers the few commands the script runs. `go build` does what $FAKE_GO_BUILD says:
//
//	ok       print the packages as `go build -v` does, write binaries that report their versions (into the
//	         directory -o names, as kube-apiserver and server; or, if -o names a file, that file)
//	block    print a fifth of the packages and its pid to $FAKE_GO_STATE/build.pid, wait until
//	         $FAKE_GO_STATE/release exists, then as ok
//	nospace  fail as the go command does when the disk is full
//	broken   write a kube-apiserver that does not run, as an interrupted copy would leave it
const fakeGo = `#!/usr/bin/env bash
set -euo pipefail
state=$FAKE_GO_STATE
echo "$*" >>"$state/calls"
packages() { for ((i = $1; i <= $2; i++)); do echo "example.com/p$i"; done; }
case "$1 $2" in
"env GOMODCACHE") echo "$state/modcache" ;;
"env GOCACHE") echo "$state/gocache" ;;
"list -m")
	printf 'module k8s.io/kubernetes\n\nrequire (\n\tgo.etcd.io/etcd/server/v3 v3.7.0\n)\n\nreplace (\n\tk8s.io/api => ./staging/src/k8s.io/api\n)\n' >"$state/kubernetes.mod"
	printf '{\n\t"Path": "k8s.io/kubernetes",\n\t"Version": "%s",\n\t"GoMod": "%s"\n}\n' "${4#*@}" "$state/kubernetes.mod"
	;;
"list -deps")
	echo "go: downloading k8s.io/api v0.37.2" >&2
	for ((i = 1; i <= PACKAGES; i++)); do echo "example.com/p$i p$i true 2"; done
	echo "k8s.io/kubernetes/cmd/kube-apiserver main true 1"
	echo "go.etcd.io/etcd/server/v3 main true 1"
	;;
"build -v")
	out=""
	while (($#)); do
		if [[ $1 == -o ]]; then out=$2; fi
		shift
	done
	case $FAKE_GO_BUILD in
	nospace)
		echo "go: writing $out/kube-apiserver: write $out/kube-apiserver: no space left on device" >&2
		exit 1
		;;
	block)
		packages 1 $((PACKAGES / 5)) >&2
		echo $$ >"$state/build.pid"
		until [[ -e $state/release ]]; do sleep 0.05; done
		packages $((PACKAGES / 5 + 1)) "$PACKAGES" >&2
		;;
	*) packages 1 "$PACKAGES" >&2 ;;
	esac
	echo "k8s.io/kubernetes/cmd/kube-apiserver" >&2
	if [[ $out != */ ]]; then
		printf '#!/bin/sh\n' >"$out"
		exit 0
	fi
	if [[ $FAKE_GO_BUILD == broken ]]; then
		printf '\177ELF' >"$out/kube-apiserver"
	else
		printf '#!/bin/sh\necho Kubernetes v1.37.2\n' >"$out/kube-apiserver"
	fi
	printf '#!/bin/sh\necho "etcd Version: 3.7.0"\necho "Git SHA: fake"\n' >"$out/server"
	chmod +x "$out/kube-apiserver" "$out/server"
	;;
*)
	echo "fake go: unexpected command: $*" >&2
	exit 2
	;;
esac
`

// env is the environment of one or more runs of the script: a cache root and a fake go command of their own.
type env struct {
	t     *testing.T
	cache string // ENVTEST_ASSETS_DIR
	state string // FAKE_GO_STATE
	vars  []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on PATH")
	}
	dir := t.TempDir()
	e := &env{t: t, cache: filepath.Join(dir, "cache"), state: filepath.Join(dir, "state")}
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{bin, e.state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A fake go build that blocks outlives a script killed with SIGKILL (it runs in a process group of its own): let
	// it end before its directory is removed.
	t.Cleanup(func() {
		e.release()
		if _, err := os.Stat(filepath.Join(e.state, "build.pid")); err == nil {
			requireGone(t, filepath.Join(e.state, "build.pid"))
		}
	})
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fakeGo), 0o755); err != nil { //nolint:gosec // a test's executable
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "KUBEBUILDER_ASSETS", name == "KUBERNETES_VERSION", name == "ETCD_VERSION", name == "PATH",
			name == "BUILD_PROGRESS_INTERVAL", strings.HasPrefix(name, "ENVTEST_"), strings.HasPrefix(name, "FAKE_GO_"):
			continue
		}
		e.vars = append(e.vars, kv)
	}
	e.vars = append(e.vars,
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"ENVTEST_ASSETS_DIR="+e.cache,
		"BUILD_PROGRESS_INTERVAL=1",
		"FAKE_GO_STATE="+e.state,
		fmt.Sprintf("PACKAGES=%d", packages),
	)
	return e
}

// dest is the directory the script installs the binaries into.
func (e *env) dest() string { return filepath.Join(e.cache, "kubernetes-v1.37.2") }

// builds is the number of times the script ran go build.
func (e *env) builds() int {
	data, err := os.ReadFile(filepath.Join(e.state, "calls"))
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return strings.Count(string(data), "build -v")
}

// release lets a fake go build that blocks go on.
func (e *env) release() {
	if err := os.WriteFile(filepath.Join(e.state, "release"), nil, 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// run is one run of the script.
type run struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdout bytes.Buffer
	lines  chan string // its stderr, line by line; closed at the end
	seen   []string    // the lines read from lines so far
	done   bool
	code   int
}

// start starts hack/envtest-assets.sh with the env's variables, then extra ones.
func (e *env) start(extra ...string) *run {
	e.t.Helper()
	return e.startScript("envtest-assets.sh", nil, extra...)
}

// startScript starts a script of this directory with these arguments, the env's variables, then extra ones.
func (e *env) startScript(script string, args []string, extra ...string) *run {
	e.t.Helper()
	r := &run{t: e.t, lines: make(chan string, 1000)}
	r.cmd = exec.Command("bash", append([]string{script}, args...)...)
	r.cmd.Env = append(append([]string{}, e.vars...), extra...)
	r.cmd.Stdout = &r.stdout
	stderr, err := r.cmd.StderrPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() {
		defer close(r.lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
	}()
	e.t.Cleanup(func() {
		if !r.done {
			_ = r.cmd.Process.Kill()
			r.finish()
		}
	})
	return r
}

// next returns the next line of stderr that contains want, failing the test if the script ends first.
func (r *run) next(want string) string {
	r.t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case line, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("the script ended without printing %q; it printed:\n%s", want, strings.Join(r.seen, "\n"))
			}
			r.seen = append(r.seen, line)
			if strings.Contains(line, want) {
				return line
			}
		case <-timeout:
			r.t.Fatalf("no line with %q within %s; the script printed:\n%s", want, deadline, strings.Join(r.seen, "\n"))
		}
	}
}

// finish waits for the end of the script and returns its exit code.
func (r *run) finish() int {
	r.t.Helper()
	for line := range r.lines {
		r.seen = append(r.seen, line)
	}
	err := r.cmd.Wait()
	r.done = true
	r.t.Logf("%s printed:\n%s", strings.Join(r.cmd.Args, " "), r.stderr())
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	default:
		r.t.Fatal(err)
	}
	return r.code
}

// stderr is everything the script printed on stderr so far.
func (r *run) stderr() string { return strings.Join(r.seen, "\n") }

// succeed waits for the end of the script, requires that it succeeded, and returns the directory it printed.
func (r *run) succeed() string {
	r.t.Helper()
	if code := r.finish(); code != 0 {
		r.t.Fatalf("the script exited with %d:\n%s", code, r.stderr())
	}
	return strings.TrimSpace(r.stdout.String())
}

// fail waits for the end of the script and requires that it failed with the code and printed want.
func (r *run) fail(code int, want string) {
	r.t.Helper()
	if got := r.finish(); got != code {
		r.t.Fatalf("the script exited with %d, want %d:\n%s", got, code, r.stderr())
	}
	if !strings.Contains(r.stderr(), want) {
		r.t.Fatalf("the script did not say %q:\n%s", want, r.stderr())
	}
	if out := r.stdout.String(); out != "" {
		r.t.Fatalf("a failed run printed a directory: %q", out)
	}
}

// writeBinaries writes into dir a kube-apiserver and an etcd that report these versions.
func writeBinaries(t *testing.T, dir, apiserver, etcd string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"kube-apiserver": "echo Kubernetes " + apiserver,
		"etcd":           "echo 'etcd Version: " + etcd + "'",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil { //nolint:gosec // a test's executable
			t.Fatal(err)
		}
	}
}

// requireInstalled fails unless the cache holds binaries that run, and nothing else is left beside them.
func (e *env) requireInstalled() {
	e.t.Helper()
	out, err := exec.Command(filepath.Join(e.dest(), "kube-apiserver"), "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "Kubernetes v1.37.2" {
		e.t.Fatalf("the installed kube-apiserver --version = %q, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(e.dest(), "etcd")); err != nil {
		e.t.Fatalf("etcd is not installed: %v", err)
	}
	if _, err := os.Stat(e.dest() + ".build"); !errors.Is(err, os.ErrNotExist) {
		e.t.Fatalf("the work directory is still there after a build (%v)", err)
	}
}

// requireNotInstalled fails if the cache directory exists.
func (e *env) requireNotInstalled() {
	e.t.Helper()
	if _, err := os.Stat(e.dest()); !errors.Is(err, os.ErrNotExist) {
		e.t.Fatalf("%s exists after a build that did not finish (%v)", e.dest(), err)
	}
}

// requireGone fails unless the process whose pid is in the file ends before the deadline.
func requireGone(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(string(data), &pid); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(deadline); syscall.Kill(pid, 0) == nil; {
		if time.Now().After(end) {
			t.Fatalf("the go build (pid %d) still runs after the script was interrupted", pid)
		}
		time.Sleep(10 * time.Millisecond) // polling the process table
	}
}
