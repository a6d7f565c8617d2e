// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package builder_test

import (
	"context"
	"testing"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// As in the reference implementation, a cluster filter restricts the fleet only: a watch with
// WithEngageWithLocalCluster(true) covers the host whatever the filter says of it (here: nothing but member-0).
// Which fleet clusters such a watch covers is TestWatchesEngageOptions'.
func TestClusterFilterLeavesTheHostWatched(t *testing.T) {
	const ns = "builder-host-filter"
	ignore := goleak.IgnoreCurrent()
	mgr := harness.NewManager(t, fleet.Host(), member0(t), nil)
	seen := harness.NewRecorder()
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named(ns).
		For(&corev1.ConfigMap{},
			mcbuilder.WithEngageWithLocalCluster(true),
			mcbuilder.WithClusterFilter(func(name multicluster.ClusterName, _ cluster.Cluster) bool { return name == "member-0" })).
		WithEventFilter(inNamespace(ns)).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			seen.Add(req.String())
			return reconcile.Result{}, nil
		})); err != nil {
		t.Fatal(err)
	}
	stop := harness.StartManager(t, t.Context(), mgr)

	createConfigMaps(t, mcenvtest.HostName, ns, "on-host")
	createConfigMaps(t, "member-0", ns, "on-member")
	for _, want := range []string{ns + "/on-host", "cluster://member-0/" + ns + "/on-member"} {
		harness.Eventually(t, 0, "a reconcile of "+want, func() bool { return seen.Has(want) })
	}
	stop()
	goleak.VerifyNone(t, harness.LeakOptions(ignore)...)
}
