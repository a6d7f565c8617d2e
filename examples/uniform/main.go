// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command uniform runs a uniform reconciler: the same code reads from and writes to each cluster of the fleet, here
// the contexts of a kubeconfig file handed to the clusters provider (providers/clusters). Every ConfigMap gets an
// annotation counting its keys, written into the cluster it lives in. With -single, the same reconciler runs in
// single-cluster mode against the current context only (providers/nop), unchanged.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/providers/nop"
)

// keysAnnotation is the annotation the reconciler writes.
const keysAnnotation = "example.multicluster-runtime.sigs.k8s.io/keys"

func main() {
	fleetKubeconfig := flag.String("fleet-kubeconfig", "", "kubeconfig file whose contexts are the fleet's clusters")
	single := flag.Bool("single", false, "run in single-cluster mode against the current context")
	flag.Parse()
	log := ctrl.Log.WithName("uniform-example")
	ctx := ctrl.SetupSignalHandler()

	// snippet:start uniform-modes
	var provider multicluster.Provider = nop.New()
	var fleet *clusters.Provider
	if !*single {
		fleet = clusters.New()
		provider = fleet
	}
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		log.Error(err, "could not create manager")
		os.Exit(1)
	}
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("count-keys").
		For(&corev1.ConfigMap{}).
		Complete(&keyCounter{mgr: mgr}); err != nil {
		log.Error(err, "could not create controller")
		os.Exit(1)
	}
	// snippet:end uniform-modes
	if fleet != nil {
		go func() {
			if err := addContexts(ctx, fleet, *fleetKubeconfig); err != nil {
				log.Error(err, "could not add the fleet's clusters")
			}
		}()
	}
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "could not run manager")
		os.Exit(1)
	}
}

// addContexts adds a cluster per context of the kubeconfig file to the clusters provider, named after the context.
func addContexts(ctx context.Context, fleet *clusters.Provider, path string) error {
	raw, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return fmt.Errorf("reading the fleet's kubeconfig: %w", err)
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
		// snippet:start add-config
		// The provider builds the cluster (clusters.NewCluster), starts it and engages it.
		if err := fleet.AddConfig(ctx, multicluster.ClusterName(name), cfg); err != nil {
			return err
		}
		// snippet:end add-config
	}
	return nil
}

// keyCounter annotates every ConfigMap with its number of keys, in the cluster the request names. It is written as
// for one cluster, apart from looking the cluster up by name.
type keyCounter struct{ mgr mcmanager.Manager }

// snippet:start uniform-reconciler
func (r *keyCounter) Reconcile(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
	cl, err := r.mgr.GetCluster(ctx, req.ClusterName)
	if err != nil {
		return ctrl.Result{}, err
	}
	c := cl.GetClient()
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, req.NamespacedName, cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	keys := strconv.Itoa(len(cm.Data) + len(cm.BinaryData))
	if cm.Annotations[keysAnnotation] == keys {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(cm.DeepCopy())
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[keysAnnotation] = keys
	if err := c.Patch(ctx, cm, patch); err != nil {
		return ctrl.Result{}, err
	}
	fmt.Printf("ConfigMap %s in cluster %q has %s keys\n", req.NamespacedName, req.ClusterName, keys)
	return ctrl.Result{}, nil
}

// snippet:end uniform-reconciler
