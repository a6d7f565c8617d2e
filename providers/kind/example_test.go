// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kind_test

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/kind"
)

// This example reconciles ConfigMaps in every kind cluster whose name starts with "fleet-", looking for new and
// deleted clusters every ten seconds. The manager starts the provider; req.ClusterName is the kind cluster's name,
// such as "fleet-dev".
func ExampleNew() {
	provider := kind.New(kind.Options{Prefix: "fleet-", PollInterval: 10 * time.Second})
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, manager.Options{})
	if err == nil {
		err = mcbuilder.ControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(mcreconcile.Func(
			func(_ context.Context, req mcreconcile.Request) (ctrl.Result, error) {
				ctrl.Log.Info("ConfigMap in a kind cluster", "cluster", req.ClusterName, "configmap", req.NamespacedName)
				return ctrl.Result{}, nil
			}))
	}
	if err == nil {
		err = mgr.Start(ctrl.SetupSignalHandler())
	}
	if err != nil {
		ctrl.Log.Error(err, "the kind example failed")
	}
}
