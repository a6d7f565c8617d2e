// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Cache is the cache of a virtual cluster: a view of the shared cluster's cache scoped to the virtual
// cluster's namespace. It holds no objects and runs no informer of its own.
//
// Reads are scoped and presented like those of Client. Informers are ScopedInformers over the shared
// informers. Field indexes go to the shared cache, once (see Host.IndexField).
type Cache struct {
	cache.Cache
	scope *scope
	host  *Host
}

var _ cache.Cache = &Cache{}

// GetInformer returns a *Informer over the shared cache's informer for obj's kind. It accepts the shared
// cache's options (for example cache.BlockUntilSynced(false)).
func (c *Cache) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	namespaced, err := c.scope.isNamespaced(obj)
	return c.informer(namespaced, err, func() (cache.Informer, error) { return c.Cache.GetInformer(ctx, obj, opts...) })
}

// GetInformerForKind returns a *Informer over the shared cache's informer for gvk.
func (c *Cache) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...cache.InformerGetOption) (cache.Informer, error) {
	namespaced, err := c.scope.isGVKNamespaced(gvk)
	return c.informer(namespaced, err, func() (cache.Informer, error) { return c.Cache.GetInformerForKind(ctx, gvk, opts...) })
}

// informer returns the virtual cluster's view of the shared informer get returns, of a kind that is namespaced or
// not; mappingErr is the error of telling which, if any.
func (c *Cache) informer(namespaced bool, mappingErr error, get func() (cache.Informer, error)) (cache.Informer, error) {
	if mappingErr != nil {
		return nil, mappingErr
	}
	informer, err := get()
	if err != nil {
		return nil, err
	}
	return c.scoped(informer, namespaced), nil
}

// Get reads the object from the shared cache, in the virtual cluster's namespace; see Client.Get.
func (c *Cache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return scopedGet(ctx, c.scope, c.Cache, key, obj, opts...)
}

// List lists the objects of the virtual cluster's namespace from the shared cache; see Client.List.
// MatchingFields works with indexes registered through Host.IndexField or the cache's IndexField.
func (c *Cache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return scopedList(ctx, c.scope, c.Cache, list, opts...)
}

func (c *Cache) scoped(informer cache.Informer, namespaced bool) *Informer {
	s := &Informer{Informer: informer, mux: c.host.muxes.muxFor(informer), cluster: c.scope.namespace}
	if namespaced {
		s.namespace = c.scope.namespace
	}
	return s
}

// RemoveInformer does nothing and returns nil: the informer is shared with every other virtual cluster and with
// the owner of the shared cluster, so a virtual cluster never removes it. To stop receiving events, remove the
// event handler (Informer.RemoveEventHandler).
func (c *Cache) RemoveInformer(context.Context, client.Object) error {
	return nil
}

// IndexField registers the field index on the shared cache, once for all virtual clusters; see
// Host.IndexField. It has a value receiver, as the reference implementation's (promoted from the embedded
// cache.Cache) has: values of Cache have it too.
func (c Cache) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	return c.host.IndexField(ctx, obj, field, extractValue)
}

// Start returns nil at once: the shared cache is started by the owner of the shared cluster, never by a virtual
// cluster. It has a value receiver, as the reference implementation's (promoted from the embedded cache.Cache)
// has: values of Cache have it too.
func (c Cache) Start(context.Context) error {
	return nil
}
