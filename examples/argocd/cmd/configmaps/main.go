// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command configmaps logs every ConfigMap of every cluster that Argo CD knows, as a cluster Secret in its namespace
// of the host cluster (the current kubeconfig context), through the argocd example provider.
package main

import (
	"context"
	"flag"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"sigs.k8s.io/multicluster-runtime/examples/argocd"
	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

func main() {
	namespace := flag.String("namespace", argocd.DefaultNamespace, "namespace of the host with Argo CD's cluster Secrets")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseDevMode(true)))
	log := ctrl.Log.WithName("argocd-example")
	ctx := ctrl.SetupSignalHandler()

	// snippet:start manager
	provider := argocd.New(argocd.Options{Namespace: *namespace})
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{
		Metrics: metricsserver.Options{BindAddress: "0"},
		// The provider reads the Secrets through the host manager's cache: keep only the cluster Secrets there.
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{&corev1.Secret{}: argocd.SecretCache(*namespace)}},
	})
	if err != nil {
		log.Error(err, "could not create manager")
		os.Exit(1)
	}
	if err := provider.SetupWithManager(mgr); err != nil {
		log.Error(err, "could not set up the provider")
		os.Exit(1)
	}
	// snippet:end manager
	err = mcbuilder.ControllerManagedBy(mgr).
		Named("argocd-configmaps").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName) // named after the cluster Secret
			if err != nil {
				return ctrl.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
			ctrl.LoggerFrom(ctx).Info("ConfigMap found", "namespace", cm.Namespace, "name", cm.Name)
			return ctrl.Result{}, nil
		}))
	if err != nil {
		log.Error(err, "could not create controller")
		os.Exit(1)
	}
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "could not run manager")
		os.Exit(1)
	}
}
