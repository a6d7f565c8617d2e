// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command configmap-sync is a multi-cluster-aware controller: it watches the ConfigMaps of one namespace of the host
// cluster and writes a copy of each into the same namespace of every member cluster. Members are found by the
// kubeconfig provider: labelled kubeconfig Secrets in the host (see examples/kubeconfig/scripts).
//
// A copy changed or deleted in a member is put back, and a member that joins gets every copy as soon as it is
// engaged.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
)

// managedByLabel marks the copies this controller writes.
const managedByLabel = "configmap-sync.multicluster-runtime.sigs.k8s.io/source"

func main() {
	var (
		namespace  = flag.String("namespace", "fleet-sync", "namespace of the host whose ConfigMaps are copied to every member")
		secrets    = flag.String("kubeconfig-namespace", "", "namespace of the host with the members' kubeconfig Secrets (default: the provider's)")
		resync     = flag.Duration("resync", 10*time.Minute, "how often every ConfigMap is copied again")
		zapOptions = zap.Options{}
	)
	zapOptions.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOptions)))
	log := ctrl.Log.WithName("configmap-sync")

	provider := kubeconfig.New(kubeconfig.Options{Namespace: *secrets})
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, mcmanager.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		log.Error(err, "could not create manager")
		os.Exit(1)
	}
	ctx := ctrl.SetupSignalHandler()
	if err := provider.SetupWithManager(ctx, mgr); err != nil {
		log.Error(err, "could not set up the provider")
		os.Exit(1)
	}
	if err := setup(mgr, provider, *namespace, *resync); err != nil {
		log.Error(err, "could not create controller")
		os.Exit(1)
	}
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "could not run manager")
		os.Exit(1)
	}
}

// setup registers the sync controller: it reconciles the host's ConfigMaps of namespace, and a change to a copy in
// any member brings back the request of its source in the host.
func setup(mgr mcmanager.Manager, provider *kubeconfig.Provider, namespace string, resync time.Duration) error {
	inNamespace := predicate.NewPredicateFuncs(func(obj client.Object) bool { return obj.GetNamespace() == namespace })
	toSource := mchandler.EnqueueRequestsFromClusterMapFunc(func(_ context.Context, _ multicluster.ClusterName, obj client.Object) []mcreconcile.Request {
		if obj.GetLabels()[managedByLabel] == "" {
			return nil
		}
		return []mcreconcile.Request{{ClusterName: mcmanager.LocalCluster, Request: ctrl.Request{
			NamespacedName: client.ObjectKey{Namespace: obj.GetNamespace(), Name: obj.GetName()},
		}}}
	})
	// Every host ConfigMap is reconciled again when a member joins, so that it gets its copies at once.
	joined := make(chan multicluster.ClusterName, 64)
	if err := mgr.Add(&joinWatcher{joined: joined}); err != nil {
		return err
	}
	onJoin := source.TypedFunc[mcreconcile.Request](func(ctx context.Context, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) error {
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-joined:
				}
				var cms corev1.ConfigMapList
				if err := mgr.GetLocalManager().GetClient().List(ctx, &cms, client.InNamespace(namespace)); err != nil {
					ctrl.LoggerFrom(ctx).Error(err, "Cannot list the host's ConfigMaps")
					continue
				}
				for _, cm := range cms.Items {
					q.Add(mcreconcile.Request{Request: ctrl.Request{NamespacedName: client.ObjectKeyFromObject(&cm)}})
				}
			}
		}()
		return nil
	})
	// snippet:start sync-builder
	return mcbuilder.ControllerManagedBy(mgr).
		Named("configmap-sync").
		WatchesRawSource(onJoin).
		For(&corev1.ConfigMap{},
			mcbuilder.WithEngageWithLocalCluster(true), mcbuilder.WithEngageWithProviderClusters(false),
			mcbuilder.WithPredicates(inNamespace)).
		Watches(&corev1.ConfigMap{}, toSource, mcbuilder.WithPredicates(inNamespace)).
		Complete(&syncer{mgr: mgr, provider: provider, resync: resync})
	// snippet:end sync-builder
}

// joinWatcher is a cluster-aware runnable that reports every member engaged.
type joinWatcher struct {
	joined chan<- multicluster.ClusterName
}

func (w *joinWatcher) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (w *joinWatcher) Engage(_ context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	select {
	case w.joined <- name:
	default: // a resync is pending anyway
	}
	return nil
}

// syncer copies one host ConfigMap into every member.
type syncer struct {
	mgr      mcmanager.Manager
	provider *kubeconfig.Provider
	resync   time.Duration
}

func (s *syncer) Reconcile(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	host, err := s.mgr.GetCluster(ctx, mcmanager.LocalCluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	source := &corev1.ConfigMap{}
	if err := host.GetClient().Get(ctx, req.NamespacedName, source); err != nil {
		// Deleted in the host: copies stay (deleting across the fleet is a choice this example does not make).
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	var failed []multicluster.ClusterName
	for _, member := range s.provider.ListClusters() {
		if err := s.copyTo(ctx, member, source); err != nil {
			log.Error(err, "Cannot copy ConfigMap", "member", member)
			failed = append(failed, member)
			continue
		}
		fmt.Printf("synced ConfigMap %s to cluster %s\n", req.NamespacedName, member)
	}
	if len(failed) > 0 {
		return ctrl.Result{}, fmt.Errorf("copying ConfigMap %s to clusters %v failed", req.NamespacedName, failed)
	}
	return ctrl.Result{RequeueAfter: s.resync}, nil
}

// copyTo creates or updates the copy of source in member, creating its namespace if needed.
func (s *syncer) copyTo(ctx context.Context, member multicluster.ClusterName, source *corev1.ConfigMap) error {
	cl, err := s.mgr.GetCluster(ctx, member)
	if err != nil {
		return err
	}
	c := cl.GetClient()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: source.Namespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", source.Namespace, err)
	}
	dest := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: source.Namespace, Name: source.Name}}
	_, err = controllerutil.CreateOrUpdate(ctx, c, dest, func() error {
		if dest.Labels == nil {
			dest.Labels = map[string]string{}
		}
		dest.Labels[managedByLabel] = "host"
		dest.Data = source.Data
		dest.BinaryData = source.BinaryData
		return nil
	})
	return err
}
