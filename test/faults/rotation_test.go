// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package faults_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"

	"sigs.k8s.io/multicluster-runtime/test/faults/rig"
)

const (
	// rotationBound is the longest a rotation may take until every reconcile of the cluster goes through the new
	// endpoint and credentials.
	rotationBound = 15 * time.Second
	// rotationCycles is how often the suite rotates a member's credentials and endpoint and back.
	rotationCycles = 3
)

// rotation is one change of a member's kubeconfig file and Secret: what both then say, and the identity the
// reconciles must then go through (rig.Identity).
type rotation struct {
	what       string
	endpointOf string
	fileAuth   rig.Auth
	secretAuth rig.Auth
	fileID     string
	secretID   string
}

// A member's kubeconfig (file and Secret) is replaced by one with new credentials, then by one reaching another
// API server, then by the original, three times over, while writers update objects everywhere:
//
//   - each time, both managers re-engage the cluster against the new kubeconfig within rotationBound, and no
//     reconcile goes through the old cluster once the new one has reconciled (atomic replacement);
//   - every object reaches the reconcilers in its final state at the end;
//   - no goroutine is left behind: the count returns to where it was, and none remains once the managers stop.
func TestCredentialRotation(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		noLeak(t, 30*time.Second, "no goroutine left by the rotations", before)
	})
	const target, other = "member-1", "member-2"
	file, secret := startManagers(t, rig.ManagerOptions{})
	managers := []*rig.Manager{file, secret}
	// Goroutines are counted while nothing writes: requests in flight come and go.
	baseline := settledGoroutines(t)
	_, stopWriters := startWriters(t, 3, members, managers...)

	id := func(controlPlane, cred string) string {
		s, err := r.HostIdentity(controlPlane, cred)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	original := rotation{what: "original", endpointOf: target, fileAuth: rig.Auth{CertOf: target}, secretAuth: rig.Auth{Token: r.Tokens.Admin},
		fileID: id(target, "cert:"+target), secretID: id(target, "token:admin")}
	steps := []rotation{
		{what: "new credentials", endpointOf: target, fileAuth: rig.Auth{Token: r.Tokens.Rotated}, secretAuth: rig.Auth{Token: r.Tokens.Rotated},
			fileID: id(target, "token:rotated"), secretID: id(target, "token:rotated")},
		{what: "new endpoint", endpointOf: other, fileAuth: rig.Auth{CertOf: other}, secretAuth: rig.Auth{Token: r.Tokens.Admin},
			fileID: id(other, "cert:"+other), secretID: id(other, "token:admin")},
		original,
	}
	current := original
	for cycle := range rotationCycles {
		for _, next := range steps {
			rotate(t, fmt.Sprintf("cycle %d, %s", cycle+1, next.what), target, current, next, file, secret)
			current = next
		}
	}
	stopWriters()
	waitConverged(t, members, managers...)
	after := settledGoroutines(t)
	figures.addf(t, "goroutines: %d before, %d after %d rotations", baseline, after, 3*rotationCycles)
	// A leaked cluster costs dozens of goroutines (reflectors, controllers, queues per informer).
	if after > baseline+baseline/10 {
		t.Errorf("%d goroutines after the rotations, %d before; want the count back where it was", after, baseline)
	}
}

// rotate writes next into the member's file and Secret and checks that both managers switch to it.
func rotate(t *testing.T, what, member string, prev, next rotation, file, secret *rig.Manager) {
	t.Helper()
	data, err := r.Kubeconfig(member, next.endpointOf, next.fileAuth)
	if err != nil {
		t.Fatal(err)
	}
	secretData, err := r.Kubeconfig(member, next.endpointOf, next.secretAuth)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := r.WriteFile(member, data); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteSecret(t.Context(), member, "", secretData); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m            *rig.Manager
		oldID, newID string
	}{{file, prev.fileID, next.fileID}, {secret, prev.secretID, next.secretID}} {
		name := c.m.ClusterName(member)
		var firstNew time.Time
		eventually(t, rotationBound, fmt.Sprintf("%s: %s manager reconciles through %s", what, c.m.Provider, c.newID), func() bool {
			first, _, ok := c.m.Observer.Through(name, c.newID, began)
			firstNew = first
			return ok
		})
		_, lastOld, old := c.m.Observer.Through(name, c.oldID, began)
		last := "none"
		if old {
			last = lastOld.Sub(began).Round(time.Millisecond).String() + " after"
		}
		figures.addf(t, "%s, %s provider: first reconcile through the new cluster %s after the change; last through the old: %s",
			what, c.m.Provider, firstNew.Sub(began).Round(time.Millisecond), last)
		if old && lastOld.After(firstNew) {
			t.Errorf("%s, %s manager: a reconcile went through the old cluster (%s) %s after the first through the new one",
				what, c.m.Provider, c.oldID, lastOld.Sub(firstNew))
		}
	}
}

// settledGoroutines returns the number of goroutines once it stops changing by more than a few (HTTP connections
// and watches come and go) over a second.
func settledGoroutines(t *testing.T) int {
	t.Helper()
	last := runtime.NumGoroutine()
	stable := 0
	eventually(t, 30*time.Second, "the goroutine count settles", func() bool {
		n := runtime.NumGoroutine()
		if n-last <= 3 && last-n <= 3 {
			stable++
		} else {
			stable = 0
		}
		last = n
		return stable >= 50
	})
	return last
}
