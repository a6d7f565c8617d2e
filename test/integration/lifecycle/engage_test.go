// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Engaging the same cluster instance again, through the manager or the controller, with the cluster's own context
// or another one, before or after the manager starts, is a no-op: the controller builds one source per cluster,
// registers one event handler (so every event is handled once) and reconciles every change once.
//
// An Engage that is not idempotent builds a second source (ForCluster is counted) and registers a second handler
// on the informer (each event is seen twice).
func TestEngageTwiceIsANoOp(t *testing.T) {
	const ns = "lc-idempotent"
	ensureNamespace(t, "member-0", ns)
	createConfigMap(t, "member-0", ns, "before")

	p := newTestProvider()
	mgr := newManager(t, p)
	log := &eventLog{}
	src := newCountingSource(log.configMapSource())
	rec := harness.NewRecorder()
	ctrl, err := mccontroller.New("idempotent", mgr, mccontroller.Options{Reconciler: recordingReconciler(rec)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}

	x := memberCluster(t, "member-0", ns, "x")
	if err := p.Add(t.Context(), "x", x, mgr); err != nil {
		t.Fatal(err)
	}
	engageAgain := func() {
		t.Helper()
		// With another context than the provider's: still the same instance, so still a no-op.
		if err := mgr.Engage(t.Context(), "x", x); err != nil {
			t.Fatalf("engaging x again with the manager: %v", err)
		}
		if err := ctrl.Engage(t.Context(), "x", x); err != nil {
			t.Fatalf("engaging x again with the controller: %v", err)
		}
	}
	engageAgain() // before the manager starts: the sources are pending
	harness.StartManager(t, t.Context(), mgr)
	harness.Eventually(t, 0, "x/before reconciled", func() bool { return rec.Has("x/before") })

	engageAgain() // after: the sources run
	createConfigMap(t, "member-0", ns, "after")
	harness.Eventually(t, 0, "x/after reconciled", func() bool { return rec.Has("x/after") })

	harness.Consistently(t, quietPeriod, "one source, one handler, one reconcile per change", func() bool {
		return src.count("x") == 1 &&
			log.count(seenEvent{Cluster: "x", Type: "Create", Name: "before"}) == 1 &&
			log.count(seenEvent{Cluster: "x", Type: "Create", Name: "after"}) == 1 &&
			rec.Count("x/before") == 1 && rec.Count("x/after") == 1
	})
	if t.Failed() {
		t.Logf("ForCluster(x)=%d events=%v reconciles=%v", src.count("x"), log.all(), rec.Keys())
	}
}

// Engage never waits for a cluster's cache: with member-1's API server down, clusters of member-1 engaged before
// clusters of member-0 (one after the other, on one goroutine, before and after the manager starts) delay neither
// the manager's start nor member-0's reconciles. Member-1's sources miss the short CacheSyncTimeout, are restarted
// with backoff (the source is rebuilt, so ForCluster is called again), and reconcile once the API server is back.
// The manager never fails.
//
// An Engage (or a controller Start) that waits for sources to sync blocks behind member-1 until the API server
// returns, so member-0 would not be reconciled while it is down; one that gives up after a failed sync never
// reconciles member-1.
func TestEngageDoesNotWaitForOtherClusters(t *testing.T) {
	const ns = "lc-nonblocking"
	for _, member := range []string{"member-0", "member-1"} {
		ensureNamespace(t, member, ns)
		createConfigMap(t, member, ns, "early")
	}
	t.Cleanup(func() {
		// In case the test failed while member-1 was down: later tests need it.
		if err := fleet.RestartMemberAPIServer(context.WithoutCancel(t.Context()), "member-1"); err != nil {
			t.Errorf("restarting member-1: %v", err)
		}
	})
	if err := fleet.StopMemberAPIServer("member-1"); err != nil {
		t.Fatal(err)
	}

	p := newTestProvider()
	mgr := newManager(t, p)
	log := &eventLog{}
	src := newCountingSource(log.configMapSource())
	rec := harness.NewRecorder()
	ctrl, err := mccontroller.New("nonblocking", mgr, mccontroller.Options{
		Reconciler:       recordingReconciler(rec),
		CacheSyncTimeout: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}

	// addInOrder adds clusters one after the other, on this goroutine: first an unreachable one of member-1, then
	// a healthy one of member-0. Each Add returns once the cluster is engaged.
	addInOrder := func(unreachable, healthy string) {
		t.Helper()
		for _, c := range []struct{ name, member string }{{unreachable, "member-1"}, {healthy, "member-0"}} {
			name := c.name
			cl := memberCluster(t, c.member, ns, name)
			if err := waitFor(t, shortWait, "adding "+name, func() error { return p.Add(t.Context(), multicluster.ClusterName(name), cl, mgr) }); err != nil {
				t.Fatalf("adding %s: %v", name, err)
			}
		}
	}
	// Before the manager starts: the unreachable cluster first.
	addInOrder("y", "x")

	running, exited := make(chan struct{}), make(chan struct{})
	if err := mgr.GetLocalManager().Add(manager.RunnableFunc(func(ctx context.Context) error {
		close(running)
		<-ctx.Done()
		close(exited)
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	stop := harness.StartManager(t, t.Context(), mgr)
	select {
	case <-running:
	case <-time.After(shortWait):
		t.Fatalf("the manager did not start its runnables within %s with member-1 unreachable", shortWait)
	}
	harness.Eventually(t, 0, "x/early reconciled while member-1 is down", func() bool { return rec.Has("x/early") })

	// After the manager starts: again the unreachable cluster first.
	addInOrder("y2", "x2")
	harness.Eventually(t, 0, "x2/early reconciled while member-1 is down", func() bool { return rec.Has("x2/early") })

	// The retry path: y's source missed its sync timeout and was rebuilt.
	harness.Eventually(t, 0, "y's source restarted after missing the sync timeout", func() bool { return src.count("y") >= 2 })
	if rec.Has("y/early") || rec.Has("y2/early") {
		t.Fatal("reconciled an object of member-1 while its API server was down")
	}

	if err := fleet.RestartMemberAPIServer(t.Context(), "member-1"); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "y and y2 reconciled once member-1 is back", func() bool {
		return rec.Has("y/early") && rec.Has("y2/early")
	})
	createConfigMap(t, "member-1", ns, "late")
	harness.Eventually(t, 0, "later changes in member-1 reconciled", func() bool {
		return rec.Has("y/late") && rec.Has("y2/late")
	})
	if n := src.count("x"); n != 1 {
		t.Errorf("ForCluster(x) called %d times, want 1: x was not affected by y", n)
	}
	if n := src.count("x2"); n != 1 {
		t.Errorf("ForCluster(x2) called %d times, want 1: x2 was not affected by y2", n)
	}

	select {
	case <-exited:
		t.Fatal("the manager stopped on its own")
	default:
	}
	stop() // fails the test if the manager returned an error
}

// Clusters engaged before the manager starts, before a controller is registered, between a controller's
// registration and its watches (while it is being built), after the manager started, and concurrently with
// controllers being built, all end up engaged exactly once with every source of every controller: each source is
// built once per cluster and each handler sees the cluster's object once.
//
// Engagements lost between a runnable's registration and the replay of the clusters engaged so far leave a
// source without a cluster (count 0); engagements both replayed and fanned out build it twice.
func TestEngageInAnyOrder(t *testing.T) {
	const ns = "lc-ordering"
	ensureNamespace(t, "member-0", ns)
	createConfigMap(t, "member-0", ns, "obj")

	p := newTestProvider()
	mgr := newManager(t, p)
	var clusterNames []string
	var namesMu sync.Mutex
	// add adds a cluster of member-0 under name; it may run on any goroutine.
	add := func(name string) {
		cl := memberCluster(t, "member-0", ns, name)
		if err := p.Add(t.Context(), multicluster.ClusterName(name), cl, mgr); err != nil {
			t.Errorf("adding %s: %v", name, err)
			return
		}
		namesMu.Lock()
		clusterNames = append(clusterNames, name)
		namesMu.Unlock()
	}

	type watched struct {
		ctrl string
		log  *eventLog
		src  *countingSource
	}
	var (
		watchesMu sync.Mutex
		watches   []watched
		recs      = map[string]*harness.Recorder{}
	)
	newController := func(name string) mccontroller.Controller {
		rec := harness.NewRecorder()
		c, err := mccontroller.New(name, mgr, mccontroller.Options{Reconciler: recordingReconciler(rec)})
		if err != nil {
			t.Errorf("controller %s: %v", name, err)
			return nil
		}
		watchesMu.Lock()
		recs[name] = rec
		watchesMu.Unlock()
		return c
	}
	watch := func(ctrlName string, c mccontroller.Controller) {
		if c == nil {
			return
		}
		log := &eventLog{}
		src := newCountingSource(log.configMapSource())
		if err := c.MultiClusterWatch(src); err != nil {
			t.Errorf("controller %s: watching: %v", ctrlName, err)
			return
		}
		watchesMu.Lock()
		watches = append(watches, watched{ctrl: ctrlName, log: log, src: src})
		watchesMu.Unlock()
	}

	add("before-any-controller")
	c1 := newController("ordering-1")
	add("while-c1-is-built")
	watch("ordering-1", c1)
	add("after-c1")
	watch("ordering-1", c1) // a second watch added after clusters engaged
	harness.StartManager(t, t.Context(), mgr)
	add("after-start")

	c2 := newController("ordering-2") // registered after the manager started
	add("while-c2-is-built")
	watch("ordering-2", c2)
	add("after-c2")

	// Clusters engaged concurrently with controllers being registered and built.
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			add(fmt.Sprintf("concurrent-%d", i))
		}()
	}
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("ordering-concurrent-%d", i)
			c := newController(name)
			watch(name, c)
			watch(name, c)
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	namesMu.Lock()
	names := append([]string(nil), clusterNames...)
	namesMu.Unlock()
	if len(names) != 12 {
		t.Fatalf("engaged %d clusters, want 12", len(names))
	}
	harness.Eventually(t, 0, "every controller reconciled the object of every cluster", func() bool {
		for _, rec := range recs {
			for _, name := range names {
				if !rec.Has(name + "/obj") {
					return false
				}
			}
		}
		return true
	})
	check := func() error {
		for _, w := range watches {
			for _, name := range names {
				if n := w.src.count(name); n != 1 {
					return fmt.Errorf("controller %s: source built %d times for cluster %s, want 1", w.ctrl, n, name)
				}
				if n := w.log.count(seenEvent{Cluster: name, Type: "Create", Name: "obj"}); n != 1 {
					return fmt.Errorf("controller %s: handler saw the object of cluster %s created %d times, want 1", w.ctrl, name, n)
				}
			}
		}
		return nil
	}
	harness.Eventually(t, 0, "every source engaged with every cluster", func() bool { return check() == nil })
	harness.Consistently(t, quietPeriod, "every source engaged exactly once with every cluster", func() bool {
		if err := check(); err != nil {
			t.Log(err)
			return false
		}
		return true
	})
}
