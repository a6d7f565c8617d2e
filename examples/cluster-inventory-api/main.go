// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command cluster-inventory-api runs against a hub cluster holding ClusterProfiles (KEP-4322) and reconciles the
// ConfigMaps of every ready profile's cluster, reaching each cluster with the credential plugins of a KEP-5339
// access-provider file (providers/cluster-inventory-api). It is written as the reference implementation's example
// is: the published types of sigs.k8s.io/cluster-inventory-api registered in the manager's scheme (client-go's
// scheme.Scheme, the default), the access-provider file read with that module's pkg/access.
package main

import (
	"context"
	"flag"
	"os"

	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/cluster-inventory-api/pkg/access"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
)

func init() {
	// The program's own registration of the published types, as in the reference's example; the provider's
	// SetupWithManager finds them there and adds nothing.
	utilruntime.Must(clusterinventoryv1alpha1.AddToScheme(scheme.Scheme))
}

func main() {
	providerFile := access.SetupProviderFileFlag() // -clusterprofile-provider-file, the KEP-5339 access-provider file
	byID := flag.Bool("name-by-cluster-id", false, "name clusters by their KEP-2149 cluster ID property where they have one")
	zapOptions := zap.Options{}
	zapOptions.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOptions)))
	log := ctrl.Log.WithName("cluster-inventory-example")
	ctx := ctrl.SetupSignalHandler()

	clusterName := clusterinventoryapi.ProfileName // "<namespace>/<name>" of the profile, the default
	if *byID {
		clusterName = clusterinventoryapi.ClusterIDName
	}

	// snippet:start cluster-inventory-setup
	accessConfig, err := access.NewFromFile(*providerFile) // the access-provider file: types → credential plugins
	if err != nil {
		log.Error(err, "could not read the access-provider file")
		os.Exit(1)
	}
	provider, err := clusterinventoryapi.New(clusterinventoryapi.Options{
		KubeconfigStrategyOption: kubeconfigstrategy.Option{
			AccessProvider: &kubeconfigstrategy.AccessProviderOption{Provider: accessConfig},
		},
		ClusterName: clusterName,
	})
	if err != nil {
		log.Error(err, "could not create the provider")
		os.Exit(1)
	}

	cfg := ctrl.GetConfigOrDie() // the hub
	opts := mcmanager.Options{Metrics: metricsserver.Options{BindAddress: "0"}}
	mgr, err := mcmanager.New(cfg, provider, opts)
	if err != nil {
		log.Error(err, "could not create the manager")
		os.Exit(1)
	}
	if err := provider.SetupWithManager(mgr); err != nil {
		log.Error(err, "could not set up the provider")
		os.Exit(1)
	}
	// snippet:end cluster-inventory-setup

	err = mcbuilder.ControllerManagedBy(mgr).
		Named("inventory-configmaps").
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
			log.Info("Reconciled ConfigMap", "cluster", req.ClusterName, "namespace", req.Namespace, "name", req.Name)
			return ctrl.Result{}, nil
		}))
	if err != nil {
		log.Error(err, "could not create the controller")
		os.Exit(1)
	}

	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "could not run the manager")
		os.Exit(1)
	}
}
