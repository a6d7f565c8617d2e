// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// findChildProcess returns the pid of the child of this process started from the executable at path (its argv[0])
// whose command line has the argument arg. It reads /proc.
func findChildProcess(path, arg string) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("unable to list processes: %w", err)
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !e.IsDir() {
			continue
		}
		if parent, err := parentPID(pid); err != nil || parent != self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(bytes.TrimRight(cmdline, "\x00")), "\x00")
		if len(args) > 0 && args[0] == path && slices.Contains(args[1:], arg) {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no child process %s with argument %s", path, arg)
}

// parentPID reads the parent pid of a process from /proc/<pid>/stat, whose fourth field it is; the second field,
// the command name in parentheses, may itself contain spaces and parentheses.
func parentPID(pid int) (int, error) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, errors.New("malformed stat")
	}
	fields := strings.Fields(string(stat[end+1:]))
	if len(fields) < 2 {
		return 0, errors.New("malformed stat")
	}
	return strconv.Atoi(fields[1])
}

// killProcess sends SIGKILL to pid.
func killProcess(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// stopProcess sends SIGSTOP to pid.
func stopProcess(pid int) error { return syscall.Kill(pid, syscall.SIGSTOP) }

// continueProcess sends SIGCONT to pid; a process that is gone is not an error.
func continueProcess(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// processExists reports whether pid is a process that has not been reaped yet.
func processExists(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
