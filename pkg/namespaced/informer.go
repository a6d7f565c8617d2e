// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced

import (
	"fmt"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// Informer is a virtual cluster's view of an informer of the shared cluster's cache. Its event handlers
// receive only the events of the virtual cluster's namespace, with deep copies of the objects presented with
// namespace "default" (deletion tombstones, toolscache.DeletedFinalStateUnknown, are presented too); the shared
// cache's objects are never changed. For a cluster-scoped kind its handlers receive every event, with the shared
// objects as they are.
//
// Cost: all the Informers of one shared informer share ONE client-go event handler registration, made when
// the first handler is added and kept afterwards, which routes each event by namespace. Adding a handler to a
// Informer starts no goroutine and allocates no buffer: a virtual cluster costs only its entries in that
// routing table. (If the shared informer does not expose its store, as the informers of a cache restricted to a
// set of namespaces do, each handler is registered directly on it instead: correct, at client-go's cost per
// handler.)
//
// Handlers are called one at a time, in event order, on the goroutine of the shared registration; like any
// informer handler they must not block.
type Informer struct {
	cache.Informer
	mux *informerMux
	// namespace is the real namespace of the virtual cluster, or empty for a cluster-scoped kind.
	namespace string
	// cluster names the virtual cluster in errors.
	cluster string
}

var _ cache.Informer = &Informer{}

// AddEventHandler adds a handler for the events of the virtual cluster's namespace. Before it returns, the handler
// receives the namespace's objects already in the shared informer's store as adds with isInInitialList set; later
// events follow in order. No event is lost between the two; an event whose change the replay already showed may
// be delivered once more. The registration's HasSynced reports true once the handler has received the informer's
// initial list of the namespace.
func (i *Informer) AddEventHandler(handler toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandlerWithOptions(handler, toolscache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod is AddEventHandler. The resync period is not honoured: the handler shares the
// resyncs of the shared registration, which uses the shared informer's default resync period.
func (i *Informer) AddEventHandlerWithResyncPeriod(handler toolscache.ResourceEventHandler, _ time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandlerWithOptions(handler, toolscache.HandlerOptions{})
}

// AddEventHandlerWithOptions is AddEventHandler. The options (logger, resync period) apply only to handlers that
// are registered directly on the shared informer; a multiplexed handler shares the shared registration's.
func (i *Informer) AddEventHandlerWithOptions(handler toolscache.ResourceEventHandler, options toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	reg, err := i.mux.add(i.namespace, handler, options)
	if err != nil {
		return nil, fmt.Errorf("virtual cluster %q: %w", i.cluster, err)
	}
	return reg, nil
}

// RemoveEventHandler removes a handler added through a Informer of the same virtual cluster and informer;
// other handlers, of this or any virtual cluster, keep receiving their events. After it returns, the handler
// receives no further event, except one that was already being delivered to it. Removing a handler twice is a
// no-op; a registration made elsewhere is an error.
// It has a value receiver, as the reference implementation's (promoted from the embedded cache.Informer) has: values of
// Informer have it too.
func (i Informer) RemoveEventHandler(handle toolscache.ResourceEventHandlerRegistration) error {
	if err := i.mux.remove(i.namespace, handle); err != nil {
		return fmt.Errorf("virtual cluster %q: %w", i.cluster, err)
	}
	return nil
}

// AddIndexers adds indexers to the shared informer. They therefore index the objects of every namespace, and
// their functions see objects with their real namespaces. An indexer whose name the shared informer already has
// is skipped (the first registration wins), so every virtual cluster may add the same indexers without an
// "indexer conflict" error.
func (i *Informer) AddIndexers(indexers toolscache.Indexers) error {
	if err := i.mux.addIndexers(indexers); err != nil {
		return fmt.Errorf("virtual cluster %q: %w", i.cluster, err)
	}
	return nil
}
