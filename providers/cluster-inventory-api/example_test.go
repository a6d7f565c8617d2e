// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/access"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
)

// This example runs against a hub cluster holding ClusterProfiles and reaches each ready profile's cluster with
// the credential plugins of a KEP-5339 access-provider file, naming clusters by their KEP-2149 cluster ID where they
// have one.
func ExampleNew() {
	accessConfig, err := access.NewFromFile(access.DefaultProviderFile)
	if err != nil {
		panic(fmt.Sprintf("reading the access-provider file: %v", err))
	}
	provider, err := clusterinventoryapi.New(clusterinventoryapi.Options{
		KubeconfigStrategyOption: kubeconfigstrategy.Option{
			AccessProvider: &kubeconfigstrategy.AccessProviderOption{Provider: accessConfig},
		},
		ClusterName: clusterinventoryapi.ClusterIDName,
	})
	if err != nil {
		panic(err)
	}
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{})
	if err == nil {
		err = provider.SetupWithManager(mgr) // registers the controller of ClusterProfiles on the hub
	}
	if err == nil {
		err = mcbuilder.ControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(mcreconcile.Func(
			func(_ context.Context, req mcreconcile.Request) (ctrl.Result, error) {
				fmt.Println("cluster", req.ClusterName, "(its cluster ID, or <namespace>/<name> of its profile)")
				return ctrl.Result{}, nil
			}))
	}
	if err == nil {
		err = mgr.Start(ctrl.SetupSignalHandler())
	}
	if err != nil {
		panic(err)
	}
}
