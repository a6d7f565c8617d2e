// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multiclusterruntime_test

import (
	"context"
	"os"

	corev1 "k8s.io/api/core/v1"

	mcr "sigs.k8s.io/multicluster-runtime"
)

// configMapReconciler reconciles the ConfigMaps of every cluster of the fleet.
type configMapReconciler struct {
	mgr mcr.Manager
}

// Reconcile reads the ConfigMap from the cluster the request names.
func (r *configMapReconciler) Reconcile(ctx context.Context, req mcr.Request) (mcr.Result, error) {
	log := mcr.LoggerFrom(ctx) // carries the cluster's name
	cl, err := r.mgr.GetCluster(ctx, req.ClusterName)
	if err != nil {
		return mcr.Result{}, err
	}
	cm := &corev1.ConfigMap{}
	if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
		return mcr.Result{}, err
	}
	log.Info("Reconciled ConfigMap", "keys", len(cm.Data))
	return mcr.Result{}, nil
}

// A complete multi-cluster controller with one import of multicluster-runtime (plus the API types it reconciles).
// The provider is nil here, which runs the controller on the host cluster only (single-cluster mode); pass a
// provider from sigs.k8s.io/multicluster-runtime/providers to reconcile a fleet with the same code.
func Example() {
	log := mcr.Log.WithName("example")

	mgr, err := mcr.NewManager(mcr.GetConfigOrDie(), nil, mcr.Options{})
	if err != nil {
		log.Error(err, "could not create the manager")
		os.Exit(1)
	}

	err = mcr.NewControllerManagedBy(mgr).
		Named("configmaps").
		For(&corev1.ConfigMap{}).
		Complete(&configMapReconciler{mgr: mgr})
	if err != nil {
		log.Error(err, "could not create the controller")
		os.Exit(1)
	}

	if err := mgr.Start(mcr.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}
