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
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/providers/multi"
)

// Two sources of clusters behind one manager: the clusters of each are reconciled as "<source>#<cluster>".
func Example() {
	ctx := ctrl.SetupSignalHandler()

	dev, prod := clustersprovider.New(), clustersprovider.New()
	// ... dev.Add(ctx, "kind-dev", devCluster); prod.Add(ctx, "eu1", eu1Cluster) ...

	provider := multi.New(multi.Options{}) // clusters are named "dev#kind-dev", "prod#eu1", ...
	if err := provider.AddProvider("dev", dev); err != nil {
		panic(err)
	}
	if err := provider.AddProvider("prod", prod); err != nil {
		panic(err)
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
