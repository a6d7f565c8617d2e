// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Three replicas split 60 clusters: each cluster is owned by exactly one replica, whose Awares are engaged with
// it and whose fence lists it (what kubectl shows); each replica owns its share to within two clusters. Nothing
// moves once settled (no flapping), and a replica that leaves gracefully hands its clusters over without waiting
// for any Lease to expire.
func TestReplicasSplitTheFleet(t *testing.T) {
	e, leaks := newEnvWith(t, 60)
	a, b, c := e.start("a", nil), e.start("b", nil), e.start("c", nil)
	harness.Eventually(t, 30*time.Second, "every cluster owned by exactly one replica", func() bool { return e.settled(a, b, c) })

	for _, r := range []*replica{a, b, c} {
		if n := len(r.c.Owned()); math.Abs(float64(n)-20) > 2 {
			t.Errorf("replica %s owns %d clusters, want 20±2", r.id, n)
		}
	}
	harness.Eventually(t, 10*time.Second, "every replica's fence to list the clusters it owns", func() bool {
		fences := e.fences()
		for _, r := range []*replica{a, b, c} {
			listed := make([]multicluster.ClusterName, 0, len(fences[r.id]))
			for _, n := range fences[r.id] {
				listed = append(listed, multicluster.ClusterName(n))
			}
			if !slices.Equal(listed, r.c.Owned()) {
				return false
			}
		}
		return true
	})

	// Settled means settled: over several probes and renewals, nothing moves.
	engagements := len(e.log.engages)
	harness.Consistently(t, 3*leaseRenew, "ownership unchanged", func() bool {
		e.log.mu.Lock()
		defer e.log.mu.Unlock()
		return len(e.log.engages) == engagements
	})

	// c leaves gracefully: a and b own everything well before c's fence could have expired.
	stopped := time.Now()
	c.stop()
	harness.Eventually(t, 30*time.Second, "a and b own every cluster", func() bool { return e.settled(a, b) })
	if took := time.Since(stopped); took > leaseDuration {
		t.Errorf("the handoff after a graceful stop took %s, not less than the lease duration %s", took, leaseDuration)
	}
	if _, ok := e.fences()["c"]; ok {
		t.Error("c's fence is still there after it stopped")
	}
	a.stop()
	b.stop()
	leaks()
}
