// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded_test

import (
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// With per-cluster fences, every cluster's Lease <prefix>-<cluster> names its owner in holderIdentity; a replica
// that leaves gracefully releases its Leases (no holder) once drained, and a crashed replica's Leases are taken
// over after the lease duration. No two replicas work on a cluster at once.
func TestPerClusterFences(t *testing.T) {
	e, leaks := newEnvWith(t, 16)
	cut := e.cuttableClient()
	perCluster := sharded.WithPerClusterLease(true)
	a, b, c := e.start("a", nil, perCluster), e.start("b", nil, perCluster), e.start("c", cut.cli, perCluster)
	harness.Eventually(t, 30*time.Second, "the first split", func() bool { return e.settled(a, b, c) })
	for _, r := range []*replica{a, b, c} {
		r.work(workDuration)
	}

	holders := func() map[string]string {
		list := &coordinationv1.LeaseList{}
		if err := e.cli.List(t.Context(), list, client.InNamespace(e.ns), client.MatchingLabels{sharded.LabelFenceKind: "cluster"}); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, l := range list.Items {
			if l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" {
				out[l.Name] = *l.Spec.HolderIdentity
			}
		}
		return out
	}
	got := holders()
	for _, r := range []*replica{a, b, c} {
		for _, name := range r.c.Owned() {
			if got["fence-"+name.String()] != r.id {
				t.Errorf("the Lease fence-%s names %q as its holder, %s owns it", name, got["fence-"+name.String()], r.id)
			}
		}
	}

	stopped := time.Now()
	b.stop()
	harness.Eventually(t, 30*time.Second, "a and c own every cluster", func() bool { return e.settled(a, c) })
	if took := time.Since(stopped); took > handoffBound {
		t.Errorf("the handoff after a graceful stop took %s, more than %s", took, handoffBound)
	}
	for lease, holder := range holders() {
		if holder == "b" {
			t.Errorf("the Lease %s still names b, which stopped", lease)
		}
	}

	lastRenewed := e.lastChange("fence.replica-c")
	cut.cut.Store(true)
	c.cancel()
	harness.Eventually(t, 4*leaseDuration, "a to own every cluster", func() bool { return len(a.c.Owned()) == 16 })
	// c's heartbeat and its clusters' fences were renewed together; the last change of the heartbeat bounds them.
	if took := time.Since(lastRenewed()); took > leaseDuration+probe+time.Second {
		t.Errorf("failover took %s after c's fences last changed, more than the lease duration plus a probe", took)
	}
	a.stop()
	c.stop()
	e.checkNoOverlap()
	leaks()
}
