// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package single

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Provider provides one cluster under a fixed name.
type Provider struct {
	name    multicluster.ClusterName
	cluster cluster.Cluster
	// set is a pointer so that Provider stays comparable, as the reference implementation's is.
	set *clusters.Clusters[cluster.Cluster]
}

var (
	_ multicluster.Provider         = &Provider{}
	_ multicluster.ProviderRunnable = &Provider{}
	_ multicluster.ClusterLister    = &Provider{}
)

// New returns a provider of cl under name. The provider starts cl when it starts; do not start cl yourself.
func New(name multicluster.ClusterName, cl cluster.Cluster) *Provider {
	set := clusters.New[cluster.Cluster]()
	return &Provider{name: name, cluster: cl, set: &set}
}

// Start starts the cluster, waits for its cache and engages it, then blocks until ctx ends, which disengages and
// stops the cluster. Failing to start or engage the cluster is returned, naming it.
func (p *Provider) Start(ctx context.Context, mcAware multicluster.Aware) error {
	if err := p.set.Add(ctx, p.name, p.cluster, mcAware); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// Get returns the cluster for the provider's name, before and after it is engaged, and an error matching
// multicluster.ErrClusterNotFound for any other name.
func (p *Provider) Get(_ context.Context, clusterName multicluster.ClusterName) (cluster.Cluster, error) {
	if clusterName != p.name {
		return nil, fmt.Errorf("cluster %q: %w", clusterName, multicluster.ErrClusterNotFound)
	}
	return p.cluster, nil
}

// ClusterNames returns the provider's name from when Start begins engaging the cluster until the cluster stops,
// and nothing otherwise.
func (p *Provider) ClusterNames() []multicluster.ClusterName {
	return p.set.ClusterNames()
}

// IndexField registers the field index on the cluster.
func (p *Provider) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	if err := p.cluster.GetFieldIndexer().IndexField(ctx, obj, field, extractValue); err != nil {
		return fmt.Errorf("cluster %q: indexing field %q of %T: %w", p.name, field, obj, err)
	}
	return nil
}
