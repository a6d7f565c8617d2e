// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package multiclusterruntime is the one import a simple multi-cluster controller needs: aliases of the most used
names of multicluster-runtime and controller-runtime, as controller-runtime's root package offers for a single
cluster.

	import mcr "sigs.k8s.io/multicluster-runtime"

	mgr, err := mcr.NewManager(mcr.GetConfigOrDie(), provider, mcr.Options{})
	...
	err = mcr.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Complete(reconciler) // Reconcile(ctx, mcr.Request) (mcr.Result, error)
	...
	err = mgr.Start(mcr.SetupSignalHandler())

The provider, which supplies the fleet, comes from a package of sigs.k8s.io/multicluster-runtime/providers (or is
nil, for single-cluster mode). Every alias is the very name it aliases, so code can move to the packages
themselves (pkg/manager, pkg/builder, pkg/reconcile, controller-runtime) at any time.

Main entry points:

  - NewManager and Manager: the multi-cluster manager (sigs.k8s.io/multicluster-runtime/pkg/manager).
  - NewControllerManagedBy and Builder: the multi-cluster controller builder (pkg/builder).
  - Request and Result: what a multi-cluster reconciler takes and returns (pkg/reconcile).
  - NewWebhookManagedBy: admission webhooks on the host manager.
*/
package multiclusterruntime
