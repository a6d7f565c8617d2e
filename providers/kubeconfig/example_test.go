// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
)

// A controller of ConfigMaps in every cluster whose kubeconfig is stored in a labelled Secret of the namespace
// "fleet" of the host cluster (create such Secrets with examples/kubeconfig/scripts/create-kubeconfig-secret.sh).
// The cluster of the Secret "eu-1" is reconciled as "eu-1".
func Example() {
	ctx := ctrl.SetupSignalHandler()
	provider := kubeconfig.New(kubeconfig.Options{
		Namespace: "fleet",
		RESTOptions: []func(*rest.Config) error{func(cfg *rest.Config) error {
			cfg.QPS, cfg.Burst, cfg.Timeout = 50, 100, 30*time.Second
			return nil
		}},
	})
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{})
	if err != nil {
		panic(err)
	}
	// The provider watches the Secrets with a controller of its own on the host manager.
	if err := provider.SetupWithManager(ctx, mgr); err != nil {
		panic(err)
	}
	err = mcbuilder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			fmt.Println("reconciling", req.NamespacedName, "of the cluster of Secret fleet/"+req.ClusterName.String())
			fmt.Println("engaged now:", provider.ClusterNames())
			return reconcile.Result{}, nil
		}))
	if err == nil {
		err = mgr.Start(ctx) // starts the provider too, which engages the clusters of the Secrets
	}
	if err != nil {
		panic(err)
	}
}
