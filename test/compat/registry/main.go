// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command registry keeps a registry of the clusters of the fleet, written the way the reference's users write one:
// a cluster-aware runnable added to the multi-cluster manager records every engaged cluster in a
// clusters.Registry, logs each engagement and disengagement with the registered names, and periodically logs the
// registered clusters. The fleet is made of the clusters whose kubeconfigs are stored in labelled Secrets of one
// namespace of the host cluster (providers/kubeconfig).
//
// It is kept to prove source compatibility with the reference; see test/compat/README.md. Do not modernise it.
package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	kubeconfigprovider "sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
)

func main() {
	var namespace string
	var interval time.Duration

	flag.StringVar(&namespace, "namespace", "default", "Namespace where kubeconfig secrets are stored")
	flag.DurationVar(&interval, "interval", 30*time.Second, "How often the registered clusters are logged")
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

	// The registry is engaged with every cluster the manager engages, for as long as it stays engaged.
	registry := &clusterRegistry{
		clusters: clusters.NewRegistry[cluster.Cluster](),
		interval: interval,
		log:      ctrllog.Log.WithName("cluster-registry"),
	}
	if err := mgr.Add(registry); err != nil {
		entryLog.Error(err, "Unable to add the cluster registry")
		os.Exit(1)
	}

	entryLog.Info("Starting manager")
	if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
		entryLog.Error(err, "Unable to start manager")
		os.Exit(1)
	}
}

// clusterRegistry is a cluster-aware runnable: the manager engages it with every cluster of the fleet.
type clusterRegistry struct {
	clusters *clusters.Registry[cluster.Cluster]
	interval time.Duration
	log      logr.Logger
}

var _ mcmanager.Runnable = &clusterRegistry{}

// Engage records the cluster until ctx, the cluster's lifetime, ends.
func (r *clusterRegistry) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	if err := r.clusters.Engage(ctx, name, cl); err != nil {
		return err
	}
	r.log.Info("Cluster engaged", "cluster", name, "clusters", r.clusters.ClusterNames())
	context.AfterFunc(ctx, func() {
		r.log.Info("Cluster disengaged", "cluster", name, "clusters", r.clusters.ClusterNames())
	})
	return nil
}

// Start logs the registered clusters every interval until ctx ends.
func (r *clusterRegistry) Start(ctx context.Context) error {
	ticker := time.NewTicker(r.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
			r.report()
		}
	}
}

// report logs the names of the registered clusters, then each cluster's API server.
func (r *clusterRegistry) report() {
	r.log.Info("Registered clusters", "count", r.clusters.Len(), "clusters", r.clusters.ClusterNames())
	_ = r.clusters.ForEach(func(name multicluster.ClusterName, cl cluster.Cluster) error {
		r.log.Info("Registered cluster", "cluster", name, "host", cl.GetConfig().Host)
		return nil
	})
}
