// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package manager_test

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
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
)

// This example creates a multi-cluster manager for the host cluster of the kubeconfig, with a provider that
// supplies the fleet. Starting the manager starts the provider, which engages its clusters with the manager and
// every controller built for it.
func ExampleNew() {
	provider := clusters.New()

	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{})
	if err == nil {
		// Controllers built with mcbuilder.ControllerManagedBy(mgr) go here.
		err = mgr.Start(ctrl.SetupSignalHandler())
	}
	if err != nil {
		ctrl.Log.Error(err, "the manager failed")
		os.Exit(1)
	}
}

// This example wraps an existing controller-runtime manager. With a nil provider the manager runs in
// single-cluster mode: multi-cluster controllers watch the host cluster, and GetCluster(ctx, LocalCluster)
// returns it, so the same reconciler runs unchanged with and without a fleet.
func ExampleWithMultiCluster() {
	run := func(ctx context.Context) error {
		host, err := manager.New(ctrl.GetConfigOrDie(), manager.Options{})
		if err != nil {
			return err
		}
		mgr, err := mcmanager.WithMultiCluster(host, nil)
		if err != nil {
			return err
		}
		err = mcbuilder.ControllerManagedBy(mgr).
			For(&corev1.ConfigMap{}).
			Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
				cl, err := mgr.GetCluster(ctx, req.ClusterName) // the host cluster in single-cluster mode
				if err != nil {
					return ctrl.Result{}, err
				}
				cm := &corev1.ConfigMap{}
				return ctrl.Result{}, client.IgnoreNotFound(cl.GetClient().Get(ctx, req.NamespacedName, cm))
			}))
		if err != nil {
			return err
		}
		return mgr.Start(ctx)
	}
	if err := run(ctrl.SetupSignalHandler()); err != nil {
		ctrl.Log.Error(err, "the single-cluster controller failed")
		os.Exit(1)
	}
}

// This example serves a readiness endpoint that reports ready only once every engaged cluster has synced for every
// controller, naming the clusters that have not.
func ExampleFleetReadyzCheck() {
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), clusters.New(), mcmanager.Options{
		HealthProbeBindAddress: ":8081",
	})
	if err == nil {
		err = mgr.AddReadyzCheck("fleet", mcmanager.FleetReadyzCheck(mgr))
	}
	if err == nil {
		err = mgr.Start(ctrl.SetupSignalHandler())
	}
	if err != nil {
		ctrl.Log.Error(err, "the manager failed")
		os.Exit(1)
	}
}
