// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multi_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/providers/multi"
)

// Two sources of clusters behind one manager: the clusters of each are reconciled as "<source>#<cluster>".
func Example() {
	ctx := ctrl.SetupSignalHandler()
	dev, prod := clustersprovider.New(), clustersprovider.New()
	// ... dev.AddConfig(ctx, "kind-dev", devConfig); prod.AddConfig(ctx, "eu1", eu1Config) ...

	provider := multi.New(multi.Options{}) // clusters are named "dev#kind-dev", "prod#eu1", ...
	for name, inner := range map[string]multicluster.Provider{"dev": dev, "prod": prod} {
		if err := provider.AddProvider(name, inner); err != nil {
			panic(err)
		}
	}
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{})
	if err != nil {
		panic(err)
	}
	err = mcbuilder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName) // "prod#eu1" reaches eu1 through the prod provider
			if err != nil {
				return reconcile.Result{}, err
			}
			return reconcile.Result{}, client.IgnoreNotFound(cl.GetClient().Get(ctx, req.NamespacedName, &corev1.ConfigMap{}))
		}))
	if err != nil {
		panic(err)
	}
	_ = mgr.Start(ctx)
}

// Inner providers join and leave at any time, before or while the manager runs; leaving disengages all their
// clusters. Names are split at the first separator.
func ExampleProvider_AddProvider() {
	provider := multi.New(multi.Options{Separator: "/"})
	if err := provider.AddProvider("staging", clustersprovider.New()); err != nil {
		panic(err)
	}
	if err := provider.AddProvider("prod", clustersprovider.New()); err != nil {
		panic(err)
	}
	fmt.Println(provider.ProviderNames())

	_, err := provider.Get(context.Background(), "dev/kind-dev")
	fmt.Println(err)

	provider.RemoveProvider("staging") // disengages every "staging/..." cluster
	fmt.Println(provider.ProviderNames())
	// Output:
	// [prod staging]
	// cluster "dev/kind-dev": no inner provider named "dev": cluster not found
	// [prod]
}
