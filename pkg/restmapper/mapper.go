// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package restmapper

import (
	"context"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// mapper is the RESTMapper of one cluster: it looks kinds up in the shared RESTMapper of the cluster's group, and
// rediscovers the cluster when a lookup finds no match.
type mapper struct {
	pool   *Pool
	source *source

	// group is the cluster's current group; nil until its first discovery succeeds.
	group atomic.Pointer[group]

	// discoverMu serialises the cluster's discoveries. started counts them; last is the outcome of the latest.
	discoverMu sync.Mutex
	started    atomic.Uint64
	lastErr    error
}

var (
	_ meta.RESTMapper            = &mapper{}
	_ meta.RESTMapperWithContext = &mapper{}
)

// current returns the cluster's group, discovering the cluster first if it has none yet.
func (m *mapper) current(ctx context.Context) (*group, error) {
	if g := m.group.Load(); g != nil {
		return g, nil
	}
	return m.discover(ctx, true)
}

// discover returns the cluster's group according to a discovery that started after discover was called: one that
// another lookup started meanwhile, or a new one. Lookups that miss at the same time thus share a discovery, and
// so do the first lookups of a cluster, also when that discovery fails. With anyGroup, a group the cluster has got
// meanwhile is returned as it is.
func (m *mapper) discover(ctx context.Context, anyGroup bool) (*group, error) {
	ticket := m.started.Load()
	m.discoverMu.Lock()
	defer m.discoverMu.Unlock()
	if g := m.group.Load(); anyGroup && g != nil {
		return g, nil
	}
	if m.started.Load() > ticket {
		// A discovery started after this call, and has ended since this call holds the lock.
		if m.lastErr != nil {
			return nil, m.lastErr
		}
		return m.group.Load(), nil
	}
	return m.discoverLocked(ctx)
}

// discoverLocked discovers the cluster and makes the group of its documents the cluster's. A failure leaves the
// cluster's group as it was. The caller holds discoverMu.
func (m *mapper) discoverLocked(ctx context.Context) (*group, error) {
	m.started.Add(1)
	g, err := m.pool.discover(ctx, m.source, m.group.Load())
	m.lastErr = err
	if err != nil {
		return nil, err
	}
	m.group.Store(g)
	return g, nil
}

// lookup runs f on the cluster's group; if it finds no match, it runs f again on the group of a fresh discovery,
// should the cluster's documents have changed. As in controller-runtime's RESTMapper, a discovery that fails makes
// the lookup fail with the discovery's error.
func lookup[T any](ctx context.Context, m *mapper, f func(meta.RESTMapper) (T, error)) (T, error) {
	var zero T
	g, err := m.current(ctx)
	if err != nil {
		return zero, err
	}
	res, err := f(g.mapper)
	if !meta.IsNoMatchError(err) {
		return res, err
	}
	fresh, rerr := m.discover(ctx, false)
	if rerr != nil {
		return zero, rerr
	}
	if fresh == g {
		return res, err
	}
	return f(fresh.mapper)
}

// KindFor implements meta.RESTMapper.
func (m *mapper) KindFor(resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	return m.KindForWithContext(context.Background(), resource)
}

// KindsFor implements meta.RESTMapper.
func (m *mapper) KindsFor(resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	return m.KindsForWithContext(context.Background(), resource)
}

// ResourceFor implements meta.RESTMapper.
func (m *mapper) ResourceFor(input schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return m.ResourceForWithContext(context.Background(), input)
}

// ResourcesFor implements meta.RESTMapper.
func (m *mapper) ResourcesFor(input schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return m.ResourcesForWithContext(context.Background(), input)
}

// RESTMapping implements meta.RESTMapper.
func (m *mapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	return m.RESTMappingWithContext(context.Background(), gk, versions...)
}

// RESTMappings implements meta.RESTMapper.
func (m *mapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	return m.RESTMappingsWithContext(context.Background(), gk, versions...)
}

// ResourceSingularizer implements meta.RESTMapper.
func (m *mapper) ResourceSingularizer(resource string) (string, error) {
	return m.ResourceSingularizerWithContext(context.Background(), resource)
}

// KindForWithContext implements meta.RESTMapperWithContext.
func (m *mapper) KindForWithContext(ctx context.Context, resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	return lookup(ctx, m, func(rm meta.RESTMapper) (schema.GroupVersionKind, error) { return rm.KindFor(resource) })
}

// KindsForWithContext implements meta.RESTMapperWithContext.
func (m *mapper) KindsForWithContext(ctx context.Context, resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	return lookup(ctx, m, func(rm meta.RESTMapper) ([]schema.GroupVersionKind, error) { return rm.KindsFor(resource) })
}

// ResourceForWithContext implements meta.RESTMapperWithContext.
func (m *mapper) ResourceForWithContext(ctx context.Context, input schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return lookup(ctx, m, func(rm meta.RESTMapper) (schema.GroupVersionResource, error) { return rm.ResourceFor(input) })
}

// ResourcesForWithContext implements meta.RESTMapperWithContext.
func (m *mapper) ResourcesForWithContext(ctx context.Context, input schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return lookup(ctx, m, func(rm meta.RESTMapper) ([]schema.GroupVersionResource, error) { return rm.ResourcesFor(input) })
}

// RESTMappingWithContext implements meta.RESTMapperWithContext.
func (m *mapper) RESTMappingWithContext(ctx context.Context, gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	return lookup(ctx, m, func(rm meta.RESTMapper) (*meta.RESTMapping, error) { return rm.RESTMapping(gk, versions...) })
}

// RESTMappingsWithContext implements meta.RESTMapperWithContext.
func (m *mapper) RESTMappingsWithContext(ctx context.Context, gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	return lookup(ctx, m, func(rm meta.RESTMapper) ([]*meta.RESTMapping, error) { return rm.RESTMappings(gk, versions...) })
}

// ResourceSingularizerWithContext implements meta.RESTMapperWithContext. Like controller-runtime's RESTMapper, it
// does not rediscover the cluster when the resource is unknown.
func (m *mapper) ResourceSingularizerWithContext(ctx context.Context, resource string) (string, error) {
	g, err := m.current(ctx)
	if err != nil {
		return "", err
	}
	return g.mapper.ResourceSingularizer(resource)
}
