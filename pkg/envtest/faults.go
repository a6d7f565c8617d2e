// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// ErrFaultsUnsupported is returned (wrapped; test with errors.Is) by KillMemberAPIServer, PauseMemberAPIServer,
// ResumeMemberAPIServer and MemberAPIServerPID on platforms where the kit cannot find the process of an API server
// (it reads /proc, so everywhere but Linux).
var ErrFaultsUnsupported = errors.New("fault injection is not supported on this platform")

// processExitPollInterval is how often KillMemberAPIServer checks whether the killed process is gone.
const processExitPollInterval = 10 * time.Millisecond

// MemberAPIServerPID returns the process id of the running kube-apiserver of the named control plane (a member, or
// the host for HostName). The process is a child of the calling process, found by its serving port; the pid
// changes when the API server restarts. It returns an error when the API server is stopped, an error matching
// ErrMemberNotFound for unknown names, and one matching ErrFaultsUnsupported outside Linux.
func (f *Fleet) MemberAPIServerPID(name string) (int, error) {
	cp, err := f.controlPlane(name)
	if err != nil {
		return 0, err
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.apiServerPIDLocked()
}

// KillMemberAPIServer kills the kube-apiserver process of the named control plane (a member, or the host for
// HostName) with SIGKILL, as a crash or an OOM kill would, and waits until the process is gone. The API server gets
// no chance to close its connections gracefully; clients see their connections reset and then "connection
// refused". etcd keeps running with the data. The API server stays down until RestartMemberAPIServer starts it
// again on the same address with the same certificates. Killing a stopped API server is a no-op; a paused one is
// killed too.
//
// Only the process this fleet started is signalled, by its pid. It returns an error matching ErrMemberNotFound for
// unknown names, and one matching ErrFaultsUnsupported outside Linux.
func (f *Fleet) KillMemberAPIServer(name string) error {
	cp, err := f.controlPlane(name)
	if err != nil {
		return err
	}
	return cp.killAPIServer()
}

// PauseMemberAPIServer stops the kube-apiserver process of the named control plane (a member, or the host for
// HostName) with SIGSTOP, as a hung process or a dead load balancer in front of it would look to clients: the
// kernel still accepts connections on its port, but nothing is ever answered, so requests hang until the client
// gives up. Established watches stay open and silent. ResumeMemberAPIServer continues the process, which then
// answers what is still waiting. Pausing a paused or stopped API server is a no-op. StopMemberAPIServer,
// KillMemberAPIServer and Stop continue a paused process first.
//
// Only the process this fleet started is signalled, by its pid. It returns an error matching ErrMemberNotFound for
// unknown names, and one matching ErrFaultsUnsupported outside Linux.
func (f *Fleet) PauseMemberAPIServer(name string) error {
	cp, err := f.controlPlane(name)
	if err != nil {
		return err
	}
	return cp.pauseAPIServer()
}

// ResumeMemberAPIServer continues (SIGCONT) the kube-apiserver process of the named control plane after
// PauseMemberAPIServer. It does not wait for the API server to answer: it does as soon as the process runs again,
// unless its own connection to etcd or its clients gave up meanwhile. Resuming an API server that is not paused is a
// no-op. It returns an error matching ErrMemberNotFound for unknown names.
func (f *Fleet) ResumeMemberAPIServer(name string) error {
	cp, err := f.controlPlane(name)
	if err != nil {
		return err
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.resumeAPIServerLocked()
}

// apiServerPIDLocked finds the pid of the running API server. The caller holds cp.mu.
func (cp *controlPlane) apiServerPIDLocked() (int, error) {
	if err := cp.runningLocked(); err != nil {
		return 0, err
	}
	if cp.apiServerStopped {
		return 0, fmt.Errorf("the API server of control plane %q is stopped", cp.name)
	}
	pid, err := findChildProcess(cp.env.ControlPlane.GetAPIServer().Path, fmt.Sprintf("--secure-port=%d", cp.port.port))
	if err != nil {
		return 0, fmt.Errorf("unable to find the API server process of control plane %q: %w", cp.name, err)
	}
	return pid, nil
}

// killAPIServer kills the API server with SIGKILL and waits for the process to be gone.
func (cp *controlPlane) killAPIServer() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if err := cp.runningLocked(); err != nil {
		return err
	}
	if cp.apiServerStopped {
		return nil
	}
	pid, err := cp.apiServerPIDLocked()
	if err != nil {
		return err
	}
	if err := killProcess(pid); err != nil {
		return fmt.Errorf("unable to kill the API server of control plane %q (pid %d): %w", cp.name, pid, err)
	}
	// A stopped process dies from SIGKILL as well; nothing to continue.
	cp.apiServerPaused = false
	// envtest's process state waits for its child and reaps it; once reaped, the pid is gone.
	err = wait.PollUntilContextTimeout(context.Background(), processExitPollInterval, cp.opts.ControlPlaneStopTimeout,
		true, func(context.Context) (bool, error) { return !processExists(pid), nil })
	if err != nil {
		return fmt.Errorf("the API server of control plane %q (pid %d) did not exit after SIGKILL: %w", cp.name, pid, err)
	}
	// The process state of envtest is discarded by the next start, which is all RestartMemberAPIServer needs.
	cp.apiServerStopped = true
	cp.log.V(1).Info("API server killed", "pid", pid)
	return nil
}

// pauseAPIServer stops the API server process with SIGSTOP.
func (cp *controlPlane) pauseAPIServer() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if err := cp.runningLocked(); err != nil {
		return err
	}
	if cp.apiServerStopped || cp.apiServerPaused {
		return nil
	}
	pid, err := cp.apiServerPIDLocked()
	if err != nil {
		return err
	}
	if err := stopProcess(pid); err != nil {
		return fmt.Errorf("unable to pause the API server of control plane %q (pid %d): %w", cp.name, pid, err)
	}
	cp.apiServerPaused = true
	cp.apiServerPausedPID = pid
	cp.log.V(1).Info("API server paused", "pid", pid)
	return nil
}

// resumeAPIServerLocked continues a paused API server process. The caller holds cp.mu.
func (cp *controlPlane) resumeAPIServerLocked() error {
	if !cp.apiServerPaused {
		return nil
	}
	pid := cp.apiServerPausedPID
	cp.apiServerPaused = false
	if err := continueProcess(pid); err != nil {
		return fmt.Errorf("unable to resume the API server of control plane %q (pid %d): %w", cp.name, pid, err)
	}
	cp.log.V(1).Info("API server resumed", "pid", pid)
	return nil
}
