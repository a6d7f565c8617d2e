// Package exampletest runs the example programs of this repository in their tests: it builds a program, runs it
// with the environment and flags a test gives, watches its output, and interrupts it, expecting a clean exit.
package exampletest

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Build builds the program in the working directory (the test's package) and returns the binary's path.
func Build(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "example")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// BuildPackage builds the program of the package pkg, which need not be the test's own, and returns the binary's
// path, named after the package's last path element ("example" for "." or ".."). pkg is what `go build` takes: an
// import path, or a directory relative to the working directory (the test's package) starting with "./" or "../".
// It is built in the working directory's module, like Build, and a build failure fails the test.
func BuildPackage(t testing.TB, pkg string) string {
	t.Helper()
	name := path.Base(filepath.ToSlash(pkg))
	if name == "." || name == ".." || name == "/" {
		name = "example"
	}
	bin := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// Process is a running example program.
type Process struct {
	cmd    *exec.Cmd
	out    lockedBuffer
	exited chan error
}

// Start runs bin with args and the test process's environment plus env ("NAME=value"). The program is killed when
// the test ends if it still runs.
func Start(t testing.TB, bin string, env []string, args ...string) *Process {
	t.Helper()
	p := &Process{cmd: exec.Command(bin, args...), exited: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
		}
	})
	return p
}

// Output returns what the program has written so far, stdout and stderr together.
func (p *Process) Output() string { return p.out.String() }

// WaitFor waits until the program's output contains want, or fails the test.
func (p *Process) WaitFor(t testing.TB, want string) {
	t.Helper()
	harness.Eventually(t, 0, "the output shows "+want, func() bool { return strings.Contains(p.Output(), want) })
}

// Interrupt sends SIGINT and fails the test unless the program exits cleanly within a minute.
func (p *Process) Interrupt(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		if err != nil {
			t.Errorf("the program exited with %v after SIGINT; output:\n%s", err, p.Output())
		}
	case <-time.After(time.Minute):
		t.Fatalf("the program did not exit after SIGINT; output:\n%s", p.Output())
	}
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
