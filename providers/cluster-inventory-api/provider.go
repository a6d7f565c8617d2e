package clusterinventoryapi

import (
	"context"
	"errors"
	"fmt"
	"sync"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
)

var (
	_ multicluster.Provider         = &Provider{}
	_ multicluster.ProviderRunnable = &Provider{}
	_ multicluster.ClusterLister    = &Provider{}
)

// Provider is a multicluster.Provider whose clusters are the ClusterProfiles of a hub. Create it with New, pass it
// to the manager (which starts it) and register it with SetupWithManager.
type Provider struct {
	opts     Options
	strategy kubeconfigstrategy.Interface
	clusters clusters.Clusters[cluster.Cluster]

	// Set by SetupWithManager, before the manager starts the provider.
	setup   sync.Once
	client  client.Client
	engager *clusters.Engager

	// mu guards names and renamed.
	mu sync.Mutex
	// names holds the cluster name each profile (by "<namespace>/<name>") is wanted under.
	names map[string]multicluster.ClusterName
	// renamed holds, for a profile whose cluster name changed, the old name by the new one, until the cluster is
	// engaged under the new name and the old one can go.
	renamed map[multicluster.ClusterName]multicluster.ClusterName
}

// New returns a provider for opts. It returns an error unless opts.KubeconfigStrategyOption selects exactly one
// complete strategy, normally AccessProvider. Register the provider with SetupWithManager.
func New(opts Options) (*Provider, error) {
	strategy, err := kubeconfigstrategy.New(context.Background(), opts.KubeconfigStrategyOption)
	if err != nil {
		return nil, fmt.Errorf("cluster-inventory-api provider: %w", err)
	}
	p := &Provider{
		opts:     opts.complete(),
		strategy: strategy,
		clusters: clusters.New[cluster.Cluster](),
		names:    map[string]multicluster.ClusterName{},
		renamed:  map[multicluster.ClusterName]multicluster.ClusterName{},
	}
	p.clusters.WaitCacheTimeout = opts.WaitCacheTimeout
	return p, nil
}

// SetupWithManager registers the provider's controller of ClusterProfiles, and its strategy's watches, with the
// host (hub) manager of mgr. The hub manager's scheme gets the ClusterProfile types added. It engages nothing: the
// manager starts the provider (Start), which engages the clusters. It must be called once, before mgr starts.
func (p *Provider) SetupWithManager(mgr mcmanager.Manager) error {
	if mgr == nil {
		return errors.New("cluster-inventory-api provider: the manager is nil")
	}
	err := errors.New("cluster-inventory-api provider: already set up with a manager")
	p.setup.Do(func() { err = p.setupWithManager(mgr) })
	return err
}

func (p *Provider) setupWithManager(mgr mcmanager.Manager) error {
	host := mgr.GetLocalManager()
	if err := clusterinventoryv1alpha1.AddToScheme(host.GetScheme()); err != nil {
		return fmt.Errorf("cluster-inventory-api provider: adding the ClusterProfile types to the scheme: %w", err)
	}
	p.client = host.GetClient()
	p.engager = clusters.NewEngager(clusters.EngagerOptions{
		Clusters:       &p.clusters,
		ClusterOptions: p.opts.ClusterOptions,
		NewCluster:     p.newCluster,
		EventRecorder:  host.GetEventRecorder(p.opts.ControllerName),
		Logger:         mgr.GetLogger().WithName(p.opts.ControllerName),
		OnOutcome:      p.onOutcome,
	})

	b := ctrl.NewControllerManagedBy(host).
		Named(p.opts.ControllerName).
		For(&clusterinventoryv1alpha1.ClusterProfile{})
	for _, w := range p.strategy.CustomWatches() {
		b = b.Watches(w.Object, w.EventHandler, w.Opts...)
	}
	if err := b.Complete(p); err != nil {
		return fmt.Errorf("cluster-inventory-api provider: registering the controller: %w", err)
	}
	return nil
}

// Start engages the clusters of the ready ClusterProfiles with aware until ctx ends; then it stops them and
// returns nil. The multi-cluster manager calls it (the provider is a multicluster.ProviderRunnable). Profiles
// reconciled before Start are engaged once it runs. It returns an error if SetupWithManager has not been called, or
// if the provider is already started.
func (p *Provider) Start(ctx context.Context, aware multicluster.Aware) error {
	if p.engager == nil {
		return errors.New("cluster-inventory-api provider: SetupWithManager must be called before the provider starts")
	}
	if err := p.engager.Start(ctx, aware); err != nil {
		return fmt.Errorf("cluster-inventory-api provider: %w", err)
	}
	return nil
}

// Get returns the named cluster, or an error matching multicluster.ErrClusterNotFound. A cluster is retrievable
// from before it is engaged until it is disengaged. It never blocks on a cluster.
func (p *Provider) Get(ctx context.Context, clusterName multicluster.ClusterName) (cluster.Cluster, error) {
	return p.clusters.Get(ctx, clusterName)
}

// IndexField registers a field index on every cluster, current and future.
func (p *Provider) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	return p.clusters.IndexField(ctx, obj, field, extractValue)
}

// ClusterNames returns the names of the engaged clusters, sorted: a cluster is listed from when its cache has
// synced and it is being engaged until it is disengaged.
func (p *Provider) ClusterNames() []multicluster.ClusterName {
	if p.engager == nil {
		return nil
	}
	return p.engager.ClusterNames()
}
