package clusterinventoryapi_test

import (
	"context"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	log := ctrl.Log.WithName("cluster-inventory-example")

	accessConfig, err := access.NewFromFile(access.DefaultProviderFile)
	if err != nil {
		log.Error(err, "could not read the access-provider file")
		os.Exit(1)
	}
	provider, err := clusterinventoryapi.New(clusterinventoryapi.Options{
		KubeconfigStrategyOption: kubeconfigstrategy.Option{
			AccessProvider: &kubeconfigstrategy.AccessProviderOption{Config: accessConfig},
		},
		ClusterName: clusterinventoryapi.ClusterIDName,
	})
	if err != nil {
		log.Error(err, "could not create the provider")
		os.Exit(1)
	}
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{})
	if err != nil {
		log.Error(err, "could not create manager")
		os.Exit(1)
	}
	if err := provider.SetupWithManager(mgr); err != nil {
		log.Error(err, "could not set up the provider")
		os.Exit(1)
	}

	err = mcbuilder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return ctrl.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			return ctrl.Result{}, client.IgnoreNotFound(cl.GetClient().Get(ctx, req.NamespacedName, cm))
		}))
	if err != nil {
		log.Error(err, "could not create controller")
		os.Exit(1)
	}

	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "could not run manager")
		os.Exit(1)
	}
}
