// Command file reconciles the ConfigMaps of every context of the kubeconfig files in a directory
// (providers/file): files added, changed or removed while it runs engage, replace or disengage their clusters.
// Clusters are named "<file path>+<context>".
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/file"
)

func main() {
	dir := flag.String("dir", ".", "directory of kubeconfig files (*.kubeconfig, *.yaml, ... see file.DefaultKubeconfigGlobs)")
	flag.Parse()
	log := ctrl.Log.WithName("file-example")

	provider, err := file.New(file.Options{KubeconfigDirs: []string{*dir}})
	if err != nil {
		log.Error(err, "could not create the provider")
		os.Exit(1)
	}
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		log.Error(err, "could not create manager")
		os.Exit(1)
	}
	err = mcbuilder.ControllerManagedBy(mgr).
		Named("file-configmaps").
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
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "could not run manager")
		os.Exit(1)
	}
}
