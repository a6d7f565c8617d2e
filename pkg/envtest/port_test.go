// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"errors"
	"net"
	"testing"
)

func TestReservePort(t *testing.T) {
	lo, hi := ephemeralPortRange()
	seen := map[int]bool{}
	reservations := make([]*portReservation, 0, 20)
	t.Cleanup(func() {
		for _, r := range reservations {
			r.release()
		}
	})
	for range 20 {
		r, err := reservePort(listenHost)
		if err != nil {
			t.Fatalf("unable to reserve a port: %v", err)
		}
		reservations = append(reservations, r)
		if seen[r.port] {
			t.Fatalf("port %d reserved twice", r.port)
		}
		seen[r.port] = true
		if r.lock != nil && r.port >= lo && r.port <= hi {
			t.Errorf("port %d is in the ephemeral range %d-%d", r.port, lo, hi)
		}
		if !portFree(listenHost, r.port) {
			t.Errorf("reserved port %d is not free", r.port)
		}
	}
}

func TestLockPort(t *testing.T) {
	r, err := reservePort(listenHost)
	if err != nil {
		t.Fatal(err)
	}
	if r.lock == nil {
		t.Skip("ports are not locked on this platform")
	}
	if _, err := lockPort(r.port); !errors.Is(err, errPortLocked) {
		t.Fatalf("locking a reserved port returned %v, want errPortLocked", err)
	}
	r.release()
	r.release() // idempotent
	l, err := lockPort(r.port)
	if err != nil {
		t.Fatalf("unable to lock a released port: %v", err)
	}
	l.release()
}

func TestPortFree(t *testing.T) {
	l, err := net.Listen("tcp", net.JoinHostPort(listenHost, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if portFree(listenHost, port) {
		t.Errorf("portFree(%d) = true while it is listened on", port)
	}
}
