// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package informer

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// The tests of this file run the informer against client-go's fake ListerWatcher, once for each kind of queue.

const unitTimeout = 30 * time.Second

var queueKinds = map[string]queueKind{"atomic RealFIFO": atomicFIFO, "RealFIFO": realFIFO, "DeltaFIFO": deltaFIFO}

// fakeSource is client-go's fake ListerWatcher, which does not stream lists (watch-list semantics).
type fakeSource struct{ *fcache.FakeControllerSource }

func (fakeSource) IsWatchListSemanticsUnSupported() bool { return true }

func pod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name)}}
}

// newInformer returns an informer of Pods from src with a queue of kind k.
func newInformer(src *fcache.FakeControllerSource, k queueKind, resync time.Duration) *sharedIndexInformer {
	s := New(fakeSource{src}, &corev1.Pod{}, resync, toolscache.Indexers{}).(*sharedIndexInformer)
	s.queueKind = k
	return s
}

// run runs s until the test ends or the returned function is called, which returns once s has stopped.
func run(t *testing.T, s toolscache.SharedIndexInformer) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.RunWithContext(ctx)
	}()
	stop = func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	return stop
}

func forEachQueue(t *testing.T, test func(t *testing.T, k queueKind)) {
	for name, k := range queueKinds {
		t.Run(name, func(t *testing.T) { test(t, k) })
	}
}

func TestHandlersSeeEveryChangeOnce(t *testing.T) {
	forEachQueue(t, func(t *testing.T, k queueKind) {
		src := fcache.NewFakeControllerSource()
		for i := range 3 {
			src.Add(pod(fmt.Sprintf("p%d", i)))
		}
		s := newInformer(src, k, 0)
		before := newRecorder()
		regBefore, err := s.AddEventHandler(before)
		if err != nil {
			t.Fatal(err)
		}
		if regBefore.HasSynced() || s.HasSynced() {
			t.Fatal("synced before the start")
		}
		run(t, s)
		mcenvtest.Eventually(t, unitTimeout, "the registration synced", regBefore.HasSynced)
		if got := before.size(); got != 3 {
			t.Fatalf("synced registration has seen %d objects, want 3", got)
		}

		after := newRecorder()
		regAfter, err := s.AddEventHandler(after)
		if err != nil {
			t.Fatal(err)
		}
		if !regAfter.HasSynced() {
			t.Error("a registration added after the sync has not synced")
		}
		if got := after.size(); got != 3 {
			t.Fatalf("handler added after the sync has %d objects once added, want 3", got)
		}

		src.Add(pod("p3"))
		p0 := pod("p0")
		p0.Labels = map[string]string{"changed": "yes"}
		src.Modify(p0)
		src.Delete(pod("p1"))
		for _, r := range []*recorder{before, after} {
			mcenvtest.Eventually(t, unitTimeout, "the changes delivered", func() bool {
				return r.count(adds, "ns/p3") == 1 && r.count(updates, "ns/p0") == 1 && r.count(deletes, "ns/p1") == 1
			})
			r.check(t)
			for i := range 4 {
				key := fmt.Sprintf("ns/p%d", i)
				if got := r.count(adds, key); got != 1 {
					t.Errorf("%s added %d times, want once", key, got)
				}
			}
		}
		for _, key := range []string{"ns/p0", "ns/p1", "ns/p2"} {
			if before.count(initial, key) != 1 || after.count(initial, key) != 1 {
				t.Errorf("%s not added as part of the initial list", key)
			}
		}
		if before.count(initial, "ns/p3") != 0 {
			t.Error("an object created after the sync was added as part of the initial list")
		}
		if s.LastSyncResourceVersion() == "" {
			t.Error("no LastSyncResourceVersion once synced")
		}
	})
}

func TestRelistDeliversMissedDeletes(t *testing.T) {
	forEachQueue(t, func(t *testing.T, k queueKind) {
		src := fcache.NewFakeControllerSource()
		src.Add(pod("kept"))
		src.Add(pod("gone"))
		s := newInformer(src, k, 0)
		r := newRecorder()
		reg, err := s.AddEventHandler(r)
		if err != nil {
			t.Fatal(err)
		}
		run(t, s)
		mcenvtest.Eventually(t, unitTimeout, "the registration synced", reg.HasSynced)

		// Changes the watch misses, then a broken watch whose resource version has expired: the reflector relists.
		kept := pod("kept")
		kept.Labels = map[string]string{"changed": "yes"}
		src.ModifyDropWatch(kept)
		src.DeleteDropWatch(pod("gone"))
		src.AddDropWatch(pod("new"))
		src.ResetWatch()

		mcenvtest.Eventually(t, unitTimeout, "the relist delivered", func() bool {
			return r.count(deletes, "ns/gone") == 1 && r.count(adds, "ns/new") == 1 && r.count(updates, "ns/kept") == 1
		})
		r.check(t)
		if r.count(tombstones, "ns/gone") != 1 {
			t.Error("the delete a relist found was not a DeletedFinalStateUnknown")
		}
		if r.count(initial, "ns/new") != 0 {
			t.Error("an object of a relist was added as part of the initial list")
		}
		if _, exists, _ := s.GetStore().GetByKey("ns/gone"); exists {
			t.Error("the store still has the deleted object")
		}
	})
}

func TestTransform(t *testing.T) {
	forEachQueue(t, func(t *testing.T, k queueKind) {
		src := fcache.NewFakeControllerSource()
		src.Add(pod("a"))
		s := newInformer(src, k, 0)
		if err := s.SetTransform(func(obj any) (any, error) {
			p := obj.(*corev1.Pod).DeepCopy()
			p.Labels = map[string]string{"transformed": "yes"}
			return p, nil
		}); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var seen []*corev1.Pod
		reg, err := s.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, obj.(*corev1.Pod))
			},
			UpdateFunc: func(_, obj any) {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, obj.(*corev1.Pod))
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		run(t, s)
		mcenvtest.Eventually(t, unitTimeout, "the registration synced", reg.HasSynced)
		src.Modify(pod("a"))
		mcenvtest.Eventually(t, unitTimeout, "the update delivered", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(seen) == 2
		})
		mu.Lock()
		for _, p := range seen {
			if p.Labels["transformed"] != "yes" {
				t.Errorf("a handler got %s untransformed", p.ResourceVersion)
			}
		}
		mu.Unlock()
		for _, obj := range s.GetStore().List() {
			if obj.(*corev1.Pod).Labels["transformed"] != "yes" {
				t.Error("the store holds an untransformed object")
			}
		}
		if err := s.SetTransform(nil); err == nil {
			t.Error("SetTransform succeeded after the start")
		}
	})
}

func TestRemoveEventHandler(t *testing.T) {
	forEachQueue(t, func(t *testing.T, k queueKind) {
		src := fcache.NewFakeControllerSource()
		src.Add(pod("a"))
		s := newInformer(src, k, 0)
		removed, kept := newRecorder(), newRecorder()
		regRemoved, err := s.AddEventHandler(removed)
		if err != nil {
			t.Fatal(err)
		}
		regKept, err := s.AddEventHandler(kept)
		if err != nil {
			t.Fatal(err)
		}
		run(t, s)
		mcenvtest.Eventually(t, unitTimeout, "the registrations synced", func() bool {
			return regRemoved.HasSynced() && regKept.HasSynced()
		})
		if err := toolscache.ShutDownEventHandler(s, regRemoved); err != nil {
			t.Fatal(err)
		}
		if err := s.RemoveEventHandler(regRemoved); err != nil {
			t.Errorf("removing twice: %v", err)
		}
		src.Add(pod("b"))
		mcenvtest.Eventually(t, unitTimeout, "the add delivered", func() bool { return kept.count(adds, "ns/b") == 1 })
		if removed.count(adds, "ns/b") != 0 {
			t.Error("a removed handler was called")
		}
		other := New(fakeSource{src}, &corev1.Pod{}, 0, nil)
		if err := other.RemoveEventHandler(regKept); err == nil {
			t.Error("another informer removed the registration")
		}
	})
}

func TestResync(t *testing.T) {
	forEachQueue(t, func(t *testing.T, k queueKind) {
		src := fcache.NewFakeControllerSource()
		src.Add(pod("a"))
		s := newInformer(src, k, time.Second)
		resynced, never := newRecorder(), newRecorder()
		if _, err := s.AddEventHandler(resynced); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddEventHandlerWithResyncPeriod(never, 0); err != nil {
			t.Fatal(err)
		}
		run(t, s)
		mcenvtest.Eventually(t, unitTimeout, "a resync", func() bool { return resynced.count(syncs, "ns/a") >= 1 })
		resynced.check(t)
		never.check(t)
		if got := never.count(syncs, "ns/a"); got != 0 {
			t.Errorf("a handler without resyncs got %d", got)
		}
	})
}

func TestLifecycle(t *testing.T) {
	src := fcache.NewFakeControllerSource()
	src.Add(pod("a"))
	s := New(fakeSource{src}, &corev1.Pod{}, 0, toolscache.Indexers{}).(*sharedIndexInformer)
	if s.HasStarted() || s.IsStopped() || s.LastSyncResourceVersion() != "" {
		t.Fatal("an informer not run looks started")
	}
	if err := s.SetWatchErrorHandler(func(*toolscache.Reflector, error) {}); err != nil {
		t.Fatal(err)
	}
	stop := run(t, s)
	mcenvtest.Eventually(t, unitTimeout, "the informer synced", s.HasSynced)
	select {
	case <-s.HasSyncedChecker().Done():
	default:
		t.Error("HasSyncedChecker is not done once synced")
	}
	if !s.GetController().HasSynced() {
		t.Error("the controller has not synced")
	}
	if !s.HasStarted() {
		t.Error("not started")
	}
	if err := s.SetWatchErrorHandlerWithContext(nil); err == nil {
		t.Error("SetWatchErrorHandlerWithContext succeeded after the start")
	}
	// An index added while running indexes the objects already stored.
	if err := s.AddIndexers(toolscache.Indexers{"name": func(obj any) ([]string, error) {
		return []string{obj.(*corev1.Pod).Name}, nil
	}}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetIndexer().ByIndex("name", "a"); err != nil || len(got) != 1 {
		t.Errorf("index of the stored objects: %v, %v", got, err)
	}
	// A second run returns at once.
	s.Run(t.Context().Done())

	stop()
	if !s.IsStopped() {
		t.Error("not stopped")
	}
	if _, err := s.AddEventHandler(newRecorder()); err == nil {
		t.Error("a handler was added to a stopped informer")
	}
	if err := s.AddIndexers(toolscache.Indexers{"other": toolscache.MetaNamespaceIndexFunc}); err == nil {
		t.Error("an index was added to a stopped informer")
	}
}

// TestJoinWhileBusy adds handlers while the informer applies a stream of changes: each must see every object once
// as an add and then exactly the later changes.
func TestJoinWhileBusy(t *testing.T) {
	forEachQueue(t, func(t *testing.T, k queueKind) {
		src := fcache.NewFakeControllerSource()
		const objects = 20
		for i := range objects {
			src.Add(pod(fmt.Sprintf("p%d", i)))
		}
		s := newInformer(src, k, 0)
		run(t, s)
		mcenvtest.Eventually(t, unitTimeout, "the informer synced", s.HasSynced)

		ctx, cancel := context.WithCancel(t.Context())
		written := make(chan struct{})
		go func() {
			defer close(written)
			for n := 0; ctx.Err() == nil; n++ {
				p := pod(fmt.Sprintf("p%d", n%objects))
				p.Labels = map[string]string{"n": fmt.Sprint(n)}
				src.Modify(p)
			}
		}()
		recorders := make([]*recorder, 0, 5)
		for range 5 {
			r := newRecorder()
			if _, err := s.AddEventHandler(r); err != nil {
				t.Fatal(err)
			}
			recorders = append(recorders, r)
		}
		cancel()
		<-written
		mcenvtest.Eventually(t, unitTimeout, "the last changes stored", func() bool { return storeMatchesSource(s, src) })
		final := map[string]string{}
		for _, obj := range s.GetStore().List() {
			final[obj.(*corev1.Pod).Name] = obj.(*corev1.Pod).ResourceVersion
		}
		for i, r := range recorders {
			r.check(t)
			r.mu.Lock()
			for name, rv := range final {
				if got := r.objects["ns/"+name]; got != rv {
					t.Errorf("handler %d has %s at %s, the store at %s", i, name, got, rv)
				}
				if r.adds["ns/"+name] != 1 {
					t.Errorf("handler %d got %d adds of %s", i, r.adds["ns/"+name], name)
				}
			}
			r.mu.Unlock()
		}
	})
}

// storeMatchesSource reports whether s stores the objects of src at their latest resource version.
func storeMatchesSource(s toolscache.SharedIndexInformer, src *fcache.FakeControllerSource) bool {
	list, err := src.List(metav1.ListOptions{})
	if err != nil {
		return false
	}
	items := list.(*corev1.List).Items
	if len(items) != len(s.GetStore().ListKeys()) {
		return false
	}
	for _, item := range items {
		want := item.Object.(*corev1.Pod)
		got, exists, err := s.GetStore().GetByKey(want.Namespace + "/" + want.Name)
		if err != nil || !exists || got.(*corev1.Pod).ResourceVersion != want.ResourceVersion {
			return false
		}
	}
	return true
}
