// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package readme holds the code sample of the project README (README.md at the repository's root), compiled with
// the rest of the repository, so that the README cannot drift from the API.
package readme

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
)

// Run is the README's sample: a controller of the ConfigMaps of the clusters of the kubeconfig's contexts.
func Run(ctx context.Context, contexts []string) error {
	// snippet:start readme
	provider := clusters.New() // or file, kubeconfig, namespace, multi, ... (see providers/)
	for _, name := range contexts {
		cfg, err := config.GetConfigWithContext(name)
		if err != nil {
			return err
		}
		// The provider builds the cluster as every provider of the library builds its clusters.
		if err := provider.AddConfig(ctx, multicluster.ClusterName(name), cfg); err != nil {
			return err
		}
	}
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{})
	if err != nil {
		return err
	}
	err = mcbuilder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName) // the cluster the object lives in
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
	// snippet:end readme
}
