// Package customprovider is the provider of the book's "custom providers" page: a complete provider that polls a
// function for the clusters it should have, built on pkg/clusters. It is compiled and tested with the rest of the
// repository, so the page cannot drift from the API.
package customprovider

import (
	"context"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// snippet:start custom-provider

// Provider engages the clusters that Discover returns, polling it every Interval.
type Provider struct {
	// Clusters gives the provider Get and IndexField, and does the engaging.
	clusters.Clusters[cluster.Cluster]

	Discover func(ctx context.Context) (map[multicluster.ClusterName]*rest.Config, error)
	Interval time.Duration
}

var _ multicluster.ProviderRunnable = &Provider{}

// New returns a provider polling discover every interval.
func New(discover func(ctx context.Context) (map[multicluster.ClusterName]*rest.Config, error), interval time.Duration) *Provider {
	return &Provider{Clusters: clusters.New[cluster.Cluster](), Discover: discover, Interval: interval}
}

// Start polls until ctx ends: new clusters are engaged, changed ones replaced, vanished ones disengaged.
func (p *Provider) Start(ctx context.Context, aware multicluster.Aware) error {
	log := logf.FromContext(ctx).WithName("custom-provider")
	ticker := time.NewTicker(p.Interval)
	defer ticker.Stop()
	for {
		if want, err := p.Discover(ctx); err != nil {
			log.Error(err, "Discovery failed, retrying")
		} else {
			p.sync(ctx, aware, want)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

func (p *Provider) sync(ctx context.Context, aware multicluster.Aware, want map[multicluster.ClusterName]*rest.Config) {
	log := logf.FromContext(ctx)
	for name, cfg := range want {
		cl, err := cluster.New(cfg)
		if err != nil {
			log.Error(err, "Cannot build cluster", "cluster", name)
			continue
		}
		// Starts the cluster under ctx, waits for its cache, engages it; a no-op if nothing changed.
		// A real provider engages each cluster on its own goroutine, so one slow cluster delays no other.
		if err := p.AddOrReplace(ctx, name, cl, aware); err != nil {
			log.Error(err, "Cannot engage cluster", "cluster", name)
		}
	}
	for _, name := range p.ClusterNames() {
		if _, ok := want[name]; !ok {
			p.Remove(name) // cancels the cluster's context: disengaged everywhere
		}
	}
}

// snippet:end custom-provider
