// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// When the provider removes a cluster, its context ends: the cache the provider started for it stops (its Start
// returns), the manager no longer returns it, and nothing that happens in it afterwards reaches the controller,
// while the other clusters go on as before.
//
// A disengage that leaves the cluster running, or its event handlers registered, reconciles the object created
// after the removal.
func TestDisengageStopsEventsAndCache(t *testing.T) {
	const ns = "lc-disengage"
	for _, member := range []string{"member-0", "member-1"} {
		ensureNamespace(t, member, ns)
		createConfigMap(t, member, ns, "before")
	}

	p := clustersprovider.New()
	mgr := newManager(t, p)
	log := &eventLog{}
	rec := harness.NewRecorder()
	ctrl, err := mccontroller.New("disengage", mgr, mccontroller.Options{Reconciler: recordingReconciler(rec)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.MultiClusterWatch(log.configMapSource()); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	gone := memberCluster(t, "member-0", ns, "gone")
	kept := memberCluster(t, "member-1", ns, "kept")
	for name, cl := range map[string]*observedCluster{"gone": gone, "kept": kept} {
		if err := p.Add(t.Context(), multicluster.ClusterName(name), cl); err != nil {
			t.Fatal(err)
		}
	}
	harness.Eventually(t, 0, "both clusters reconciled", func() bool { return rec.Has("gone/before") && rec.Has("kept/before") })

	p.Remove("gone")
	gone.waitStopped(t, shortWait)
	if _, err := mgr.GetCluster(t.Context(), "gone"); !notFound(err) {
		t.Fatalf("GetCluster(gone) after removal: got %v, want not found", err)
	}
	if kept.isStopped() {
		t.Fatal("removing one cluster stopped another")
	}

	createConfigMap(t, "member-0", ns, "after")
	createConfigMap(t, "member-1", ns, "after")
	harness.Eventually(t, 0, "kept/after reconciled", func() bool { return rec.Has("kept/after") })
	harness.Consistently(t, quietPeriod, "nothing of the removed cluster delivered or reconciled", func() bool {
		return !rec.Has("gone/after") && log.count(seenEvent{Cluster: "gone", Name: "after"}) == 0
	})
}

// When a cluster's engagement ends while its cache keeps running (as a cache shared by several clusters does),
// the controller's event handlers are removed from the informer: the cache still sees new objects, the
// controller does not, and the goroutines the engagement started (the handlers' listeners among them) end.
//
// A disengage that relies on the cache stopping, and leaves the handlers registered, delivers the new object or,
// if its handlers drop events after the context ended, leaves their listener goroutines running.
func TestDisengageRemovesHandlersFromACacheThatLivesOn(t *testing.T) {
	const ns = "lc-shared-cache"
	ensureNamespace(t, "member-0", ns)
	createConfigMap(t, "member-0", ns, "before")

	mgr := newManager(t, newTestProvider())
	log := &eventLog{}
	rec := harness.NewRecorder()
	ctrl, err := mccontroller.New("shared-cache", mgr, mccontroller.Options{Reconciler: recordingReconciler(rec)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.MultiClusterWatch(log.configMapSource()); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	// The cluster runs for the whole test; it is engaged only for a shorter context.
	cl := memberCluster(t, "member-0", ns, "shared")
	go func() {
		if err := cl.Start(t.Context()); err != nil {
			t.Errorf("cluster: %v", err)
		}
	}()
	if !cl.GetCache().WaitForCacheSync(t.Context()) {
		t.Fatal("cache did not sync")
	}
	// A handler of the test's own, which stays registered, shows that the cache goes on delivering.
	informer, err := cl.GetCache().GetInformer(t.Context(), &corev1.ConfigMap{})
	if err != nil {
		t.Fatal(err)
	}
	var cacheSawAfter atomic.Bool
	reg, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		if o, ok := obj.(client.Object); ok && o.GetName() == "after" {
			cacheSawAfter.Store(true)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = informer.RemoveEventHandler(reg) }()
	if !toolscache.WaitForCacheSync(t.Context().Done(), reg.HasSynced) {
		t.Fatal("informer did not sync")
	}

	// Everything the engagement starts must end with it, although the cache runs on.
	ignore := goleak.IgnoreCurrent()
	engaged, disengage := context.WithCancel(t.Context())
	defer disengage()
	if err := mgr.Engage(engaged, "shared", cl); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "shared/before reconciled", func() bool { return rec.Has("shared/before") })

	disengage()
	if _, err := mgr.GetCluster(t.Context(), "shared"); !notFound(err) {
		t.Fatalf("GetCluster(shared) after its context ended: got %v, want not found", err)
	}
	createConfigMap(t, "member-0", ns, "after")
	harness.Eventually(t, 0, "the running cache sees the new object", cacheSawAfter.Load)
	harness.Consistently(t, quietPeriod, "nothing delivered to the controller after disengaging", func() bool {
		return log.count(seenEvent{Name: "after"}) == 0 && !rec.Has("shared/after")
	})
	waitNoLeak(t, ignore)
}

// Requests still queued for a cluster when it is removed are dropped: no reconcile of the cluster starts after
// the removal. The only worker (MaxConcurrentReconciles 1) is kept busy by another cluster's request while the
// removed cluster's requests fill the queue; once the worker is free they come up and are dropped (and counted as
// dropped), and the queue moves on to the other cluster's later requests.
//
// A controller that does not drop stale work reconciles every queued request of the removed cluster.
func TestDisengageDropsQueuedRequests(t *testing.T) {
	const ns = "lc-stale-work"
	const queued = 5
	ensureNamespace(t, "member-0", ns)
	ensureNamespace(t, "member-1", ns)
	createConfigMap(t, "member-1", ns, "blocker")
	for i := range queued {
		createConfigMap(t, "member-0", ns, fmt.Sprintf("queued-%d", i))
	}

	p := clustersprovider.New()
	mgr := newManager(t, p)
	log := &eventLog{}
	rec := harness.NewRecorder()
	blocked, unblock := make(chan struct{}), make(chan struct{})
	var blockOnce sync.Once
	const ctrlName = "stale-work"
	ctrl, err := mccontroller.New(ctrlName, mgr, mccontroller.Options{
		MaxConcurrentReconciles: 1,
		Reconciler: mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			rec.Add(req.ClusterName.String() + "/" + req.Name)
			if req.Name == "blocker" {
				blockOnce.Do(func() { close(blocked) })
				<-unblock
			}
			return reconcile.Result{}, nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.MultiClusterWatch(log.configMapSource()); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)
	defer func() {
		select {
		case <-unblock:
		default:
			close(unblock)
		}
	}()

	if err := p.Add(t.Context(), "busy", memberCluster(t, "member-1", ns, "busy")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-blocked:
	case <-t.Context().Done():
		t.Fatal("test ended")
	case <-time.After(shortWait):
		t.Fatal("the blocker was not reconciled")
	}

	dropped := counterValue(t, ctrlName)
	gone := memberCluster(t, "member-0", ns, "gone")
	if err := p.Add(t.Context(), "gone", gone); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "the removed cluster's requests queued", func() bool {
		return log.count(seenEvent{Cluster: "gone", Type: "Create"}) == queued
	})
	p.Remove("gone")
	gone.waitStopped(t, shortWait)
	close(unblock)

	createConfigMap(t, "member-1", ns, "after")
	harness.Eventually(t, 0, "the worker moved past the stale requests", func() bool { return rec.Has("busy/after") })
	harness.Eventually(t, 0, "the stale requests counted as dropped", func() bool {
		return counterValue(t, ctrlName)-dropped == queued
	})
	for key := range rec.Keys() {
		if strings.HasPrefix(key, "gone/") {
			t.Errorf("reconciled %s after its cluster was removed", key)
		}
	}
}

// counterValue reads the controller's dropped-requests counter.
func counterValue(t testing.TB, controller string) float64 {
	t.Helper()
	m := &dto.Metric{}
	if err := metrics.DroppedRequests.WithLabelValues(controller).Write(m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
