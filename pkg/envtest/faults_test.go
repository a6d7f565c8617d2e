// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"errors"
	"runtime"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// Kills, pauses and resumes a member's API server by its pid: clients see the faults as a crash and a hang, the
// other member does not, and the API server comes back on the same address with the same data.
func TestFaults(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("fault injection finds the API server process in /proc")
	}
	f := startFleet(t, Options{NoHost: true, Members: 2})
	ctx := t.Context()
	cfg := configFor(t, f, "member-0")
	c := newClient(t, cfg)
	other := newClient(t, configFor(t, f, "member-1"))
	if err := c.Create(ctx, configMap("survives-kill")); err != nil {
		t.Fatalf("unable to create a config map: %v", err)
	}

	pid, err := f.MemberAPIServerPID("member-0")
	if err != nil {
		t.Fatalf("unable to find the API server's pid: %v", err)
	}
	otherPID, err := f.MemberAPIServerPID("member-1")
	if err != nil || otherPID == pid {
		t.Fatalf("the pid of member-1's API server is %d (%v); want a different process than member-0's %d", otherPID, err, pid)
	}
	if _, err := f.MemberAPIServerPID("nobody"); !errors.Is(err, ErrMemberNotFound) {
		t.Errorf("the pid of an unknown member: got %v, want ErrMemberNotFound", err)
	}

	t.Run("kill and restart", func(t *testing.T) {
		if err := f.KillMemberAPIServer("member-0"); err != nil {
			t.Fatalf("unable to kill the API server: %v", err)
		}
		if processExists(pid) {
			t.Errorf("process %d still exists after KillMemberAPIServer returned", pid)
		}
		if err := f.KillMemberAPIServer("member-0"); err != nil {
			t.Errorf("killing a killed API server returned %v, want nil", err)
		}
		if _, err := f.MemberAPIServerPID("member-0"); err == nil {
			t.Error("MemberAPIServerPID of a killed API server returned no error")
		}
		if err := getConfigMap(ctx, c, "survives-kill"); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("a request to the killed API server returned %v, want connection refused", err)
		}
		if err := getConfigMap(ctx, other, "missing"); err == nil || errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("the other member answered %v; want it to answer (not found)", err)
		}
		if err := f.RestartMemberAPIServer(ctx, "member-0"); err != nil {
			t.Fatalf("unable to restart the killed API server: %v", err)
		}
		eventually(t, "the client from before the kill works again", func(ctx context.Context) error {
			return getConfigMap(ctx, c, "survives-kill")
		})
		newPID, err := f.MemberAPIServerPID("member-0")
		if err != nil || newPID == pid {
			t.Errorf("the restarted API server has pid %d (%v); want a new process", newPID, err)
		}
		pid = newPID
	})

	t.Run("pause and resume", func(t *testing.T) {
		if err := f.PauseMemberAPIServer("member-0"); err != nil {
			t.Fatalf("unable to pause the API server: %v", err)
		}
		if err := f.PauseMemberAPIServer("member-0"); err != nil {
			t.Errorf("pausing a paused API server returned %v, want nil", err)
		}
		short := rest.CopyConfig(cfg)
		short.Timeout = time.Second
		begin := time.Now()
		err := getConfigMap(ctx, newClient(t, short), "survives-kill")
		if err == nil {
			t.Error("a paused API server answered")
		}
		if took := time.Since(begin); took < short.Timeout {
			t.Errorf("a request to the paused API server failed after %s (%v); want it to hang until the client's timeout", took, err)
		}
		if err := getConfigMap(ctx, other, "missing"); err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the other member answered %v; want it to answer (not found)", err)
		}
		if err := f.ResumeMemberAPIServer("member-0"); err != nil {
			t.Fatalf("unable to resume the API server: %v", err)
		}
		if err := f.ResumeMemberAPIServer("member-0"); err != nil {
			t.Errorf("resuming a running API server returned %v, want nil", err)
		}
		eventually(t, "the resumed API server answers", func(ctx context.Context) error {
			return getConfigMap(ctx, c, "survives-kill")
		})
		if got, err := f.MemberAPIServerPID("member-0"); err != nil || got != pid {
			t.Errorf("the resumed API server has pid %d (%v), want the same process %d", got, err, pid)
		}
	})

	t.Run("a paused API server still stops and is killed", func(t *testing.T) {
		if err := f.PauseMemberAPIServer("member-0"); err != nil {
			t.Fatalf("unable to pause the API server: %v", err)
		}
		begin := time.Now()
		if err := f.StopMemberAPIServer("member-0"); err != nil {
			t.Fatalf("unable to stop a paused API server: %v", err)
		}
		if took := time.Since(begin); took > DefaultControlPlaneStopTimeout/2 {
			t.Errorf("stopping a paused API server took %s; want it continued and stopped gracefully", took)
		}
		if err := f.RestartMemberAPIServer(ctx, "member-0"); err != nil {
			t.Fatalf("unable to restart the API server: %v", err)
		}
		if err := f.PauseMemberAPIServer("member-0"); err != nil {
			t.Fatalf("unable to pause the API server: %v", err)
		}
		if err := f.KillMemberAPIServer("member-0"); err != nil {
			t.Fatalf("unable to kill a paused API server: %v", err)
		}
		if err := f.RestartMemberAPIServer(ctx, "member-0"); err != nil {
			t.Fatalf("unable to restart the API server: %v", err)
		}
		// Left paused: the fleet's Stop in the cleanup must continue it rather than wait out the stop timeout.
		if err := f.PauseMemberAPIServer("member-0"); err != nil {
			t.Fatalf("unable to pause the API server: %v", err)
		}
	})
}
