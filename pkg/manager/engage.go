// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Engage records the cluster, so that GetCluster returns it, and hands it to the coordinator, which engages it with
// the cluster-aware runnables it chooses (by default every runnable added so far, and those added later). It never
// blocks on the cluster. Engaging the same instance again while it is engaged is a no-op; engaging another instance
// under the same name replaces the first everywhere. The cluster stays engaged until ctx ends. A cluster engaged
// under LocalCluster is rejected: that name is the host's. If engaging fails with some runnable, the error names the
// cluster and the caller must cancel ctx, which disengages the cluster from the runnables that took it
// (pkg/clusters does this); it may then retry with a new context.
func (m *mcManager) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	if name == LocalCluster {
		return errors.New("cannot engage a cluster under the empty name: it is reserved for the host cluster")
	}
	if cl == nil {
		return fmt.Errorf("cluster %q: cannot engage a nil cluster", name)
	}
	eng, replaced := m.engagements.Engage(ctx, name, cl)
	if eng == nil {
		return nil
	}
	if replaced == nil {
		metrics.EngagedClusters.Inc()
		metrics.ClusterEngagements.WithLabelValues("engaged").Inc()
	} else {
		metrics.ClusterEngagements.WithLabelValues("replaced").Inc()
	}

	if err := m.coordinator.Engage(ctx, name, cl); err != nil {
		metrics.ClusterEngagements.WithLabelValues("error").Inc()
		metrics.ClusterErrors.WithLabelValues(name.String(), "manager", "engage").Inc()
		return err
	}
	return nil
}

// disengaged accounts for an engagement whose context ended (and that no other engagement of its name replaced).
func disengaged(*clusters.Engagement[struct{}]) {
	metrics.EngagedClusters.Dec()
}

// Add adds a cluster-aware runnable to the host manager and registers it with the coordinator, which engages it
// with the clusters it has chosen so far (by default every engaged cluster) and those it chooses later.
func (m *mcManager) Add(r Runnable) error {
	if err := m.Manager.Add(r); err != nil {
		return err
	}

	m.mu.Lock()
	m.awares = append(m.awares, r)
	m.mu.Unlock()

	if registrar, ok := m.coordinator.(AwareRegistrar); ok {
		return registrar.RegisterAware(r)
	}
	m.coordinator.AddAware(r)
	return nil
}

// Start starts the provider, if it runs a discovery loop, and the host manager.
func (m *mcManager) Start(ctx context.Context) error {
	var err error
	if runnable, ok := m.provider.(multicluster.ProviderRunnable); ok {
		m.providerOnce.Do(func() {
			err = m.Manager.Add(&providerRunnable{
				provider:           runnable,
				aware:              m,
				needLeaderElection: m.providerNeedsLeaderElection,
			})
		})
	}
	if err != nil {
		return fmt.Errorf("adding the provider to the manager: %w", err)
	}
	return m.Manager.Start(ctx)
}

// providerRunnable runs a provider's discovery loop as a runnable of the host manager.
type providerRunnable struct {
	provider           multicluster.ProviderRunnable
	aware              multicluster.Aware
	needLeaderElection bool
}

func (p *providerRunnable) Start(ctx context.Context) error {
	err := p.provider.Start(ctx, p.aware)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		// Stopping because the manager stops is not a failure.
		return nil
	}
	if err != nil {
		return fmt.Errorf("provider %T: %w", p.provider, err)
	}
	return nil
}

func (p *providerRunnable) NeedLeaderElection() bool {
	return p.needLeaderElection
}
