// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package envtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// errPortLocked is returned by lockPort when another process (or another control plane of this one) holds the port.
var errPortLocked = errors.New("port is locked")

// portLock is an exclusive lock on a file named after a port, shared by every process of the same user that uses
// this kit. The kernel drops it when the process dies, so a crashed test never leaves a port locked.
type portLock struct {
	file *os.File
}

// lockPort takes the lock of port without blocking. It returns errPortLocked if someone else holds it.
func lockPort(port int) (*portLock, error) {
	dir := filepath.Join(os.TempDir(), "multicluster-runtime-envtest-ports-"+strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("unable to create the port lock directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, strconv.Itoa(port)+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("unable to open the port lock file %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errPortLocked
		}
		return nil, fmt.Errorf("unable to lock the port lock file %s: %w", path, err)
	}
	// The holder removes the file when it releases the lock, so the file we locked may have been unlinked between
	// our open and our flock; then someone else may lock a new file of the same name. Only the lock on the file
	// that the path names now counts.
	opened, errOpened := f.Stat()
	current, errCurrent := os.Stat(path)
	if errOpened != nil || errCurrent != nil || !os.SameFile(opened, current) {
		_ = f.Close()
		return nil, errPortLocked
	}
	return &portLock{file: f}, nil
}

// release removes the lock file and drops the lock.
func (l *portLock) release() {
	_ = os.Remove(l.file.Name())
	_ = l.file.Close()
}
