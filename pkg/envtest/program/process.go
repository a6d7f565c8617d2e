// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package program

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// DefaultTimeout is how long WaitFor and WaitForMatch wait for a line of output. It is generous: CI machines are
// small and shared, and a program's first lines often wait for clusters to sync.
const DefaultTimeout = 60 * time.Second

// interruptTimeout is how long Interrupt waits for the program to exit.
const interruptTimeout = time.Minute

// Process is a running program, started with Start.
type Process struct {
	cmd *exec.Cmd
	out Output
	// done is closed when the program has exited; err is then its exit error.
	done chan struct{}
	err  error
}

// Start runs bin with args and the test process's environment plus env ("NAME=value"; later entries win). The
// program is killed when the test ends if it still runs, and its output is logged if the test failed.
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

// Lines returns the lines of the output so far that contain every one of the substrings, without their line ends.
func (p *Process) Lines(substrings ...string) []string {
	var lines []string
	for line := range strings.Lines(p.Output()) {
		if containsAll(line, substrings) {
			lines = append(lines, strings.TrimRight(line, "\n"))
		}
	}
	return lines
}

// WaitFor waits until one line of the output contains every one of the substrings, or fails the test after
// DefaultTimeout.
func (p *Process) WaitFor(t testing.TB, substrings ...string) {
	t.Helper()
	poll(t, "a line of the output shows "+strings.Join(substrings, " and "), func() bool {
		return len(p.Lines(substrings...)) > 0
	})
}

// WaitForMatch waits until a line of the output (without its line end) at or after line number from (counted
// from 0) matches re, or fails the test after DefaultTimeout. It returns the number of the matching line, so that a test can wait for
// the next match after it.
func (p *Process) WaitForMatch(t testing.TB, from int, re *regexp.Regexp) int {
	t.Helper()
	found := -1
	poll(t, "a line of the output matches "+re.String(), func() bool {
		n := 0
		for line := range strings.Lines(p.Output()) {
			if n >= from && re.MatchString(strings.TrimRight(line, "\n")) {
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
	case <-time.After(interruptTimeout):
		t.Fatalf("the program did not exit within %s of SIGINT", interruptTimeout)
	}
}

// poll checks cond every 20ms until it holds, and fails the test after DefaultTimeout.
func poll(t testing.TB, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, DefaultTimeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("timed out after %s waiting until %s", DefaultTimeout, what)
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

// Output collects what a process, or anything else that writes, writes while a test reads it. It is safe for
// concurrent use; the zero value is empty and ready.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Output) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Output) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
