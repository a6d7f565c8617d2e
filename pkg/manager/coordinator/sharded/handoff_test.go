// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded_test

import (
	"context"
	"testing"
	"time"

	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// handoffBound is the bound on a voluntary handoff, 1s, plus what the work in these tests takes to drain.
const handoffBound = time.Second + workDuration

// workDuration is how long each piece of simulated work lasts.
const workDuration = 10 * time.Millisecond

// Replicas work on their clusters without pause while a replica joins, one leaves gracefully and one changes its
// weight: no two replicas ever work on a cluster at the same time, and each change settles within 1s plus the
// drain, far below the lease duration.
func TestNoOverlapAsReplicasComeAndGo(t *testing.T) {
	e, leaks := newEnvWith(t, 30)
	a, b, c := e.start("a", nil), e.start("b", nil), e.start("c", nil)
	harness.Eventually(t, 30*time.Second, "the first split", func() bool { return e.settled(a, b, c) })
	for _, r := range []*replica{a, b, c} {
		r.work(workDuration)
	}

	settle := func(what string, rs ...*replica) time.Duration {
		t.Helper()
		start := time.Now()
		harness.Eventually(t, 30*time.Second, what, func() bool { return e.settled(rs...) })
		took := time.Since(start)
		t.Logf("%s: settled in %s", what, took.Round(time.Millisecond))
		return took
	}

	d := e.start("d", nil)
	d.work(workDuration)
	if took := settle("d joins", a, b, c, d); took > handoffBound {
		t.Errorf("the handoff to a joining replica took %s, more than %s", took, handoffBound)
	}
	// Bounded loads: 30 clusters over 4 replicas is 7 or 8 each.
	for _, r := range []*replica{a, b, c, d} {
		if n := len(r.c.Owned()); n < 7 || n > 8 {
			t.Errorf("replica %s owns %d clusters, want 7 or 8", r.id, n)
		}
	}

	b.stop()
	if took := settle("b leaves", a, c, d); took > handoffBound {
		t.Errorf("the handoff from a leaving replica took %s, more than %s", took, handoffBound)
	}

	a.setWeight(3)
	if took := settle("a's weight goes to 3", a, c, d); took > handoffBound {
		t.Errorf("the handoff after a weight change took %s, more than %s", took, handoffBound)
	}
	if n := len(a.c.Owned()); n != 18 {
		t.Errorf("a, of weight 3 of 5, owns %d clusters, want 18", n)
	}

	for _, r := range []*replica{a, c, d} {
		r.stop()
	}
	e.checkNoOverlap()
	if n := len(e.log.work); n < 100 {
		t.Errorf("only %d pieces of work recorded: the test did not exercise the handoffs", n)
	}
	leaks()
}

// A replica that gives a cluster up stops the cluster's work (the context of work in flight ends) but keeps the
// fence until that work has returned; the new owner starts only then, and at once.
func TestReleaseWaitsForWorkInFlight(t *testing.T) {
	leaks := leakCheck(t)
	e := newEnv(t)
	names := clusterNames(10)
	e.addClusters(names...)
	a := e.start("a", nil)
	harness.Eventually(t, 30*time.Second, "a owns the fleet", func() bool { return e.settled(a) })

	// x is a cluster that moves to b when b joins.
	var x multicluster.ClusterName
	ids := make([]string, len(names))
	for i, n := range names {
		ids[i] = n.String()
	}
	for cl, owner := range sharder.NewBoundedHRW(0).Assign(ids, []sharder.PeerInfo{{ID: "a"}, {ID: "b"}}) {
		if owner == "b" {
			x = multicluster.ClusterName(cl)
			break
		}
	}

	workCtx, done, ok := a.c.StartClusterWork(t.Context(), x)
	if !ok {
		t.Fatalf("a may not work on %s, which it owns", x)
	}
	b := e.start("b", nil)
	harness.Eventually(t, 10*time.Second, "the work of a on "+x.String()+" to be told to stop", func() bool { return workCtx.Err() != nil })
	if _, _, ok := a.c.StartClusterWork(t.Context(), x); ok {
		t.Errorf("a may start new work on %s while it drains it", x)
	}
	harness.Consistently(t, 2*time.Second, "b not owning "+x.String()+" while a's work is in flight", func() bool {
		return !contains(b.c.Owned(), x)
	})
	released := time.Now()
	done()
	harness.Eventually(t, 10*time.Second, "b to own "+x.String(), func() bool { return contains(b.c.Owned(), x) })
	if took := time.Since(released); took > time.Second {
		t.Errorf("b owned %s %s after a's work returned, more than 1s", x, took)
	}
	if _, done, ok := b.c.StartClusterWork(context.WithoutCancel(t.Context()), x); !ok {
		t.Errorf("b may not work on %s, which it owns", x)
	} else {
		done()
	}
	a.stop()
	b.stop()
	leaks()
}

func contains(names []multicluster.ClusterName, x multicluster.ClusterName) bool {
	for _, n := range names {
		if n == x {
			return true
		}
	}
	return false
}
