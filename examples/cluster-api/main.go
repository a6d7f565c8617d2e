// Command cluster-api runs in a Cluster API management cluster and reconciles the ConfigMaps of every provisioned
// workload cluster, named "<namespace>/<name>" of its Cluster object (providers/cluster-api).
package main

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
)

func main() {
	log := ctrl.Log.WithName("cluster-api-example")
	ctx := ctrl.SetupSignalHandler()

	host, err := manager.New(ctrl.GetConfigOrDie(), manager.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
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
		Named("workload-configmaps").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
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
