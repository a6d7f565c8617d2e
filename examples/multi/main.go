// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command multi composes two providers into one fleet (providers/multi): the namespaces of the host cluster as
// virtual clusters (providers/namespace), named "team#<namespace>", and the contexts of a kubeconfig file as real
// clusters (providers/clusters), named "kube#<context>". One ConfigMap controller reconciles across both.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/providers/multi"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

func main() {
	fleetKubeconfig := flag.String("fleet-kubeconfig", "", "kubeconfig file whose contexts are the \"kube\" clusters")
	flag.Parse()
	log := ctrl.Log.WithName("multi-example")
	ctx := ctrl.SetupSignalHandler()
	cfg := ctrl.GetConfigOrDie()

	// The host's namespaces, as virtual clusters; the manager starts the shared cluster.
	shared, err := cluster.New(cfg)
	if err != nil {
		log.Error(err, "could not create the shared cluster")
		os.Exit(1)
	}
	kube := clusters.New()
	provider := multi.New(multi.Options{})
	if err := provider.AddProvider("team", namespace.New(shared)); err != nil {
		log.Error(err, "could not add the namespace provider")
		os.Exit(1)
	}
	if err := provider.AddProvider("kube", kube); err != nil {
		log.Error(err, "could not add the clusters provider")
		os.Exit(1)
	}

	mgr, err := mcmanager.New(cfg, provider, mcmanager.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		log.Error(err, "could not create manager")
		os.Exit(1)
	}
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		log.Error(err, "could not add the shared cluster")
		os.Exit(1)
	}
	err = mcbuilder.ControllerManagedBy(mgr).
		Named("multi-configmaps").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName) // "team#<namespace>" or "kube#<context>"
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

	if *fleetKubeconfig != "" {
		go func() {
			if err := addContexts(ctx, kube, *fleetKubeconfig); err != nil {
				log.Error(err, "could not add the kubeconfig's clusters")
			}
		}()
	}
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "could not run manager")
		os.Exit(1)
	}
}

// addContexts adds a cluster per context of the kubeconfig file to the clusters provider, named after the context.
func addContexts(ctx context.Context, kube *clusters.Provider, path string) error {
	raw, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	names := make([]string, 0, len(raw.Contexts))
	for name := range raw.Contexts {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, name, nil, nil).ClientConfig()
		if err != nil {
			return fmt.Errorf("context %q: %w", name, err)
		}
		if err := kube.AddConfig(ctx, multicluster.ClusterName(name), cfg); err != nil {
			return err
		}
	}
	return nil
}
