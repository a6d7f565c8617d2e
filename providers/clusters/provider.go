// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"errors"
	"slices"
	"sync"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// InputChannelSize is the initial capacity of the list of clusters added before the provider starts. Clusters added
// before Start are never dropped, however many there are.
var InputChannelSize = 10

// Provider is a provider of clusters added by hand. Get, IndexField, ClusterNames and Remove come from the embedded
// Clusters.
type Provider struct {
	clusters.Clusters[cluster.Cluster]

	lock    sync.Mutex
	runCtx  context.Context
	aware   multicluster.Aware
	pending []pendingCluster
}

var (
	_ multicluster.Provider         = &Provider{}
	_ multicluster.ProviderRunnable = &Provider{}
	_ multicluster.ClusterLister    = &Provider{}
)

type pendingCluster struct {
	name    multicluster.ClusterName
	cluster cluster.Cluster
	// replace is set for AddOrReplaceConfig: the cluster replaces one added before under the name.
	replace bool
}

// New returns a provider without clusters.
func New() *Provider {
	return &Provider{
		Clusters: clusters.New[cluster.Cluster](),
		pending:  make([]pendingCluster, 0, InputChannelSize),
	}
}

// Start engages the clusters added so far, each in parallel, and then blocks until ctx ends; clusters added
// meanwhile are engaged by Add. A second Start while one runs returns an error.
func (p *Provider) Start(ctx context.Context, aware multicluster.Aware) error {
	p.lock.Lock()
	if p.runCtx != nil && p.runCtx.Err() == nil {
		p.lock.Unlock()
		return errors.New("provider is already started")
	}
	p.runCtx, p.aware = ctx, aware
	pending := p.pending
	p.pending = nil
	p.lock.Unlock()

	var wg sync.WaitGroup
	for _, pc := range pending {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.addTo(ctx, pc, aware); err != nil {
				p.reportError(err, pc.name)
			}
		}()
	}
	wg.Wait()
	<-ctx.Done()
	return nil
}

// Add adds a cluster under a name. Before Start it is kept and engaged when the provider starts; after Start it
// is started and engaged at once, and Add returns when it is engaged (or failed). The cluster's lifetime is the
// provider's run context, never ctx, which only bounds the call. The provider starts the cluster; do not start
// it yourself.
func (p *Provider) Add(ctx context.Context, clusterName multicluster.ClusterName, cl cluster.Cluster) error {
	return p.add(ctx, pendingCluster{name: clusterName, cluster: cl})
}

// AddConfig builds the cluster named clusterName from cfg with clusters.NewCluster, the way every provider of this
// library builds its clusters (synchronous informers, shared discovery, outage recovery; opts are applied first and
// win), and adds it as Add does. A cluster that cannot be built is an error naming it, and nothing is added.
func (p *Provider) AddConfig(ctx context.Context, clusterName multicluster.ClusterName, cfg *rest.Config, opts ...cluster.Option) error {
	cl, err := clusters.NewCluster(clusterName, cfg, opts...)
	if err != nil {
		return err
	}
	return p.Add(ctx, clusterName, cl)
}

// AddOrReplaceConfig is AddConfig for a name that may be present already. If the present cluster was built from
// an equal rest.Config (clusters.EqualConfigs), nothing changes. Otherwise the new cluster is started, synced and
// engaged beside the present one, which is stopped only then (see clusters.Clusters.AddOrReplace); if the new
// cluster fails, the present one stays. Before Start, it replaces a cluster added under the name so far.
func (p *Provider) AddOrReplaceConfig(ctx context.Context, clusterName multicluster.ClusterName, cfg *rest.Config, opts ...cluster.Option) error {
	cl, err := clusters.NewCluster(clusterName, cfg, opts...)
	if err != nil {
		return err
	}
	return p.add(ctx, pendingCluster{name: clusterName, cluster: cl, replace: true})
}

// add keeps pc until the provider starts, or adds it (with Add, or AddOrReplace if pc.replace) to the running
// provider's clusters.
func (p *Provider) add(ctx context.Context, pc pendingCluster) error {
	p.lock.Lock()
	if p.runCtx == nil {
		if pc.replace {
			p.pending = slices.DeleteFunc(p.pending, func(other pendingCluster) bool { return other.name == pc.name })
		}
		p.pending = append(p.pending, pc)
		p.lock.Unlock()
		return nil
	}
	runCtx, aware := p.runCtx, p.aware
	p.lock.Unlock()

	if err := ctx.Err(); err != nil {
		return err
	}
	return p.addTo(runCtx, pc, aware)
}

// addTo adds pc to the clusters with runCtx as the parent of its lifetime, and engages it with aware.
func (p *Provider) addTo(runCtx context.Context, pc pendingCluster, aware multicluster.Aware) error {
	if pc.replace {
		return p.Clusters.AddOrReplace(runCtx, pc.name, pc.cluster, aware)
	}
	return p.Clusters.Add(runCtx, pc.name, pc.cluster, aware)
}

func (p *Provider) reportError(err error, clusterName multicluster.ClusterName) {
	if p.ErrorHandler != nil {
		p.ErrorHandler(err, "Failed to engage cluster", "cluster", clusterName)
		return
	}
	providerLog.Error(err, "Failed to engage cluster", "cluster", clusterName)
}
