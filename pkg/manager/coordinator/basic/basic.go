// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package basic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Coordinator engages every registered Aware with every cluster. It is safe for concurrent use. The zero value is
// not usable; call New.
type Coordinator struct {
	// fanout serialises engagements and the replay of engaged clusters to new Awares, so that every Aware sees each
	// cluster engaged exactly once and in order.
	fanout sync.Mutex

	// engagements are the clusters engaged so far, replayed to Awares registered later.
	engagements clusters.Engagements[struct{}]

	// mu guards awares; it is never held while calling out.
	mu     sync.Mutex
	awares []multicluster.Aware
}

// New returns a coordinator that engages every Aware with every cluster.
func New() *Coordinator {
	return &Coordinator{}
}

// AddAware registers an Aware and engages it with every cluster engaged so far. Failures to engage it are dropped;
// RegisterAware returns them.
func (c *Coordinator) AddAware(aware multicluster.Aware) {
	_ = c.RegisterAware(aware)
}

// RegisterAware registers an Aware and engages it, with the cluster's own context, with every cluster engaged so
// far whose context has not ended. It returns the failures, each naming its cluster; the Aware stays registered
// and is engaged with later clusters either way.
func (c *Coordinator) RegisterAware(aware multicluster.Aware) error {
	c.fanout.Lock()
	defer c.fanout.Unlock()

	c.mu.Lock()
	c.awares = append(c.awares, aware)
	c.mu.Unlock()

	var errs []error
	for _, eng := range c.engagements.All() {
		if err := aware.Engage(eng.Context(), eng.Name(), eng.Cluster()); err != nil {
			errs = append(errs, fmt.Errorf("engaging cluster %q: %w", eng.Name(), err))
		}
	}
	return errors.Join(errs...)
}

// Engage engages the cluster with every registered Aware, with ctx as its lifetime, and records it for Awares
// registered later until ctx ends. Engaging the same instance again while it is engaged is a no-op; another
// instance under the same name replaces the first. It does not block on the cluster. If some Aware fails, the
// others are engaged all the same and the error names the cluster; the caller then cancels ctx, which disengages
// the cluster everywhere.
func (c *Coordinator) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	c.fanout.Lock()
	defer c.fanout.Unlock()

	if eng, _ := c.engagements.Engage(ctx, name, cl); eng == nil {
		return nil
	}
	c.mu.Lock()
	awares := slices.Clone(c.awares)
	c.mu.Unlock()

	var errs []error
	for _, aware := range awares {
		if err := aware.Engage(ctx, name, cl); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("engaging cluster %q: %w", name, errors.Join(errs...))
	}
	return nil
}

// Runnable returns nil: the basic coordinator has nothing to run.
func (c *Coordinator) Runnable() manager.Runnable {
	return nil
}
