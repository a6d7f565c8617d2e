// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// When a per-cluster source cannot be built for a cluster, engaging it fails with an error naming the cluster and
// nothing stays started for it, although another controller was engaged with it first; the other clusters go on,
// and the provider may retry.
//
// Two controllers: "healthy", registered first, and "picky", whose source fails for cluster instances whose id
// starts with "bad" while failing is set. The manager engages healthy before picky fails, so healthy has started
// sources for the cluster that must be stopped again.
func TestHalfEngagedCluster(t *testing.T) {
	const ns = "lc-half-engaged"
	ensureNamespace(t, "member-0", ns)
	createConfigMap(t, "member-0", ns, "obj")

	p := newTestProvider()
	mgr := newManager(t, p)
	healthyLog, pickyLog := &eventLog{}, &eventLog{}
	healthySrc, pickySrc := newCountingSource(healthyLog.configMapSource()), newCountingSource(pickyLog.configMapSource())
	var failing atomic.Bool
	failing.Store(true)
	pickySrc.setFail(func(_ multicluster.ClusterName, cl cluster.Cluster) error {
		if failing.Load() && strings.HasPrefix(instanceOf(cl), "bad") {
			return errors.New("this source cannot watch that cluster")
		}
		return nil
	})
	healthyRec, pickyRec := harness.NewRecorder(), harness.NewRecorder()
	for _, c := range []struct {
		name string
		src  *countingSource
		rec  *harness.Recorder
	}{{"healthy", healthySrc, healthyRec}, {"picky", pickySrc, pickyRec}} {
		ctrl, err := mccontroller.New(c.name, mgr, mccontroller.Options{Reconciler: recordingReconciler(c.rec)})
		if err != nil {
			t.Fatal(err)
		}
		if err := ctrl.MultiClusterWatch(c.src); err != nil {
			t.Fatal(err)
		}
	}
	harness.StartManager(t, t.Context(), mgr)

	good := memberCluster(t, "member-0", ns, "good")
	if err := p.Add(t.Context(), "good", good, mgr); err != nil {
		t.Fatal(err)
	}
	bothReconciled := func(key string) func() bool {
		return func() bool { return healthyRec.Has(key) && pickyRec.Has(key) }
	}
	harness.Eventually(t, 0, "good/obj reconciled by both controllers", bothReconciled("good/obj"))
	// nothingFrom returns a condition that holds while no handler sees a new event of the cluster.
	nothingFrom := func(clusterName string) func() bool {
		h, p := healthyLog.count(seenEvent{Cluster: clusterName}), pickyLog.count(seenEvent{Cluster: clusterName})
		return func() bool {
			return healthyLog.count(seenEvent{Cluster: clusterName}) == h && pickyLog.count(seenEvent{Cluster: clusterName}) == p
		}
	}

	t.Run("provider add", func(t *testing.T) {
		// Everything started for the failed cluster ends: the goroutines return to where they were.
		ignore := goleak.IgnoreCurrent()
		bad := memberCluster(t, "member-0", ns, "bad-add")
		err := p.Add(t.Context(), "bad", bad, mgr)
		mustNameCluster(t, err, "bad")
		if _, err := p.Get(t.Context(), "bad"); !notFound(err) {
			t.Errorf("provider Get(bad) after the failure: got %v, want not found", err)
		}
		if _, err := mgr.GetCluster(t.Context(), "bad"); !notFound(err) {
			t.Errorf("GetCluster(bad) after the failure: got %v, want not found", err)
		}
		bad.waitStopped(t, shortWait)
		waitNoLeak(t, ignore)

		quiet := nothingFrom("bad")
		createConfigMap(t, "member-0", ns, "after-bad-add")
		harness.Eventually(t, 0, "the good cluster is unaffected", bothReconciled("good/after-bad-add"))
		harness.Consistently(t, quietPeriod, "nothing of the failed cluster delivered", quiet)
		if healthyRec.Has("bad/after-bad-add") || pickyRec.Has("bad/after-bad-add") {
			t.Error("reconciled an object of the failed cluster")
		}

		// The provider retries with a cluster that works.
		if err := p.Add(t.Context(), "bad", memberCluster(t, "member-0", ns, "retried"), mgr); err != nil {
			t.Fatalf("retrying: %v", err)
		}
		harness.Eventually(t, 0, "the retried cluster reconciled by both", bothReconciled("bad/after-bad-add"))
		p.Remove("bad")
	})

	t.Run("engage by hand", func(t *testing.T) {
		// A provider of its own, engaging through the manager: on the failure it ends the cluster's context (as
		// the contract asks) and later retries the same instance with a new one.
		ignore := goleak.IgnoreCurrent()
		bad := memberCluster(t, "member-0", ns, "bad-direct")
		clusterCtx, stopCluster := context.WithCancel(t.Context())
		defer stopCluster()
		go func() {
			if err := bad.Start(clusterCtx); err != nil {
				t.Errorf("cluster: %v", err)
			}
		}()
		if !bad.GetCache().WaitForCacheSync(clusterCtx) {
			t.Fatal("cache did not sync")
		}
		ctx, cancel := context.WithCancel(clusterCtx)
		err := mgr.Engage(ctx, "bad-direct", bad)
		mustNameCluster(t, err, "bad-direct")
		cancel()
		if _, err := mgr.GetCluster(t.Context(), "bad-direct"); !notFound(err) {
			t.Errorf("GetCluster(bad-direct) after the failure: got %v, want not found", err)
		}
		quiet := nothingFrom("bad-direct")
		createConfigMap(t, "member-0", ns, "after-bad-direct")
		harness.Eventually(t, 0, "the good cluster is unaffected", bothReconciled("good/after-bad-direct"))
		harness.Consistently(t, quietPeriod, "nothing of the failed cluster delivered", quiet)

		// Retrying the same instance engages it with both controllers.
		failing.Store(false)
		defer failing.Store(true)
		ctx, cancel = context.WithCancel(clusterCtx)
		if err := mgr.Engage(ctx, "bad-direct", bad); err != nil {
			t.Fatalf("retrying: %v", err)
		}
		harness.Eventually(t, 0, "the retried cluster reconciled by both", bothReconciled("bad-direct/after-bad-direct"))
		if n := pickySrc.count("bad-direct"); n != 2 {
			t.Errorf("picky built its source %d times for bad-direct, want 2 (the failure and the retry)", n)
		}
		cancel()
		stopCluster()
		bad.waitStopped(t, shortWait)
		waitNoLeak(t, ignore)
	})

	t.Run("replacement", func(t *testing.T) {
		// A replacement that fails leaves the old instance engaged everywhere. (The new instance reaches another
		// member: one equal to the present instance would not replace it at all.)
		ensureNamespace(t, "member-1", ns)
		bad := memberCluster(t, "member-1", ns, "bad-replacement")
		err := p.AddOrReplace(t.Context(), "good", bad, mgr)
		mustNameCluster(t, err, "good")
		bad.waitStopped(t, shortWait)
		if good.isStopped() {
			t.Fatal("a failed replacement stopped the cluster it was to replace")
		}
		if got := getCluster(t, mgr, "good"); got != good {
			t.Fatalf("after a failed replacement GetCluster(good) returned %s, want the old instance", instanceOf(got))
		}
		createConfigMap(t, "member-0", ns, "after-bad-replacement")
		harness.Eventually(t, 0, "the old instance still delivers to both controllers", func() bool {
			want := seenEvent{Instance: "good", Name: "after-bad-replacement"}
			return healthyLog.count(want) == 1 && pickyLog.count(want) == 1
		})
		harness.Eventually(t, 0, "and both reconcile", bothReconciled("good/after-bad-replacement"))
	})
}

// waitNoLeak waits until no goroutine is left but those ignore ignores, and reports the others if they stay.
func waitNoLeak(t *testing.T, ignore goleak.Option) {
	t.Helper()
	deadline := time.Now().Add(shortWait)
	opts := harness.LeakOptions(ignore)
	for goleak.Find(opts...) != nil && time.Now().Before(deadline) {
		select {
		case <-time.After(100 * time.Millisecond):
		case <-t.Context().Done():
			return
		}
	}
	goleak.VerifyNone(t, opts...)
}
