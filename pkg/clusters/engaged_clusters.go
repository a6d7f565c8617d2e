// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

var (
	_ multicluster.Provider         = EngagedClusters{}
	_ multicluster.ProviderRunnable = EngagedClusters{}
	_ multicluster.ClusterLister    = EngagedClusters{}
)

// EngagedClusters is the side of an Engager that the manager sees: Start, Get, IndexField and ClusterNames, the
// methods of multicluster.Provider, ProviderRunnable and ClusterLister. A provider built on an engager embeds it
// (from Engager.Engaged) to have them, without the engager's own methods (Want, Remove, ...) becoming part of the
// provider's API:
//
//	type Provider struct {
//		clusters.EngagedClusters
//		engager *clusters.Engager
//	}
//
//	p.engager = clusters.NewEngager(opts)
//	p.EngagedClusters = p.engager.Engaged()
type EngagedClusters struct {
	engager *Engager
}

// Engaged returns the engager's side that the manager sees, for a provider to embed.
func (e *Engager) Engaged() EngagedClusters {
	return EngagedClusters{engager: e}
}

// Start is Engager.Start: it engages what is wanted with aware until ctx ends, then stops the clusters.
func (c EngagedClusters) Start(ctx context.Context, aware multicluster.Aware) error {
	return c.engager.Start(ctx, aware)
}

// Get is Engager.Get: a cluster is gettable from the start of its attempt until it is disengaged.
func (c EngagedClusters) Get(ctx context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	return c.engager.Get(ctx, name)
}

// IndexField is Engager.IndexField: the index reaches every cluster, current and future.
func (c EngagedClusters) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	return c.engager.IndexField(ctx, obj, field, extractValue)
}

// ClusterNames is Engager.ClusterNames: a cluster is listed from when it is handed to the Aware until it is
// disengaged.
func (c EngagedClusters) ClusterNames() []multicluster.ClusterName {
	return c.engager.ClusterNames()
}
