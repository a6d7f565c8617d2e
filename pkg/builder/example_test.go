// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package builder_test

import (
	"context"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
)

// This example builds a uniform controller: one reconciler for the ConfigMaps of every cluster of the fleet. The
// request names the cluster; the reconciler reaches it with mgr.GetCluster.
func ExampleControllerManagedBy() {
	ctrl.SetLogger(zap.New())
	log := ctrl.Log.WithName("builder-examples")

	// Any multicluster.Provider; this one is fed with clusters by hand (see its package).
	provider := clusters.New()

	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{})
	if err != nil {
		log.Error(err, "could not create manager")
		os.Exit(1)
	}

	err = mcbuilder.ControllerManagedBy(mgr).
		Named("multicluster-configmaps").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return ctrl.Result{}, err
			}

			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				if apierrors.IsNotFound(err) {
					return ctrl.Result{}, nil
				}
				return ctrl.Result{}, err
			}
			log.Info("Reconciling ConfigMap", "cluster", req.ClusterName, "namespace", cm.Namespace, "name", cm.Name)
			return ctrl.Result{}, nil
		}))
	if err != nil {
		log.Error(err, "could not create controller")
		os.Exit(1)
	}

	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "could not start manager")
		os.Exit(1)
	}
}

// This example builds a controller that is aware of the host cluster and the fleet: it reconciles inventory
// ConfigMaps on the host cluster only, and every Namespace change in a fleet cluster enqueues the inventory of that
// cluster.
func ExampleWithEngageWithLocalCluster() {
	log := ctrl.Log.WithName("builder-examples")

	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), clusters.New(), mcmanager.Options{})
	if err != nil {
		log.Error(err, "could not create manager")
		os.Exit(1)
	}

	err = mcbuilder.ControllerManagedBy(mgr).
		Named("fleet-inventory").
		// The inventory lives on the host cluster: watch it there, and not in the fleet.
		For(&corev1.ConfigMap{},
			mcbuilder.WithEngageWithLocalCluster(true),
			mcbuilder.WithEngageWithProviderClusters(false),
		).
		// Namespaces of every fleet cluster map to that cluster's inventory on the host.
		Watches(&corev1.Namespace{}, mchandler.EnqueueRequestsFromClusterMapFunc(
			func(_ context.Context, clusterName multicluster.ClusterName, _ client.Object) []mcreconcile.Request {
				return []mcreconcile.Request{{
					Request:     ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "inventory", Name: clusterName.String()}},
					ClusterName: mcmanager.LocalCluster,
				}}
			},
		)).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			// req.ClusterName is always the host here; req.Name is the fleet cluster to take stock of.
			fleetCluster, err := mgr.GetCluster(ctx, multicluster.ClusterName(req.Name))
			if err != nil {
				return ctrl.Result{}, err
			}
			namespaces := &corev1.NamespaceList{}
			if err := fleetCluster.GetClient().List(ctx, namespaces); err != nil {
				return ctrl.Result{}, err
			}
			log.Info("Taking stock", "cluster", req.Name, "namespaces", len(namespaces.Items))
			return ctrl.Result{}, nil
		}))
	if err != nil {
		log.Error(err, "could not create controller")
		os.Exit(1)
	}

	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "could not start manager")
		os.Exit(1)
	}
}

// This example builds a controller of ReplicaSets that also watches the Pods they own, in every cluster of the
// fleet: a Pod event enqueues its controlling ReplicaSet in the same cluster. Pods are cached as metadata only.
func ExampleTypedBuilder_Owns() {
	log := ctrl.Log.WithName("builder-examples")

	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), clusters.New(), mcmanager.Options{})
	if err != nil {
		log.Error(err, "could not create manager")
		os.Exit(1)
	}

	err = mcbuilder.ControllerManagedBy(mgr).
		For(&appsv1.ReplicaSet{}).
		Owns(&corev1.Pod{}, mcbuilder.OnlyMetadata).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			log.Info("Reconciling ReplicaSet", "cluster", req.ClusterName, "replicaset", req.NamespacedName)
			return ctrl.Result{}, nil
		}))
	if err != nil {
		log.Error(err, "could not create controller")
		os.Exit(1)
	}

	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "could not start manager")
		os.Exit(1)
	}
}
