// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	"sigs.k8s.io/multicluster-runtime/pkg/informer"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

const (
	// churnCycles is how many clusters TestChurnReturnsToBaseline engages and disengages.
	churnCycles = 1000
	// churnHeapSlack is how much the live heap may grow over all the cycles: about 1 KiB per cycle, far less than
	// one cluster (its cache alone is tens of KiB), so that keeping anything per cluster fails the test.
	churnHeapSlack = churnCycles * 1024
)

// A thousand clusters built as the providers build them (the library's informers and shared discovery), each
// engaged, reconciled and disengaged under a new name, bring the process back to where it was: the same
// goroutines, and a live heap within about a KiB per cycle of the baseline. The discovery the clusters shared is
// released with the last of them (pkg/restmapper checks that with its own pool), and nothing is kept per cluster
// name by the manager, the controller or its queue.
func TestChurnReturnsToBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 engage/disengage cycles")
	}
	const ns = "lc-churn"
	ensureNamespace(t, "member-0", ns)
	createConfigMap(t, "member-0", ns, "obj")

	p := clustersprovider.New()
	mgr := newManager(t, p)
	reconciled := make(chan multicluster.ClusterName, 16)
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("churn").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			select {
			case reconciled <- req.ClusterName:
			default:
			}
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	cfg := harness.Config(t, fleet, "member-0")
	cycle := func(i int) {
		t.Helper()
		name := multicluster.ClusterName(fmt.Sprintf("churn-%04d", i))
		cl, err := cluster.New(cfg,
			func(o *cluster.Options) {
				o.Cache.DefaultFieldSelector = fields.OneTermEqualSelector("metadata.namespace", ns)
			},
			informer.ClusterOption(),
			restmapper.ClusterOption(),
		)
		if err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		if err := p.Add(t.Context(), name, cl); err != nil {
			t.Fatalf("cycle %d: adding: %v", i, err)
		}
		deadline := time.After(shortWait)
		for done := false; !done; {
			select {
			case got := <-reconciled:
				done = got == name
			case <-deadline:
				t.Fatalf("cycle %d: cluster %s not reconciled within %s", i, name, shortWait)
			}
		}
		p.Remove(name)
	}

	// Warm-up: what is made once per process (transports, the controller's workers, metrics) is in the baseline.
	for i := range 10 {
		cycle(i)
	}
	ignore := goleak.IgnoreCurrent()
	heapBefore := liveHeap()

	began := time.Now()
	for i := range churnCycles {
		cycle(10 + i)
	}
	took := time.Since(began)

	opts := harness.LeakOptions(ignore)
	waitForGoroutines(t, opts)
	goleak.VerifyNone(t, opts...)
	heapAfter := liveHeap()
	t.Logf("%d cycles in %s (%s each); live heap %.1f MiB before, %.1f MiB after (%+.1f KiB)", churnCycles,
		took.Round(time.Millisecond), (took / churnCycles).Round(time.Microsecond),
		float64(heapBefore)/(1<<20), float64(heapAfter)/(1<<20), (float64(heapAfter)-float64(heapBefore))/1024)
	if heapAfter > heapBefore+churnHeapSlack {
		t.Errorf("the live heap grew by %d KiB over %d cycles (allowed: %d KiB): something is kept per cluster",
			(heapAfter-heapBefore)/1024, churnCycles, churnHeapSlack/1024)
	}
}

// waitForGoroutines waits (bounded) until goleak finds nothing with opts: teardown is asynchronous.
func waitForGoroutines(t *testing.T, opts []goleak.Option) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for goleak.Find(opts...) != nil && time.Now().Before(deadline) {
		select {
		case <-time.After(100 * time.Millisecond):
		case <-t.Context().Done():
			return
		}
	}
}

// liveHeap returns the bytes of live heap objects after full collections.
func liveHeap() uint64 {
	var m runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
