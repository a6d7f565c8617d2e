// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// snippet:start main

// Command quickstart is the quickstart's first multi-cluster controller: it reconciles the ConfigMaps of every
// cluster whose kubeconfig file is in a directory, and logs each with the name of its cluster. Files added to or
// removed from the directory while it runs add or remove their clusters.
package main

import (
	"context"
	"errors"
	"flag"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/file"
)

func main() {
	fleet := flag.String("fleet", "fleet", "directory of the kubeconfig files of the member clusters")
	flag.Parse() // also --kubeconfig, the host cluster's kubeconfig (default: $KUBECONFIG or ~/.kube/config)
	ctrl.SetLogger(zap.New(zap.UseDevMode(true)))

	if err := run(ctrl.SetupSignalHandler(), *fleet); err != nil {
		ctrl.Log.Error(err, "quickstart failed")
		os.Exit(1)
	}
}

func run(ctx context.Context, fleet string) error {
	// The provider finds the clusters: every context of every kubeconfig file of the directory is one, named
	// "<file path>+<context>".
	provider, err := file.New(file.Options{KubeconfigDirs: []string{fleet}})
	if err != nil {
		return err
	}

	// The manager runs on the host cluster and engages every cluster the provider finds.
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{})
	if err != nil {
		return err
	}

	// The controller watches ConfigMaps in every cluster; each request names the cluster of its object.
	err = mcbuilder.ControllerManagedBy(mgr).
		Named("quickstart").
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
			// The reconciler's logger names the cluster, the namespace and the name.
			log.FromContext(ctx).Info("Reconciled ConfigMap", "keys", len(cm.Data))
			return ctrl.Result{}, nil
		}))
	if err != nil {
		return err
	}

	// Start runs the provider and the controller until ctx ends (Ctrl-C).
	if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// snippet:end main
