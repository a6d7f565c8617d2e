// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package informer

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// minimumResyncPeriod is the shortest resync period a handler gets, as in client-go.
const minimumResyncPeriod = time.Second

// registration is a handler added to an informer, and the handle AddEventHandler returns for it.
type registration struct {
	informer *sharedIndexInformer
	handler  toolscache.ResourceEventHandler
	logger   klog.Logger

	// syncing is whether the handler is due for the resync under way: it receives the updates that do not change
	// an object's resource version (resyncs, and objects unchanged by a relist) only then. Written by
	// shouldResync, and true until its first call, as in client-go.
	syncing atomic.Bool

	// resyncMu guards the resync periods and nextResync.
	resyncMu sync.Mutex
	// requestedResync is the period asked for (raised to minimumResyncPeriod); resync is the one applied, which is
	// zero if the informer does not resync and otherwise at least its resync check period.
	requestedResync, resync time.Duration
	nextResync              time.Time

	// shutdown is closed once the handler is removed or the informer stopped: no call of it is under way then and
	// none follows.
	shutdown     chan struct{}
	shutdownOnce sync.Once
}

var _ toolscache.ResourceEventHandlerRegistration = &registration{}

// HasSynced reports whether the informer has synced, and with it delivered its initial list to the handler.
func (r *registration) HasSynced() bool {
	return r.informer.HasSynced()
}

// HasSyncedChecker returns a DoneChecker whose channel is closed when HasSynced becomes true.
func (r *registration) HasSyncedChecker() toolscache.DoneChecker {
	return &doneChecker{
		name: fmt.Sprintf("SharedIndexInformer %T + event handler %T", r.informer.objectType, r.handler),
		done: r.informer.synced,
	}
}

// ShutdownChan returns a channel closed once the handler has been removed (or the informer stopped) and will not
// be called again; toolscache.ShutDownEventHandler waits for it.
func (r *registration) ShutdownChan() <-chan struct{} {
	return r.shutdown
}

func (r *registration) shutDown() {
	r.shutdownOnce.Do(func() { close(r.shutdown) })
}

// dueForResync reports whether the handler is due for a resync at now, and if it is, schedules its next one.
func (r *registration) dueForResync(now time.Time) bool {
	r.resyncMu.Lock()
	defer r.resyncMu.Unlock()
	if r.resync == 0 || now.Before(r.nextResync) {
		return false
	}
	r.nextResync = now.Add(r.resync)
	return true
}

// AddEventHandler adds handler with the informer's default resync period; see AddEventHandlerWithOptions.
func (s *sharedIndexInformer) AddEventHandler(
	handler toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, toolscache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod adds handler with the given resync period (zero: no resyncs); see
// AddEventHandlerWithOptions.
func (s *sharedIndexInformer) AddEventHandlerWithResyncPeriod(handler toolscache.ResourceEventHandler,
	resyncPeriod time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, toolscache.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions adds handler, which is then called synchronously with every change the informer
// applies to its store, in order and after the handlers added before it. Added while the informer runs, it first
// receives every object in the store as OnAdd(obj, true), before any later change and without missing one. It must
// not be called from a handler of the same informer (that deadlocks).
//
// The resync period is options.ResyncPeriod, or else the informer's default; zero means no resyncs. As in client-go,
// it is raised to one second, and to the informer's resync check period (the shortest period asked for before the
// start, or the default if shorter) if the informer has started; an informer whose default is zero never resyncs.
//
// It returns an error once the informer has stopped.
func (s *sharedIndexInformer) AddEventHandlerWithOptions(handler toolscache.ResourceEventHandler,
	options toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, fmt.Errorf("handler %v was not added to shared informer because it has stopped already", handler)
	}

	logger := ptr.Deref(options.Logger, klog.Background())
	resync := ptr.Deref(options.ResyncPeriod, s.defaultResync)
	if resync > 0 {
		if resync < minimumResyncPeriod {
			logger.Info("Warning: resync period is too small. Changing it to the minimum allowed value",
				"resyncPeriod", resync, "minimumResyncPeriod", minimumResyncPeriod)
			resync = minimumResyncPeriod
		}
		if resync < s.resyncCheckPeriod {
			if s.started {
				logger.Info("Warning: resync period is smaller than resync check period and the informer has already started. Changing it to the resync check period",
					"resyncPeriod", resync, "resyncCheckPeriod", s.resyncCheckPeriod)
				resync = s.resyncCheckPeriod
			} else {
				s.resyncCheckPeriod = resync
				s.resyncCheckPeriodChanged(logger)
			}
		}
	}
	r := &registration{
		informer:        s,
		handler:         handler,
		logger:          logger,
		requestedResync: resync,
		resync:          effectiveResync(logger, resync, s.resyncCheckPeriod),
		nextResync:      time.Now(),
		shutdown:        make(chan struct{}),
	}
	r.nextResync = r.nextResync.Add(r.resync)
	r.syncing.Store(true)

	s.dispatchMu.Lock()
	defer s.dispatchMu.Unlock()
	s.handlersMu.Lock()
	s.handlers = append(slices.Clip(s.handlers), r)
	s.handlersMu.Unlock()
	if s.started {
		for _, obj := range s.indexer.List() {
			r.onAdd(obj, true)
		}
	}
	return r, nil
}

// RemoveEventHandler removes the handler of handle, which must come from this informer. Once it returns, the
// handler is not being called and will not be again. It is idempotent and must not be called from a handler of the
// same informer (that deadlocks).
func (s *sharedIndexInformer) RemoveEventHandler(handle toolscache.ResourceEventHandlerRegistration) error {
	r, ok := handle.(*registration)
	if !ok {
		return fmt.Errorf("invalid key type %T", handle)
	}
	if r.informer != s {
		return errors.New("the registration is of another informer")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dispatchMu.Lock()
	defer s.dispatchMu.Unlock()
	s.handlersMu.Lock()
	defer s.handlersMu.Unlock()
	if i := slices.Index(s.handlers, r); i >= 0 {
		// A new slice: shouldResync may be ranging over the old one.
		s.handlers = slices.Delete(slices.Clone(s.handlers), i, i+1)
	}
	r.shutDown()
	return nil
}

// resyncCheckPeriodChanged applies a shorter resync check period, set before the start, to the handlers added so
// far. s.mu is held.
func (s *sharedIndexInformer) resyncCheckPeriodChanged(logger klog.Logger) {
	s.handlersMu.RLock()
	defer s.handlersMu.RUnlock()
	for _, r := range s.handlers {
		r.resyncMu.Lock()
		r.resync = effectiveResync(logger, r.requestedResync, s.resyncCheckPeriod)
		r.resyncMu.Unlock()
	}
}

// shouldResync is called by the reflector every resync check period: it marks the handlers due for a resync as
// syncing (and the others not), and reports whether any is.
func (s *sharedIndexInformer) shouldResync() bool {
	s.handlersMu.RLock()
	defer s.handlersMu.RUnlock()
	now := time.Now()
	resync := false
	for _, r := range s.handlers {
		due := r.dueForResync(now)
		r.syncing.Store(due)
		resync = resync || due
	}
	return resync
}

// effectiveResync returns the resync period of a handler that asked for desired, in an informer whose resync
// check period is check.
func effectiveResync(logger klog.Logger, desired, check time.Duration) time.Duration {
	switch {
	case desired == 0:
		return 0
	case check == 0:
		logger.Info("Warning: the specified resyncPeriod is invalid because this shared informer doesn't support resyncing",
			"desired", desired)
		return 0
	case desired < check:
		logger.Info("Warning: the specified resyncPeriod is being increased to the minimum resyncCheckPeriod",
			"desired", desired, "resyncCheckPeriod", check)
		return check
	default:
		return desired
	}
}
