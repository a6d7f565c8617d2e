// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/config"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
)

// This example adds a cluster for each context of the kubeconfig: AddConfig builds it the way the library's
// providers do (clusters.NewCluster). Clusters added before the manager starts are engaged when it starts; clusters
// added later are engaged at once, and Remove disengages them.
func ExampleNew() {
	ctx := ctrl.SetupSignalHandler()
	provider := clusters.New()
	for _, name := range []string{"eu-1", "us-2"} {
		cfg, err := config.GetConfigWithContext(name)
		if err != nil {
			panic(fmt.Sprintf("context %s of the kubeconfig: %v", name, err))
		}
		// The provider builds and starts the cluster.
		if err := provider.AddConfig(ctx, multicluster.ClusterName(name), cfg); err != nil {
			panic(err)
		}
	}

	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{})
	if err != nil {
		panic(err)
	}
	reconcile := func(_ context.Context, req mcreconcile.Request) (ctrl.Result, error) {
		fmt.Println("ConfigMap", req.NamespacedName, "of", req.ClusterName) // "eu-1" or "us-2"
		return ctrl.Result{}, nil
	}
	if err := mcbuilder.ControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(mcreconcile.Func(reconcile)); err != nil {
		panic(err)
	}
	go func() {
		<-time.After(time.Minute)
		provider.Remove("us-2") // disengaged everywhere
	}()
	if err := mgr.Start(ctx); err != nil {
		panic(err)
	}
}
