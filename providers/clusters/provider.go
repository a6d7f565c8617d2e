package clusters

import (
	"context"
	"errors"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

var (
	_ multicluster.Provider         = &Provider{}
	_ multicluster.ProviderRunnable = &Provider{}
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

type pendingCluster struct {
	name    multicluster.ClusterName
	cluster cluster.Cluster
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
			if err := p.Clusters.Add(ctx, pc.name, pc.cluster, aware); err != nil {
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
	p.lock.Lock()
	if p.runCtx == nil {
		p.pending = append(p.pending, pendingCluster{name: clusterName, cluster: cl})
		p.lock.Unlock()
		return nil
	}
	runCtx, aware := p.runCtx, p.aware
	p.lock.Unlock()

	if err := ctx.Err(); err != nil {
		return err
	}
	return p.Clusters.Add(runCtx, clusterName, cl, aware)
}

func (p *Provider) reportError(err error, clusterName multicluster.ClusterName) {
	if p.ErrorHandler != nil {
		p.ErrorHandler(err, "Failed to engage cluster", "cluster", clusterName)
		return
	}
	providerLog.Error(err, "Failed to engage cluster", "cluster", clusterName)
}
