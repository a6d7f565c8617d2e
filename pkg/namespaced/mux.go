// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// informerMux multiplexes one informer of the shared cluster's cache among the virtual clusters: it registers ONE
// event handler on the informer (lazily, when the first scoped handler is added, and keeps it) and routes every
// event by the object's namespace to the handlers registered for that namespace. Handlers of cluster-scoped kinds
// are registered under the empty namespace, which is the namespace of every cluster-scoped object.
//
// A virtual cluster therefore costs no goroutine, no client-go handler registration (each of which runs two
// goroutines and a buffer) and no cache: only its entry in the route map.
//
// Delivery runs on the goroutine client-go runs for the one registration, so every scoped handler receives its
// events in order, one at a time. Handlers must not block, as for any informer handler.
type informerMux struct {
	informer cache.Informer
	// indexer is the informer's store, used to replay the objects of a namespace to a new handler; nil if the
	// informer does not expose it, in which case the mux registers every handler directly (see addDirect).
	indexer toolscache.Indexer

	// regMu guards reg, the one registration of the mux on the informer.
	regMu sync.Mutex
	reg   toolscache.ResourceEventHandlerRegistration

	// mu guards routes. The handler slices are copy-on-write: delivery takes the read lock only to load a slice.
	mu     sync.RWMutex
	routes map[string][]*scopedRegistration

	// indexersMu serialises adding indexers to the informer, so that one index name is added only once.
	indexersMu sync.Mutex
}

// newInformerMux returns the multiplexer of informer.
func newInformerMux(informer cache.Informer) *informerMux {
	m := &informerMux{informer: informer, routes: map[string][]*scopedRegistration{}}
	if withIndexer, ok := informer.(interface{ GetIndexer() toolscache.Indexer }); ok {
		m.indexer = withIndexer.GetIndexer()
	}
	return m
}

// muxRegistry holds the multiplexer of every informer of the shared cache that a virtual cluster has asked for.
type muxRegistry struct {
	mu    sync.Mutex
	muxes map[cache.Informer]*informerMux
}

// muxFor returns the multiplexer of informer, making it on first use. Informers that cannot be told apart (not
// comparable) get a multiplexer of their own, which registers handlers directly.
func (r *muxRegistry) muxFor(informer cache.Informer) *informerMux {
	if !reflect.TypeOf(informer).Comparable() {
		m := newInformerMux(informer)
		m.indexer = nil
		return m
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.muxes[informer]; ok {
		return m
	}
	if r.muxes == nil {
		r.muxes = map[cache.Informer]*informerMux{}
	}
	// A new informer may replace a removed one: forget the multiplexers of informers that have stopped.
	for inf := range r.muxes {
		if inf.IsStopped() {
			delete(r.muxes, inf)
		}
	}
	m := newInformerMux(informer)
	r.muxes[informer] = m
	return m
}

// scopedRegistration is the registration of one scoped handler. It is what Informer's AddEventHandler
// methods return, and what RemoveEventHandler takes.
type scopedRegistration struct {
	mux       *informerMux
	namespace string
	handler   toolscache.ResourceEventHandler

	// mu serialises delivery to the handler: the replay of existing objects first, then live events.
	mu sync.Mutex
	// syncedAtReplay is whether the informer had synced before the replay read its store: then the replay alone
	// delivered the initial list. Written before replayed is set.
	syncedAtReplay bool
	replayed       atomic.Bool
	removed        atomic.Bool
}

var _ toolscache.ResourceEventHandlerRegistration = &scopedRegistration{}

// HasSynced reports whether the handler has received every object of its namespace that was in the informer's
// initial list: the replay is done and the informer had synced before it, or the mux's own registration has
// delivered the informer's initial list.
func (r *scopedRegistration) HasSynced() bool {
	if !r.replayed.Load() {
		return false
	}
	if r.syncedAtReplay {
		return true
	}
	r.mux.regMu.Lock()
	reg := r.mux.reg
	r.mux.regMu.Unlock()
	return reg != nil && reg.HasSynced()
}

// HasSyncedChecker returns a checker that is done when HasSynced is true. The registration is handed out only after
// its replay, so it is done at once when the informer had synced before the replay, and otherwise when the mux's
// own registration has delivered the informer's initial list.
func (r *scopedRegistration) HasSyncedChecker() toolscache.DoneChecker {
	if r.syncedAtReplay {
		return doneChecker{name: r.checkerName(), done: closedChannel}
	}
	r.mux.regMu.Lock()
	reg := r.mux.reg
	r.mux.regMu.Unlock()
	return doneChecker{name: r.checkerName(), done: reg.HasSyncedChecker().Done()}
}

func (r *scopedRegistration) checkerName() string {
	return fmt.Sprintf("event handler of namespace %q", r.namespace)
}

// doneChecker is a toolscache.DoneChecker of a channel.
type doneChecker struct {
	name string
	done <-chan struct{}
}

func (c doneChecker) Name() string          { return c.name }
func (c doneChecker) Done() <-chan struct{} { return c.done }

// closedChannel is a channel that is closed.
var closedChannel = func() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// directRegistration is the registration of a scoped handler that the mux registered directly on the informer
// (see addDirect).
type directRegistration struct {
	toolscache.ResourceEventHandlerRegistration
	mux       *informerMux
	namespace string
}

// add registers handler for the objects of namespace (the empty namespace: cluster-scoped objects). Before add
// returns, the handler receives the objects of the namespace in the informer's store as initial adds; events that
// reach the mux after the handler is in its route map are delivered after that replay. No event is lost between the
// two: a change is either in the store when the replay reads it, or routed to the handler afterwards. A change
// that was in the store but whose event was still queued for the mux is delivered once more after the replay.
func (m *informerMux) add(namespace string, handler toolscache.ResourceEventHandler, options toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, errors.New("cannot add a nil event handler")
	}
	if m.indexer == nil {
		return m.addDirect(namespace, handler, options)
	}
	if err := m.register(); err != nil {
		return nil, err
	}

	r := &scopedRegistration{mux: m, namespace: namespace, handler: handler}
	r.mu.Lock()
	defer r.mu.Unlock()

	m.mu.Lock()
	m.routes[namespace] = append(slices.Clip(m.routes[namespace]), r)
	m.mu.Unlock()

	// Read the informer's state before its store: if it had synced then, the store holds the full initial list.
	r.syncedAtReplay = m.informer.HasSynced()
	for _, obj := range m.stored(namespace) {
		handler.OnAdd(present(obj, namespace), true)
	}
	r.replayed.Store(true)
	return r, nil
}

// register makes the mux's one registration on the informer, once.
func (m *informerMux) register() error {
	m.regMu.Lock()
	defer m.regMu.Unlock()
	if m.reg != nil {
		return nil
	}
	reg, err := m.informer.AddEventHandler(m)
	if err != nil {
		return fmt.Errorf("registering the multiplexing event handler: %w", err)
	}
	m.reg = reg
	return nil
}

// stored returns the objects of namespace in the informer's store.
func (m *informerMux) stored(namespace string) []any {
	if objs, err := m.indexer.ByIndex(toolscache.NamespaceIndex, namespace); err == nil {
		return objs
	}
	var objs []any
	for _, obj := range m.indexer.List() {
		if ns, ok := namespaceOf(obj); ok && ns == namespace {
			objs = append(objs, obj)
		}
	}
	return objs
}

// addDirect registers handler directly on the informer, wrapped to filter and present the events of namespace.
// It is the fallback for informers whose store the mux cannot read (for example the informers of a cache restricted
// to some namespaces): correct, but each handler costs a client-go registration.
func (m *informerMux) addDirect(namespace string, handler toolscache.ResourceEventHandler, options toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	reg, err := m.informer.AddEventHandlerWithOptions(&filteringHandler{namespace: namespace, handler: handler}, options)
	if err != nil {
		return nil, err
	}
	return &directRegistration{ResourceEventHandlerRegistration: reg, mux: m, namespace: namespace}, nil
}

// remove removes a registration made by add for namespace. Removing a registration again is a no-op; a
// registration made for another namespace, or not by this mux, is an error.
func (m *informerMux) remove(namespace string, handle toolscache.ResourceEventHandlerRegistration) error {
	switch r := handle.(type) {
	case *scopedRegistration:
		if r.mux != m || r.namespace != namespace {
			return errors.New("the event handler registration belongs to another virtual cluster or informer")
		}
		r.removed.Store(true)
		m.mu.Lock()
		defer m.mu.Unlock()
		regs := m.routes[namespace]
		if i := slices.Index(regs, r); i >= 0 {
			if len(regs) == 1 {
				delete(m.routes, namespace)
			} else {
				m.routes[namespace] = slices.Delete(slices.Clone(regs), i, i+1)
			}
		}
		return nil
	case *directRegistration:
		if r.mux.informer != m.informer || r.namespace != namespace {
			return errors.New("the event handler registration belongs to another virtual cluster or informer")
		}
		return m.informer.RemoveEventHandler(r.ResourceEventHandlerRegistration)
	default:
		return fmt.Errorf("the event handler registration %T was not made through this virtual cluster", handle)
	}
}

// addIndexers adds to the shared informer the indexers whose names it does not have yet. Indexers already present
// are kept as they are: the first registration of a name wins, and every virtual cluster may register the same
// indexers without an "indexer conflict".
func (m *informerMux) addIndexers(indexers toolscache.Indexers) error {
	m.indexersMu.Lock()
	defer m.indexersMu.Unlock()
	if m.indexer == nil {
		return m.informer.AddIndexers(indexers)
	}
	existing := m.indexer.GetIndexers()
	missing := toolscache.Indexers{}
	for name, fn := range indexers {
		if _, ok := existing[name]; !ok {
			missing[name] = fn
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return m.informer.AddIndexers(missing)
}

// hasIndexer reports whether the informer has an indexer of that name; false if the mux cannot tell.
func (m *informerMux) hasIndexer(name string) bool {
	if m.indexer == nil {
		return false
	}
	_, ok := m.indexer.GetIndexers()[name]
	return ok
}

// routed returns the registrations of namespace.
func (m *informerMux) routed(namespace string) []*scopedRegistration {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.routes[namespace]
}

// OnAdd routes an add to the handlers of the object's namespace.
func (m *informerMux) OnAdd(obj any, isInInitialList bool) {
	if ns, regs := m.handlersOf(obj); len(regs) > 0 {
		obj = present(obj, ns)
		deliver(regs, func(h toolscache.ResourceEventHandler) { h.OnAdd(obj, isInInitialList) })
	}
}

// OnUpdate routes an update to the handlers of the object's namespace.
func (m *informerMux) OnUpdate(oldObj, newObj any) {
	if ns, regs := m.handlersOf(newObj); len(regs) > 0 {
		oldObj, newObj = present(oldObj, ns), present(newObj, ns)
		deliver(regs, func(h toolscache.ResourceEventHandler) { h.OnUpdate(oldObj, newObj) })
	}
}

// OnDelete routes a delete, or a deletion tombstone, to the handlers of the object's namespace.
func (m *informerMux) OnDelete(obj any) {
	if ns, regs := m.handlersOf(obj); len(regs) > 0 {
		obj = present(obj, ns)
		deliver(regs, func(h toolscache.ResourceEventHandler) { h.OnDelete(obj) })
	}
}

// handlersOf returns the namespace of an informer's object (or deletion tombstone) and the registrations of that
// namespace; none for an object without a namespace to tell.
func (m *informerMux) handlersOf(obj any) (string, []*scopedRegistration) {
	ns, ok := namespaceOf(obj)
	if !ok {
		return "", nil
	}
	return ns, m.routed(ns)
}

// deliver passes an event to the handler of every registration that has not been removed, one at a time.
func deliver(regs []*scopedRegistration, event func(toolscache.ResourceEventHandler)) {
	for _, r := range regs {
		r.mu.Lock()
		if !r.removed.Load() {
			event(r.handler)
		}
		r.mu.Unlock()
	}
}

// filteringHandler passes on the events of one namespace, presented, and drops the others.
type filteringHandler struct {
	namespace string
	handler   toolscache.ResourceEventHandler
}

func (f *filteringHandler) OnAdd(obj any, isInInitialList bool) {
	if ns, ok := namespaceOf(obj); ok && ns == f.namespace {
		f.handler.OnAdd(present(obj, ns), isInInitialList)
	}
}

func (f *filteringHandler) OnUpdate(oldObj, newObj any) {
	if ns, ok := namespaceOf(newObj); ok && ns == f.namespace {
		f.handler.OnUpdate(present(oldObj, ns), present(newObj, ns))
	}
}

func (f *filteringHandler) OnDelete(obj any) {
	if ns, ok := namespaceOf(obj); ok && ns == f.namespace {
		f.handler.OnDelete(present(obj, ns))
	}
}

// namespaceOf returns the namespace of an informer's object or deletion tombstone.
func namespaceOf(obj any) (string, bool) {
	switch o := obj.(type) {
	case toolscache.DeletedFinalStateUnknown:
		if inner, ok := o.Obj.(client.Object); ok {
			return inner.GetNamespace(), true
		}
		ns, _, err := toolscache.SplitMetaNamespaceKey(o.Key)
		return ns, err == nil
	case client.Object:
		return o.GetNamespace(), true
	}
	return "", false
}

// present returns the virtual cluster's view of an informer's object of namespace: a deep copy with namespace
// "default" (tombstones get a presented key and object). The shared cache's objects are never changed. Objects of
// cluster-scoped kinds (namespace "") are returned as they are.
func present(obj any, namespace string) any {
	if namespace == "" {
		return obj
	}
	switch o := obj.(type) {
	case toolscache.DeletedFinalStateUnknown:
		_, name, err := toolscache.SplitMetaNamespaceKey(o.Key)
		if err == nil {
			o.Key = presentedNamespace + "/" + name
		}
		o.Obj = present(o.Obj, namespace)
		return o
	case client.Object:
		if c, ok := o.DeepCopyObject().(client.Object); ok {
			c.SetNamespace(presentedNamespace)
			return c
		}
	}
	return obj
}
