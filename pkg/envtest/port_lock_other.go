// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package envtest

import "errors"

// errPortLocked is returned by lockPort when another process holds the port.
var errPortLocked = errors.New("port is locked")

// portLock is a no-op on platforms without flock: ports are only checked for being free.
type portLock struct{}

// lockPort always succeeds on platforms without flock.
func lockPort(int) (*portLock, error) { return &portLock{}, nil }

// release does nothing on platforms without flock.
func (*portLock) release() {}
