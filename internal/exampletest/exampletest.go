// Package exampletest runs the programs of this repository in their tests (the examples, the demo's programs and
// the reference-style programs of test/compat): it builds a program, runs it with the environment and flags a test
// gives, watches its output, and interrupts it, expecting a clean exit.
package exampletest

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Build builds the program of the test's own package (the working directory of a package's tests) and returns the
// binary's path. A program that no longer compiles fails the test with the compiler's output.
func Build(t testing.TB) string {
	t.Helper()
	return BuildPackage(t, ".")
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
		t.Fatalf("go build %s (a program that no longer compiles is a breaking change): %v\n%s", pkg, err, out)
	}
	return bin
}

// Process is a running program.
type Process struct {
	cmd *exec.Cmd
	out lockedBuffer
	// done is closed when the program has exited; err is then its exit error.
	done chan struct{}
	err  error
}

// Start runs bin with args and the test process's environment plus env ("NAME=value"). The program is killed when
// the test ends if it still runs, and its output is logged if the test failed.
func Start(t testing.TB, bin string, env []string, args ...string) *Process {
	t.Helper()
	p := &Process{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("output of %s:\n%s", filepath.Base(bin), p.Output())
		}
	})
	return p
}

// Output returns what the program has written so far, stdout and stderr together.
func (p *Process) Output() string { return p.out.String() }

// Lines returns the lines of the output so far that contain every one of the substrings.
func (p *Process) Lines(substrings ...string) []string {
	var lines []string
	for line := range strings.Lines(p.Output()) {
		if containsAll(line, substrings) {
			lines = append(lines, strings.TrimRight(line, "\n"))
		}
	}
	return lines
}

// WaitFor waits until one line of the output contains every one of the substrings, or fails the test.
func (p *Process) WaitFor(t testing.TB, substrings ...string) {
	t.Helper()
	harness.Eventually(t, 0, "a line of the output shows "+strings.Join(substrings, " and "), func() bool {
		return len(p.Lines(substrings...)) > 0
	})
}

// WaitForMatch waits until a line of the output at or after line number from (counted from 0) matches re, or
// fails the test. It returns the number of the matching line.
func (p *Process) WaitForMatch(t testing.TB, from int, re *regexp.Regexp) int {
	t.Helper()
	found := -1
	harness.Eventually(t, 0, "a line of the output matches "+re.String(), func() bool {
		n := 0
		for line := range strings.Lines(p.Output()) {
			if n >= from && re.MatchString(line) {
				found = n
				return true
			}
			n++
		}
		return false
	})
	return found
}

// Interrupt sends SIGINT and fails the test unless the program exits with status 0 within a minute.
func (p *Process) Interrupt(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
		if p.err != nil {
			t.Errorf("the program exited with %v after SIGINT", p.err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the program did not exit within a minute of SIGINT")
	}
}

func containsAll(s string, substrings []string) bool {
	for _, sub := range substrings {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
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
