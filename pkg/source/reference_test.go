// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package source_test

import (
	"context"
	"testing"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	mcsource "sigs.k8s.io/multicluster-runtime/pkg/source"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Code written for the reference implementation, as its builder is: a source filtered to the fleet's clusters,
// whose source for the host, which the filter rejects, is started all the same. Both the host's ConfigMaps and
// those of the member the filter accepts are reconciled.
func TestSourceOfARejectedClusterWatches(t *testing.T) {
	const ns = "source-reference-style"
	ignore := goleak.IgnoreCurrent()
	for _, controlPlane := range []string{mcenvtest.HostName, "member-0"} {
		c := harness.Client(t, fleet, controlPlane)
		for _, obj := range []client.Object{
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "on-" + controlPlane}},
		} {
			if err := c.Create(t.Context(), obj); err != nil {
				t.Fatal(err)
			}
		}
	}
	provider := clustersprovider.New()
	if err := provider.AddConfig(t.Context(), "member-0", harness.Config(t, fleet, "member-0")); err != nil {
		t.Fatal(err)
	}
	mgr := harness.NewManager(t, fleet.Host(), provider, nil)
	seen := harness.NewRecorder()
	ctrl, err := mccontroller.New(ns, mgr, mccontroller.Options{
		Reconciler: mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			seen.Add(req.String())
			return reconcile.Result{}, nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}

	src := mcsource.Kind[client.Object](&corev1.ConfigMap{}, mchandler.TypedEnqueueRequestForObject[client.Object](),
		predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == ns })).
		WithClusterFilter(func(name multicluster.ClusterName, _ cluster.Cluster) bool { return name == "member-0" })
	hostSrc, _, err := src.ForCluster("", mgr.GetLocalManager())
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.Watch(hostSrc); err != nil {
		t.Fatal(err)
	}
	if err := ctrl.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}
	stop := harness.StartManager(t, t.Context(), mgr)

	for _, want := range []string{ns + "/on-host", "cluster://member-0/" + ns + "/on-member-0"} {
		harness.Eventually(t, 0, "a reconcile of "+want, func() bool { return seen.Has(want) })
	}
	stop()
	goleak.VerifyNone(t, harness.LeakOptions(ignore)...)
}
