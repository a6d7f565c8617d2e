// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command namespace runs a uniform reconciler over virtual clusters: every namespace of one real cluster is a
// cluster of the fleet (providers/namespace), named after the namespace, in which the namespace appears as
// "default". For each ConfigMap "app-config" it writes a ConfigMap "app-config-seen" next to it, in the same virtual
// cluster; reads and writes through the virtual cluster's client land in the real namespace.
package main

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

func main() {
	log := ctrl.Log.WithName("namespace-example")
	cfg := ctrl.GetConfigOrDie()

	// One cluster backs every virtual cluster; the manager starts it.
	shared, err := cluster.New(cfg)
	if err != nil {
		log.Error(err, "could not create the shared cluster")
		os.Exit(1)
	}
	provider := namespace.New(shared)
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
		Named("app-config-seen").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			if req.Name != "app-config" {
				return ctrl.Result{}, nil
			}
			cl, err := mgr.GetCluster(ctx, req.ClusterName) // the virtual cluster of namespace req.ClusterName
			if err != nil {
				return ctrl.Result{}, err
			}
			c := cl.GetClient()
			cm := &corev1.ConfigMap{}
			if err := c.Get(ctx, req.NamespacedName, cm); err != nil { // req.Namespace is "default"
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
			seen := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: "app-config-seen"}}
			if _, err := controllerutil.CreateOrUpdate(ctx, c, seen, func() error {
				seen.Data = map[string]string{"resourceVersion": cm.ResourceVersion}
				return nil
			}); err != nil {
				return ctrl.Result{}, err
			}
			fmt.Printf("ConfigMap %s in cluster %q seen at resourceVersion %s\n", req.NamespacedName, req.ClusterName, cm.ResourceVersion)
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
