package capi_test

import (
	"context"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
)

// This example runs in a Cluster API management cluster and reconciles ConfigMaps in every workload cluster whose
// control plane is up. The provider is built first, handed to the manager, and then set up on it, which registers
// its controller of Cluster objects on the host manager.
func ExampleNew() {
	log := ctrl.Log.WithName("capi-example")
	ctx := ctrl.SetupSignalHandler()

	provider := capi.New(capi.Options{})
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, manager.Options{})
	if err != nil {
		log.Error(err, "could not create the manager")
		os.Exit(1)
	}
	if err := provider.SetupWithManager(mgr); err != nil {
		log.Error(err, "could not set up the provider")
		os.Exit(1)
	}

	err = mcbuilder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName) // "<namespace>/<name>" of the Cluster object
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

	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "could not run manager")
		os.Exit(1)
	}
}
