// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file_test

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/file"
)

// This example reconciles ConfigMaps in every cluster of the kubeconfig files of /etc/fleet (those named
// kubeconfig.yaml, *.kubeconfig, ...) and of /etc/extra/prod.yaml. The manager starts the provider, which engages
// every context and then follows the files: clusters come and go as files and contexts do, while the manager runs.
// The context "eu" of /etc/fleet/prod.kubeconfig is the cluster "/etc/fleet/prod.kubeconfig+eu".
func ExampleNew() {
	provider, err := file.New(file.Options{
		KubeconfigDirs:  []string{"/etc/fleet"},
		KubeconfigFiles: []string{"/etc/extra/prod.yaml"},
	})
	if err != nil {
		ctrl.Log.Error(err, "invalid provider options")
		os.Exit(1)
	}
	eu := provider.ClusterName("/etc/fleet/prod.kubeconfig", "eu")
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{})
	if err != nil {
		ctrl.Log.Error(err, "could not create the manager")
		os.Exit(1)
	}
	err = mcbuilder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			if req.ClusterName == eu {
				ctrl.Log.Info("ConfigMap in the context eu of prod.kubeconfig", "configmap", req.NamespacedName)
			}
			return ctrl.Result{}, nil
		}))
	if err == nil {
		err = mgr.Start(ctrl.SetupSignalHandler()) // starts the provider: it engages the contexts, then follows the files
	}
	if err != nil {
		ctrl.Log.Error(err, "the file example failed")
	}
}

// With no sources configured, the provider reads $KUBECONFIG, ~/.kube/config and the kubeconfig files of the
// working directory. ClusterName tells the name a context gets.
func ExampleProvider_ClusterName() {
	provider, err := file.New(file.Options{KubeconfigFiles: []string{"/home/me/.kube/config"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(provider.ClusterName("/home/me/.kube/config", "kind-dev"))
	// Output: /home/me/.kube/config+kind-dev
}
