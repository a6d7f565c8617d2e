// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package informer

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// process is the informer's toolscache.ProcessFunc: it applies the deltas the queue pops to the store and delivers
// each to every handler, all under dispatchMu, on the goroutine of the informer's controller. isInInitialList is
// whether the deltas belong to the informer's first list. logger is the queue's.
func (s *sharedIndexInformer) process(logger klog.Logger, obj any, isInInitialList bool) error {
	deltas, ok := obj.(toolscache.Deltas)
	if !ok {
		return errors.New("object given as Process argument is not Deltas")
	}
	s.dispatchMu.Lock()
	defer s.dispatchMu.Unlock()
	for _, d := range deltas {
		if err := s.apply(logger, d, isInInitialList); err != nil {
			return err
		}
	}
	return nil
}

// apply applies one delta to the store and delivers it to the handlers. dispatchMu is held.
func (s *sharedIndexInformer) apply(logger klog.Logger, d toolscache.Delta, isInInitialList bool) error {
	switch d.Type {
	case toolscache.ReplacedAll:
		info, ok := d.Object.(toolscache.ReplacedAllInfo)
		if !ok {
			return fmt.Errorf("ReplacedAll did not contain ReplacedAllInfo: %T", d.Object)
		}
		return s.replaceAll(logger, info, isInInitialList)
	case toolscache.SyncAll:
		for _, obj := range s.indexer.List() {
			s.onUpdate(obj, obj)
		}
	case toolscache.Sync, toolscache.Replaced, toolscache.Added, toolscache.Updated:
		if old, exists, err := s.indexer.Get(d.Object); err == nil && exists {
			if err := s.indexer.Update(d.Object); err != nil {
				return fmt.Errorf("updating the store: %w", err)
			}
			s.onUpdate(old, d.Object)
			return nil
		}
		if err := s.indexer.Add(d.Object); err != nil {
			return fmt.Errorf("adding to the store: %w", err)
		}
		s.onAdd(d.Object, isInInitialList)
	case toolscache.Deleted:
		if err := s.indexer.Delete(d.Object); err != nil {
			return fmt.Errorf("deleting from the store: %w", err)
		}
		s.onDelete(d.Object)
	case toolscache.Bookmark:
		info, ok := d.Object.(toolscache.BookmarkInfo)
		if !ok {
			return fmt.Errorf("bookmark delta did not contain BookmarkInfo: %T", d.Object)
		}
		s.indexer.Bookmark(info.ResourceVersion)
	}
	return nil
}

// replaceAll replaces the store's content with a relist, then delivers, as client-go does, a delete for every
// object the list no longer has (a toolscache.DeletedFinalStateUnknown holding the last state the store had), and
// an update (from the stored state) or add for every object listed, in the list's order. dispatchMu is held.
func (s *sharedIndexInformer) replaceAll(logger klog.Logger, info toolscache.ReplacedAllInfo, isInInitialList bool) error {
	keys := s.indexer.ListKeys()
	var (
		deletions []toolscache.DeletedFinalStateUnknown
		stored    []any // the stored state of each listed object, nil for none; nil for an empty store
	)
	if len(keys) > 0 {
		var err error
		if deletions, stored, err = s.compareWithStore(logger, info.Objects, keys); err != nil {
			return err
		}
	}

	// The store first, so that it holds what the handlers are told.
	if err := s.indexer.Replace(info.Objects, info.ResourceVersion); err != nil {
		return fmt.Errorf("replacing the store's content: %w", err)
	}
	for _, deleted := range deletions {
		s.onDelete(deleted)
	}
	for i, obj := range info.Objects {
		if stored != nil && stored[i] != nil {
			s.onUpdate(stored[i], obj)
		} else {
			s.onAdd(obj, isInInitialList)
		}
	}
	return nil
}

// compareWithStore returns, for a relist of objects over a store holding keys, a delete for every stored object
// the list no longer has, and the stored state of each listed object (nil for none).
func (s *sharedIndexInformer) compareWithStore(logger klog.Logger, objects []any, keys []string) ([]toolscache.DeletedFinalStateUnknown, []any, error) {
	listed := sets.New[string]()
	for _, obj := range objects {
		key, err := s.keyFunc(obj)
		if err != nil {
			return nil, nil, toolscache.KeyError{Obj: obj, Err: err}
		}
		listed.Insert(key)
	}
	var deletions []toolscache.DeletedFinalStateUnknown
	for _, key := range keys {
		if listed.Has(key) {
			continue
		}
		last, exists, err := s.indexer.GetByKey(key)
		switch {
		case err != nil:
			last = nil
			utilruntime.HandleErrorWithLogger(logger, err,
				"Error during lookup, placing DeleteFinalStateUnknown marker without object", "key", key)
		case !exists:
			last = nil
			utilruntime.HandleErrorWithLogger(logger, nil,
				"Key does not exist in known objects store, placing DeleteFinalStateUnknown marker without object", "key", key)
		}
		deletions = append(deletions, toolscache.DeletedFinalStateUnknown{Key: key, Obj: last})
	}
	stored := make([]any, len(objects))
	for i, obj := range objects {
		if old, exists, err := s.indexer.Get(obj); err == nil && exists {
			stored[i] = old
		}
	}

	return deletions, stored, nil
}

// onAdd delivers an added object to every handler. dispatchMu is held.
func (s *sharedIndexInformer) onAdd(obj any, isInInitialList bool) {
	s.mutationDetector.AddObject(obj)
	for _, r := range s.handlers {
		r.onAdd(obj, isInInitialList)
	}
}

// onUpdate delivers an update to every handler, except an update that leaves the resource version as it was (a
// resync, or an object a relist found unchanged), which goes to the handlers due for a resync only, as in
// client-go. dispatchMu is held.
func (s *sharedIndexInformer) onUpdate(old, obj any) {
	isSync := false
	if newMeta, err := meta.Accessor(obj); err == nil {
		if oldMeta, err := meta.Accessor(old); err == nil {
			isSync = newMeta.GetResourceVersion() == oldMeta.GetResourceVersion()
		}
	}
	s.mutationDetector.AddObject(obj)
	for _, r := range s.handlers {
		if !isSync || r.syncing.Load() {
			r.onUpdate(old, obj)
		}
	}
}

// onDelete delivers a deleted object (or a toolscache.DeletedFinalStateUnknown) to every handler. dispatchMu is
// held.
func (s *sharedIndexInformer) onDelete(obj any) {
	for _, r := range s.handlers {
		r.onDelete(obj)
	}
}

// onAdd calls the handler's OnAdd. A panic is handled by utilruntime.HandleCrash: unless utilruntime.ReallyCrash is
// false (then it is logged, and the other handlers still get the event), it crashes the process, as in client-go.
func (r *registration) onAdd(obj any, isInInitialList bool) {
	defer utilruntime.HandleCrashWithLogger(r.logger)
	r.handler.OnAdd(obj, isInInitialList)
}

// onUpdate calls the handler's OnUpdate; panics are handled as in onAdd.
func (r *registration) onUpdate(old, obj any) {
	defer utilruntime.HandleCrashWithLogger(r.logger)
	r.handler.OnUpdate(old, obj)
}

// onDelete calls the handler's OnDelete; panics are handled as in onAdd.
func (r *registration) onDelete(obj any) {
	defer utilruntime.HandleCrashWithLogger(r.logger)
	r.handler.OnDelete(obj)
}
