// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/file"
)

// setupQuickstart registers the quickstart controller: a uniform reconciler of the ConfigMaps of the demo namespace,
// in every cluster of the fleet, that reads the ConfigMap from the cluster the request names.
func setupQuickstart(mgr mcmanager.Manager, n *narrator) error {
	return mcbuilder.ControllerManagedBy(mgr).
		Named("quickstart-configmaps").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			if req.Namespace != demoNamespace {
				return ctrl.Result{}, nil
			}
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
			n.reconciled(shortName(req.ClusterName), req.NamespacedName.String(), cm.Data[greetingKey])
			return ctrl.Result{}, nil
		}))
}

// shortName is the context part of a file provider's cluster name ("<path>+<context>"): the member's name, as the
// demo's kubeconfigs name their context after it.
func shortName(cluster multicluster.ClusterName) string {
	name := cluster.String()
	if i := strings.LastIndex(name, file.DefaultSeparator); i >= 0 {
		return name[i+len(file.DefaultSeparator):]
	}
	return name
}

// engagementWatcher is a cluster-aware runnable that narrates clusters joining and leaving the manager.
type engagementWatcher struct{ n *narrator }

var _ mcmanager.Runnable = &engagementWatcher{}

func (w *engagementWatcher) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (w *engagementWatcher) Engage(ctx context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	short := shortName(name)
	w.n.clusterEngaged(short)
	context.AfterFunc(ctx, func() { w.n.clusterDisengaged(short) })
	return nil
}
