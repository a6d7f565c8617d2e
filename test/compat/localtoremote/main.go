// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command localtoremote syncs ConfigMaps from the local (host) cluster to every cluster of the fleet, written the
// way the reference's users write such a controller: the controller watches ConfigMaps on the local cluster only,
// and copies each one labelled for sync into the same namespace of every cluster the provider lists. A cluster
// that joins the fleet gets every copy: a watch of Namespaces in the fleet's clusters maps the new cluster's
// namespaces to requests for the labelled local ConfigMaps, for that cluster. A copy changed in a cluster of the
// fleet is put back. Copies are not deleted when their source is.
//
// The fleet is made of the clusters whose kubeconfigs are stored in labelled Secrets of one namespace of the host
// cluster (providers/kubeconfig).
//
// It is kept to prove source compatibility with the reference; see test/compat/README.md. Do not modernise it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	kubeconfigprovider "sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
)

const (
	// syncLabel, set to syncEnabled, marks a local ConfigMap to be copied into every cluster of the fleet.
	syncLabel   = "example.multicluster.x-k8s.io/sync"
	syncEnabled = "true"
	// copyLabel marks the copies, with the name of the cluster they were copied from ("local").
	copyLabel = "example.multicluster.x-k8s.io/copied-from"
)

func main() {
	var namespace string

	flag.StringVar(&namespace, "namespace", "default", "Namespace where kubeconfig secrets are stored")
	opts := zap.Options{
		Development: true,
	}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()

	ctrllog.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	entryLog := ctrllog.Log.WithName("entrypoint")
	ctx := ctrl.SetupSignalHandler()

	provider := kubeconfigprovider.New(kubeconfigprovider.Options{Namespace: namespace})

	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, manager.Options{
		Metrics: metricsserver.Options{BindAddress: "0"},
	})
	if err != nil {
		entryLog.Error(err, "Unable to create manager")
		os.Exit(1)
	}
	if err := provider.SetupWithManager(ctx, mgr); err != nil {
		entryLog.Error(err, "Unable to setup provider")
		os.Exit(1)
	}

	r := &configMapSyncer{mgr: mgr, provider: provider}
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("local-to-remote-configmaps").
		// The local ConfigMaps labelled for sync, and only those of the local cluster.
		For(&corev1.ConfigMap{},
			mcbuilder.WithEngageWithLocalCluster(true),
			mcbuilder.WithEngageWithProviderClusters(false),
			mcbuilder.WithPredicates(predicate.NewPredicateFuncs(func(obj client.Object) bool {
				return obj.GetLabels()[syncLabel] == syncEnabled
			})),
		).
		// A cluster that joins the fleet lists its namespaces: each one brings every local ConfigMap to sync to
		// that cluster (so does a namespace created later).
		Watches(&corev1.Namespace{},
			func(clusterName multicluster.ClusterName, _ cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
				return mchandler.TypedEnqueueRequestsFromMapFuncWithClusterPreservation(
					func(ctx context.Context, obj client.Object) []mcreconcile.Request {
						return r.localConfigMapsFor(ctx, clusterName)
					})
			},
			mcbuilder.WithPredicates(predicate.Funcs{
				CreateFunc:  func(event.CreateEvent) bool { return true },
				UpdateFunc:  func(event.UpdateEvent) bool { return false },
				DeleteFunc:  func(event.DeleteEvent) bool { return false },
				GenericFunc: func(event.GenericEvent) bool { return false },
			}),
		).
		// A copy changed or deleted in a cluster of the fleet is put back.
		Watches(&corev1.ConfigMap{},
			func(clusterName multicluster.ClusterName, _ cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
				return mchandler.TypedEnqueueRequestsFromMapFuncWithClusterPreservation(
					func(ctx context.Context, obj client.Object) []mcreconcile.Request {
						if obj.GetLabels()[copyLabel] == "" {
							return nil
						}
						return []mcreconcile.Request{{
							Request:     reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)},
							ClusterName: clusterName,
						}}
					})
			},
		).
		Complete(r); err != nil {
		entryLog.Error(err, "Unable to create controller")
		os.Exit(1)
	}

	entryLog.Info("Starting manager")
	if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
		entryLog.Error(err, "Unable to start manager")
		os.Exit(1)
	}
}

// configMapSyncer copies local ConfigMaps into the clusters of the fleet. A request names a local ConfigMap; its
// cluster is the cluster to copy it into, or empty (the local cluster's name) for every cluster of the fleet.
type configMapSyncer struct {
	mgr      mcmanager.Manager
	provider *kubeconfigprovider.Provider
}

func (r *configMapSyncer) Reconcile(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
	log := ctrllog.FromContext(ctx)

	local, err := r.mgr.GetCluster(ctx, mcmanager.LocalCluster)
	if err != nil {
		return reconcile.Result{}, err
	}
	cm := &corev1.ConfigMap{}
	if err := local.GetClient().Get(ctx, req.Request.NamespacedName, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if cm.Labels[syncLabel] != syncEnabled {
		return reconcile.Result{}, nil
	}

	targets := []multicluster.ClusterName{req.ClusterName}
	if req.ClusterName == mcmanager.LocalCluster {
		targets = r.provider.ListClusters()
	}
	var errs []error
	for _, name := range targets {
		op, err := r.copyTo(ctx, name, cm)
		if err != nil {
			errs = append(errs, fmt.Errorf("copying to cluster %q: %w", name, err))
			continue
		}
		log.Info("ConfigMap synced", "namespace", cm.Namespace, "name", cm.Name, "to", name, "operation", op)
	}
	return reconcile.Result{}, errors.Join(errs...)
}

// copyTo creates or updates the copy of cm in the named cluster, and its namespace if needed.
func (r *configMapSyncer) copyTo(ctx context.Context, clusterName multicluster.ClusterName, cm *corev1.ConfigMap) (controllerutil.OperationResult, error) {
	cl, err := r.mgr.GetCluster(ctx, clusterName)
	if err != nil {
		return controllerutil.OperationResultNone, err
	}
	c := cl.GetClient()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cm.Namespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return controllerutil.OperationResultNone, err
	}
	copied := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name}}
	return controllerutil.CreateOrUpdate(ctx, c, copied, func() error {
		if copied.Labels == nil {
			copied.Labels = map[string]string{}
		}
		copied.Labels[copyLabel] = "local"
		copied.Data = maps.Clone(cm.Data)
		copied.BinaryData = maps.Clone(cm.BinaryData)
		return nil
	})
}

// localConfigMapsFor returns requests that copy every local ConfigMap labelled for sync into the named cluster of
// the fleet.
func (r *configMapSyncer) localConfigMapsFor(ctx context.Context, clusterName multicluster.ClusterName) []mcreconcile.Request {
	cms := &corev1.ConfigMapList{}
	if err := r.mgr.GetLocalManager().GetClient().List(ctx, cms, client.MatchingLabels{syncLabel: syncEnabled}); err != nil {
		ctrllog.FromContext(ctx).Error(err, "Unable to list the local ConfigMaps to sync", "cluster", clusterName)
		return nil
	}
	reqs := make([]mcreconcile.Request, 0, len(cms.Items))
	for _, cm := range cms.Items {
		reqs = append(reqs, mcreconcile.Request{
			Request:     reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&cm)},
			ClusterName: clusterName,
		})
	}
	return reqs
}
