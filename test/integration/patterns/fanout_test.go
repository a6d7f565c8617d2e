// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"context"
	"fmt"
	"maps"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// A multi-cluster-aware reconciler: it watches ConfigMaps on the host only and copies each into every member of
// the fleet, reaching the members by the provider's cluster names through mgr.GetCluster. Copies appear in every
// member, updates on the host propagate, and the members' own ConfigMaps (the copies included) never reach the
// reconciler, since the watch is restricted to the host.
func TestHostConfigMapCopiedIntoEveryMember(t *testing.T) {
	const ns = "pat-fanout"
	createNamespace(t, ns, append([]string{host}, members...)...)

	provider := memberProvider(t, members...)
	mgr := harness.NewManager(t, fleet.Host(), provider, nil)

	var memberRequests atomic.Int32
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-fanout").
		For(&corev1.ConfigMap{},
			mcbuilder.WithEngageWithLocalCluster(true),
			mcbuilder.WithEngageWithProviderClusters(false)).
		WithEventFilter(inNamespace(ns)).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			if req.ClusterName != mcmanager.LocalCluster {
				memberRequests.Add(1)
				return reconcile.Result{}, nil
			}
			hostCluster, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return reconcile.Result{}, err
			}
			src := &corev1.ConfigMap{}
			if err := hostCluster.GetClient().Get(ctx, req.NamespacedName, src); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			for _, name := range provider.ClusterNames() {
				member, err := mgr.GetCluster(ctx, name)
				if err != nil {
					return reconcile.Result{}, err
				}
				cp := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: src.Namespace, Name: src.Name}}
				if _, err := controllerutil.CreateOrUpdate(ctx, member.GetClient(), cp, func() error {
					cp.Data = maps.Clone(src.Data)
					return nil
				}); err != nil {
					return reconcile.Result{}, fmt.Errorf("copying %s into %s: %w", req.NamespacedName, name, err)
				}
			}
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	createConfigMap(t, host, ns, "settings", map[string]string{"version": "v1"})
	waitForCopies := func(version string) {
		t.Helper()
		for _, name := range members {
			c := harness.Client(t, fleet, name)
			harness.Eventually(t, 0, "copy with version "+version+" in "+name, func() bool {
				cp := &corev1.ConfigMap{}
				if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "settings"}, cp); err != nil {
					return false
				}
				return cp.Data["version"] == version
			})
		}
	}
	waitForCopies("v1")

	updateConfigMapData(t, host, ns, "settings", map[string]string{"version": "v2"})
	waitForCopies("v2")

	// The copies were created and updated in every member well before this point; had the watch covered the
	// members, their events would have reached the reconciler.
	harness.Consistently(t, quiet, "no request for a member", func() bool { return memberRequests.Load() == 0 })
}
