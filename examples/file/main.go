// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command file reconciles the ConfigMaps of every context of a set of kubeconfig files (providers/file), in the form
// of the reference implementation's file example. The files come from comma-separated flags: -kubeconfig-files
// names files, -kubeconfig-dirs directories searched for files matching -kubeconfig-globs (default
// file.DefaultKubeconfigGlobs); with neither files nor directories, $KUBECONFIG's files, ~/.kube/config and the
// working directory are read. Files added, changed or removed while it runs engage, replace or disengage their
// clusters, named "<file path>+<context>".
package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	ctrl "sigs.k8s.io/controller-runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/file"
)

var (
	kubeconfigFiles = flag.String("kubeconfig-files", "", "Comma-separated list of kubeconfig files")
	kubeconfigDirs  = flag.String("kubeconfig-dirs", "", "Comma-separated list of directories searched for kubeconfig files")
	kubeconfigGlobs = flag.String("kubeconfig-globs", "", "Comma-separated list of file name patterns for the files of -kubeconfig-dirs")
)

func main() {
	flag.Parse()
	ctrllog.SetLogger(zap.New(zap.UseDevMode(true)))
	entryLog := ctrllog.Log.WithName("entrypoint")
	ctx := signals.SetupSignalHandler()

	// Empty entries (strings.Split of an empty flag) are ignored by the provider.
	provider, err := file.New(file.Options{
		KubeconfigFiles: strings.Split(*kubeconfigFiles, ","),
		KubeconfigDirs:  strings.Split(*kubeconfigDirs, ","),
		KubeconfigGlobs: strings.Split(*kubeconfigGlobs, ","),
	})
	if err != nil {
		entryLog.Error(err, "Unable to create provider")
		os.Exit(1)
	}

	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, manager.Options{})
	if err != nil {
		entryLog.Error(err, "Unable to create manager")
		os.Exit(1)
	}

	if err := mcbuilder.ControllerManagedBy(mgr).
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

				log.Info("ConfigMap found", "namespace", cm.Namespace, "name", cm.Name)
				return ctrl.Result{}, nil
			},
		)); err != nil {
		entryLog.Error(err, "Unable to create controller")
		os.Exit(1)
	}

	// The manager starts the provider: it engages every context, then follows the files until ctx ends.
	if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
		entryLog.Error(err, "Unable to run manager")
		os.Exit(1)
	}
}
