package nop_test

import (
	"context"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/nop"
)

// This example runs a multi-cluster controller in single-cluster mode: with the nop provider there is no fleet,
// the controller watches the host cluster, and its requests name the host (the empty cluster name). Swapping the
// provider for a real one turns the same code into a fleet controller.
func ExampleNew() {
	log := ctrl.Log.WithName("nop-examples")

	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), nop.New(), mcmanager.Options{})
	if err != nil {
		log.Error(err, "could not create manager")
		os.Exit(1)
	}

	err = mcbuilder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName) // mcmanager.LocalCluster: the host
			if err != nil {
				return ctrl.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
			log.Info("Reconciling ConfigMap", "cluster", req.ClusterName, "configmap", req.NamespacedName)
			return ctrl.Result{}, nil
		}))
	if err != nil {
		log.Error(err, "could not create controller")
		os.Exit(1)
	}

	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "could not start manager")
		os.Exit(1)
	}
}
