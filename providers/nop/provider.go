// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package nop

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Provider is a provider without clusters.
type Provider struct{}

// New returns a provider without clusters.
func New() *Provider {
	return &Provider{}
}

var (
	_ multicluster.Provider         = &Provider{}
	_ multicluster.ProviderRunnable = &Provider{}
	_ multicluster.HostOnly         = &Provider{}
	_ multicluster.ClusterLister    = &Provider{}
)

// Start engages nothing and blocks until ctx ends.
func (p *Provider) Start(ctx context.Context, _ multicluster.Aware) error {
	<-ctx.Done()
	return nil
}

// Get always returns an error matching multicluster.ErrClusterNotFound.
func (p *Provider) Get(_ context.Context, clusterName multicluster.ClusterName) (cluster.Cluster, error) {
	return nil, fmt.Errorf("cluster %q: %w", clusterName, multicluster.ErrClusterNotFound)
}

// IndexField does nothing: there are no clusters to index.
func (p *Provider) IndexField(context.Context, client.Object, string, client.IndexerFunc) error {
	return nil
}

// ClusterNames returns no name: the provider has no clusters.
func (p *Provider) ClusterNames() []multicluster.ClusterName {
	return nil
}

// HostOnly reports true: managers with this provider run in single-cluster mode.
func (p *Provider) HostOnly() bool {
	return true
}
