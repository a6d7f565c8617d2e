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

// mapper is the RESTMapper of one cluster: it looks kinds up in the shared RESTMapper of the cluster's group of the
// part that serves them, discovering that part on its first lookup, and rediscovers the part when a lookup finds no
// match.
type mapper struct {
	pool   *Pool
	source *source

	// parts are the cluster's two parts, indexed by part.
	parts [2]clusterPart
	// both is the RESTMapper of the cluster's two groups together; nil until a lookup needs it.
	both atomic.Pointer[combined]
}

// clusterPart is what a cluster knows of one part of its API server.
type clusterPart struct {
	// group is the cluster's current group of the part; nil until its first discovery succeeds.
	group atomic.Pointer[group]

	// discoverMu serialises the part's discoveries. started counts them; lastErr is the outcome of the latest.
	discoverMu sync.Mutex
	started    atomic.Uint64
	lastErr    error
}

var (
	_ meta.RESTMapper            = &mapper{}
	_ meta.RESTMapperWithContext = &mapper{}
)

// current returns the cluster's group of part p, discovering the part first if the cluster has none yet.
func (m *mapper) current(ctx context.Context, p part) (*group, error) {
	if g := m.parts[p].group.Load(); g != nil {
		return g, nil
	}
	return m.discover(ctx, p, true)
}

// discover returns the cluster's group of part p according to a discovery that started after discover was called:
// one that another lookup started meanwhile, or a new one. Lookups that miss at the same time thus share a
// discovery, and so do the first lookups of a part, also when that discovery fails. With anyGroup, a group the
// cluster has got meanwhile is returned as it is.
func (m *mapper) discover(ctx context.Context, p part, anyGroup bool) (*group, error) {
	cp := &m.parts[p]
	ticket := cp.started.Load()
	cp.discoverMu.Lock()
	defer cp.discoverMu.Unlock()
	if g := cp.group.Load(); anyGroup && g != nil {
		return g, nil
	}
	if cp.started.Load() > ticket {
		// A discovery started after this call, and has ended since this call holds the lock.
		if cp.lastErr != nil {
			return nil, cp.lastErr
		}
		return cp.group.Load(), nil
	}
	cp.started.Add(1)
	g, err := m.pool.discover(ctx, m.source, p, cp.group.Load())
	cp.lastErr = err
	if err != nil {
		return nil, err
	}
	cp.group.Store(g)
	return g, nil
}

// groupOf returns the cluster's group of part p: the current one (see current), or with rediscover that of a fresh
// discovery (see discover).
func (m *mapper) groupOf(ctx context.Context, p part, rediscover bool) (*group, error) {
	if rediscover {
		return m.discover(ctx, p, false)
	}
	return m.current(ctx, p)
}

// combined returns the RESTMapper of the cluster's groups of both parts together, discovering the parts it has no
// group of yet, or rediscovering both with rediscover.
func (m *mapper) combined(ctx context.Context, rediscover bool) (*combined, error) {
	var gs [2]*group
	for _, p := range parts {
		var err error
		if gs[p], err = m.groupOf(ctx, p, rediscover); err != nil {
			return nil, err
		}
	}
	if c := m.both.Load(); c != nil && c.legacy == gs[legacyPart] && c.named == gs[namedPart] {
		return c, nil
	}
	c := m.pool.combine(gs[legacyPart], gs[namedPart])
	m.both.Store(c)
	return c, nil
}

// match is how a lookup treats its API group.
type match bool

const (
	// exactGroup: the lookup matches in its API group only, as kind lookups do, so one part answers.
	exactGroup match = false
	// anyGroupIfEmpty: a lookup without an API group may match in any group, as resource lookups do in client-go's
	// RESTMappers, so it looks in both parts together, the legacy group first.
	anyGroupIfEmpty match = true
)

// mapperFor returns the RESTMapper a lookup in API group apiGroup looks in, and the group or combined groups it
// belongs to, after a rediscovery if rediscover is set.
func (m *mapper) mapperFor(ctx context.Context, apiGroup string, how match, rediscover bool) (meta.RESTMapper, any, error) {
	if how == anyGroupIfEmpty && apiGroup == "" {
		c, err := m.combined(ctx, rediscover)
		if err != nil {
			return nil, nil, err
		}
		return c.mapper, c, nil
	}
	g, err := m.groupOf(ctx, partOf(apiGroup), rediscover)
	if err != nil {
		return nil, nil, err
	}
	return g.mapper, g, nil
}

// lookup runs f on the RESTMapper of the part of the cluster that serves API group apiGroup (both parts, for a
// lookup without a group that may match in any); if f finds no match, it runs f again after a fresh discovery of
// that part, should the part's document have changed. As in controller-runtime's RESTMapper, a discovery that fails
// makes the lookup fail with the discovery's error.
func lookup[T any](ctx context.Context, m *mapper, apiGroup string, how match, f func(meta.RESTMapper) (T, error)) (T, error) {
	var zero T
	rm, from, err := m.mapperFor(ctx, apiGroup, how, false)
	if err != nil {
		return zero, err
	}
	res, err := f(rm)
	if !meta.IsNoMatchError(err) {
		return res, err
	}
	fresh, freshFrom, rerr := m.mapperFor(ctx, apiGroup, how, true)
	if rerr != nil {
		return zero, rerr
	}
	if freshFrom == from {
		return res, err
	}
	return f(fresh)
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
	return lookup(ctx, m, resource.Group, anyGroupIfEmpty, func(rm meta.RESTMapper) (schema.GroupVersionKind, error) { return rm.KindFor(resource) })
}

// KindsForWithContext implements meta.RESTMapperWithContext.
func (m *mapper) KindsForWithContext(ctx context.Context, resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	return lookup(ctx, m, resource.Group, anyGroupIfEmpty, func(rm meta.RESTMapper) ([]schema.GroupVersionKind, error) { return rm.KindsFor(resource) })
}

// ResourceForWithContext implements meta.RESTMapperWithContext.
func (m *mapper) ResourceForWithContext(ctx context.Context, input schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return lookup(ctx, m, input.Group, anyGroupIfEmpty, func(rm meta.RESTMapper) (schema.GroupVersionResource, error) { return rm.ResourceFor(input) })
}

// ResourcesForWithContext implements meta.RESTMapperWithContext.
func (m *mapper) ResourcesForWithContext(ctx context.Context, input schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return lookup(ctx, m, input.Group, anyGroupIfEmpty, func(rm meta.RESTMapper) ([]schema.GroupVersionResource, error) { return rm.ResourcesFor(input) })
}

// RESTMappingWithContext implements meta.RESTMapperWithContext.
func (m *mapper) RESTMappingWithContext(ctx context.Context, gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	return lookup(ctx, m, gk.Group, exactGroup, func(rm meta.RESTMapper) (*meta.RESTMapping, error) { return rm.RESTMapping(gk, versions...) })
}

// RESTMappingsWithContext implements meta.RESTMapperWithContext.
func (m *mapper) RESTMappingsWithContext(ctx context.Context, gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	return lookup(ctx, m, gk.Group, exactGroup, func(rm meta.RESTMapper) ([]*meta.RESTMapping, error) { return rm.RESTMappings(gk, versions...) })
}

// ResourceSingularizerWithContext implements meta.RESTMapperWithContext. It looks in both parts, since a resource
// name has no API group. Like controller-runtime's RESTMapper, it does not rediscover the cluster when the resource
// is unknown.
func (m *mapper) ResourceSingularizerWithContext(ctx context.Context, resource string) (string, error) {
	c, err := m.combined(ctx, false)
	if err != nil {
		return "", err
	}
	return c.mapper.ResourceSingularizer(resource)
}
