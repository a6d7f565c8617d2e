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

// This example runs in a Cluster API management cluster and reconciles ConfigMaps in every provisioned workload
// cluster. The provider needs the host manager first, to register its controller of Cluster objects on it.
func ExampleNew() {
	log := ctrl.Log.WithName("capi-example")
	ctx := ctrl.SetupSignalHandler()

	host, err := manager.New(ctrl.GetConfigOrDie(), manager.Options{})
	if err != nil {
		log.Error(err, "could not create the host manager")
		os.Exit(1)
	}
	provider, err := capi.New(host, capi.Options{})
	if err != nil {
		log.Error(err, "could not create the provider")
		os.Exit(1)
	}
	mgr, err := mcmanager.WithMultiCluster(host, provider)
	if err != nil {
		log.Error(err, "could not create the multi-cluster manager")
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
