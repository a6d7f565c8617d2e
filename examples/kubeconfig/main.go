// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command kubeconfig reconciles the ConfigMaps of every cluster whose kubeconfig is stored in a labelled Secret of
// the host cluster (providers/kubeconfig). scripts/create-kubeconfig-secret.sh creates such Secrets, with a service
// account of the member and only the rights of scripts/rules.yaml.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
)

func main() {
	namespace := flag.String("namespace", "", "namespace of the host with the kubeconfig Secrets (default: the provider's, see providers/kubeconfig)")
	flag.Parse()
	log := ctrl.Log.WithName("kubeconfig-example")
	ctx := ctrl.SetupSignalHandler()

	provider := kubeconfig.New(kubeconfig.Options{Namespace: *namespace})
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		log.Error(err, "could not create manager")
		os.Exit(1)
	}
	if err := provider.SetupWithManager(ctx, mgr); err != nil {
		log.Error(err, "could not set up the provider")
		os.Exit(1)
	}
	err = mcbuilder.ControllerManagedBy(mgr).
		Named("kubeconfig-configmaps").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName) // the name of the Secret
			if err != nil {
				return ctrl.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
			fmt.Printf("ConfigMap %s in cluster %q\n", req.NamespacedName, req.ClusterName)
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
