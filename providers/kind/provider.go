// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kind

import (
	"context"
	"sync"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Provider is a multicluster.Provider whose clusters are the local kind clusters. Create it with New.
type Provider struct {
	// engager engages the kind clusters the lister lists, under their names.
	engager *clusters.Engager
	// EngagedClusters makes the provider a multicluster.Provider, ProviderRunnable and ClusterLister: Get,
	// IndexField and ClusterNames are its engager's (a cluster is listed from when its cache has synced and it is
	// being engaged until it is disengaged); Start is the provider's own.
	clusters.EngagedClusters
	opts Options

	// mu guards running and known.
	mu sync.Mutex
	// running is closed when the discovery that runs ends; nil while none runs.
	running chan struct{}
	// known holds the names of the kind clusters the provider has told the engager about.
	known map[string]bool
}

// New returns a kind provider. It accepts at most one Options (more are an error of use: the first is taken);
// without any, every kind cluster is discovered with the defaults. New runs no command: discovery starts with Start
// or Run.
func New(opts ...Options) *Provider {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	o = o.complete()
	p := &Provider{opts: o, known: map[string]bool{}}
	p.engager = clusters.NewEngager(clusters.EngagerOptions{WaitCacheTimeout: o.WaitCacheTimeout, ClusterOptions: o.ClusterOptions})
	p.EngagedClusters = p.engager.Engaged()
	return p
}

// Start discovers kind clusters and engages them with aware until ctx is done; then it stops the clusters it
// engaged, waits for its goroutines and returns nil. Discovery runs at most once at a time: if it already runs
// (started by Start or Run), Start does not start it again but waits for ctx to end and returns nil, so that the
// manager's start of the provider and a call of Run can be combined. If the running discovery ends first (its
// context ended), a waiting Start takes over and discovers anew with its own context and Aware.
func (p *Provider) Start(ctx context.Context, aware multicluster.Aware) error {
	for {
		running := p.begin()
		if running == nil {
			break
		}
		select {
		case <-ctx.Done():
			return nil
		case <-running:
		}
	}
	defer p.end()
	return p.discover(ctx, aware)
}

// Run runs discovery for mgr until ctx is done, like Start(ctx, mgr). It is idempotent with the manager's own
// start of the provider (mcmanager starts a ProviderRunnable with the manager): whichever comes first runs
// discovery, and the other waits for its context to end and returns nil. Run does not wait for leader election:
// clusters are engaged with the manager, whose controllers run only once elected.
func (p *Provider) Run(ctx context.Context, mgr mcmanager.Manager) error {
	return p.Start(ctx, mgr)
}

// begin marks discovery as running and returns nil, or, if it already runs, returns a channel closed when it ends.
func (p *Provider) begin() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running != nil {
		return p.running
	}
	p.running = make(chan struct{})
	return nil
}

// end marks discovery as ended and wakes the calls waiting for it.
func (p *Provider) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.running)
	p.running = nil
}
