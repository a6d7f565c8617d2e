package clusterinventoryapi

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
)

var _ multicluster.Provider = &Provider{}

// Provider is a multicluster.Provider whose clusters are the ClusterProfiles of a hub. Create it with New and
// register it with SetupWithManager.
type Provider struct {
	opts     Options
	strategy kubeconfigstrategy.Interface
	clusters clusters.Clusters[cluster.Cluster]

	// retry carries profiles whose engagement ended (failed or done) back to the controller's queue.
	retry chan event.TypedGenericEvent[*clusterinventoryv1alpha1.ClusterProfile]

	// mu guards everything below.
	mu       sync.Mutex
	client   client.Client
	recorder events.EventRecorder
	aware    multicluster.Aware
	ctx      context.Context // the host manager's run context: the clusters' lifetime; nil before it runs
	members  map[string]*member
	workers  sync.WaitGroup
}

// member is what the provider engaged, or is engaging, for one profile.
type member struct {
	// name is the cluster name the profile is engaged under; empty until it is engaged.
	name multicluster.ClusterName
	// cfgKey identifies the rest.Config the cluster is engaged with.
	cfgKey string
	busy   bool
	// failures counts consecutive failed engagements, for backoff.
	failures int
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
		retry:    make(chan event.TypedGenericEvent[*clusterinventoryv1alpha1.ClusterProfile]),
		members:  map[string]*member{},
	}
	p.clusters.WaitCacheTimeout = opts.WaitCacheTimeout
	return p, nil
}

// SetupWithManager registers the provider's controller of ClusterProfiles, and its strategy's watches, with the
// host (hub) manager of mgr, and engages clusters with mgr once the manager runs. The hub manager's scheme gets the
// ClusterProfile types added. It must be called once, before mgr starts.
func (p *Provider) SetupWithManager(mgr mcmanager.Manager) error {
	if mgr == nil {
		return errors.New("cluster-inventory-api provider: the manager is nil")
	}
	host := mgr.GetLocalManager()
	if err := clusterinventoryv1alpha1.AddToScheme(host.GetScheme()); err != nil {
		return fmt.Errorf("cluster-inventory-api provider: adding the ClusterProfile types to the scheme: %w", err)
	}
	p.mu.Lock()
	if p.aware != nil {
		p.mu.Unlock()
		return errors.New("cluster-inventory-api provider: already set up with a manager")
	}
	p.aware = mgr
	p.client = host.GetClient()
	p.recorder = host.GetEventRecorder(p.opts.ControllerName)
	p.mu.Unlock()

	// The clusters live as long as the host manager runs.
	if err := host.Add(manager.RunnableFunc(p.run)); err != nil {
		return fmt.Errorf("cluster-inventory-api provider: %w", err)
	}
	b := ctrl.NewControllerManagedBy(host).
		Named(p.opts.ControllerName).
		For(&clusterinventoryv1alpha1.ClusterProfile{}).
		WatchesRawSource(source.Channel(p.retry, &handler.TypedEnqueueRequestForObject[*clusterinventoryv1alpha1.ClusterProfile]{}))
	for _, w := range p.strategy.CustomWatches() {
		b = b.Watches(w.Object, w.EventHandler, w.Opts...)
	}
	if err := b.Complete(p); err != nil {
		return fmt.Errorf("cluster-inventory-api provider: registering the controller: %w", err)
	}
	return nil
}

// run records the manager's run context, in which clusters are engaged, and waits for the engaging goroutines when
// it ends.
func (p *Provider) run(ctx context.Context) error {
	p.mu.Lock()
	p.ctx = ctx
	p.mu.Unlock()
	<-ctx.Done()
	p.workers.Wait()
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

// ClusterNames returns the names of the clusters the provider holds, sorted.
func (p *Provider) ClusterNames() []multicluster.ClusterName {
	return p.clusters.ClusterNames()
}
