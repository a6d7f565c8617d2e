// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command sharded is the reference's sharded-namespace example, as its users copy it: every namespace of one cluster
// is a cluster of the fleet, and several replicas of this program split the namespaces between them with the
// sharded coordinator, each replica reconciling only the namespaces whose fence Lease it holds.
//
// It is kept to prove source compatibility with the reference; see test/compat/README.md. Do not modernise it.
package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/peers"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

func main() {
	var (
		fenceNS     string
		fencePrefix string
		peerID      string
		peerWeight  uint
		perCluster  bool
	)
	flag.StringVar(&fenceNS, "fence-namespace", "kube-system", "namespace of the fence and peer Leases")
	flag.StringVar(&fencePrefix, "fence-prefix", "mcr-shard", "prefix of the fence Leases")
	flag.StringVar(&peerID, "peer-id", "", "identity of this replica (default: the host name)")
	flag.UintVar(&peerWeight, "peer-weight", 1, "relative share of the clusters this replica takes")
	flag.BoolVar(&perCluster, "per-cluster-lease", true, "fence every cluster with a Lease of its own")
	flag.Parse()

	ctrllog.SetLogger(zap.New(zap.UseDevMode(true)))
	entryLog := ctrllog.Log.WithName("entrypoint")
	ctx := signals.SetupSignalHandler()

	cfg, err := ctrl.GetConfig()
	if err != nil {
		entryLog.Error(err, "unable to get kubeconfig")
		os.Exit(1)
	}
	cl, err := cluster.New(cfg)
	if err != nil {
		entryLog.Error(err, "unable to create cluster")
		os.Exit(1)
	}
	provider := namespace.New(cl)

	// A direct client of the host cluster for the Leases.
	kubeClient, err := client.New(cfg, client.Options{})
	if err != nil {
		entryLog.Error(err, "unable to create client")
		os.Exit(1)
	}
	if peerID == "" {
		peerID, _ = os.Hostname()
	}
	opts := []sharded.Option{
		sharded.WithShardLease(fenceNS, fencePrefix),
		sharded.WithPerClusterLease(perCluster),
		sharded.WithLeaseTimings(6*time.Second, 2*time.Second, 100*time.Millisecond),
		sharded.WithSynchronizationIntervals(500*time.Millisecond, 250*time.Millisecond),
		sharded.WithPeerWeight(uint32(peerWeight)),
		sharded.WithSharder(sharder.NewHRW()),
		sharded.WithPeerRegistry(peers.NewLeaseRegistry(kubeClient, fenceNS, "mcr-peer", peerID, uint32(peerWeight),
			ctrllog.Log.WithName("peers"))),
	}
	coordinator := sharded.New(kubeClient, ctrllog.Log.WithName("sharder"), opts...)

	mgr, err := mcmanager.New(cfg, provider, manager.Options{
		Metrics: metricsserver.Options{BindAddress: "0"},
	}, mcmanager.WithCoordinator(coordinator))
	if err != nil {
		entryLog.Error(err, "unable to set up overall controller manager")
		os.Exit(1)
	}

	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("multicluster-configmaps").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(
			func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
				log := ctrllog.FromContext(ctx).WithValues("cluster", req.ClusterName)

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

				log.Info("ConfigMap found", "namespace", cm.Namespace, "name", cm.Name, "cluster", req.ClusterName, "peer", peerID)
				return ctrl.Result{}, nil
			},
		)); err != nil {
		entryLog.Error(err, "failed to build controller")
		os.Exit(1)
	}

	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return ignoreCanceled(cl.Start(ctx))
	})
	g.Go(func() error {
		return ignoreCanceled(mgr.Start(ctx))
	})
	if err := g.Wait(); err != nil {
		entryLog.Error(err, "unable to start")
		os.Exit(1)
	}
}

func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
