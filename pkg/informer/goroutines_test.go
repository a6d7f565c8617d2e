package informer

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// clustersMeasured is how many clusters TestGoroutinesPerCluster engages, all against the host, each watching a
// namespace of its own (as the benchmarks do).
const clustersMeasured = 20

// TestGoroutinesPerCluster engages clusters with one controller watching one kind, and counts the goroutines each
// adds besides those of pooled HTTP connections: at most 10 with this package's informer, fewer than with
// client-go's. Once the manager stops, none is left.
func TestGoroutinesPerCluster(t *testing.T) {
	cs := clientset(t)
	namespaces := make([]string, clustersMeasured)
	for i := range namespaces {
		namespaces[i] = testNamespace(t, cs)
		createConfigMaps(t, cs, namespaces[i], "cm")
	}
	leakOpts := harness.LeakOptions(goleak.IgnoreCurrent())

	lean := goroutinesPerCluster(t, namespaces, ClusterOption())
	clientGo := goroutinesPerCluster(t, namespaces)
	t.Logf("goroutines per cluster: %.2f with informer.New, %.2f with client-go's informer", lean, clientGo)
	if lean > 10 {
		t.Errorf("%.2f goroutines per cluster, want at most 10", lean)
	}
	if lean >= clientGo {
		t.Errorf("%.2f goroutines per cluster, client-go's informer %.2f", lean, clientGo)
	}
	if err := goleak.Find(leakOpts...); err != nil {
		t.Errorf("goroutines left once the managers stopped: %v", err)
	}
}

// goroutinesPerCluster engages a cluster for each namespace, built with opts, with a multi-cluster controller of
// ConfigMaps, and returns the goroutines added per cluster once every ConfigMap has been reconciled and those of
// the start have ended. It stops the manager before returning.
func goroutinesPerCluster(t *testing.T, namespaces []string, opts ...cluster.Option) float64 {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	provider := clusters.New()
	mgr := harness.NewManager(t, fleet.Host(), provider, nil)
	var reconciled atomic.Int64
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named(fmt.Sprintf("goroutines-%d", time.Now().UnixNano())).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(context.Context, mcreconcile.Request) (reconcile.Result, error) {
			reconciled.Add(1)
			return reconcile.Result{}, nil
		})); err != nil {
		t.Fatal(err)
	}
	stop := harness.StartManager(t, ctx, mgr)
	defer stop()
	<-mgr.Elected()
	harness.Eventually(t, timeout, "the manager settled", settled(mcenvtest.GoroutinesBesidesConnections))
	before := mcenvtest.GoroutinesBesidesConnections()

	for _, ns := range namespaces {
		all := append([]cluster.Option{func(o *cluster.Options) {
			o.Cache.DefaultFieldSelector = fields.OneTermEqualSelector("metadata.namespace", ns)
		}}, opts...)
		cl, err := cluster.New(fleet.Host(), append(all, restmapper.ClusterOption())...)
		if err != nil {
			t.Fatal(err)
		}
		if err := provider.Add(ctx, multicluster.ClusterName(ns), cl); err != nil {
			t.Fatal(err)
		}
	}
	harness.Eventually(t, timeout, "every ConfigMap reconciled", func() bool {
		return reconciled.Load() >= int64(len(namespaces))
	})
	harness.Eventually(t, timeout, "the clusters settled", settled(mcenvtest.GoroutinesBesidesConnections))
	return float64(mcenvtest.GoroutinesBesidesConnections()-before) / float64(len(namespaces))
}

// settled returns a condition for harness.Eventually that holds once count has returned the same number five polls
// in a row: what started has finished starting.
func settled(count func() int) func() bool {
	last, same := -1, 0
	return func() bool {
		if n := count(); n == last {
			same++
		} else {
			last, same = n, 0
		}
		return same >= 5
	}
}
