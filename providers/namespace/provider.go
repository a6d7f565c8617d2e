// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/pkg/namespaced"
)

var (
	_ multicluster.Provider         = &Provider{}
	_ multicluster.ProviderRunnable = &Provider{}
	_ multicluster.ClusterLister    = &Provider{}
)

// maxConcurrentEngages bounds how many virtual clusters are handed to Aware.Engage at the same time. Engaging is
// expected to be quick (the manager's Engage never blocks on a cluster); the bound only keeps a burst of thousands
// of namespaces from starting thousands of goroutines at once.
const maxConcurrentEngages = 32

// Provider provides one virtual cluster per Namespace of a shared cluster, named after the namespace (see
// NamespacedCluster). All virtual clusters share the one cluster.Cluster given to New: its cache, its informers
// (one watch per kind) and its client.
type Provider struct {
	shared cluster.Cluster
	host   *namespaced.Host
	log    logr.Logger

	mu        sync.RWMutex
	clusters  map[multicluster.ClusterName]*virtualCluster
	running   chan struct{}      // non-nil while Start runs (until it has stopped everything it started), closed then
	accepting bool               // Start discovers namespaces
	aware     multicluster.Aware // set while accepting

	// engage is the queue of virtual clusters to engage, served by up to maxConcurrentEngages short-lived workers.
	engageMu     sync.Mutex
	queue        []*virtualCluster
	workers      int
	engageClosed bool // set when Start stops: nothing is queued any more
	workerWG     sync.WaitGroup
}

// virtualCluster is one discovered namespace and its lifetime.
type virtualCluster struct {
	name       multicluster.ClusterName
	cluster    *namespaced.Cluster
	ctx        context.Context
	cancel     context.CancelFunc
	discovered time.Time
}

// New returns a provider of the namespaces of cl. The caller starts cl (for example with the manager, or in a
// goroutine of its own) and keeps it running while the provider runs: the provider uses cl, and never starts it.
func New(cl cluster.Cluster) *Provider {
	log := logf.Log.WithName("namespace-provider")
	return &Provider{
		shared:   cl,
		host:     namespaced.NewHost(cl, log),
		log:      log,
		clusters: map[multicluster.ClusterName]*virtualCluster{},
	}
}

// Start watches the Namespaces of the shared cluster, through its cache's Namespace informer (one handler
// registration), and blocks until ctx ends.
//
//   - A Namespace that exists, or is created, becomes a virtual cluster: it is made retrievable with Get, then
//     engaged with aware, with a context of its own derived from ctx. Virtual clusters are engaged concurrently.
//   - A virtual cluster stays engaged while its Namespace exists, Terminating included, so that controllers can
//     still remove the finalizers of the objects in it and let the namespace go. When the Namespace object is
//     deleted, the virtual cluster's context is cancelled, which disengages it everywhere; Get stops returning it.
//   - If engaging fails, the failure is logged with the cluster's name and the virtual cluster is cancelled; the
//     next update of its Namespace tries again.
//
// The discovery starts once the shared cluster's cache runs. When ctx ends, every virtual cluster's context is
// cancelled and Start returns nil once nothing it started runs any more.
//
// The discovery runs at most once at a time. If it runs already, Start does not start it again: it waits for ctx
// to end and returns nil, or takes over with its own ctx and aware if the running discovery ends first. So a
// program may start the provider itself beside the manager, which starts it too, as the reference
// implementation's examples do.
func (p *Provider) Start(ctx context.Context, aware multicluster.Aware) error {
	if aware == nil {
		return errors.New("namespace provider: cannot start without an Aware to engage clusters with")
	}
	for {
		p.mu.Lock()
		running := p.running
		if running == nil {
			p.running, p.accepting, p.aware = make(chan struct{}), true, aware
			p.mu.Unlock()
			break
		}
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil
		case <-running:
		}
	}
	p.engageMu.Lock()
	p.engageClosed = false
	p.engageMu.Unlock()
	defer p.stop()
	// Every virtual cluster's context is a lifetime derived from this one (clusters.WithLifetime), which is what the
	// manager, the coordinator, the controllers and their sources watch for the cluster's end: watching it costs
	// each of them an entry in a list instead of a context and an AfterFunc of their own.
	runCtx, cancelRun := clusters.WithLifetime(ctx)
	defer cancelRun()

	informer, err := p.shared.GetCache().GetInformer(ctx, &corev1.Namespace{}, cache.BlockUntilSynced(false))
	if err != nil {
		return fmt.Errorf("namespace provider: getting the Namespace informer of the shared cluster: %w", err)
	}
	reg, err := informer.AddEventHandler(&namespaceHandler{ctx: runCtx, provider: p})
	if err != nil {
		return fmt.Errorf("namespace provider: watching the Namespaces of the shared cluster: %w", err)
	}
	p.log.Info("Watching namespaces")

	<-ctx.Done()
	if err := informer.RemoveEventHandler(reg); err != nil {
		p.log.Error(err, "Failed to remove the Namespace event handler")
	}
	return nil
}

// stop ends a run of Start: it disengages every virtual cluster, waits for the engage workers and only then lets
// the provider be started again. A Namespace event still being handled may yet call add: add refuses once
// accepting is false, and nothing is queued any more.
func (p *Provider) stop() {
	p.engageMu.Lock()
	p.engageClosed = true
	p.engageMu.Unlock()
	p.mu.Lock()
	p.accepting, p.aware = false, nil
	engaged := make([]*virtualCluster, 0, len(p.clusters))
	for _, vc := range p.clusters {
		engaged = append(engaged, vc)
	}
	clear(p.clusters)
	p.mu.Unlock()
	for _, vc := range engaged {
		vc.cancel()
	}
	p.workerWG.Wait()
	p.mu.Lock()
	close(p.running)
	p.running = nil
	p.mu.Unlock()
}

// namespaceHandler turns Namespace events into virtual clusters. It runs on the one goroutine client-go runs for
// the registration, so the events of one namespace are handled in order.
type namespaceHandler struct {
	ctx      context.Context
	provider *Provider
}

func (h *namespaceHandler) OnAdd(obj any, _ bool) {
	if ns, ok := obj.(client.Object); ok {
		h.provider.add(h.ctx, multicluster.ClusterName(ns.GetName()))
	}
}

// OnUpdate makes sure the namespace has a virtual cluster: it retries one whose engagement failed.
func (h *namespaceHandler) OnUpdate(_, newObj any) {
	if ns, ok := newObj.(client.Object); ok {
		h.provider.add(h.ctx, multicluster.ClusterName(ns.GetName()))
	}
}

func (h *namespaceHandler) OnDelete(obj any) {
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
		if obj == nil {
			if _, name, err := toolscache.SplitMetaNamespaceKey(tombstone.Key); err == nil {
				h.provider.remove(multicluster.ClusterName(name))
			}
			return
		}
	}
	if ns, ok := obj.(client.Object); ok {
		h.provider.remove(multicluster.ClusterName(ns.GetName()))
	}
}

// add makes the virtual cluster of a namespace retrievable and queues it to be engaged. It is idempotent.
func (p *Provider) add(ctx context.Context, name multicluster.ClusterName) {
	p.mu.Lock()
	if !p.accepting || ctx.Err() != nil {
		p.mu.Unlock()
		return
	}
	if vc, ok := p.clusters[name]; ok && vc.ctx.Err() == nil {
		p.mu.Unlock()
		return
	}
	clusterCtx, cancel := clusters.WithLifetime(ctx)
	vc := &virtualCluster{
		name:       name,
		cluster:    p.host.NewCluster(name.String()),
		ctx:        clusterCtx,
		cancel:     cancel,
		discovered: time.Now(),
	}
	p.clusters[name] = vc
	aware := p.aware
	p.mu.Unlock()

	p.log.V(1).Info("Discovered namespace", "cluster", name)
	p.enqueueEngage(vc, aware)
}

// remove cancels the virtual cluster of a deleted namespace, which disengages it everywhere.
func (p *Provider) remove(name multicluster.ClusterName) {
	p.mu.Lock()
	vc := p.clusters[name]
	delete(p.clusters, name)
	p.mu.Unlock()
	if vc != nil {
		p.log.V(1).Info("Namespace deleted, disengaging", "cluster", name)
		vc.cancel()
	}
}

// forget drops a virtual cluster, unless its name now holds another one. A virtual cluster's context ends only
// through remove, a failed engagement or the end of Start, each of which forgets it: no context.AfterFunc per
// virtual cluster is needed.
func (p *Provider) forget(vc *virtualCluster) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.clusters[vc.name] == vc {
		delete(p.clusters, vc.name)
	}
}

// enqueueEngage queues a virtual cluster to be engaged, starting a worker if fewer than maxConcurrentEngages run.
// Workers exit when the queue is empty, so an idle provider runs none.
func (p *Provider) enqueueEngage(vc *virtualCluster, aware multicluster.Aware) {
	p.engageMu.Lock()
	defer p.engageMu.Unlock()
	if p.engageClosed {
		p.forget(vc)
		vc.cancel()
		return
	}
	p.queue = append(p.queue, vc)
	if p.workers < maxConcurrentEngages {
		p.workers++
		p.workerWG.Add(1)
		go p.engageWorker(aware)
	}
}

func (p *Provider) engageWorker(aware multicluster.Aware) {
	defer p.workerWG.Done()
	for {
		p.engageMu.Lock()
		if len(p.queue) == 0 {
			p.workers--
			p.engageMu.Unlock()
			return
		}
		vc := p.queue[0]
		p.queue[0] = nil
		p.queue = p.queue[1:]
		p.engageMu.Unlock()
		p.engage(vc, aware)
	}
}

// engage hands a virtual cluster to aware. A failure cancels the virtual cluster.
func (p *Provider) engage(vc *virtualCluster, aware multicluster.Aware) {
	if vc.ctx.Err() != nil {
		return
	}
	if err := aware.Engage(vc.ctx, vc.name, vc.cluster); err != nil {
		metrics.ClusterErrors.WithLabelValues(vc.name.String(), "provider", "engage").Inc()
		p.log.Error(err, "Failed to engage the virtual cluster of a namespace", "cluster", vc.name)
		p.forget(vc)
		vc.cancel()
		return
	}
	metrics.ProviderEngageDuration.Observe(time.Since(vc.discovered).Seconds())
	p.log.V(1).Info("Engaged virtual cluster", "cluster", vc.name)
}

// Get returns the virtual cluster of the named namespace, a *NamespacedCluster, from the moment its Namespace is
// discovered (before it is engaged) until its context ends. For any other name it returns an error matching
// multicluster.ErrClusterNotFound that names the cluster.
func (p *Provider) Get(_ context.Context, clusterName multicluster.ClusterName) (cluster.Cluster, error) {
	p.mu.RLock()
	vc := p.clusters[clusterName]
	p.mu.RUnlock()
	if vc == nil || vc.ctx.Err() != nil {
		return nil, fmt.Errorf("cluster %q: %w", clusterName, multicluster.ErrClusterNotFound)
	}
	return vc.cluster, nil
}

// ClusterNames returns the names of the virtual clusters, sorted: the namespaces discovered whose virtual cluster
// has not ended.
func (p *Provider) ClusterNames() []multicluster.ClusterName {
	p.mu.RLock()
	names := make([]multicluster.ClusterName, 0, len(p.clusters))
	for name, vc := range p.clusters {
		if vc.ctx.Err() == nil {
			names = append(names, name)
		}
	}
	p.mu.RUnlock()
	slices.Sort(names)
	return names
}

// IndexField registers a field index on the shared cluster's cache, ONCE for all virtual clusters, present and
// future (they share the cache, whose index keys include the namespace, so List with MatchingFields through a
// virtual cluster's client or cache finds only its namespace's objects). It may be called before or after Start
// and before or after the shared cluster starts; on a running cache it waits for the informer of obj's kind to
// sync.
//
// Registering a field that is registered already, through this provider, a virtual cluster, or anyone else on
// the same informer (for example the host manager, when the shared cluster is the manager's own), is a no-op: the
// first registration wins, and there is no "indexer conflict" error. Extractors run on the shared cache's objects,
// which carry their real namespaces.
func (p *Provider) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	return p.host.IndexField(ctx, obj, field, extractValue)
}
