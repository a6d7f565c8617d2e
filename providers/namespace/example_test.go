// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace_test

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

// A controller that reconciles the ConfigMaps of every namespace of one cluster as if each namespace were a cluster
// of its own: requests name the namespace as the cluster, and the ConfigMap in namespace "default".
func ExampleNew() {
	cfg := ctrl.GetConfigOrDie()

	// The shared cluster backs every virtual cluster. The caller starts it: here, along with the manager.
	shared, err := cluster.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	provider := namespace.New(shared)

	mgr, err := mcmanager.New(cfg, provider, mcmanager.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	// Indexes are registered once, on the shared cache, and work in every virtual cluster.
	err = mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.ConfigMap{}, "data.owner", func(obj client.Object) []string {
		return []string{obj.(*corev1.ConfigMap).Data["owner"]}
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	err = mcbuilder.ControllerManagedBy(mgr).
		Named("configmaps-per-namespace").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			// req.ClusterName is the namespace; req.Namespace is "default".
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return reconcile.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			// Written with namespace "default", the Event lands in the real namespace.
			cl.GetEventRecorder("example").Eventf(cm, nil, corev1.EventTypeNormal, "Seen", "Reconcile", "reconciled")
			return reconcile.Result{}, nil
		}))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
