// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package restmapper_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleetController is a manager on the host with the clusters provider and one controller that records
// "<cluster>/<namespace>/<name>" for every request it reconciles.
type fleetController struct {
	provider *clusters.Provider
	mgr      mcmanager.Manager
	seen     *harness.Recorder
}

func startFleetController(t *testing.T, name string, obj client.Object) *fleetController {
	t.Helper()
	f := &fleetController{provider: clusters.New(), seen: harness.NewRecorder()}
	f.mgr = harness.NewManager(t, fleet.Host(), f.provider, nil)
	if err := mcbuilder.ControllerManagedBy(f.mgr).Named(name).For(obj).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			f.seen.Add(req.ClusterName.String() + "/" + req.Namespace + "/" + req.Name)
			return reconcile.Result{}, nil
		})); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), f.mgr)
	return f
}

// engage adds the cluster to the provider under name, which starts and engages it.
func (f *fleetController) engage(t *testing.T, name multicluster.ClusterName, cl cluster.Cluster) {
	t.Helper()
	if err := f.provider.Add(t.Context(), name, cl); err != nil {
		t.Fatalf("engaging %s: %v", name, err)
	}
}

// namespaced returns an option that makes a cluster's cache watch namespace ns only.
func namespaced(ns string) cluster.Option {
	return func(o *cluster.Options) { o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}} }
}

// createNamespace creates namespace ns in the named control plane, and the objects in it.
func createNamespace(t *testing.T, name, ns string, objects ...client.Object) {
	t.Helper()
	c := harness.Client(t, fleet, name)
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	for _, obj := range objects {
		obj.SetNamespace(ns)
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
	}
}

func uniqueNamespace(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1e9)
}

// A controller for a CRD that no cluster serves yet reconciles it in the one cluster it is installed into within
// seconds, without restarting anything, while another cluster that shared the first one's group still reports no
// match for it.
func TestCRDInstalledLaterIsReconciledThere(t *testing.T) {
	group := uniqueGroup(t)
	gvk := schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Widget"}
	widget := &unstructured.Unstructured{}
	widget.SetGroupVersionKind(gvk)
	ns := uniqueNamespace("later")
	for _, m := range []string{"member-0", "member-1"} {
		createNamespace(t, m, ns)
	}
	pool := restmapper.NewPool()
	f := startFleetController(t, "later-crd", widget)
	clusters := make([]cluster.Cluster, 0, 2)
	for _, m := range []string{"member-0", "member-1"} {
		cl := harness.NewCluster(t, fleet, m, namespaced(ns), pool.ClusterOption())
		clusters = append(clusters, cl)
		f.engage(t, multicluster.ClusterName(m), cl)
	}
	for i, cl := range clusters {
		if _, err := cl.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); !meta.IsNoMatchError(err) {
			t.Fatalf("cluster %d maps %s before it is installed: %v", i, gvk, err)
		}
	}

	installed := time.Now()
	installCRD(t, "member-0", group)
	obj := widget.DeepCopy()
	obj.SetNamespace(ns)
	obj.SetName("w")
	if err := harness.Client(t, fleet, "member-0").Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 30*time.Second, "the widget reconciled in member-0", func() bool { return f.seen.Has("member-0/" + ns + "/w") })
	t.Logf("reconciled in member-0 %s after the CRD was installed", time.Since(installed).Round(time.Millisecond))

	if _, err := clusters[1].GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); !meta.IsNoMatchError(err) {
		t.Errorf("member-1 maps %s, installed into member-0 only: want a no-match error, got %v", gvk, err)
	}
	if _, err := clusters[0].GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
		t.Errorf("member-0 does not map %s: %v", gvk, err)
	}
}

// A cluster whose discovery fails is not reconciled while it fails, is retried, and is reconciled once discovery
// works; the other clusters of the pool are reconciled all along.
func TestFailingDiscoveryIsRetried(t *testing.T) {
	ns := uniqueNamespace("failing")
	createNamespace(t, "member-2", ns, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "obj"}})
	pool := restmapper.NewPool()
	f := startFleetController(t, "failing-discovery", &corev1.ConfigMap{})
	fault := &discoveryFault{}
	fault.failing.Store(true)
	failing, err := cluster.New(fault.wrap(config(t, "member-2")), namespaced(ns), pool.ClusterOption())
	if err != nil {
		t.Fatal(err)
	}
	f.engage(t, "failing", failing)
	for _, name := range []multicluster.ClusterName{"healthy-0", "healthy-1"} {
		f.engage(t, name, harness.NewCluster(t, fleet, "member-2", namespaced(ns), pool.ClusterOption()))
	}
	for _, name := range []string{"healthy-0", "healthy-1"} {
		harness.Eventually(t, timeout, name+" reconciled", func() bool { return f.seen.Has(name + "/" + ns + "/obj") })
	}
	harness.Consistently(t, 2*time.Second, "the failing cluster not reconciled", func() bool { return !f.seen.Has("failing/" + ns + "/obj") })
	if n := pool.Groups(); n != 1 {
		t.Errorf("%d groups while a cluster's discovery fails, want 1", n)
	}

	fault.failing.Store(false)
	recovered := time.Now()
	harness.Eventually(t, timeout, "the failing cluster reconciled once discovery works", func() bool { return f.seen.Has("failing/" + ns + "/obj") })
	t.Logf("reconciled %s after discovery worked again", time.Since(recovered).Round(time.Millisecond))
	if n := pool.Groups(); n != 1 {
		t.Errorf("%d groups after the cluster recovered, want 1 (all three serve the same APIs)", n)
	}
}

// Clusters engaged, reconciled and disengaged over and over leave no goroutine behind, and the group they shared is
// released once the last of them is gone. (make bench runs 1,000 cycles and compares heap and goroutines.)
func TestChurnReleasesEverything(t *testing.T) {
	ns := uniqueNamespace("churn")
	createNamespace(t, "member-2", ns, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "obj"}})
	pool := restmapper.NewPool()
	f := startFleetController(t, "churn", &corev1.ConfigMap{})
	cycle := func(i int) {
		t.Helper()
		name := multicluster.ClusterName(fmt.Sprintf("churn-%d", i))
		f.engage(t, name, harness.NewCluster(t, fleet, "member-2", namespaced(ns), pool.ClusterOption()))
		harness.Eventually(t, timeout, name.String()+" reconciled", func() bool { return f.seen.Has(name.String() + "/" + ns + "/obj") })
		f.provider.Remove(name)
		harness.Eventually(t, timeout, name.String()+" gone", func() bool { return len(f.provider.ClusterNames()) == 0 })
	}
	cycle(0)
	cycle(1)
	ignore := goleak.IgnoreCurrent()
	const cycles = 30
	for i := range cycles {
		cycle(2 + i)
	}
	var leaked error
	harness.Eventually(t, timeout, "no goroutine left", func() bool {
		leaked = goleak.Find(harness.LeakOptions(ignore)...)
		return leaked == nil
	})
	harness.Eventually(t, timeout, "the group released", func() bool {
		runtime.GC()
		return pool.Groups() == 0
	})
}
