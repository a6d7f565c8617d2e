// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package nop_test

import (
	"context"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/nop"
)

// This example runs a multi-cluster controller in single-cluster mode: with the nop provider there is no fleet,
// the controller watches the host cluster, and its requests name the host (mcmanager.LocalCluster, the empty
// cluster name). Swapping the provider for a real one turns the same code into a fleet controller.
func ExampleNew() {
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), nop.New(), mcmanager.Options{})
	if err != nil {
		os.Exit(1)
	}
	reconciler := mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
		host, err := mgr.GetCluster(ctx, req.ClusterName) // req.ClusterName == mcmanager.LocalCluster
		if err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, host.GetClient().Get(ctx, req.NamespacedName, &corev1.ConfigMap{})
	})
	if mcbuilder.ControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(reconciler) != nil ||
		mgr.Start(ctrl.SetupSignalHandler()) != nil {
		os.Exit(1)
	}
}
