// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multi

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// prefixedAware is the Aware an inner provider engages its clusters with. It prefixes each cluster's name with the
// inner provider's name and the separator, and engages the cluster with a context that ends when the context the
// inner provider engaged it with ends or when the inner provider's own context ends, whichever comes first. So
// stopping an inner provider disengages its clusters even if it derived their contexts from somewhere else.
type prefixedAware struct {
	provider string
	prefix   string
	aware    multicluster.Aware
	log      logr.Logger

	// ctx is the inner provider's context, owned by the composed provider; cancel ends it.
	ctx    context.Context
	cancel context.CancelFunc

	mu sync.Mutex
	// live holds the engagements whose context has not ended, by the cluster's name in the inner provider.
	live map[multicluster.ClusterName][]*engagement
}

// engagement is one cluster engaged through a prefixedAware.
type engagement struct {
	// parent is the context the inner provider engaged the cluster with.
	parent  context.Context
	cluster cluster.Cluster
	// ctx is the context the cluster is engaged with downstream: it ends with parent or with the inner provider.
	ctx    context.Context
	cancel context.CancelFunc
}

var _ multicluster.Aware = &prefixedAware{}

func newPrefixedAware(ctx context.Context, cancel context.CancelFunc, provider, prefix string, aware multicluster.Aware,
	log logr.Logger) *prefixedAware {
	return &prefixedAware{
		provider: provider,
		prefix:   prefix,
		aware:    aware,
		log:      log,
		ctx:      ctx,
		cancel:   cancel,
		live:     map[multicluster.ClusterName][]*engagement{},
	}
}

// Engage engages cl as prefix+name with the downstream Aware, for as long as both ctx and the inner provider's
// context last. Engaging the same instance with the same context again reuses the first engagement, so it stays a
// no-op downstream. Once the inner provider is stopped, Engage does nothing.
func (a *prefixedAware) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	e := a.engagement(ctx, name, cl)
	if e == nil {
		return nil
	}

	a.log.V(1).Info("Engaging cluster", "cluster", multicluster.ClusterName(a.prefix+name.String()))
	if err := a.aware.Engage(e.ctx, multicluster.ClusterName(a.prefix+name.String()), cl); err != nil {
		return fmt.Errorf("inner provider %q: %w", a.provider, err)
	}
	return nil
}

// engagement returns the engagement to pass downstream: the live one of the same instance under the same name with
// the same context, or a new one. It returns nil once the inner provider is stopped.
func (a *prefixedAware) engagement(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) *engagement {
	a.mu.Lock()
	defer a.mu.Unlock()
	select {
	case <-a.ctx.Done():
		return nil
	default:
	}
	if e := a.findLocked(ctx, name, cl); e != nil {
		return e
	}
	return a.trackLocked(ctx, name, cl)
}

// findLocked returns the live engagement of the same instance under the same name with the same context, if any.
func (a *prefixedAware) findLocked(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) *engagement {
	for _, e := range a.live[name] {
		if e.parent == ctx && e.cluster == cl && e.ctx.Err() == nil {
			return e
		}
	}
	return nil
}

// trackLocked derives the downstream context of a new engagement and records it until that context ends.
func (a *prefixedAware) trackLocked(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) *engagement {
	derived, cancel := context.WithCancel(ctx)
	e := &engagement{parent: ctx, cluster: cl, ctx: derived, cancel: cancel}
	a.live[name] = append(a.live[name], e)
	stopTying := context.AfterFunc(a.ctx, cancel)
	context.AfterFunc(derived, func() {
		stopTying()
		a.untrack(name, e)
	})
	return e
}

// untrack forgets an engagement whose context has ended.
func (a *prefixedAware) untrack(name multicluster.ClusterName, e *engagement) {
	a.mu.Lock()
	defer a.mu.Unlock()
	list := a.live[name]
	for i, x := range list {
		if x == e {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(a.live, name)
	} else {
		a.live[name] = list
	}
}

// names appends to names the prefixed names of the clusters engaged through the Aware whose context has not
// ended.
func (a *prefixedAware) names(names []multicluster.ClusterName) []multicluster.ClusterName {
	a.mu.Lock()
	defer a.mu.Unlock()
	for name, list := range a.live {
		for _, e := range list {
			if e.ctx.Err() == nil {
				names = append(names, multicluster.ClusterName(a.prefix+name.String()))
				break
			}
		}
	}
	return names
}

// stop ends the inner provider's context and, before returning, the context of every cluster engaged through it.
func (a *prefixedAware) stop() {
	a.cancel()
	a.mu.Lock()
	var all []*engagement
	for _, list := range a.live {
		all = append(all, list...)
	}
	a.mu.Unlock()
	for _, e := range all {
		e.cancel()
	}
}
