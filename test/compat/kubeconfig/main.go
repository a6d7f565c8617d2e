// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command kubeconfig is the reference's kubeconfig example, as its users copy it: the fleet is made of the clusters
// whose kubeconfigs are stored in labelled Secrets of one namespace of the host cluster (providers/kubeconfig), and
// a controller logs each ConfigMap it finds, with its cluster.
//
// It is kept to prove source compatibility with the reference; see test/compat/README.md. Do not modernise it.
package main

import (
	"context"
	"errors"
	"flag"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	kubeconfigprovider "sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
)

func main() {
	var namespace string
	var kubeconfigSecretLabel string
	var kubeconfigSecretKey string

	flag.StringVar(&namespace, "namespace", "default", "Namespace where kubeconfig secrets are stored")
	flag.StringVar(&kubeconfigSecretLabel, "kubeconfig-label", "sigs.k8s.io/multicluster-runtime-kubeconfig",
		"Label used to identify secrets containing kubeconfig data")
	flag.StringVar(&kubeconfigSecretKey, "kubeconfig-key", "kubeconfig", "Key in the secret data that contains the kubeconfig")
	opts := zap.Options{
		Development: true,
	}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()

	ctrllog.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	entryLog := ctrllog.Log.WithName("entrypoint")
	ctx := ctrl.SetupSignalHandler()

	entryLog.Info("Starting application", "namespace", namespace, "kubeconfigSecretLabel", kubeconfigSecretLabel)

	// Create the kubeconfig provider with options.
	providerOpts := kubeconfigprovider.Options{
		Namespace:             namespace,
		KubeconfigSecretLabel: kubeconfigSecretLabel,
		KubeconfigSecretKey:   kubeconfigSecretKey,
	}

	// Create the provider first, then the manager with the provider.
	entryLog.Info("Creating provider")
	provider := kubeconfigprovider.New(providerOpts)

	// Create the multicluster manager with the provider.
	entryLog.Info("Creating manager")

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		entryLog.Error(err, "Unable to add client-go types to the scheme")
		os.Exit(1)
	}
	managerOpts := manager.Options{
		// Don't block main thread on leader election.
		LeaderElection: false,
		// Add the scheme.
		Scheme: scheme,
		// Don't serve metrics: several copies may run on one machine.
		Metrics: metricsserver.Options{BindAddress: "0"},
	}

	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, managerOpts)
	if err != nil {
		entryLog.Error(err, "Unable to create manager")
		os.Exit(1)
	}

	// Setup provider controller with the manager.
	err = provider.SetupWithManager(ctx, mgr)
	if err != nil {
		entryLog.Error(err, "Unable to setup provider")
		os.Exit(1)
	}

	// Create a configmap controller in the multi-cluster manager.
	err = mcbuilder.ControllerManagedBy(mgr).
		Named("multicluster-configmaps").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(
			func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
				log := ctrllog.FromContext(ctx).WithValues("cluster", req.ClusterName)
				log.Info("Reconciling ConfigMap")

				cl, err := mgr.GetCluster(ctx, req.ClusterName)
				if err != nil {
					return reconcile.Result{}, err
				}

				cm := &corev1.ConfigMap{}
				if err := cl.GetClient().Get(ctx, req.Request.NamespacedName, cm); err != nil {
					if apierrors.IsNotFound(err) {
						return reconcile.Result{}, nil
					}
					return reconcile.Result{}, err
				}

				log.Info("ConfigMap found", "namespace", cm.Namespace, "name", cm.Name, "cluster", req.ClusterName)

				return ctrl.Result{}, nil
			},
		))
	if err != nil {
		entryLog.Error(err, "Unable to create controller")
		os.Exit(1)
	}

	// Start the manager.
	entryLog.Info("Starting manager")
	if err := mgr.Start(ctx); err != nil {
		if !errors.Is(err, context.Canceled) {
			entryLog.Error(err, "Unable to start manager")
			os.Exit(1)
		}
	}
}
