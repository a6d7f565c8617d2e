// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// handlerSyncWait bounds how long adding an event handler to a synced informer of the host cache waits for the
// handler to have seen the informer's objects: a handler that waits for the caller to return holds it no longer.
// It is client-go's period for checking a sync, so a controller's source never waits longer than it would without
// the wait.
const handlerSyncWait = 100 * time.Millisecond

// syncNotifiedCache returns a cache.NewCacheFunc that builds the cache newCache builds, wrapped in a
// notifiedCache.
func syncNotifiedCache(newCache cache.NewCacheFunc) cache.NewCacheFunc {
	return func(config *rest.Config, opts cache.Options) (cache.Cache, error) {
		c, err := newCache(config, opts)
		if err != nil {
			return nil, err
		}
		return &notifiedCache{Cache: c}, nil
	}
}

// notifiedCache is the host cluster's cache that New builds: controller-runtime's, with two waits that react to the
// informer instead of checking it every 100 ms as client-go's WaitForCacheSync does.
//
//   - GetInformer and GetInformerForKind, asked to block (the default) on a started cache, return as soon as the
//     informer has synced: they wait on its HasSyncedChecker.
//   - Adding an event handler to one of its informers that has synced returns once the handler has seen the
//     informer's objects, waiting at most handlerSyncWait; the sync check that a controller's source makes next
//     then succeeds at once.
//
// A controller of the host (a provider's controller of Secrets, for example) started with the manager therefore
// starts its workers when its informer has synced, not up to 200 ms later. Everything else is the wrapped cache's.
type notifiedCache struct {
	cache.Cache
	// started is set when Start is called, before the wrapped cache starts: from then on, a blocking request for
	// an informer waits for its sync, as controller-runtime's does once its cache has started.
	started atomic.Bool
}

// Start starts the wrapped cache.
func (c *notifiedCache) Start(ctx context.Context) error {
	c.started.Store(true)
	return c.Cache.Start(ctx)
}

// GetInformer returns the wrapped cache's informer for obj; see notifiedCache for how it waits.
func (c *notifiedCache) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	return c.informer(ctx, fmt.Sprintf("%T", obj), opts, func(opts ...cache.InformerGetOption) (cache.Informer, error) {
		return c.Cache.GetInformer(ctx, obj, opts...)
	})
}

// GetInformerForKind returns the wrapped cache's informer for gvk; see notifiedCache for how it waits.
func (c *notifiedCache) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...cache.InformerGetOption) (cache.Informer, error) {
	return c.informer(ctx, gvk.String(), opts, func(opts ...cache.InformerGetOption) (cache.Informer, error) {
		return c.Cache.GetInformerForKind(ctx, gvk, opts...)
	})
}

// informer gets an informer with get, without letting the wrapped cache block, and then waits for its sync itself
// if opts ask to block and the cache has started. what names the informer's type in the error of a ctx that ends
// first, which is controller-runtime's.
func (c *notifiedCache) informer(ctx context.Context, what string, opts []cache.InformerGetOption,
	get func(...cache.InformerGetOption) (cache.Informer, error)) (cache.Informer, error) {
	var o cache.InformerGetOptions
	for _, opt := range opts {
		opt(&o)
	}
	informer, err := get(append(slices.Clip(opts), cache.BlockUntilSynced(false))...)
	if err != nil {
		return nil, err
	}
	if (o.BlockUntilSynced == nil || *o.BlockUntilSynced) && c.started.Load() && !informer.HasSynced() {
		select {
		case <-informer.HasSyncedChecker().Done():
		case <-ctx.Done():
			if !informer.HasSynced() {
				return nil, apierrors.NewTimeoutError(fmt.Sprintf("failed waiting for %s Informer to sync", what), 0)
			}
		}
	}
	notified := &notifiedInformer{Informer: informer}
	if shared, ok := informer.(toolscache.SharedIndexInformer); ok {
		return &notifiedSharedInformer{SharedIndexInformer: shared, notified: notified}, nil
	}
	return notified, nil
}

// notifiedInformer is an informer of the host cache: adding an event handler to it once it has synced returns when
// the handler has seen its objects, or after handlerSyncWait.
type notifiedInformer struct {
	cache.Informer
}

// AddEventHandler adds handler to the informer; see notifiedInformer for how it waits.
func (i *notifiedInformer) AddEventHandler(handler toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.awaitHandler(i.Informer.AddEventHandler(handler))
}

// AddEventHandlerWithResyncPeriod adds handler to the informer; see notifiedInformer for how it waits.
func (i *notifiedInformer) AddEventHandlerWithResyncPeriod(handler toolscache.ResourceEventHandler, resyncPeriod time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.awaitHandler(i.Informer.AddEventHandlerWithResyncPeriod(handler, resyncPeriod))
}

// AddEventHandlerWithOptions adds handler to the informer; see notifiedInformer for how it waits.
func (i *notifiedInformer) AddEventHandlerWithOptions(handler toolscache.ResourceEventHandler, options toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.awaitHandler(i.Informer.AddEventHandlerWithOptions(handler, options))
}

// awaitHandler waits, if the informer has synced, until the handler of registration has seen the informer's
// objects or handlerSyncWait has passed, and returns registration and err.
func (i *notifiedInformer) awaitHandler(registration toolscache.ResourceEventHandlerRegistration, err error) (toolscache.ResourceEventHandlerRegistration, error) {
	if err != nil || registration == nil || !i.HasSynced() || registration.HasSynced() {
		return registration, err
	}
	timer := time.NewTimer(handlerSyncWait)
	defer timer.Stop()
	select {
	case <-registration.HasSyncedChecker().Done():
	case <-timer.C:
	}
	return registration, nil
}

// notifiedSharedInformer is a notifiedInformer of a toolscache.SharedIndexInformer, and still one itself, so that
// callers who reach for the shared informer's store or indexer keep working.
type notifiedSharedInformer struct {
	toolscache.SharedIndexInformer
	notified *notifiedInformer
}

// AddEventHandler adds handler to the informer; see notifiedInformer for how it waits.
func (i *notifiedSharedInformer) AddEventHandler(handler toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.notified.AddEventHandler(handler)
}

// AddEventHandlerWithResyncPeriod adds handler to the informer; see notifiedInformer for how it waits.
func (i *notifiedSharedInformer) AddEventHandlerWithResyncPeriod(handler toolscache.ResourceEventHandler, resyncPeriod time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.notified.AddEventHandlerWithResyncPeriod(handler, resyncPeriod)
}

// AddEventHandlerWithOptions adds handler to the informer; see notifiedInformer for how it waits.
func (i *notifiedSharedInformer) AddEventHandlerWithOptions(handler toolscache.ResourceEventHandler, options toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.notified.AddEventHandlerWithOptions(handler, options)
}
