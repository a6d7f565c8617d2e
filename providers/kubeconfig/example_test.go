package kubeconfig_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
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
	if err := provider.SetupWithManager(ctx, mgr); err != nil {
		panic(err)
	}

	err = mcbuilder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return reconcile.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			fmt.Println("reconciled", req.ClusterName, cm.Namespace, cm.Name)
			return reconcile.Result{}, nil
		}))
	if err != nil {
		panic(err)
	}

	if err := mgr.Start(ctx); err != nil {
		panic(err)
	}
}
