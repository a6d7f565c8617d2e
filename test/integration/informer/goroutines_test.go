// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package informer_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/informer"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is a host without members: every measured cluster is a namespace of it, reached as a separate cluster.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

// timeout bounds every wait against the API server.
const timeout = time.Minute

// clientset returns a clientset of the host.
func clientset(t *testing.T) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(fleet.Host())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// testNamespace creates a namespace for the test, deleted when it ends.
func testNamespace(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "informer-"}}
	ns, err := cs.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.WithoutCancel(t.Context()), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

// createConfigMap creates a ConfigMap in ns.
func createConfigMap(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

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
		createConfigMap(t, cs, namespaces[i], "cm")
	}
	leakOpts := harness.LeakOptions(goleak.IgnoreCurrent())

	lean := goroutinesPerCluster(t, namespaces, informer.ClusterOption())
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
