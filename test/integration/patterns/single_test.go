// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"context"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/nop"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// ownerReconciler is the reconciler shared by both single-cluster modes: it reads the ConfigMap from the cluster
// of the request and records the cluster, the object and the object's "owner" value. Requests for another cluster
// than the host are counted.
func ownerReconciler(mgr mcmanager.Manager, rec *harness.Recorder, nonHost *atomic.Int32) mcreconcile.Func {
	return func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
		if req.ClusterName != mcmanager.LocalCluster {
			nonHost.Add(1)
		}
		cl, err := mgr.GetCluster(ctx, req.ClusterName)
		if err != nil {
			return reconcile.Result{}, err
		}
		cm := &corev1.ConfigMap{}
		if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		rec.Add(key(req.ClusterName, req.Namespace, req.Name) + "=" + cm.Data["owner"])
		return reconcile.Result{}, nil
	}
}

// Single-cluster mode: the same reconciler, built the same way (For without engage options), reconciles a
// ConfigMap on the host with req.ClusterName == "" both with a nil provider and with the nop provider.
func TestSingleClusterModeReconcilesTheHost(t *testing.T) {
	const ns = "pat-single"
	createNamespace(t, ns, host)

	for _, tc := range []struct {
		name     string
		provider multicluster.Provider
	}{
		{"nil", nil},
		{"nop", nop.New()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mgr := harness.NewManager(t, fleet.Host(), tc.provider, nil)
			rec := harness.NewRecorder()
			var nonHost atomic.Int32
			if err := mcbuilder.ControllerManagedBy(mgr).
				Named("patterns-single-" + tc.name).
				For(&corev1.ConfigMap{}).
				WithEventFilter(inNamespace(ns)).
				Complete(ownerReconciler(mgr, rec, &nonHost)); err != nil {
				t.Fatal(err)
			}
			harness.StartManager(t, t.Context(), mgr)

			name := "single-" + tc.name
			createConfigMap(t, host, ns, name, map[string]string{"owner": tc.name})
			harness.Eventually(t, shortTimeout, "reconcile of the host's ConfigMap", func() bool {
				return rec.Has(key("", ns, name) + "=" + tc.name)
			})
			if n := nonHost.Load(); n != 0 {
				t.Fatalf("%d requests for a cluster other than the host", n)
			}
		})
	}
}
