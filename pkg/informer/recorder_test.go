// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package informer

import (
	"fmt"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	toolscache "k8s.io/client-go/tools/cache"
)

// recorder is an event handler that keeps its own copy of the store from the events it receives, and records an
// error for every event that does not fit that copy: an add of an object it has, an update or delete of one it has
// not, or an update whose old object is not the one it has. It also counts events by kind and key.
type recorder struct {
	mu      sync.Mutex
	objects map[string]string // key -> resource version
	errs    []string
	adds    map[string]int
	initial map[string]int
	updates map[string]int
	syncs   map[string]int
	deletes map[string]int
	// tombstones counts the deletes delivered as toolscache.DeletedFinalStateUnknown.
	tombstones map[string]int
}

func newRecorder() *recorder {
	return &recorder{
		objects: map[string]string{}, adds: map[string]int{}, initial: map[string]int{}, updates: map[string]int{},
		syncs: map[string]int{}, deletes: map[string]int{}, tombstones: map[string]int{},
	}
}

func keyAndVersion(obj any) (string, string) {
	key, err := toolscache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		panic(err)
	}
	if m, err := meta.Accessor(obj); err == nil {
		return key, m.GetResourceVersion()
	}
	return key, ""
}

func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key, rv := keyAndVersion(obj)
	if _, ok := r.objects[key]; ok {
		r.errs = append(r.errs, "add of "+key+", which it has")
	}
	r.objects[key] = rv
	r.adds[key]++
	if isInInitialList {
		r.initial[key]++
	}
}

func (r *recorder) OnUpdate(old, obj any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key, rv := keyAndVersion(obj)
	_, oldRV := keyAndVersion(old)
	switch have, ok := r.objects[key]; {
	case !ok:
		r.errs = append(r.errs, "update of "+key+", which it has not")
	case have != oldRV:
		r.errs = append(r.errs, fmt.Sprintf("update of %s from version %s, it has %s", key, oldRV, have))
	}
	r.objects[key] = rv
	if rv == oldRV {
		r.syncs[key]++
	} else {
		r.updates[key]++
	}
}

func (r *recorder) OnDelete(obj any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		r.tombstones[tomb.Key]++
		if tomb.Obj == nil {
			r.errs = append(r.errs, "tombstone of "+tomb.Key+" without the last state")
		}
	}
	key, _ := keyAndVersion(obj)
	if _, ok := r.objects[key]; !ok {
		r.errs = append(r.errs, "delete of "+key+", which it has not")
	}
	delete(r.objects, key)
	r.deletes[key]++
}

// count returns the number of events of the map counts selects for key.
func (r *recorder) count(counts func(*recorder) map[string]int, key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return counts(r)[key]
}

// size returns the number of objects the recorder holds.
func (r *recorder) size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.objects)
}

// check fails t if the recorder recorded an error.
func (r *recorder) check(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.errs {
		t.Error(e)
	}
}

func adds(r *recorder) map[string]int       { return r.adds }
func initial(r *recorder) map[string]int    { return r.initial }
func updates(r *recorder) map[string]int    { return r.updates }
func syncs(r *recorder) map[string]int      { return r.syncs }
func deletes(r *recorder) map[string]int    { return r.deletes }
func tombstones(r *recorder) map[string]int { return r.tombstones }
