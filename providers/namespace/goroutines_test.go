// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Virtual clusters cost no goroutine: with a manager and a controller watching ConfigMaps, 200 namespaces with a
// ConfigMap each, all engaged and reconciled, leave the goroutine count where it was, within a small tolerance;
// once they are deleted and disengaged, every goroutine started since is gone (goleak).
func TestGoroutinesDoNotGrowPerNamespace(t *testing.T) {
	const namespaces = 200
	// A per-namespace goroutine would add at least 200. The tolerance covers goroutines unrelated to the number of
	// namespaces that may be alive when counted: HTTP/2 connection handling, client-go rate limiter timers, the
	// test's own helpers.
	const tolerance = 20

	c := hostClient(t)
	mgr, p := newNamespaceManager(t)
	rec := harness.NewRecorder()
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("ns-goroutines").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			rec.Add(req.ClusterName.String() + "/" + req.Namespace + "/" + req.Name)
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	// Warm up: the first virtual clusters start the shared informers, their shared registrations and the workers.
	warm := make([]string, 3)
	for i := range warm {
		warm[i] = harness.UniqueName("gor-warm")
	}
	populate(t, c, warm)
	for _, name := range warm {
		harness.Eventually(t, harness.ShortWait, "warm-up reconcile", func() bool { return rec.Has(name + "/default/cm") })
	}
	baseline := settledGoroutines(t)
	ignore := goleak.IgnoreCurrent()

	names := make([]string, namespaces)
	for i := range names {
		names[i] = fmt.Sprintf("gor-%03d-%s", i, harness.UniqueName("x"))
	}
	populate(t, c, names)
	for _, name := range names {
		harness.Eventually(t, harness.ShortWait, "reconcile of "+name, func() bool { return rec.Has(name + "/default/cm") })
	}
	engaged := settledGoroutines(t)
	if engaged > baseline+tolerance {
		t.Fatalf("goroutines grew from %d to %d with %d more virtual clusters", baseline, engaged, namespaces)
	}
	t.Logf("goroutines: %d before, %d with %d more virtual clusters engaged (%+.3f per virtual cluster)",
		baseline, engaged, namespaces, float64(engaged-baseline)/namespaces)

	parallel(t, names, func(name string) {
		if err := c.DeleteAllOf(t.Context(), &corev1.ConfigMap{}, client.InNamespace(name)); err != nil {
			t.Error(err)
		}
		harness.DeleteNamespace(t, c, name)
	})
	harness.Eventually(t, harness.ShortWait, "all disengaged", func() bool {
		for _, name := range names {
			if _, err := p.Get(t.Context(), multicluster.ClusterName(name)); err == nil {
				return false
			}
		}
		return true
	})
	harness.WaitNoLeak(t, ignore)
}

// transientGoroutines are the functions of goroutines that run while a cluster is being engaged and end once its
// sources have synced.
var transientGoroutines = []string{
	"multicluster-runtime/pkg/source.(*clusterKind[...]).run(",
	"multicluster-runtime/pkg/controller.(*mcController[...]).runSource(",
	"multicluster-runtime/providers/namespace.(*Provider).engageWorker",
}

// settledGoroutines waits until no goroutine of an engagement in progress runs, and returns the goroutine count.
func settledGoroutines(t *testing.T) int {
	t.Helper()
	harness.Eventually(t, harness.ShortWait, "engagements settled", func() bool {
		buf := make([]byte, 1<<22)
		stacks := string(buf[:runtime.Stack(buf, true)])
		for _, f := range transientGoroutines {
			if strings.Contains(stacks, f) {
				return false
			}
		}
		return true
	})
	return runtime.NumGoroutine()
}

// populate creates the namespaces, each with a ConfigMap "cm", in parallel.
func populate(t *testing.T, c client.Client, names []string) {
	t.Helper()
	parallel(t, names, func(name string) {
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Error(err)
			return
		}
		if err := c.Create(t.Context(), harness.ConfigMap(name, "cm", map[string]string{"owner": name})); err != nil {
			t.Error(err)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
}

// parallel runs f for every name with a few workers and waits for all.
func parallel(t *testing.T, names []string, f func(string)) {
	t.Helper()
	work := make(chan string)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range work {
				f(name)
			}
		}()
	}
	for _, name := range names {
		work <- name
	}
	close(work)
	wg.Wait()
}
