package clusters_test

import (
	"context"
	"os"

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
	log := ctrl.Log.WithName("clusters-examples")
	ctx := ctrl.SetupSignalHandler()

	provider := clusters.New()

	for _, name := range []string{"eu-1", "us-2"} {
		cfg, err := config.GetConfigWithContext(name)
		if err != nil {
			log.Error(err, "could not load kubeconfig context", "cluster", name)
			os.Exit(1)
		}
		// The provider builds and starts the cluster.
		if err := provider.AddConfig(ctx, multicluster.ClusterName(name), cfg); err != nil {
			log.Error(err, "could not add cluster", "cluster", name)
			os.Exit(1)
		}
	}

	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{})
	if err != nil {
		log.Error(err, "could not create manager")
		os.Exit(1)
	}

	err = mcbuilder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			log.Info("Reconciling ConfigMap", "cluster", req.ClusterName, "configmap", req.NamespacedName)
			return ctrl.Result{}, nil
		}))
	if err != nil {
		log.Error(err, "could not create controller")
		os.Exit(1)
	}

	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "could not start manager")
		os.Exit(1)
	}
}
