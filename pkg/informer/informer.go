// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgofeaturegate "k8s.io/client-go/features"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// New returns a SharedIndexInformer of the objects lw lists and watches, of obj's type, with the given indexers,
// whose handlers are called synchronously (see the package documentation). Handlers added with AddEventHandler
// are resynced every resync (zero: never), like those of toolscache.NewSharedIndexInformer, whose signature and
// semantics it has; it is the signature of controller-runtime's cache.Options.NewInformer.
//
// The informer makes no request until it runs.
func New(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration,
	indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	return &sharedIndexInformer{
		listerWatcher:     lw,
		objectType:        obj,
		indexer:           toolscache.NewIndexer(toolscache.DeletionHandlingMetaNamespaceKeyFunc, indexers),
		keyFunc:           toolscache.DeletionHandlingMetaNamespaceKeyFunc,
		defaultResync:     resync,
		resyncCheckPeriod: resync,
		queueKind:         queueKindOfGates(),
		synced:            make(chan struct{}),
		mutationDetector:  toolscache.NewCacheMutationDetector(fmt.Sprintf("%T", obj)),
	}
}

// sharedIndexInformer is the informer New returns.
//
// Lock order: mu, then dispatchMu, then handlersMu. The queue's goroutine takes dispatchMu (and handlersMu) only.
type sharedIndexInformer struct {
	listerWatcher    toolscache.ListerWatcher
	objectType       runtime.Object
	indexer          toolscache.Indexer
	keyFunc          toolscache.KeyFunc
	defaultResync    time.Duration
	mutationDetector toolscache.MutationDetector
	queueKind        queueKind

	// synced is closed once the initial list has been applied to the store and delivered to the handlers.
	synced chan struct{}

	// mu guards what follows, up to dispatchMu.
	mu                sync.Mutex
	started, stopped  bool
	resyncCheckPeriod time.Duration
	transform         toolscache.TransformFunc
	watchErrorHandler toolscache.WatchErrorHandlerWithContext
	controller        toolscache.Controller

	// dispatchMu is held while a change is applied to the store and delivered to the handlers, and while a handler
	// is added or removed (and, added to a running informer, given the store's objects): client-go's blockDeltas.
	dispatchMu sync.Mutex

	// handlersMu guards handlers; it is written with dispatchMu held too, so that dispatching needs only dispatchMu.
	handlersMu sync.RWMutex
	handlers   []*registration
}

var _ toolscache.SharedIndexInformer = &sharedIndexInformer{}

// Run runs the informer until stopCh is closed; see RunWithContext.
func (s *sharedIndexInformer) Run(stopCh <-chan struct{}) {
	s.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext lists and watches, applies the changes to the store and delivers them to the handlers on the
// calling goroutine until ctx ends, and returns once the informer's goroutines have ended. An informer runs once:
// a later call logs a warning and returns at once. Once it has returned, the informer is stopped (IsStopped) and
// takes no more handlers.
func (s *sharedIndexInformer) RunWithContext(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx)

	controller, ok := s.start(logger)
	if !ok {
		logger.Info("Warning: the sharedIndexInformer has started, run more than once is not allowed")
		return
	}

	var wg wait.Group
	defer wg.Wait()
	wg.StartWithChannel(ctx.Done(), s.mutationDetector.Run)
	// Ends with the initial sync (or the informer): it does not outlive the start.
	wg.Start(func() {
		select {
		case <-ctx.Done():
		case <-controller.HasSyncedChecker().Done():
			close(s.synced)
		}
	})
	defer s.stop()
	controller.RunWithContext(ctx)
}

// start builds the informer's controller and marks it started, unless it had started already.
func (s *sharedIndexInformer) start(logger klog.Logger) (toolscache.Controller, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return nil, false
	}
	fifoLogger, queue := newQueue(s.queueKind, logger, s.objectType, s.indexer, s.transform)
	s.controller = toolscache.New(&toolscache.Config{
		Queue:                        queue,
		ListerWatcher:                s.listerWatcher,
		ObjectType:                   s.objectType,
		FullResyncPeriod:             s.resyncCheckPeriod,
		ShouldResync:                 s.shouldResync,
		WatchErrorHandlerWithContext: s.watchErrorHandler,
		Process: func(obj any, isInInitialList bool) error {
			return s.process(fifoLogger, obj, isInInitialList)
		},
	})
	s.started = true
	return s.controller, true
}

// stop marks the informer stopped, and its handlers' registrations shut down.
func (s *sharedIndexInformer) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	s.dispatchMu.Lock()
	defer s.dispatchMu.Unlock()
	s.handlersMu.Lock()
	defer s.handlersMu.Unlock()
	for _, r := range s.handlers {
		r.shutDown()
	}
	s.handlers = nil
}

// HasStarted reports whether Run or RunWithContext has been called.
func (s *sharedIndexInformer) HasStarted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// IsStopped reports whether the informer ran and stopped. A stopped informer never runs again.
func (s *sharedIndexInformer) IsStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// HasSynced reports whether the store holds a complete list of the objects and that list has been delivered to
// every handler registered meanwhile. It never becomes false again.
func (s *sharedIndexInformer) HasSynced() bool {
	select {
	case <-s.synced:
		return true
	default:
		return false
	}
}

// HasSyncedChecker returns a DoneChecker whose channel is closed when HasSynced becomes true.
func (s *sharedIndexInformer) HasSyncedChecker() toolscache.DoneChecker {
	return &doneChecker{name: fmt.Sprintf("SharedIndexInformer %T", s.objectType), done: s.synced}
}

// LastSyncResourceVersion returns the resource version the store was last synced to, or "" before the start. Like
// client-go's, it is not synchronized with the store.
func (s *sharedIndexInformer) LastSyncResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.controller == nil {
		return ""
	}
	return s.controller.LastSyncResourceVersion()
}

// GetStore returns the informer's store (its indexer).
func (s *sharedIndexInformer) GetStore() toolscache.Store {
	return s.indexer
}

// GetIndexer returns the informer's indexer. It must not be written to.
func (s *sharedIndexInformer) GetIndexer() toolscache.Indexer {
	return s.indexer
}

// AddIndexers adds indexers to the store, before or while the informer runs; objects already stored are indexed
// at once. It returns an error once the informer has stopped, or if an indexer of that name exists.
func (s *sharedIndexInformer) AddIndexers(indexers toolscache.Indexers) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return errors.New("indexer was not added because it has stopped already")
	}
	if err := s.indexer.AddIndexers(indexers); err != nil {
		return fmt.Errorf("adding indexers: %w", err)
	}
	return nil
}

// GetController returns a Controller that reports the informer's state; running it does nothing, as with
// client-go's informer.
func (s *sharedIndexInformer) GetController() toolscache.Controller {
	return &informerController{informer: s}
}

// SetWatchErrorHandler sets the handler called when listing or watching fails, before the informer retries.
// It returns an error once the informer has started.
func (s *sharedIndexInformer) SetWatchErrorHandler(handler toolscache.WatchErrorHandler) error {
	return s.SetWatchErrorHandlerWithContext(func(_ context.Context, r *toolscache.Reflector, err error) {
		handler(r, err)
	})
}

// SetWatchErrorHandlerWithContext is SetWatchErrorHandler with a handler that is also given the informer's
// context.
func (s *sharedIndexInformer) SetWatchErrorHandlerWithContext(handler toolscache.WatchErrorHandlerWithContext) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("informer has already started")
	}
	s.watchErrorHandler = handler
	return nil
}

// SetTransform sets the function applied to every object before it is stored (and delivered). It returns an error
// once the informer has started.
func (s *sharedIndexInformer) SetTransform(handler toolscache.TransformFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("informer has already started")
	}
	s.transform = handler
	return nil
}

// doneChecker is a named channel closed when something is done.
type doneChecker struct {
	name string
	done <-chan struct{}
}

// Name names what is waited for.
func (d *doneChecker) Name() string { return d.name }

// Done is closed when it is done.
func (d *doneChecker) Done() <-chan struct{} { return d.done }

// informerController is what GetController returns: the informer's state as a Controller that cannot be run.
type informerController struct {
	informer *sharedIndexInformer
}

// Run does nothing: the informer runs its own controller.
func (c *informerController) Run(<-chan struct{}) {}

// RunWithContext does nothing: the informer runs its own controller.
func (c *informerController) RunWithContext(context.Context) {}

// HasSynced reports whether the informer has synced.
func (c *informerController) HasSynced() bool { return c.informer.HasSynced() }

// HasSyncedChecker returns the informer's HasSyncedChecker.
func (c *informerController) HasSyncedChecker() toolscache.DoneChecker {
	return c.informer.HasSyncedChecker()
}

// LastSyncResourceVersion returns the informer's LastSyncResourceVersion if client-go's InformerResourceVersion
// feature is enabled, and "" otherwise, as client-go does.
func (c *informerController) LastSyncResourceVersion() string {
	if clientgofeaturegate.FeatureGates().Enabled(clientgofeaturegate.InformerResourceVersion) {
		return c.informer.LastSyncResourceVersion()
	}
	return ""
}
