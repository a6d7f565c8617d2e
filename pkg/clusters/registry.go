// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Registry is a name → cluster map that tracks clusters without running them: it never starts, syncs or stops a
// cluster. It serves components that need to know which clusters are engaged, such as a provider that composes
// another provider's clusters or a cluster-aware runnable that keeps a per-cluster client. Create it with
// NewRegistry (the zero value is an empty registry too); all methods are safe for concurrent use.
//
// A Registry is a multicluster.Aware and a manager.Runnable, so mgr.Add(registry) makes the manager engage it with
// every cluster: Engage records a cluster for as long as the context it was engaged with lives and forgets it when
// that context ends. Clusters can also be registered by hand with Add and AddOrReplace; those stay until Remove or
// RemoveIfEqual. Either way, a cluster that replaced another under the same name is never removed by the teardown
// of the one it replaced.
//
// Its methods and signatures are those of the reference implementation's Registry (v0.24), so programs written for
// it compile unchanged; docs/getting-started/migration.md lists where the behaviour differs.
type Registry[T cluster.Cluster] struct {
	// EqualClusters reports whether AddOrReplace may keep the cluster registered under a name instead of the one
	// it is given. nil means EqualClusters (the function of this package): the same API server and identity.
	// Engage does not consult it: the engaged instance is the one registered.
	EqualClusters func(a, b T) bool

	mu       sync.RWMutex
	clusters map[multicluster.ClusterName]*registration[T]
}

// registration is one cluster held by a Registry. ctx is the lifetime of an engaged cluster; nil for a cluster
// added by hand, which lives until it is removed.
type registration[T cluster.Cluster] struct {
	cluster T
	ctx     context.Context
	// stopWatch stops the watcher of ctx that forgets the registration once ctx ends; nil without ctx.
	stopWatch func() bool
}

// live reports whether the registration's lifetime has not ended.
func (r *registration[T]) live() bool {
	return r.ctx == nil || r.ctx.Err() == nil
}

// stop releases the watcher of the registration's context, if any. It is idempotent.
func (r *registration[T]) stop() {
	if r.stopWatch != nil {
		r.stopWatch()
	}
}

var _ multicluster.Aware = &Registry[cluster.Cluster]{}

// NewRegistry returns an empty registry.
func NewRegistry[T cluster.Cluster]() *Registry[T] {
	return &Registry[T]{clusters: map[multicluster.ClusterName]*registration[T]{}}
}

// Start blocks until ctx ends and returns nil. A Registry has no work of its own; Start makes it a
// manager.Runnable, so that mgr.Add(registry) registers it with a manager, which then engages it with every
// cluster.
func (r *Registry[T]) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

// Engage records cl under name for as long as ctx lives, and forgets it when ctx ends unless the name holds
// another cluster by then. It never blocks: no cluster is started or waited for. cl must be a T; otherwise Engage
// returns an error naming the cluster and records nothing.
//
// Engaging the instance already registered under name, while that registration lives, is a no-op (the first
// registration keeps its lifetime); engaging another instance replaces the registered one, whose context ending
// later does not remove the replacement. Engaging with a context that has already ended records nothing.
func (r *Registry[T]) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	if cl == nil {
		return fmt.Errorf("cluster %q: cannot register a nil cluster", name)
	}
	typed, ok := cl.(T)
	if !ok {
		var zero T
		return fmt.Errorf("cluster %q: a %T cannot be registered in a registry of %T", name, cl, zero)
	}
	if ctx.Err() != nil {
		return nil
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.clusters[name]; old != nil && old.live() && cluster.Cluster(old.cluster) == cl {
		return nil
	}
	reg := &registration[T]{cluster: typed, ctx: ctx}
	reg.stopWatch = AfterFunc(ctx, func() { r.forget(name, reg) })
	r.setLocked(name, reg)
	return nil
}

// ClusterNames returns the names of the registered clusters, sorted. Engaged clusters whose context has ended are
// not listed.
func (r *Registry[T]) ClusterNames() []multicluster.ClusterName {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]multicluster.ClusterName, 0, len(r.clusters))
	for name, reg := range r.clusters {
		if reg.live() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Len returns the number of registered clusters.
func (r *Registry[T]) Len() int {
	return len(r.ClusterNames())
}

// Get returns the cluster registered under name. For a name that is not registered, or whose engagement has
// ended, it returns an error that names the cluster and matches multicluster.ErrClusterNotFound, so a Registry
// can serve a provider's Get.
func (r *Registry[T]) Get(ctx context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	cl, err := r.GetTyped(ctx, name)
	if err != nil {
		return nil, err
	}
	return cl, nil
}

// GetTyped is Get returning the cluster as a T.
func (r *Registry[T]) GetTyped(_ context.Context, name multicluster.ClusterName) (T, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if reg := r.clusters[name]; reg != nil && reg.live() {
		return reg.cluster, nil
	}
	var zero T
	return zero, fmt.Errorf("cluster %q: %w", name, multicluster.ErrClusterNotFound)
}

// Add registers cl under name until it is removed with Remove or RemoveIfEqual. It returns an error naming the
// cluster, and changes nothing, if the name is already registered. ctx is not retained: to register a cluster for
// the lifetime of a context, use Engage.
func (r *Registry[T]) Add(_ context.Context, name multicluster.ClusterName, cl T) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if reg := r.clusters[name]; reg != nil && reg.live() {
		return fmt.Errorf("cluster %q is already registered", name)
	}
	r.setLocked(name, &registration[T]{cluster: cl})
	return nil
}

// AddOrReplace registers a cluster under name until it is removed with Remove or RemoveIfEqual: the cluster the
// name holds already if EqualClusters reports it equal to cl, otherwise cl, which replaces it. Either way the end
// of the context the name's cluster was engaged with no longer affects the name. The replaced cluster is only
// forgotten, not stopped. ctx is not retained. It returns no error today; the error is part of the signature for
// compatibility with the reference implementation.
func (r *Registry[T]) AddOrReplace(_ context.Context, name multicluster.ClusterName, cl T) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.clusters[name]; old != nil && old.live() && r.equal(old.cluster, cl) {
		cl = old.cluster
	}
	r.setLocked(name, &registration[T]{cluster: cl})
	return nil
}

// equal applies EqualClusters, or its default.
func (r *Registry[T]) equal(a, b T) bool {
	if cluster.Cluster(a) == cluster.Cluster(b) {
		return true
	}
	if r.EqualClusters != nil {
		return r.EqualClusters(a, b)
	}
	return EqualClusters(a, b)
}

// Remove forgets the cluster registered under name, if any. The cluster is not stopped. It is idempotent.
func (r *Registry[T]) Remove(name multicluster.ClusterName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if reg := r.clusters[name]; reg != nil {
		delete(r.clusters, name)
		reg.stop()
	}
}

// RemoveIfEqual forgets the cluster registered under name only if it is the instance cl. Use it to retire a
// cluster without removing a replacement registered meanwhile under the same name. The cluster is not stopped.
func (r *Registry[T]) RemoveIfEqual(name multicluster.ClusterName, cl T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	reg := r.clusters[name]
	if reg == nil || cluster.Cluster(reg.cluster) != cluster.Cluster(cl) {
		return
	}
	delete(r.clusters, name)
	reg.stop()
}

// ForEach calls fn for every registered cluster, in the order of their names, and stops at the first error fn
// returns, which it returns. It works on a snapshot taken when it is called, without holding the registry's lock
// while fn runs, so fn may call any method of the registry.
func (r *Registry[T]) ForEach(fn func(name multicluster.ClusterName, cl T) error) error {
	type entry struct {
		name multicluster.ClusterName
		cl   T
	}
	r.mu.RLock()
	snapshot := make([]entry, 0, len(r.clusters))
	for name, reg := range r.clusters {
		if reg.live() {
			snapshot = append(snapshot, entry{name: name, cl: reg.cluster})
		}
	}
	r.mu.RUnlock()
	slices.SortFunc(snapshot, func(a, b entry) int { return cmp.Compare(a.name, b.name) })
	for _, e := range snapshot {
		if err := fn(e.name, e.cl); err != nil {
			return err
		}
	}
	return nil
}

// setLocked registers reg under name, releasing the registration it replaces. The caller holds mu.
func (r *Registry[T]) setLocked(name multicluster.ClusterName, reg *registration[T]) {
	if r.clusters == nil {
		r.clusters = map[multicluster.ClusterName]*registration[T]{}
	}
	if old := r.clusters[name]; old != nil {
		old.stop()
	}
	r.clusters[name] = reg
}

// forget removes reg once its context has ended, unless the name now holds another registration.
func (r *Registry[T]) forget(name multicluster.ClusterName, reg *registration[T]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.clusters[name] == reg {
		delete(r.clusters, name)
	}
}
