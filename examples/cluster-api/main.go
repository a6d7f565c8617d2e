// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command cluster-api runs in a Cluster API management cluster and reconciles the ConfigMaps of every workload
// cluster whose control plane is up, named "<namespace>/<name>" of its Cluster object (providers/cluster-api).
package main

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
)

func main() {
	logf.SetLogger(zap.New(zap.UseDevMode(true)))
	log := logf.Log.WithName("cluster-api-example")
	ctx := ctrl.SetupSignalHandler()

	cfg, err := ctrl.GetConfig()
	if err != nil {
		log.Error(err, "could not get the management cluster's kubeconfig")
		os.Exit(1)
	}

	// snippet:start cluster-api-setup
	// The provider first, then the manager with the provider, then the provider's controller on the manager.
	provider := capi.New(capi.Options{})
	mgr, err := mcmanager.New(cfg, provider, manager.Options{
		Metrics: metricsserver.Options{BindAddress: "0"},
	})
	if err != nil {
		log.Error(err, "could not create the manager")
		os.Exit(1)
	}
	if err := provider.SetupWithManager(mgr); err != nil {
		log.Error(err, "could not set up the provider")
		os.Exit(1)
	}
	// snippet:end cluster-api-setup

	// A ConfigMap controller that runs in every workload cluster.
	err = mcbuilder.ControllerManagedBy(mgr).
		Named("workload-configmaps").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName) // "<namespace>/<name>" of the Cluster object
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
		log.Error(err, "could not create the ConfigMap controller")
		os.Exit(1)
	}

	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "could not run the manager")
		os.Exit(1)
	}
}
