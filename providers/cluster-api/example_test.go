// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package capi_test

import (
	"context"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
)

// This example runs in a Cluster API management cluster and reconciles ConfigMaps in every workload cluster whose
// control plane is up. The provider is built first, handed to the manager, and then set up on it, which registers
// its controller of Cluster objects on the host manager.
func ExampleNew() {
	provider := capi.New(capi.Options{})
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, manager.Options{})
	if err != nil {
		ctrl.Log.Error(err, "could not create the manager")
		os.Exit(1)
	}
	// The provider watches Cluster objects with a controller of its own on the host manager.
	if err := provider.SetupWithManager(mgr); err != nil {
		ctrl.Log.Error(err, "could not set up the provider")
		os.Exit(1)
	}
	workload := mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
		cl, err := mgr.GetCluster(ctx, req.ClusterName) // "<namespace>/<name>" of the Cluster object
		if err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, client.IgnoreNotFound(cl.GetClient().Get(ctx, req.NamespacedName, &corev1.ConfigMap{}))
	})
	if err := mcbuilder.ControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(workload); err != nil {
		ctrl.Log.Error(err, "could not create the controller")
		os.Exit(1)
	}
	_ = mgr.Start(ctrl.SetupSignalHandler()) // starts the provider too, which engages the workload clusters
}
