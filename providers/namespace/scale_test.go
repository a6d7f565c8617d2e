// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// timingAware passes engagements on and records when each cluster was engaged and when its context ended.
type timingAware struct {
	inner multicluster.Aware

	mu        sync.Mutex
	engagedAt map[string]time.Time
	goneAt    map[string]time.Time
}

func (a *timingAware) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	err := a.inner.Engage(ctx, name, cl)
	a.mu.Lock()
	a.engagedAt[name.String()] = time.Now()
	a.mu.Unlock()
	context.AfterFunc(ctx, func() {
		a.mu.Lock()
		a.goneAt[name.String()] = time.Now()
		a.mu.Unlock()
	})
	return err
}

func (a *timingAware) times(names []string, gone bool) ([]time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := a.engagedAt
	if gone {
		m = a.goneAt
	}
	out := make([]time.Time, 0, len(names))
	for _, name := range names {
		at, ok := m[name]
		if !ok {
			return nil, false
		}
		out = append(out, at)
	}
	return out, true
}

// gatedProvider is the namespace provider whose discovery starts when gate is closed, so that the test can measure
// the process with everything running but no virtual cluster, then with all of them.
type gatedProvider struct {
	*namespace.Provider
	gate   chan struct{}
	timing *timingAware
}

func (g *gatedProvider) Start(ctx context.Context, aware multicluster.Aware) error {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil
	}
	g.timing.mu.Lock()
	g.timing.inner = aware
	g.timing.mu.Unlock()
	return g.Provider.Start(ctx, g.timing)
}

// liveHeap returns the live heap after a full garbage collection.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestScale measures what virtual clusters cost at scale: N namespaces (1,000 by default; MCR_SCALE_NAMESPACES
// overrides) with one ConfigMap each, one controller watching ConfigMaps. It runs only with MCR_SCALE=1.
//
// Heap and goroutines per virtual cluster are the difference between the process with everything running (shared
// cluster with its caches holding every Namespace and ConfigMap, manager, controller) before the provider
// discovers any namespace, and after all N are engaged and reconciled, divided by N: the objects are in the cache
// in both, so the figure is the cost of a virtual cluster beyond its objects. It also reports how long discovery
// took from the provider's start to every virtual cluster engaged and reconciled, and, for namespaces created and
// deleted while running, the latencies add→engaged and delete→disengaged.
func TestScale(t *testing.T) {
	if os.Getenv("MCR_SCALE") != "1" {
		t.Skip("set MCR_SCALE=1 to run the scale test")
	}
	n := 1000
	if v := os.Getenv("MCR_SCALE_NAMESPACES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	const live = 100 // namespaces created and deleted while the provider runs, for latencies
	if os.Getenv("MCR_SCALE_PROFILE") != "" {
		runtime.MemProfileRate = 1
	}

	c := hostClient(t)
	run := harness.UniqueName("scale")
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%04d", run, i)
	}
	began := time.Now()
	populate(t, c, names)
	t.Logf("created %d namespaces with a ConfigMap each in %s", n, time.Since(began).Round(time.Millisecond))

	shared := harness.NewCluster(t, fleet, mcenvtest.HostName)
	timing := &timingAware{engagedAt: map[string]time.Time{}, goneAt: map[string]time.Time{}}
	p := &gatedProvider{Provider: namespace.New(shared), gate: make(chan struct{}), timing: timing}
	mgr := harness.NewManager(t, fleet.Host(), p, nil)
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		t.Fatal(err)
	}
	var (
		mu         sync.Mutex
		reconciled = map[string]time.Time{}
	)
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("ns-scale").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			if _, ok := reconciled[req.ClusterName.String()]; !ok {
				reconciled[req.ClusterName.String()] = time.Now()
			}
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	allReconciled := func(names []string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, name := range names {
			if _, ok := reconciled[name]; !ok {
				return false
			}
		}
		return true
	}
	harness.StartManager(t, t.Context(), mgr)

	// Everything runs and every object is cached, but no virtual cluster exists yet.
	for _, obj := range []client.Object{&corev1.Namespace{}, &corev1.ConfigMap{}} {
		if _, err := shared.GetCache().GetInformer(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
	}
	harness.Eventually(t, time.Minute, "all objects cached", func() bool {
		list := &corev1.ConfigMapList{}
		return shared.GetClient().List(t.Context(), list) == nil && len(list.Items) >= n
	})
	goroutinesBefore := settledGoroutines(t)
	heapBefore := liveHeap()
	writeHeapProfile(t, "before")

	began = time.Now()
	close(p.gate)
	harness.Eventually(t, 5*time.Minute, "all engaged", func() bool { _, ok := timing.times(names, false); return ok })
	engagedIn := time.Since(began)
	harness.Eventually(t, 5*time.Minute, "all reconciled", func() bool { return allReconciled(names) })
	reconciledIn := time.Since(began)
	goroutinesAfter := settledGoroutines(t)
	heapAfter := liveHeap()
	writeHeapProfile(t, "after")

	perCluster := (float64(heapAfter) - float64(heapBefore)) / float64(n)
	goroutinesPer := float64(goroutinesAfter-goroutinesBefore) / float64(n)
	t.Logf("discovery of %d existing namespaces: all engaged in %s, all reconciled in %s",
		n, engagedIn.Round(time.Millisecond), reconciledIn.Round(time.Millisecond))
	t.Logf("heap: %.1f MiB before, %.1f MiB with %d virtual clusters: %.2f KiB per virtual cluster beyond its objects",
		float64(heapBefore)/(1<<20), float64(heapAfter)/(1<<20), n, perCluster/1024)
	t.Logf("goroutines: %d before, %d after: %+.3f per virtual cluster", goroutinesBefore, goroutinesAfter, goroutinesPer)
	if perCluster > 100*1024 {
		t.Errorf("a virtual cluster costs %.1f KiB, more than 100 KiB", perCluster/1024)
	}
	if goroutinesPer > 0.05 {
		t.Errorf("a virtual cluster costs %.3f goroutines", goroutinesPer)
	}

	// Latencies of namespaces created and deleted while running.
	liveNames := make([]string, live)
	created := make(map[string]time.Time, live)
	var createdMu sync.Mutex
	for i := range liveNames {
		liveNames[i] = fmt.Sprintf("%s-live-%03d", run, i)
	}
	parallel(t, liveNames, func(name string) {
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Error(err)
			return
		}
		createdMu.Lock()
		created[name] = time.Now()
		createdMu.Unlock()
	})
	harness.Eventually(t, time.Minute, "live namespaces engaged", func() bool { _, ok := timing.times(liveNames, false); return ok })
	engagedAt, _ := timing.times(liveNames, false)
	addLatency := make([]time.Duration, live)
	for i, name := range liveNames {
		addLatency[i] = engagedAt[i].Sub(created[name])
	}

	deleted := make(map[string]time.Time, n+live)
	all := append(slices.Clone(names), liveNames...)
	parallel(t, all, func(name string) {
		if err := c.DeleteAllOf(t.Context(), &corev1.ConfigMap{}, client.InNamespace(name)); err != nil {
			t.Error(err)
		}
		harness.DeleteNamespace(t, c, name)
		createdMu.Lock()
		deleted[name] = time.Now()
		createdMu.Unlock()
	})
	harness.Eventually(t, 5*time.Minute, "all disengaged", func() bool { _, ok := timing.times(all, true); return ok })
	goneAt, _ := timing.times(all, true)
	deleteLatency := make([]time.Duration, len(all))
	for i, name := range all {
		deleteLatency[i] = goneAt[i].Sub(deleted[name])
	}
	t.Logf("namespace created → engaged (%d namespaces, while %d others are engaged): %s", live, n, percentiles(addLatency))
	t.Logf("namespace finalized → disengaged (%d namespaces): %s", len(all), percentiles(deleteLatency))
}

func percentiles(d []time.Duration) string {
	slices.Sort(d)
	at := func(q float64) time.Duration {
		return d[min(len(d)-1, int(q*float64(len(d))))].Round(100 * time.Microsecond)
	}
	return fmt.Sprintf("p50 %s, p90 %s, p99 %s, max %s", at(0.5), at(0.9), at(0.99), d[len(d)-1].Round(100*time.Microsecond))
}

// writeHeapProfile writes a heap profile into the directory MCR_SCALE_PROFILE names, if set.
func writeHeapProfile(t *testing.T, name string) {
	dir := os.Getenv("MCR_SCALE_PROFILE")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, name+".pprof"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		t.Fatal(err)
	}
}
